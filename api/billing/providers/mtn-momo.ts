import type { Config } from '../../config.ts';
import { msisdn } from './msisdn.ts';
import type { ChargeMethod, FailureReason, MobileMoneyProvider, PayerCheck, PaymentRequest, PaymentStatus, RequestOutcome } from './types.ts';

type MomoConfig = Pick<
  Config,
  'MOMO_BASE_URL' | 'MOMO_TARGET_ENVIRONMENT' | 'MOMO_CURRENCY' | 'MOMO_API_USER' | 'MOMO_API_KEY' | 'MOMO_SUBSCRIPTION_KEY' | 'MOMO_COUNTRY_CODE' | 'MOMO_TIMEOUT_MS'
>;

/**
 * MTN Mobile Money's Collection API, as MTN documents it (momodeveloper.mtn.com: "API documentation"
 * for Collection, "Common Error Codes", "Callback"):
 * - `POST /collection/token/` (Basic API user and key, `Ocp-Apim-Subscription-Key`) gives
 *   `{access_token, token_type, expires_in}`; the token is kept until a minute before it expires, one
 *   fetch at a time per process; a 401 on a call drops it, and the call is sent once more with a new one.
 * - `GET /collection/v1_0/accountholder/msisdn/{msisdn}/active`: `{result: true|false}`.
 * - `POST /collection/v1_0/requesttopay` with `X-Reference-Id` (a UUID v4: the charge's id) and,
 *   when PUBLIC_BASE_URL is set, `X-Callback-Url`: 202 taken; 409 `RESOURCE_ALREADY_EXIST` taken
 *   already (a re-send); 400 refused (the request breaks the specification: never taken).
 * - `GET /collection/v1_0/requesttopay/{X-Reference-Id}`: `{status: PENDING|SUCCESSFUL|FAILED, reason}`;
 *   404 `RESOURCE_NOT_FOUND`: MTN has no such request.
 * Anything else (a timeout, a network error, a 5xx, a 429, an answer of another shape) is unknown.
 * Secrets travel in headers only and never reach a `detail`.
 */
export function mtnMomo(config: MomoConfig): MobileMoneyProvider {
  const base = config.MOMO_BASE_URL.replace(/\/+$/, '');
  let token: { value: string; until: number } | null = null;
  let fetching: Promise<string> | null = null;

  /** A call's answer, or why there is none. */
  const call = async (path: string, init: RequestInit): Promise<Response | string> => {
    try {
      return await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(config.MOMO_TIMEOUT_MS) });
    } catch (error) {
      return (error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable';
    }
  };

  const fetchToken = async (): Promise<string> => {
    const basic = btoa(`${config.MOMO_API_USER}:${config.MOMO_API_KEY}`);
    const response = await call('/collection/token/', {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': config.MOMO_SUBSCRIPTION_KEY! },
    });
    if (typeof response === 'string') throw new Error(`token: ${response}`);
    if (response.status !== 200) throw new Error(`token: HTTP ${response.status}`);
    const body = (await response.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (typeof body?.access_token !== 'string' || !body.access_token) throw new Error('token: no access_token in the answer');
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    token = { value: body.access_token, until: Date.now() + Math.max(lifetime / 2, lifetime - 60) * 1000 };
    return token.value;
  };

  /** The token in hand while it is fresh; else one fetch, shared by every call waiting for it. */
  const accessToken = (): Promise<string> => {
    if (token && token.until > Date.now()) return Promise.resolve(token.value);
    fetching ??= fetchToken().finally(() => (fetching = null));
    return fetching;
  };

  /** An authorised call; a 401 (the token expired or was revoked) drops the token and is sent once more with a new one. */
  const authorised = async (path: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Response | string> => {
    for (let attempt = 0; ; attempt++) {
      let bearer: string;
      try {
        bearer = await accessToken();
      } catch (error) {
        return (error as Error).message;
      }
      const response = await call(path, {
        ...init,
        headers: {
          ...init.headers,
          authorization: `Bearer ${bearer}`,
          'x-target-environment': config.MOMO_TARGET_ENVIRONMENT,
          'ocp-apim-subscription-key': config.MOMO_SUBSCRIPTION_KEY!,
        },
      });
      if (typeof response === 'string' || response.status !== 401 || attempt > 0) return response;
      if (token?.value === bearer) token = null;
    }
  };

  const describe = (what: string, response: Response | string) => `MTN MoMo ${what}: ${typeof response === 'string' ? response : `HTTP ${response.status}`}`;

  return {
    name: 'mtn_momo',
    async checkPayer(phone: string, _method: ChargeMethod): Promise<PayerCheck> {
      const response = await authorised(`/collection/v1_0/accountholder/msisdn/${msisdn(phone, config.MOMO_COUNTRY_CODE)}/active`, { method: 'GET' });
      if (typeof response !== 'string' && response.status === 200) {
        const body = (await response.json().catch(() => null)) as { result?: unknown } | null;
        if (body?.result === true) return { payer: 'active' };
        if (body?.result === false) return { payer: 'not_found' };
      }
      return { payer: 'unknown', detail: describe('accountholder', response) };
    },

    async requestPayment(request: PaymentRequest): Promise<RequestOutcome> {
      const response = await authorised('/collection/v1_0/requesttopay', {
        method: 'POST',
        headers: {
          'x-reference-id': request.requestId,
          'content-type': 'application/json',
          ...(request.callbackUrl ? { 'x-callback-url': request.callbackUrl } : {}),
        },
        body: JSON.stringify({
          amount: String(request.amountXaf),
          currency: config.MOMO_CURRENCY,
          externalId: request.reference,
          payer: { partyIdType: 'MSISDN', partyId: msisdn(request.phone, config.MOMO_COUNTRY_CODE) },
          payerMessage: `Abonnement ${request.reference}`.slice(0, 160),
          payeeNote: request.reference,
        }),
      });
      if (typeof response !== 'string') {
        if (response.status === 202) return { outcome: 'accepted' };
        if (response.status === 409) return { outcome: 'accepted' };
        if (response.status === 400) return { outcome: 'rejected', reason: 'provider_rejected', detail: describe('requesttopay', response) };
      }
      return { outcome: 'unknown', detail: describe('requesttopay', response) };
    },

    async paymentStatus(request: PaymentRequest): Promise<PaymentStatus> {
      const response = await authorised(`/collection/v1_0/requesttopay/${request.requestId}`, { method: 'GET' });
      if (typeof response === 'string') return { status: 'unknown', detail: describe('requesttopay status', response) };
      if (response.status === 404) return { status: 'not_found' };
      if (response.status !== 200) return { status: 'unknown', detail: describe('requesttopay status', response) };
      const body = (await response.json().catch(() => null)) as { status?: unknown; reason?: unknown } | null;
      switch (body?.status) {
        case 'SUCCESSFUL':
          return { status: 'succeeded' };
        case 'PENDING':
          return { status: 'pending' };
        case 'FAILED': {
          const code = typeof body.reason === 'string' ? body.reason : String((body.reason as { code?: unknown } | null)?.code ?? '');
          return { status: 'failed', reason: momoFailureReason(code), detail: `MTN MoMo reason ${code.slice(0, 60) || 'none'}` };
        }
        default:
          return { status: 'unknown', detail: `MTN MoMo requesttopay status: unknown status ${JSON.stringify(body?.status ?? null).slice(0, 40)}` };
      }
    },
  };
}

/** MTN's reasons of a FAILED request to pay (the Collection API's `ErrorReason` codes), as ours. */
const MOMO_REASONS: Record<string, FailureReason> = {
  PAYER_NOT_FOUND: 'payer_not_found',
  NOT_ENOUGH_FUNDS: 'not_enough_funds',
  PAYER_LIMIT_REACHED: 'payer_limit_reached',
  APPROVAL_REJECTED: 'approval_rejected',
  PAYMENT_NOT_APPROVED: 'payer_declined',
  EXPIRED: 'expired',
  TRANSACTION_CANCELED: 'transaction_canceled',
};

/** A FAILED request's reason as ours; any other MTN code (NOT_ALLOWED, INVALID_CURRENCY...) is the operator's refusal. */
export const momoFailureReason = (code: string): FailureReason => MOMO_REASONS[code.toUpperCase()] ?? 'provider_rejected';
