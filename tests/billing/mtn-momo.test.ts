import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { mtnMomo, ProviderError } from '../../api/billing/providers/mtn-momo.ts';
import { loadConfig } from '../../api/config.ts';
import { registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

/**
 * The MTN MoMo Collection connector against a local fake that answers with the API's documented
 * shapes (token, request-to-pay, its status), the payer's last digit choosing the outcome: 0
 * SUCCESSFUL, 1 FAILED (APPROVAL_REJECTED), 2 PENDING, 3 a 500, 4 no answer at all, 5 unknown (404);
 * a payer ending in 9 has the request to pay itself refused (500).
 */
const SECRETS = { MOMO_API_USER: 'api-user-0001', MOMO_API_KEY: 'api-key-secret-0001', MOMO_SUBSCRIPTION_KEY: 'subscription-key-secret' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface FakeMomo {
  url: string;
  tokensIssued: () => number;
  requests: { referenceId: string; headers: IncomingMessage['headers']; body: any }[];
  expireTokens: () => void;
}

async function fakeMomo(t: Test): Promise<FakeMomo> {
  let issued = 0;
  let valid = new Set<string>();
  const requests: FakeMomo['requests'] = [];
  const hung: ServerResponse[] = [];
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/collection/token/') {
        const basic = `Basic ${Buffer.from(`${SECRETS.MOMO_API_USER}:${SECRETS.MOMO_API_KEY}`).toString('base64')}`;
        if (req.headers.authorization !== basic || req.headers['ocp-apim-subscription-key'] !== SECRETS.MOMO_SUBSCRIPTION_KEY) return json(res, 401, { error: 'login_failed' });
        const token = `token-${++issued}`;
        valid.add(token);
        return json(res, 200, { access_token: token, token_type: 'access_token', expires_in: 3600 });
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!valid.has(bearer) || req.headers['ocp-apim-subscription-key'] !== SECRETS.MOMO_SUBSCRIPTION_KEY || req.headers['x-target-environment'] !== 'sandbox') {
        return json(res, 401, { code: 'UNAUTHORIZED' });
      }
      if (req.method === 'POST' && req.url === '/collection/v1_0/requesttopay') {
        const referenceId = String(req.headers['x-reference-id']);
        if (!UUID.test(referenceId)) return json(res, 400, { code: 'INVALID_REFERENCE_ID' });
        const body = JSON.parse(raw);
        if (requests.some((r) => r.referenceId === referenceId)) return json(res, 409, { code: 'RESOURCE_ALREADY_EXIST' });
        if (String(body.payer.partyId).endsWith('9')) return json(res, 500, { code: 'INTERNAL_PROCESSING_ERROR' });
        requests.push({ referenceId, headers: req.headers, body });
        return json(res, 202);
      }
      const status = /^\/collection\/v1_0\/requesttopay\/([0-9a-f-]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && status) {
        const request = requests.find((r) => r.referenceId === status[1]);
        if (!request) return json(res, 404, { code: 'RESOURCE_NOT_FOUND' });
        const { amount, currency, externalId, payer } = request.body;
        const base = { amount, currency, externalId, payer, payerMessage: request.body.payerMessage, payeeNote: request.body.payeeNote };
        switch (String(payer.partyId).slice(-1)) {
          case '0': return json(res, 200, { ...base, financialTransactionId: '363440463', status: 'SUCCESSFUL' });
          case '1': return json(res, 200, { ...base, status: 'FAILED', reason: 'APPROVAL_REJECTED' });
          case '2': return json(res, 200, { ...base, status: 'PENDING' });
          case '3': return json(res, 500, { code: 'INTERNAL_PROCESSING_ERROR' });
          case '4': return void hung.push(res);
          default: return json(res, 404, { code: 'RESOURCE_NOT_FOUND' });
        }
      }
      json(res, 404, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    hung.forEach((res) => res.destroy());
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tokensIssued: () => issued, requests, expireTokens: () => (valid = new Set()) };
}

const configFor = (url: string, extra: Record<string, string> = {}) =>
  loadConfig({ MOBILE_MONEY_PROVIDER: 'mtn_momo', MOMO_BASE_URL: url, MOMO_TIMEOUT_MS: '300', ...SECRETS, ...extra });
const request = (phone: string) => ({ reference: `SUB-${randomUUID().slice(0, 8)}`, chargeId: randomUUID(), amountXaf: 5_000, phone, method: 'carrier1_momo' as const });

t.test('a request to pay is the documented call: a token first, the charge\'s id as X-Reference-Id, the amount in XAF, the payer\'s MSISDN', async (t) => {
  const fake = await fakeMomo(t);
  const momo = mtnMomo(configFor(fake.url));
  const first = request('670 00 00 00');
  await momo.requestPayment(first);
  await momo.requestPayment(request('+237 699 00 00 00'));
  t.equal(fake.tokensIssued(), 1, 'one token for both');
  t.equal(fake.requests[0]!.referenceId, first.chargeId);
  t.strictSame(fake.requests[0]!.body, {
    amount: '5000', currency: 'XAF', externalId: first.reference, payer: { partyIdType: 'MSISDN', partyId: '237670000000' },
    payerMessage: `Abonnement ${first.reference}`, payeeNote: first.reference,
  });
  t.equal(fake.requests[1]!.body.payer.partyId, '237699000000', 'an international number kept as it is');
  await momo.requestPayment(first);
  t.equal(fake.requests.length, 2, 'the same request again (409 at MTN) is the same payment, not an error');
});

t.test('the status: SUCCESSFUL succeeds, FAILED fails with its reason, PENDING and a request MTN does not know yet stay pending', async (t) => {
  const fake = await fakeMomo(t);
  const momo = mtnMomo(configFor(fake.url));
  const answers = [];
  for (const phone of ['670000000', '670000001', '670000002']) {
    const asked = request(phone);
    await momo.requestPayment(asked);
    answers.push(await momo.paymentStatus(asked));
  }
  answers.push(await momo.paymentStatus(request('670000005')));
  t.strictSame(answers, [{ status: 'succeeded' }, { status: 'failed', reason: 'approval_rejected' }, { status: 'pending' }, { status: 'pending' }]);
});

t.test('a 5xx, a timeout or an unreachable provider is a ProviderError that names no secret', async (t) => {
  const fake = await fakeMomo(t);
  const momo = mtnMomo(configFor(fake.url));
  const errorOf = async (promise: Promise<unknown>) => promise.then(() => undefined, (error: Error) => error);
  const refused = await errorOf(momo.requestPayment(request('670000009')));
  const failing = request('670000003');
  await momo.requestPayment(failing);
  const fiveHundred = await errorOf(momo.paymentStatus(failing));
  const slow = request('670000004');
  await momo.requestPayment(slow);
  const started = Date.now();
  const timedOut = await errorOf(momo.paymentStatus(slow));
  t.ok(Date.now() - started < 5_000, 'the timeout holds');
  const unreachable = await errorOf(mtnMomo(configFor('http://127.0.0.1:9')).paymentStatus(request('670000000')));
  for (const [what, error] of [['refused', refused], ['500', fiveHundred], ['timeout', timedOut], ['unreachable', unreachable]] as const) {
    t.ok(error instanceof ProviderError, `${what}: a ProviderError (${error?.message})`);
    for (const secret of [...Object.values(SECRETS), 'token-1']) t.notOk(error?.message.includes(secret), `${what}: no secret in the message`);
  }
  t.match(timedOut?.message, /timed out/);
});

t.test('a token MTN no longer takes is dropped and a new one fetched', async (t) => {
  const fake = await fakeMomo(t);
  const momo = mtnMomo(configFor(fake.url));
  const asked = request('670000000');
  await momo.requestPayment(asked);
  fake.expireTokens();
  await t.rejects(momo.paymentStatus(asked), { name: 'ProviderError', message: 'MTN MoMo requesttopay status: HTTP 401' }, 'the call with the stale token fails');
  t.strictSame(await momo.paymentStatus(asked), { status: 'succeeded' }, 'the next one gets a new token');
  t.equal(fake.tokensIssued(), 2);
});

t.test('each method may have its own provider; the MoMo secrets are required when MoMo is used', async (t) => {
  const fake = await fakeMomo(t);
  const api = await startService(t, { MOBILE_MONEY_PROVIDER: 'simulator', MOBILE_MONEY_PROVIDER_CARRIER2_MONEY: 'mtn_momo', MOMO_BASE_URL: fake.url, MOMO_TIMEOUT_MS: '500', ...SECRETS });
  const owner = await registerShop(api);
  const subscribe = (method: string, phone: string) =>
    api.request('POST', '/billing/subscribe', { token: owner.token, body: { plan_id: '6b1c1a70-0000-4000-8000-000000000030', method, phone } });
  const confirm = (reference: string) => api.request('POST', `/billing/confirm/${reference}`, { token: owner.token });

  const viaMomo = (await subscribe('carrier2_money', '670000000')).body.data;
  t.equal(fake.requests.length, 1, 'carrier2_money went to MTN MoMo');
  t.match((await confirm(viaMomo.reference)).body.data, { status: 'succeeded' });
  const viaSimulator = (await subscribe('carrier1_momo', '670000000')).body.data;
  t.equal(fake.requests.length, 1, 'carrier1_momo did not');
  t.match((await confirm(viaSimulator.reference)).body.data, { status: 'succeeded' });

  const refused = await subscribe('carrier2_money', '670000009');
  t.equal(refused.status, 202);
  t.match(refused.body.data, { status: 'failed', failure_reason: 'provider_unavailable' }, 'a refused request to pay fails the charge at once');
  const erroring = (await subscribe('carrier2_money', '670000003')).body.data;
  t.match((await confirm(erroring.reference)).body, { data: { status: 'pending' } }, 'a provider in error leaves the charge pending');
  const declined = (await subscribe('carrier2_money', '670000001')).body.data;
  t.match((await confirm(declined.reference)).body.data, { status: 'failed', failure_reason: 'approval_rejected' });

  t.throws(() => loadConfig({ MOBILE_MONEY_PROVIDER_CARRIER1_MOMO: 'mtn_momo' }), /MOMO_API_USER is required when a mobile-money provider is mtn_momo/);
});
