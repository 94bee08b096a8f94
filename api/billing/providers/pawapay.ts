import type { Config } from '../../config.ts';
import { msisdn } from './msisdn.ts';
import type { ChargeMethod, FailureReason, MobileMoneyProvider, PayerCheck, PaymentRequest, PaymentStatus, RequestOutcome } from './types.ts';

type PawapayConfig = Pick<Config, 'PAWAPAY_BASE_URL' | 'PAWAPAY_API_TOKEN' | 'PAWAPAY_TIMEOUT_MS' | 'MOMO_COUNTRY_CODE'>;

/**
 * pawaPay Merchant API v2, deposits (a deposit collects money from the payer's wallet), written from:
 * - https://docs.pawapay.io/v2/api-reference/deposits/initiate-deposit  POST /v2/deposits
 *   {depositId (UUID v4), amount (string), currency, payer: {type: MMO, accountDetails: {phoneNumber, provider}},
 *   clientReferenceId?, customerMessage? (4-22 of [a-zA-Z0-9 ])} -> {depositId, status: ACCEPTED | REJECTED |
 *   DUPLICATE_IGNORED, failureReason?: {failureCode, failureMessage}, created?}; idempotent on depositId.
 * - https://docs.pawapay.io/v2/api-reference/deposits/check-deposit-status  GET /v2/deposits/{depositId}
 *   -> {status: FOUND | NOT_FOUND, data?: {depositId, status, amount, currency, payer, failureReason?, ...}}.
 * - https://docs.pawapay.io/v2/api-reference/toolkit/predict-provider  POST /v2/predict-provider {phoneNumber}
 *   -> {country, provider, phoneNumber}.
 * - https://docs.pawapay.io/v2/docs/failure_codes (technical codes and their HTTP statuses: 401/403 token,
 *   400 unparseable or invalid request, 200 REJECTED with a reason, 500 UNKNOWN_ERROR) and
 *   https://docs.pawapay.io/v2/docs/test_numbers (deposit failure codes; MTN_MOMO_CMR and ORANGE_CMR).
 * - https://docs.pawapay.io/v2/docs/what_to_know#callbacks: callback URLs are set in the pawaPay dashboard,
 *   and a deposit request has no field for one, so `request.callbackUrl` is not sent.
 * Requests are not signed (RFC 9421): an account set to "only accept signed requests" answers 403, i.e. unknown.
 */

/** The provider code of each method (Cameroon). */
export const PAWAPAY_PROVIDERS: Record<ChargeMethod, string> = { carrier1_momo: 'MTN_MOMO_CMR', carrier2_money: 'ORANGE_CMR' };

/**
 * Our reason for each documented failure code of a deposit (FAILED) or of its initiation (REJECTED).
 * The docs list no code for a request that timed out at the operator (a PIN prompt left unanswered is
 * PAYMENT_NOT_APPROVED), so `expired` is never given. A code not listed here is `provider_rejected`.
 */
export const PAWAPAY_FAILURE_REASONS: Readonly<Record<string, FailureReason>> = {
  PAYMENT_NOT_APPROVED: 'payer_declined',
  INSUFFICIENT_BALANCE: 'not_enough_funds',
  PAYER_LIMIT_REACHED: 'payer_limit_reached',
  // For a deposit the wallet whose limit is reached is the payer's.
  WALLET_LIMIT_REACHED: 'payer_limit_reached',
  PAYER_NOT_FOUND: 'payer_not_found',
  // A number pawaPay cannot take as an MSISDN has no wallet either: the same answer as checkPayer gives.
  INVALID_PHONE_NUMBER: 'payer_not_found',
  PAYMENT_IN_PROGRESS: 'provider_rejected',
  TRANSACTION_ALREADY_IN_PROCESS: 'provider_rejected',
  UNSPECIFIED_FAILURE: 'provider_rejected',
  UNKNOWN_ERROR: 'provider_rejected',
};

export const pawapayFailureReason = (code: string | undefined): FailureReason =>
  code !== undefined && Object.hasOwn(PAWAPAY_FAILURE_REASONS, code) ? PAWAPAY_FAILURE_REASONS[code]! : 'provider_rejected';

/** 400s that say the request itself was refused before anything was asked of the payer. */
const REQUEST_REFUSED = new Set(['INVALID_INPUT', 'MISSING_PARAMETER', 'UNSUPPORTED_PARAMETER', 'INVALID_PARAMETER', 'DUPLICATE_METADATA_FIELD']);
/** Non-final deposit statuses: SUBMITTED is the name the sandbox test numbers page still uses. */
const IN_FLIGHT = new Set(['ACCEPTED', 'SUBMITTED', 'PROCESSING', 'IN_RECONCILIATION']);

type Answer = { ok: true; status: number; body: any } | { ok: false; detail: string };

/** The failure code of an answer, reduced to what a code can be: nothing pawaPay echoes reaches a log. */
const codeOf = (reason: unknown): string | undefined => {
  const code = (reason as { failureCode?: unknown } | null | undefined)?.failureCode;
  return typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code) ? code : undefined;
};

export function pawaPay(config: PawapayConfig): MobileMoneyProvider {
  const base = config.PAWAPAY_BASE_URL.replace(/\/+$/, '');

  const call = async (what: string, path: string, method: 'GET' | 'POST', body?: unknown): Promise<Answer> => {
    if (!config.PAWAPAY_API_TOKEN) return { ok: false, detail: `pawaPay ${what}: no API token configured` };
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${config.PAWAPAY_API_TOKEN}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(config.PAWAPAY_TIMEOUT_MS),
      });
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the callers find no status in it and answer unknown.
      }
      return { ok: true, status: response.status, body: parsed };
    } catch (error) {
      // The error's own message may name the URL or the socket: only its kind is kept.
      return { ok: false, detail: `pawaPay ${what}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}` };
    }
  };

  /** Why an answer could not be used: its HTTP status and failure code, never its text. */
  const unusable = (what: string, answer: Answer): string => {
    if (!answer.ok) return answer.detail;
    const code = codeOf(answer.body?.failureReason);
    return `pawaPay ${what}: HTTP ${answer.status}${code ? ` ${code}` : ''}${answer.status === 200 ? ' (answer not understood)' : ''}`;
  };

  return {
    name: 'pawapay',

    async checkPayer(phone: string, method: ChargeMethod): Promise<PayerCheck> {
      // pawaPay has no wallet look-up for deposits: predict-provider validates the number and names its
      // operator, so "active" means a valid number of that operator, not a wallet known to exist.
      const answer = await call('predict-provider', '/v2/predict-provider', 'POST', { phoneNumber: msisdn(phone, config.MOMO_COUNTRY_CODE) });
      if (answer.ok && answer.status === 200 && typeof answer.body?.provider === 'string') {
        return answer.body.provider === PAWAPAY_PROVIDERS[method] ? { payer: 'active' } : { payer: 'not_found' };
      }
      const code = answer.ok ? codeOf(answer.body?.failureReason) : undefined;
      // The phone number is the only parameter: an invalid one is the number itself.
      if (answer.ok && (answer.status === 200 || answer.status === 400) && (code === 'INVALID_PHONE_NUMBER' || code === 'INVALID_PARAMETER')) {
        return { payer: 'not_found' };
      }
      return { payer: 'unknown', detail: unusable('predict-provider', answer) };
    },

    async requestPayment(request: PaymentRequest): Promise<RequestOutcome> {
      const reference = request.reference.replace(/[^a-zA-Z0-9]/g, '');
      const answer = await call('deposit', '/v2/deposits', 'POST', {
        depositId: request.requestId,
        amount: String(request.amountXaf),
        currency: 'XAF',
        payer: { type: 'MMO', accountDetails: { phoneNumber: msisdn(request.phone, config.MOMO_COUNTRY_CODE), provider: PAWAPAY_PROVIDERS[request.method] } },
        clientReferenceId: request.reference.slice(0, 36),
        customerMessage: `Abonnement ${reference.slice(0, 11)}`.trim(),
      });
      if (answer.ok && answer.status === 200) {
        const code = codeOf(answer.body?.failureReason);
        switch (answer.body?.status) {
          case 'ACCEPTED':
          case 'DUPLICATE_IGNORED': // pawaPay already has this depositId: the same payment.
            return { outcome: 'accepted' };
          case 'REJECTED':
            return { outcome: 'rejected', reason: pawapayFailureReason(code), detail: `pawaPay deposit: REJECTED ${code ?? 'without a failure code'}` };
        }
      }
      if (answer.ok && answer.status === 400) {
        const code = codeOf(answer.body?.failureReason);
        if (code && REQUEST_REFUSED.has(code)) return { outcome: 'rejected', reason: 'provider_rejected', detail: `pawaPay deposit: HTTP 400 ${code}` };
      }
      // 401/403 (our token or signature), 429, 5xx, UNKNOWN_ERROR, anything else: the payer may still be asked.
      return { outcome: 'unknown', detail: unusable('deposit', answer) };
    },

    async paymentStatus(request: PaymentRequest): Promise<PaymentStatus> {
      const answer = await call('deposit status', `/v2/deposits/${encodeURIComponent(request.requestId)}`, 'GET');
      if (answer.ok && answer.status === 200) {
        if (answer.body?.status === 'NOT_FOUND') return { status: 'not_found' };
        const deposit = answer.body?.status === 'FOUND' ? answer.body.data : undefined;
        const state = deposit?.status;
        if (state === 'COMPLETED') return { status: 'succeeded' };
        if (state === 'FAILED') {
          const code = codeOf(deposit.failureReason);
          return { status: 'failed', reason: pawapayFailureReason(code), detail: `pawaPay deposit: FAILED ${code ?? 'without a failure code'}` };
        }
        if (typeof state === 'string' && IN_FLIGHT.has(state)) return { status: 'pending' };
      }
      return { status: 'unknown', detail: unusable('deposit status', answer) };
    },
  };
}
