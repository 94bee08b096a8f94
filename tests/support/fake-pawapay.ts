import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/**
 * A fake pawaPay Merchant API v2 (deposits, predict-provider), answering with the shapes of
 * https://docs.pawapay.io/v2/api-reference (initiate deposit, check deposit status, predict provider) and
 * the codes of https://docs.pawapay.io/v2/docs/failure_codes. For connector tests and end-to-end tests.
 *
 * - Every call needs `Authorization: Bearer <token>`: none is 401 NO_AUTHENTICATION, another 403
 *   AUTHENTICATION_ERROR, both as `{failureReason: {failureCode, failureMessage}}`.
 * - POST /v2/deposits checks the request (400 INVALID_INPUT / MISSING_PARAMETER / UNSUPPORTED_PARAMETER /
 *   INVALID_PARAMETER), answers DUPLICATE_IGNORED for a depositId it has, and otherwise stores the deposit as
 *   ACCEPTED; a payer whose number ends in 8 is REJECTED with PROVIDER_TEMPORARILY_UNAVAILABLE (nothing stored).
 * - GET /v2/deposits/{id}: NOT_FOUND for an unknown id; else the deposit's end, set by `settle` or, on the first
 *   status call, by the payer's last digit: 0 COMPLETED, 1 FAILED PAYMENT_NOT_APPROVED, 2 never ends (ACCEPTED, then PROCESSING),
 *   3 FAILED INSUFFICIENT_BALANCE, any other COMPLETED.
 * - POST /v2/predict-provider: the number sanitised as documented (+, spaces, other non-digits removed); 237
 *   then 655-659 or 69 -> ORANGE_CMR, 237 then 65, 67 or 68 -> MTN_MOMO_CMR; anything else (not 237 + 9 digits,
 *   another prefix) -> 400 INVALID_PARAMETER.
 * - `failNext` makes the next calls of a route misbehave before anything is done: the request is neither
 *   stored nor answered ('hang', 'reset'), or is answered with that HTTP status (a 2xx with `{}`: an answer
 *   no connector can read).
 */
export interface FakePawapay {
  url: string;
  token: string;
  deposits: Map<string, { body: any; status: string; failureCode?: string }>;
  initiations: () => number;
  statusCalls: () => number;
  /** The next N calls of `route` misbehave: 'hang' (never answer), 'reset' (destroy the socket), or an HTTP status (500, 429, 401...). */
  failNext(route: Route, fault: Fault, times?: number): void;
  /** Sets how a deposit ends (else decided by the payer number's last digit). */
  settle(depositId: string, status: 'COMPLETED' | 'FAILED', failureCode?: string): void;
}

type Route = 'deposit' | 'status' | 'predict';
type Fault = 'hang' | 'reset' | number;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const AMOUNT = /^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$/;
const DEPOSIT_FIELDS = new Set(['depositId', 'amount', 'currency', 'payer', 'preAuthorisationCode', 'clientReferenceId', 'customerMessage', 'metadata']);

const failure = (failureCode: string, failureMessage: string) => ({ failureReason: { failureCode, failureMessage } });

const FAULT_BODIES: Record<number, unknown> = {
  401: failure('NO_AUTHENTICATION', 'We did not find the API token in the request headers.'),
  403: failure('AUTHENTICATION_ERROR', 'The API token specified for authentication is not valid or missing.'),
  500: failure('UNKNOWN_ERROR', 'Unable to process request due to an unknown problem.'),
};

export async function startFakePawapay(t: Test): Promise<FakePawapay> {
  const token = `fake-pawapay-token-${randomUUID()}`;
  const deposits: FakePawapay['deposits'] = new Map();
  const created = new Map<string, string>();
  const faults: Record<Route, Fault[]> = { deposit: [], status: [], predict: [] };
  const hung: ServerResponse[] = [];
  let initiations = 0;
  let statusCalls = 0;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const routeOf = (req: IncomingMessage): Route | null => {
    if (req.method === 'POST' && req.url === '/v2/deposits') return 'deposit';
    if (req.method === 'GET' && /^\/v2\/deposits\/[^/]+$/.test(req.url ?? '')) return 'status';
    if (req.method === 'POST' && req.url === '/v2/predict-provider') return 'predict';
    return null;
  };

  /** The end of a deposit nobody settled, by the payer's last digit. */
  const settleByNumber = (entry: { body: any; status: string; failureCode?: string }) => {
    switch (String(entry.body.payer.accountDetails.phoneNumber).slice(-1)) {
      case '1': return Object.assign(entry, { status: 'FAILED', failureCode: 'PAYMENT_NOT_APPROVED' });
      case '2': return Object.assign(entry, { status: 'PROCESSING' });
      case '3': return Object.assign(entry, { status: 'FAILED', failureCode: 'INSUFFICIENT_BALANCE' });
      default: return Object.assign(entry, { status: 'COMPLETED' });
    }
  };

  const initiate = (res: ServerResponse, raw: string) => {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, 400, failure('INVALID_INPUT', 'We were unable to parse the payload of the request.'));
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return json(res, 400, failure('INVALID_INPUT', 'The payload is not an object.'));
    const unsupported = Object.keys(body).find((key) => !DEPOSIT_FIELDS.has(key));
    if (unsupported) return json(res, 400, failure('UNSUPPORTED_PARAMETER', `Unsupported parameter: ${unsupported}.`));
    const details = body.payer?.accountDetails;
    for (const [name, value] of [['depositId', body.depositId], ['amount', body.amount], ['currency', body.currency], ['payer.type', body.payer?.type],
      ['payer.accountDetails.phoneNumber', details?.phoneNumber], ['payer.accountDetails.provider', details?.provider]] as const) {
      if (value === undefined || value === null) return json(res, 400, failure('MISSING_PARAMETER', `Missing parameter: ${name}.`));
    }
    const invalid =
      typeof body.depositId !== 'string' || !UUID_V4.test(body.depositId) ? 'depositId'
      : typeof body.amount !== 'string' || !AMOUNT.test(body.amount) ? 'amount'
      : typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency) ? 'currency'
      : body.payer.type !== 'MMO' ? 'payer.type'
      : typeof details.phoneNumber !== 'string' || !/^[0-9]{6,15}$/.test(details.phoneNumber) ? 'payer.accountDetails.phoneNumber'
      : body.customerMessage !== undefined && !/^[a-zA-Z0-9 ]{4,22}$/.test(String(body.customerMessage)) ? 'customerMessage'
      : body.clientReferenceId !== undefined && !/^.{1,36}$/.test(String(body.clientReferenceId)) ? 'clientReferenceId'
      : null;
    if (invalid) return json(res, 400, failure('INVALID_PARAMETER', `Invalid value of ${invalid}.`));
    const depositId: string = body.depositId;
    if (deposits.has(depositId)) return json(res, 200, { depositId, status: 'DUPLICATE_IGNORED', created: created.get(depositId) });
    if (details.phoneNumber.endsWith('8')) {
      return json(res, 200, { depositId, status: 'REJECTED', ...failure('PROVIDER_TEMPORARILY_UNAVAILABLE', 'The provider is temporarily unavailable.') });
    }
    deposits.set(depositId, { body, status: 'ACCEPTED' });
    created.set(depositId, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    json(res, 200, { depositId, status: 'ACCEPTED', nextStep: 'FINAL_STATUS', created: created.get(depositId) });
  };

  const status = (res: ServerResponse, depositId: string) => {
    const entry = deposits.get(depositId);
    if (!entry) return json(res, 200, { status: 'NOT_FOUND' });
    // A payer ending in 2 is still ACCEPTED on the first status call, PROCESSING after.
    const shown = entry.status === 'ACCEPTED' && settleByNumber(entry).status === 'PROCESSING' ? 'ACCEPTED' : entry.status;
    const { body } = entry;
    json(res, 200, {
      status: 'FOUND',
      data: {
        depositId,
        status: shown,
        amount: body.amount,
        currency: body.currency,
        country: 'CMR',
        payer: body.payer,
        ...(body.customerMessage === undefined ? {} : { customerMessage: body.customerMessage }),
        ...(body.clientReferenceId === undefined ? {} : { clientReferenceId: body.clientReferenceId }),
        created: created.get(depositId),
        ...(entry.status === 'COMPLETED' ? { providerTransactionId: `FAKE-${depositId.slice(0, 8)}` } : {}),
        ...(entry.status === 'FAILED' ? failure(entry.failureCode ?? 'UNSPECIFIED_FAILURE', 'The deposit failed.') : {}),
      },
    });
  };

  const predict = (res: ServerResponse, raw: string) => {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, 400, failure('INVALID_INPUT', 'We were unable to parse the payload of the request.'));
    }
    if (body?.phoneNumber === undefined) return json(res, 400, failure('MISSING_PARAMETER', 'Missing parameter: phoneNumber.'));
    const phoneNumber = String(body.phoneNumber).replace(/^\+/, '').replace(/\D/g, '');
    const local = /^237([0-9]{9})$/.exec(phoneNumber)?.[1] ?? '';
    const provider = /^(65[5-9]|69)/.test(local) ? 'ORANGE_CMR' : /^(65|67|68)/.test(local) ? 'MTN_MOMO_CMR' : null;
    if (!provider) return json(res, 400, failure('INVALID_PARAMETER', 'The phone number does not match any provider of the country.'));
    json(res, 200, { country: 'CMR', provider, phoneNumber });
  };

  const server = createServer((req, res) => {
    const route = routeOf(req);
    if (route === 'deposit') initiations++;
    if (route === 'status') statusCalls++;
    const fault = route ? faults[route].shift() : undefined;
    if (fault === 'reset') return void req.socket.destroy();
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (fault === 'hang') return void hung.push(res);
      if (typeof fault === 'number') return json(res, fault, FAULT_BODIES[fault] ?? (fault >= 500 ? FAULT_BODIES[500] : {}));
      const authorization = req.headers.authorization;
      if (!authorization) return json(res, 401, FAULT_BODIES[401]);
      if (authorization !== `Bearer ${token}`) return json(res, 403, FAULT_BODIES[403]);
      if (route === 'deposit') return initiate(res, raw);
      if (route === 'status') {
        let depositId: string;
        try {
          depositId = decodeURIComponent(req.url!.slice('/v2/deposits/'.length));
        } catch {
          return json(res, 400, failure('INVALID_PARAMETER', 'Invalid depositId.'));
        }
        return status(res, depositId);
      }
      if (route === 'predict') return predict(res, raw);
      json(res, 404, failure('NOT_FOUND', 'No such endpoint.'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    hung.splice(0).forEach((res) => res.destroy());
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    deposits,
    initiations: () => initiations,
    statusCalls: () => statusCalls,
    failNext(route, fault, times = 1) {
      for (let i = 0; i < times; i++) faults[route].push(fault);
    },
    settle(depositId, state, failureCode) {
      const entry = deposits.get(depositId);
      if (!entry) throw new Error(`fake pawaPay has no deposit ${depositId}`);
      entry.status = state;
      if (state === 'FAILED') entry.failureCode = failureCode ?? 'UNSPECIFIED_FAILURE';
      else delete entry.failureCode;
    },
  };
}
