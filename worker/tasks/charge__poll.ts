import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { chargeStatus, type PaymentStatus, type StoredCharge } from '../../api/billing/providers/index.ts';
import type { WorkerContext } from '../context.ts';

const Payload = z.object({ reference: z.string().min(1).max(64), attempt: z.number().int().min(0).default(0) });

/** A charge still pending this long after it was asked is `expired` (CONTRACT section 10). */
export const CHARGE_LIFETIME_MS = 24 * 3_600_000;

/** The wait before the next poll of a pending charge: 10 s, doubling, at most 10 minutes. */
export const pollDelayMs = (attempt: number) => Math.min(10_000 * 2 ** attempt, 600_000);

/**
 * Queued with each charge (POST /billing/subscribe, job key `charge_poll:<reference>`): asks the
 * charge's provider how it stands and settles it (charge_settle: once, whoever else confirms or
 * polls at the same time), then polls again later while it is pending, backing off; past 24 hours it
 * is expired. Safe to run twice or to crash anywhere: a settled charge is left alone, and a crash
 * between the provider's answer and the commit only means the next poll asks again.
 */
export const chargePoll = (ctx: WorkerContext): Task => async (raw, helpers) => {
  const { reference, attempt } = Payload.parse(raw);
  const { rows } = await helpers.query<Omit<StoredCharge, 'reference'> & { status: string; age_ms: number }>(
    `select id, status, provider, amount_xaf, phone, method, extract(epoch from now() - created_at) * 1000 as age_ms
       from subscription_charges where reference = $1`,
    [reference],
  );
  const charge = rows[0];
  if (!charge || charge.status !== 'pending') return;
  if (charge.age_ms > CHARGE_LIFETIME_MS) {
    await helpers.query(`select charge_settle($1, 'expired')`, [reference]);
    return;
  }
  let answer: PaymentStatus;
  try {
    answer = await chargeStatus(ctx.config, { ...charge, reference });
  } catch (error) {
    helpers.logger.warn(`charge ${reference}: the provider could not be asked (${(error as Error).message}); polling again later`);
    answer = { status: 'pending' };
  }
  const { rows: settled } = await helpers.query<{ status: string }>(`select status from charge_settle($1, $2, $3)`, [
    reference,
    answer.status,
    answer.status === 'failed' ? answer.reason : null,
  ]);
  if (settled[0]?.status === 'pending') {
    await helpers.addJob('charge__poll', { reference, attempt: attempt + 1 }, { jobKey: `charge_poll:${reference}`, runAt: new Date(Date.now() + pollDelayMs(attempt)) });
  }
};
