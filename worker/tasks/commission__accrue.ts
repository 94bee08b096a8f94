import type { Task } from 'graphile-worker';
import { z } from 'zod';

const Payload = z.object({ reference: z.string().min(1).max(64) });

/**
 * The partner's commission on one succeeded subscription charge, queued by charge_settle in the
 * transaction that marked it succeeded. The rules (rate, commission months, suspended partners, one
 * line per charge however often it runs) are commission_accrue's
 * (db/functions/partners/commission_accrue.sql).
 */
export const commissionAccrue: Task = async (payload, helpers) => {
  const { reference } = Payload.parse(payload);
  const { rows } = await helpers.query<{ amount_xaf: string | null }>('select (commission_accrue($1)).amount_xaf', [reference]);
  if (rows[0]?.amount_xaf != null) helpers.logger.info(`commission of ${rows[0].amount_xaf} XAF accrued on ${reference}`);
};
