import type { Config } from '../../config.ts';
import type { MobileMoneyProvider, PaymentRequest, PaymentStatus } from './types.ts';

type MomoConfig = Pick<
  Config,
  'MOMO_BASE_URL' | 'MOMO_TARGET_ENVIRONMENT' | 'MOMO_CURRENCY' | 'MOMO_API_USER' | 'MOMO_API_KEY' | 'MOMO_SUBSCRIPTION_KEY' | 'MOMO_COUNTRY_CODE' | 'MOMO_TIMEOUT_MS'
>;

/** A failure of the provider (refused, unreachable, too slow): its status code at most, never a secret. */
export class ProviderError extends Error {
  override name = 'ProviderError';
}

/**
 * MTN Mobile Money's Collection API (momodeveloper.mtn.com): an access token from
 * `POST /collection/token/` (Basic API user and key, the subscription key), kept until shortly
 * before it expires; `POST /collection/v1_0/requesttopay` with the charge's id as `X-Reference-Id`
 * (a UUID: a retry of the same request is the same payment, 409 at MTN); then
 * `GET /collection/v1_0/requesttopay/{X-Reference-Id}`: PENDING, SUCCESSFUL, or FAILED with its
 * reason (PAYER_NOT_FOUND, APPROVAL_REJECTED, EXPIRED, NOT_ENOUGH_FUNDS...), answered as
 * `failure_reason` in lower case. A request still unknown to MTN (404) is pending. Every call has
 * MOMO_TIMEOUT_MS; secrets travel in headers only and never reach an error or a log.
 */
export function mtnMomo(config: MomoConfig): MobileMoneyProvider {
  const base = config.MOMO_BASE_URL.replace(/\/+$/, '');
  let token: { value: string; until: number } | null = null;

  const call = async (path: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(config.MOMO_TIMEOUT_MS) });
    } catch (error) {
      throw new ProviderError(`MTN MoMo ${path.split('/').slice(0, 4).join('/')}: ${(error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}`);
    }
  };

  const accessToken = async (): Promise<string> => {
    if (token && token.until > Date.now()) return token.value;
    const basic = Buffer.from(`${config.MOMO_API_USER}:${config.MOMO_API_KEY}`).toString('base64');
    const response = await call('/collection/token/', {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': config.MOMO_SUBSCRIPTION_KEY! },
    });
    if (response.status !== 200) throw new ProviderError(`MTN MoMo token: HTTP ${response.status}`);
    const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
    if (!body?.access_token) throw new ProviderError('MTN MoMo token: no access_token in the answer');
    token = { value: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 3600) - 60) * 1000 };
    return token.value;
  };

  const headers = async (referenceId: string) => ({
    authorization: `Bearer ${await accessToken()}`,
    'x-reference-id': referenceId,
    'x-target-environment': config.MOMO_TARGET_ENVIRONMENT,
    'ocp-apim-subscription-key': config.MOMO_SUBSCRIPTION_KEY!,
  });

  /** The payer's MSISDN: digits only, the country code put before a local number. */
  const msisdn = (phone: string) => {
    const digits = phone.replace(/\D/g, '').replace(/^00/, '');
    return digits.length <= 9 ? `${config.MOMO_COUNTRY_CODE}${digits}` : digits;
  };

  const expireTokenOn401 = (response: Response) => {
    if (response.status === 401) token = null;
  };

  return {
    name: 'mtn_momo',
    async requestPayment(request: PaymentRequest): Promise<void> {
      const response = await call('/collection/v1_0/requesttopay', {
        method: 'POST',
        headers: { ...(await headers(request.chargeId)), 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: String(request.amountXaf),
          currency: config.MOMO_CURRENCY,
          externalId: request.reference,
          payer: { partyIdType: 'MSISDN', partyId: msisdn(request.phone) },
          payerMessage: `Abonnement ${request.reference}`,
          payeeNote: request.reference,
        }),
      });
      expireTokenOn401(response);
      // 409: this X-Reference-Id was already sent (a retry): the same payment.
      if (response.status !== 202 && response.status !== 409) throw new ProviderError(`MTN MoMo requesttopay: HTTP ${response.status}`);
    },
    async paymentStatus(request: PaymentRequest): Promise<PaymentStatus> {
      const response = await call(`/collection/v1_0/requesttopay/${request.chargeId}`, { method: 'GET', headers: await headers(request.chargeId) });
      expireTokenOn401(response);
      if (response.status === 404) return { status: 'pending' };
      if (response.status !== 200) throw new ProviderError(`MTN MoMo requesttopay status: HTTP ${response.status}`);
      const body = (await response.json().catch(() => null)) as { status?: string; reason?: string | { code?: string } } | null;
      switch (body?.status) {
        case 'SUCCESSFUL':
          return { status: 'succeeded' };
        case 'FAILED': {
          const reason = typeof body.reason === 'string' ? body.reason : body.reason?.code;
          return { status: 'failed', reason: (reason ?? 'failed').toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 60) };
        }
        case 'PENDING':
          return { status: 'pending' };
        default:
          throw new ProviderError(`MTN MoMo requesttopay status: unknown status ${JSON.stringify(body?.status ?? null).slice(0, 40)}`);
      }
    },
  };
}
