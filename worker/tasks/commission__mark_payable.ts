import type { Task } from 'graphile-worker';

/**
 * Daily (crontab): commission lines still pending 14 days after their charge succeeded (the refund
 * window; payable_after) become payable. A line an administrator put back to pending has no
 * payable_after and stays pending until one makes it payable. One statement: run twice, or on two
 * workers at once, the second finds nothing left to change. Lines are locked in id order, as a
 * payout locks them (POST /admin/partner-commissions/pay), so the two never deadlock.
 */
export const commissionMarkPayable: Task = async (_payload, helpers) => {
  const { rowCount } = await helpers.query(
    `update partner_commissions set status = 'payable'
      where id in (select id from partner_commissions where status = 'pending' and payable_after <= now() order by id for update)`,
  );
  if (rowCount) helpers.logger.info(`${rowCount} commission line(s) became payable`);
};
