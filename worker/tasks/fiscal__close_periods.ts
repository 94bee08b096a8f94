import type { Task } from 'graphile-worker';

/**
 * Hourly (crontab, with backfill): seals each shop's monthly and yearly fiscal closings once the
 * period has ended in the shop's time zone (CONTRACT section 13), from the month and year of its first
 * entry, oldest first, a year after its December. Each closing is one short transaction of
 * fiscal_close_next (db/functions/fiscal/fiscal_closings.sql), which locks nothing while none is due.
 * Safe to run again or on several workers at once: a closing is made once (the later caller finds it
 * made). A crash leaves the closings not yet made for the next run.
 */
export const fiscalClosePeriods: Task = async (_payload, helpers) => {
  const { rows } = await helpers.query<{ shop_id: string }>(`select shop_id from receipt_counters where chain_no > 0 order by shop_id`);
  let sealed = 0;
  for (const { shop_id } of rows) {
    for (;;) {
      const { rows: done } = await helpers.query<{ closing: string | null }>(`select fiscal_close_next($1) as closing`, [shop_id]);
      if (!done[0]?.closing) break;
      sealed++;
    }
  }
  if (sealed) helpers.logger.info(`sealed ${sealed} fiscal closing(s) of ${rows.length} shop(s)`);
};
