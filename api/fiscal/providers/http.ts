/**
 * What both authorities' connectors share. The one HTTP call they make (e-MECeF and FNE document the
 * same conventions: JSON both ways, a bearer token), and the line between what certainly never reached
 * the authority and what may have: the whole difference between a record sent again freely and one that
 * never is. Their mapping tables' look-up, and the guard around a delivery.
 */
import type { CertificationRequest, DeliveryOutcome } from './types.ts';


/** A call's answer, or why there is none: `refused` when it never reached the authority, `lost` when it may have. */
export type Failure = { failure: 'refused' | 'lost'; detail: string };

/** Errors whose request certainly never reached the server (Node's fetch puts the system's code in `cause`). */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** `signal`: the worker's shutdown, which cuts a call still waiting at its deadline (an answer it may have lost). */
export async function authorityCall(
  url: string,
  call: { method: string; token: string; body?: unknown; timeoutMs: number; signal?: AbortSignal },
): Promise<Response | Failure> {
  try {
    return await fetch(url, {
      method: call.method,
      headers: {
        authorization: `Bearer ${call.token}`,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: call.signal ? AbortSignal.any([AbortSignal.timeout(call.timeoutMs), call.signal]) : AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string' && NEVER_CONNECTED.has(code)) return { failure: 'refused', detail: `unreachable (${code})` };
    // Our timeout cannot tell a connection never made from an answer not yet come: it may have been certified.
    if (call.signal?.aborted) return { failure: 'lost', detail: 'cut at the worker\'s shutdown' };
    return { failure: 'lost', detail: (error as Error).name === 'TimeoutError' ? 'timed out' : 'connection lost' };
  }
}

/** The answer's JSON object, or null (a body cut short by the timeout reads as null too). */
export async function readJsonObject(response: Response): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await response.json();
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A VAT rate (as text, "18" or "18.00") in a connector's table of tax groups; null for a rate it has none for, or text of another shape. */
export function taxGroupIn(groups: Readonly<Record<string, string>>, vatRate: string): string | null {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(vatRate)) return null;
  const key = String(Number(vatRate));
  return Object.hasOwn(groups, key) ? groups[key]! : null;
}

/** One of our payment methods in a connector's table, or the method it takes for any other. */
export const paymentIn = (methods: Readonly<Record<string, string>>, other: string, method: string): string =>
  Object.hasOwn(methods, method) ? methods[method]! : other;

/**
 * A delivery whose own fault (a throw, at any stage) is `unknown`: nothing is assumed about what the
 * authority did. The token is never in a detail by construction; an authority's text echoing it is
 * blanked all the same, as `blank`.
 */
export async function guardedDelivery(authority: string, request: CertificationRequest, blank: string, run: () => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
  let outcome: DeliveryOutcome;
  try {
    outcome = await run();
  } catch (error) {
    outcome = { outcome: 'unknown', detail: `${authority} connector failed: ${(error as Error).message}`.slice(0, 300) };
  }
  const token = request.credentials.apiToken;
  return 'detail' in outcome && token ? { ...outcome, detail: outcome.detail.split(token).join(blank) } : outcome;
}
