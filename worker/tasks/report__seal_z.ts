import type { Task } from 'graphile-worker';

/**
 * Hourly (crontab, with backfill): seals every business day that has ended in its shop's time zone
 * and is not sealed yet, day after day from the last one sealed (a shop's first run seals its days
 * since it opened). Each day is one short transaction of z_seal_next (db/functions/reports/z_seal.sql):
 * the shop's seal row locked, the Z stored when the day saw any activity, its e-mail queued with it.
 * Safe to run again or on several workers at once: a day is sealed once, the later caller finds it
 * done. A crash leaves the days not yet sealed for the next run.
 */
export const reportSealZ: Task = async (_payload, helpers) => {
  const { rows } = await helpers.query<{ shop_id: string }>(
    `select s.id as shop_id
       from shops s left join z_seals z on z.shop_id = s.id
      where coalesce(z.sealed_through, (s.created_at at time zone s.timezone)::date - 1) < (now() at time zone s.timezone)::date - 1
      order by s.id`,
  );
  let sealed = 0;
  for (const { shop_id } of rows) {
    for (;;) {
      const { rows: done } = await helpers.query<{ day: string | null }>(`select z_seal_next($1)::text as day`, [shop_id]);
      if (!done[0]?.day) break;
      sealed++;
    }
  }
  if (sealed) helpers.logger.info(`sealed ${sealed} business day(s) of ${rows.length} shop(s)`);
};
