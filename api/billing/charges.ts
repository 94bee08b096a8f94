/**
 * How a pending subscription charge moves forward (CONTRACT sections 10 and 12), the same for the
 * worker's poll (worker/tasks/charge__poll.ts) and for POST /billing/confirm: ask the charge's
 * provider, with no database transaction open, then write down what it said through the SQL
 * functions that own the charge (charge_note_request, charge_settle), each in its own short
 * statement. Only an answer of the provider settles a charge; whatever is unknown leaves it pending,
 * to be asked again.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { providerNamed, type PaymentRequest, type PaymentStatus } from './providers/index.ts';
import type { ChargeMethod, FailureReason } from './providers/types.ts';

/** A charge still pending this long after it was made is `expired` (CONTRACT section 10). */
export const CHARGE_LIFETIME_MS = 24 * 3_600_000;

/**
 * How long a provider may still answer "no such request" for a request it acknowledged before we
 * take it at its word (the request was lost on its side: the charge fails). MTN documents a 404 on
 * the status as "the request to pay was not successful"; the window covers a status read that
 * reaches a replica behind the one that took the request.
 */
export const APPROVAL_WINDOW_MS = 10 * 60_000;

/** The wait before the next question to the provider: a third of the charge's age, from 10 s up to 10 minutes. */
export const pollDelayMs = (ageMs: number) => Math.min(600_000, Math.max(10_000, Math.round(ageMs / 3)));

/** A pending charge as stored, as much of it as asking its provider needs. */
export interface PendingCharge {
  id: string;
  reference: string;
  provider: string;
  amount_xaf: string | number;
  phone: string;
  method: ChargeMethod;
  created_at: Date;
  requested_at: Date | null;
  acknowledged_at: Date | null;
}

/** Where what the provider said is written: the SQL functions, through the API's pool or the worker's. */
export interface ChargeBook {
  noteRequest(reference: string, acknowledged: boolean): Promise<void>;
  settle(reference: string, status: 'succeeded' | 'failed' | 'expired', reason: FailureReason | null): Promise<void>;
}

export interface Asking {
  config: Config;
  book: ChargeBook;
  log: Logger;
  now?: Date;
}

/** The URL a provider may call when the request moves: a hint that brings the next poll forward. */
export function callbackUrl(config: Config, provider: string, reference: string): string | undefined {
  if (!config.PUBLIC_BASE_URL) return undefined;
  return `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api/v1/billing/callbacks/${provider}/${encodeURIComponent(reference)}`;
}

/**
 * Asks the charge's provider once and writes down what it said: a charge never sent is sent; one
 * sent but not acknowledged is looked up first (the provider may have taken it while its answer was
 * lost) and sent again only when the provider does not know it; an acknowledged one is looked up.
 * Past its 24 hours, a charge is never sent: it is expired, unless the provider's last word settles it
 * (a payment approved late is still a payment); while the provider cannot be asked at all, it waits.
 * Answers whether the charge is still pending as far as this call knows.
 */
export async function askProvider(charge: PendingCharge, { config, book, log, now = new Date() }: Asking): Promise<'pending' | 'settled'> {
  const past = now.getTime() - charge.created_at.getTime() > CHARGE_LIFETIME_MS;
  const expire = async () => {
    await book.settle(charge.reference, 'expired', null);
    return 'settled' as const;
  };
  if (past && !charge.requested_at) return expire();
  const provider = providerNamed(config, charge.provider);
  const request: PaymentRequest = {
    requestId: charge.id,
    reference: charge.reference,
    amountXaf: Number(charge.amount_xaf),
    phone: charge.phone,
    method: charge.method,
    callbackUrl: callbackUrl(config, provider.name, charge.reference),
  };
  const unknown = (detail: string) => {
    log.warn({ reference: charge.reference, provider: provider.name, detail }, 'the provider gave no answer to rely on; the charge stays pending');
    return 'pending' as const;
  };

  /** Looks the request up; `acknowledgedAt`: since when the provider has said it has it (null: never). */
  const lookUp = async (acknowledgedAt: Date | null): Promise<'pending' | 'settled'> => {
    const status: PaymentStatus = await provider.paymentStatus(request).catch((error: Error) => ({ status: 'unknown' as const, detail: error.message }));
    switch (status.status) {
      case 'unknown':
        return unknown(status.detail);
      case 'not_found':
        if (past) return expire();
        if (!acknowledgedAt) return send();
        if (now.getTime() - acknowledgedAt.getTime() > APPROVAL_WINDOW_MS) {
          log.warn({ reference: charge.reference, provider: provider.name }, 'the provider no longer knows a request it acknowledged: the charge failed');
          await book.settle(charge.reference, 'failed', 'provider_rejected');
          return 'settled';
        }
        return 'pending';
      case 'pending':
        if (past) return expire();
        if (!acknowledgedAt) await book.noteRequest(charge.reference, true);
        return 'pending';
      case 'succeeded':
        await book.settle(charge.reference, 'succeeded', null);
        return 'settled';
      case 'failed':
        await book.settle(charge.reference, 'failed', status.reason);
        return 'settled';
    }
  };

  /** Sends the request (again: the same requestId is the same payment); once the provider has it, looks it up at once, since it may already be final. */
  const send = async (): Promise<'pending' | 'settled'> => {
    const outcome = await provider.requestPayment(request).catch((error: Error) => ({ outcome: 'unknown' as const, detail: error.message }));
    await book.noteRequest(charge.reference, outcome.outcome === 'accepted');
    switch (outcome.outcome) {
      case 'accepted':
        return lookUp(charge.acknowledged_at ?? now);
      case 'rejected':
        log.info({ reference: charge.reference, provider: provider.name, reason: outcome.reason, detail: outcome.detail }, 'the provider refused the request to pay');
        await book.settle(charge.reference, 'failed', outcome.reason);
        return 'settled';
      case 'unknown':
        return unknown(outcome.detail);
    }
  };

  return charge.requested_at ? lookUp(charge.acknowledged_at) : send();
}
