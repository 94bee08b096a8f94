import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/**
 * A fake of MTN MoMo's Collection API as MTN documents it (momodeveloper.mtn.com: the Collection API,
 * "Common Error Codes"), for the connector's tests and for end-to-end tests through the API and a
 * real worker:
 * - `POST /collection/token/` with Basic API user:key and the subscription key: `{access_token,
 *   token_type, expires_in}`. Every other call needs a live bearer token (401 otherwise), the
 *   subscription key and `X-Target-Environment`.
 * - `GET /collection/v1_0/accountholder/msisdn/{msisdn}/active`: `{result}`; false for a number ending in 7.
 * - `POST /collection/v1_0/requesttopay`: 400 for an X-Reference-Id that is not a UUID v4 or a body that
 *   breaks the specification; 409 RESOURCE_ALREADY_EXIST for an id it has; else 202, the request kept.
 * - `GET /collection/v1_0/requesttopay/{id}`: 404 RESOURCE_NOT_FOUND for an id it does not have; else
 *   the request with its status, set by `settle` or by the payer number's last digit: 0 SUCCESSFUL,
 *   1 FAILED APPROVAL_REJECTED, 2 PENDING, 3 FAILED NOT_ENOUGH_FUNDS, any other SUCCESSFUL.
 * - `failNext` makes the next calls of a route misbehave: 'hang' (never answered, nothing kept), 'reset'
 *   (the socket destroyed, nothing kept), 'keep-and-hang' (a request to pay kept, then never answered: MTN
 *   took it and its answer was lost), or an HTTP status with MTN's error body.
 */
export const MOMO_CREDENTIALS = { MOMO_API_USER: '1c7b5f5e-2c53-4d8e-a6a4-0a6f0f1d9e11', MOMO_API_KEY: 'momo-api-key-secret-0001', MOMO_SUBSCRIPTION_KEY: 'momo-subscription-key-secret' };

type Route = 'token' | 'accountholder' | 'request' | 'status';
type Fault = 'hang' | 'reset' | 'keep-and-hang' | number;

export interface KeptRequest {
  referenceId: string;
  headers: IncomingMessage['headers'];
  body: any;
  status?: 'SUCCESSFUL' | 'FAILED' | 'PENDING';
  reason?: string;
}

export interface FakeMomo {
  url: string;
  /** The settings that point the service at this fake (sandbox target, EUR). */
  env: Record<string, string>;
  requests: Map<string, KeptRequest>;
  tokensIssued: () => number;
  calls: (route: Route) => number;
  failNext(route: Route, fault: Fault, times?: number): void;
  settle(referenceId: string, status: 'SUCCESSFUL' | 'FAILED' | 'PENDING', reason?: string): void;
  /** MTN loses a request it had acknowledged: its status is a 404 from now on. */
  forget(referenceId: string): void;
  /** Every token issued so far is refused from now on (401), as once its `expires_in` has passed. */
  expireTokens(): void;
  /** The `expires_in` of the next tokens, in seconds. */
  tokenLifetime(seconds: number): void;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ERROR_BODIES: Record<number, { code: string; message: string }> = {
  400: { code: 'BAD_REQUEST', message: 'Request does not follow the specification.' },
  401: { code: 'UNAUTHORIZED', message: 'Access denied due to invalid subscription key or token.' },
  404: { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' },
  409: { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' },
  429: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit is exceeded.' },
  500: { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' },
  503: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable.' },
};

export async function startFakeMomo(t: Test, options: { targetEnvironment?: string } = {}): Promise<FakeMomo> {
  const target = options.targetEnvironment ?? 'sandbox';
  const requests = new Map<string, KeptRequest>();
  const faults: Record<Route, Fault[]> = { token: [], accountholder: [], request: [], status: [] };
  const counts: Record<Route, number> = { token: 0, accountholder: 0, request: 0, status: 0 };
  const hung: ServerResponse[] = [];
  let valid = new Set<string>();
  let issued = 0;
  let lifetime = 3600;

  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number) => json(res, status, ERROR_BODIES[status] ?? { code: 'ERROR', message: `HTTP ${status}` });

  const routeOf = (req: IncomingMessage): Route | null => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/collection/token/') return 'token';
    if (req.method === 'GET' && /^\/collection\/v1_0\/accountholder\/msisdn\/[^/]+\/active$/.test(url)) return 'accountholder';
    if (req.method === 'POST' && url === '/collection/v1_0/requesttopay') return 'request';
    if (req.method === 'GET' && /^\/collection\/v1_0\/requesttopay\/[^/]+$/.test(url)) return 'status';
    return null;
  };

  /** How a kept request stands: settled by the test, else by the payer's last digit. */
  const statusOf = (kept: KeptRequest) => {
    if (kept.status) return { status: kept.status, reason: kept.reason };
    switch (String(kept.body.payer.partyId).slice(-1)) {
      case '1': return { status: 'FAILED', reason: 'APPROVAL_REJECTED' };
      case '2': return { status: 'PENDING' };
      case '3': return { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' };
      default: return { status: 'SUCCESSFUL' };
    }
  };

  const keep = (req: IncomingMessage, body: any): KeptRequest => {
    const kept = { referenceId: String(req.headers['x-reference-id']), headers: req.headers, body };
    requests.set(kept.referenceId, kept);
    return kept;
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const route = routeOf(req);
      if (!route) return refuse(res, 404);
      counts[route]++;
      const fault = faults[route].shift();
      if (fault === 'reset') return void req.socket.destroy();
      if (fault === 'hang') return void hung.push(res);
      if (typeof fault === 'number') return refuse(res, fault);

      if (route === 'token') {
        const basic = `Basic ${Buffer.from(`${MOMO_CREDENTIALS.MOMO_API_USER}:${MOMO_CREDENTIALS.MOMO_API_KEY}`).toString('base64')}`;
        if (req.headers.authorization !== basic || req.headers['ocp-apim-subscription-key'] !== MOMO_CREDENTIALS.MOMO_SUBSCRIPTION_KEY) return refuse(res, 401);
        const token = `momo-token-${++issued}`;
        valid.add(token);
        return json(res, 200, { access_token: token, token_type: 'access_token', expires_in: lifetime });
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!valid.has(bearer) || req.headers['ocp-apim-subscription-key'] !== MOMO_CREDENTIALS.MOMO_SUBSCRIPTION_KEY) return refuse(res, 401);
      if (req.headers['x-target-environment'] !== target) return refuse(res, 401);

      if (route === 'accountholder') {
        const msisdn = /msisdn\/([^/]+)\/active/.exec(req.url!)![1]!;
        return json(res, 200, { result: !msisdn.endsWith('7') });
      }
      if (route === 'request') {
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          return refuse(res, 400);
        }
        if (!UUID_V4.test(String(req.headers['x-reference-id'])) || !/^\d+$/.test(String(body?.amount)) || !/^\d{6,15}$/.test(String(body?.payer?.partyId))) return refuse(res, 400);
        if (requests.has(String(req.headers['x-reference-id']))) return refuse(res, 409);
        keep(req, body);
        if (fault === 'keep-and-hang') return void hung.push(res);
        return json(res, 202);
      }
      const kept = requests.get(/requesttopay\/([^/]+)$/.exec(req.url!)![1]!);
      if (!kept) return refuse(res, 404);
      const { amount, currency, externalId, payer, payerMessage, payeeNote } = kept.body;
      const { status, reason } = statusOf(kept);
      return json(res, 200, {
        amount, currency, externalId, payer, payerMessage, payeeNote,
        ...(status === 'SUCCESSFUL' ? { financialTransactionId: '363440463' } : {}),
        status,
        ...(reason ? { reason } : {}),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    hung.forEach((res) => res.destroy());
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: { MOMO_BASE_URL: url, MOMO_TARGET_ENVIRONMENT: target, ...MOMO_CREDENTIALS },
    requests,
    tokensIssued: () => issued,
    calls: (route) => counts[route],
    failNext(route, fault, times = 1) {
      for (let i = 0; i < times; i++) faults[route].push(fault);
    },
    settle(referenceId, status, reason) {
      const kept = requests.get(referenceId);
      if (!kept) throw new Error(`the fake MTN has no request ${referenceId}`);
      Object.assign(kept, { status, reason });
    },
    forget(referenceId) {
      requests.delete(referenceId);
    },
    expireTokens() {
      valid = new Set();
    },
    tokenLifetime(seconds) {
      lifetime = seconds;
    },
  };
}
