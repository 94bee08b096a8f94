/**
 * The one HTTP call both authorities' connectors make (e-MECeF and FNE document the same conventions:
 * JSON both ways, a bearer token), and the line between what certainly never reached the authority and
 * what may have: the whole difference between a record sent again freely and one that never is.
 */

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
