import type { Task } from 'graphile-worker';

/**
 * Hourly (crontab): each shop whose local time is past 07:00 and that has no digest for its calendar
 * day yet claims that day (alert_digests, one row per shop and day: a second run, or a second worker,
 * finds it taken) and, in the same short transaction, queues `alerts__send_digest`, which reads the
 * alerts and writes the mails. Claiming and queuing commit together: a crash between them leaves the
 * day unclaimed for the next run; nothing is held open while mail is sent.
 */
export const alertsDailyDigest: Task = async (_payload, helpers) => {
  const { rows } = await helpers.query<{ shop_id: string; day: string }>(
    `select s.id as shop_id, to_char((now() at time zone s.timezone)::date, 'YYYY-MM-DD') as day
       from shops s
      where (now() at time zone s.timezone)::time >= time '07:00'
        and not exists (select 1 from alert_digests d where d.shop_id = s.id and d.day = (now() at time zone s.timezone)::date)`,
  );
  for (const { shop_id, day } of rows) {
    await helpers.withPgClient(async (client) => {
      await client.query('begin');
      try {
        const claimed = await client.query(
          'insert into alert_digests (shop_id, day) values ($1, $2::date) on conflict do nothing returning shop_id',
          [shop_id, day],
        );
        if (claimed.rowCount) {
          await client.query(`select graphile_worker.add_job('alerts__send_digest', $1::json, job_key := $2)`, [
            JSON.stringify({ shop_id, day }),
            `alerts_digest:${shop_id}:${day}`,
          ]);
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    });
  }
};
