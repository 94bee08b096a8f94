import type { JobHelpers, Task } from 'graphile-worker';
import { z } from 'zod';
import { askProvider, pollDelayMs, type ChargeBook, type PendingCharge } from '../../api/billing/charges.ts';
import type { WorkerContext } from '../context.ts';

const Payload = z.object({ reference: z.string().min(1).max(64) });

/** The charge's book through the worker's own connections: each write its own statement, none open across a call to the provider. */
const bookOf = (helpers: JobHelpers): ChargeBook => ({
  async noteRequest(reference, acknowledged) {
    await helpers.query('select charge_note_request($1, $2)', [reference, acknowledged]);
  },
  async settle(reference, status, reason) {
    await helpers.query('select 1 from charge_settle($1, $2, $3)', [reference, status, reason]);
  },
});

/**
 * Queued with each charge, in the transaction that made it (POST /billing/subscribe, job key
 * `charge_poll:<reference>`), to run at once; brought forward by a provider's callback. Sends the
 * request to pay once the charge has committed, then asks how it stands (api/billing/charges.ts),
 * and comes back while it is pending, less often as it ages; past 24 hours it is expired. Safe to
 * run twice or to die anywhere: the same request sent again is the same payment at the provider, a
 * settled charge is left alone, and a death between the provider's answer and its record only means
 * the next run asks again.
 */
export const chargePoll = (ctx: WorkerContext): Task => async (raw, helpers) => {
  const { reference } = Payload.parse(raw);
  const { rows } = await helpers.query<PendingCharge & { status: string }>(
    `select id, reference, status, provider, amount_xaf, phone, method, created_at, requested_at, acknowledged_at
       from subscription_charges where reference = $1`,
    [reference],
  );
  const charge = rows[0];
  if (!charge || charge.status !== 'pending') return;
  const now = new Date();
  const outcome = await askProvider(charge, { config: ctx.config, book: bookOf(helpers), log: ctx.log, now });
  if (outcome === 'pending') {
    const delay = pollDelayMs(now.getTime() - charge.created_at.getTime());
    // A callback that came while this run asked has already queued the next run for now: it keeps its time.
    await helpers.addJob('charge__poll', { reference }, { jobKey: `charge_poll:${reference}`, jobKeyMode: 'preserve_run_at', runAt: new Date(Date.now() + delay) });
  }
};
