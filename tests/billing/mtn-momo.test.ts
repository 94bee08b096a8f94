import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { mtnMomo, momoFailureReason } from '../../api/billing/providers/mtn-momo.ts';
import type { PaymentRequest } from '../../api/billing/providers/types.ts';
import { loadConfig } from '../../api/config.ts';
import { MOMO_CREDENTIALS, startFakeMomo, type FakeMomo } from '../support/fake-momo.ts';

/**
 * The MTN MoMo Collection connector against the fake of MTN's documented API (tests/support/fake-momo.ts):
 * what it sends, and how it reads each answer. A connector never throws and never guesses: whatever
 * it cannot rely on is `unknown`.
 */
const connector = (fake: FakeMomo, extra: Record<string, string> = {}) =>
  mtnMomo(loadConfig({ MOBILE_MONEY_PROVIDER: 'mtn_momo', ...fake.env, MOMO_TIMEOUT_MS: '300', ...extra }));
const request = (phone: string, extra: Partial<PaymentRequest> = {}): PaymentRequest => {
  const id = randomUUID();
  return { requestId: id, reference: id, amountXaf: 5_000, phone, method: 'carrier1_momo', ...extra };
};
const SECRETS = [...Object.values(MOMO_CREDENTIALS), 'momo-token-'];
const noSecretIn = (t: Test, what: string, detail: string) => {
  for (const secret of SECRETS) t.notOk(detail.includes(secret), `${what}: no secret in "${detail}"`);
};

t.test('a request to pay is the documented call: a token first, the request id as X-Reference-Id, the amount as a string in the sandbox\'s EUR, the payer\'s MSISDN', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const first = request('670 00 00 00');
  t.strictSame(await momo.requestPayment(first), { outcome: 'accepted' });
  t.strictSame(await momo.requestPayment(request('+237 699 00 00 00')), { outcome: 'accepted' });
  t.equal(fake.tokensIssued(), 1, 'one token for both');
  const kept = fake.requests.get(first.requestId)!;
  t.strictSame(kept.body, {
    amount: '5000', currency: 'EUR', externalId: first.reference, payer: { partyIdType: 'MSISDN', partyId: '237670000000' },
    payerMessage: `Abonnement ${first.reference}`, payeeNote: first.reference,
  });
  t.equal(kept.headers['x-target-environment'], 'sandbox');
  t.notOk('x-callback-url' in kept.headers, 'no callback asked for without a callback URL');
  t.equal([...fake.requests.values()][1]!.body.payer.partyId, '237699000000', 'an international number kept as it is');
});

t.test('the callback URL goes in X-Callback-Url when there is one', async (t) => {
  const fake = await startFakeMomo(t);
  const asked = request('670000000', { callbackUrl: 'https://pos.example.cm/api/v1/billing/callbacks/mtn_momo/abc' });
  await connector(fake).requestPayment(asked);
  t.equal(fake.requests.get(asked.requestId)!.headers['x-callback-url'], asked.callbackUrl);
});

t.test('a production target sends XAF by default', async (t) => {
  const fake = await startFakeMomo(t, { targetEnvironment: 'mtncameroon' });
  const asked = request('670000000');
  t.strictSame(await connector(fake).requestPayment(asked), { outcome: 'accepted' });
  t.equal(fake.requests.get(asked.requestId)!.body.currency, 'XAF');
});

t.test('the same request sent again (MTN\'s 409 RESOURCE_ALREADY_EXIST) is the request received, not an error', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const asked = request('670000000');
  await momo.requestPayment(asked);
  t.strictSame(await momo.requestPayment(asked), { outcome: 'accepted' });
  t.equal(fake.requests.size, 1);
  t.equal(fake.calls('request'), 2);
});

t.test('a request MTN refuses as against its specification (400) is rejected: the operator\'s refusal', async (t) => {
  const fake = await startFakeMomo(t);
  const refused = await connector(fake).requestPayment(request('12'));
  t.match(refused, { outcome: 'rejected', reason: 'provider_rejected', detail: 'MTN MoMo requesttopay: HTTP 400' });
});

t.test('a timeout, a reset connection, a 5xx or a 429 on the request to pay is unknown, never a failure nor a throw', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  await momo.requestPayment(request('670000000')); // a token in hand
  for (const fault of ['hang', 'keep-and-hang', 'reset', 500, 503, 429] as const) {
    fake.failNext('request', fault);
    const started = Date.now();
    const outcome = await momo.requestPayment(request('670000000'));
    t.equal(outcome.outcome, 'unknown', `${fault}: unknown`);
    if (fault === 'hang') t.ok(Date.now() - started < 3_000, 'the timeout holds');
    if (outcome.outcome === 'unknown') noSecretIn(t, String(fault), outcome.detail);
  }
  const unreachable = await mtnMomo(loadConfig({ MOBILE_MONEY_PROVIDER: 'mtn_momo', ...fake.env, MOMO_BASE_URL: 'http://127.0.0.1:9' })).requestPayment(request('670000000'));
  t.match(unreachable, { outcome: 'unknown', detail: /unreachable/ }, 'an unreachable MTN is unknown');
});

t.test('the status: SUCCESSFUL succeeds, FAILED fails with its reason, PENDING is pending, an id MTN does not have (404) is not found', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const answers = [];
  for (const phone of ['670000000', '670000001', '670000002', '670000003']) {
    const asked = request(phone);
    await momo.requestPayment(asked);
    answers.push(await momo.paymentStatus(asked));
  }
  answers.push(await momo.paymentStatus(request('670000000')));
  t.match(answers, [
    { status: 'succeeded' },
    { status: 'failed', reason: 'approval_rejected' },
    { status: 'pending' },
    { status: 'failed', reason: 'not_enough_funds' },
    { status: 'not_found' },
  ]);
});

t.test('MTN\'s failure reasons map to ours; any other is the operator\'s refusal', async (t) => {
  const table = {
    PAYER_NOT_FOUND: 'payer_not_found', NOT_ENOUGH_FUNDS: 'not_enough_funds', PAYER_LIMIT_REACHED: 'payer_limit_reached',
    APPROVAL_REJECTED: 'approval_rejected', PAYMENT_NOT_APPROVED: 'payer_declined', EXPIRED: 'expired', TRANSACTION_CANCELED: 'transaction_canceled',
    NOT_ALLOWED: 'provider_rejected', INVALID_CURRENCY: 'provider_rejected', INTERNAL_PROCESSING_ERROR: 'provider_rejected', '': 'provider_rejected',
  };
  for (const [code, reason] of Object.entries(table)) t.equal(momoFailureReason(code), reason, `${code || '(none)'} -> ${reason}`);
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const asked = request('670000000');
  await momo.requestPayment(asked);
  fake.settle(asked.requestId, 'FAILED', 'EXPIRED');
  t.match(await momo.paymentStatus(asked), { status: 'failed', reason: 'expired' }, 'read from the status answer');
});

t.test('a timeout, a reset, a 5xx, a 429 or an answer of another shape on the status is unknown', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const asked = request('670000000');
  await momo.requestPayment(asked);
  for (const fault of ['hang', 'reset', 500, 429] as const) {
    fake.failNext('status', fault);
    const status = await momo.paymentStatus(asked);
    t.equal(status.status, 'unknown', `${fault}: unknown`);
    if (status.status === 'unknown') noSecretIn(t, String(fault), status.detail);
  }
  fake.settle(asked.requestId, 'ONGOING' as 'PENDING');
  t.match(await momo.paymentStatus(asked), { status: 'unknown', detail: /unknown status "ONGOING"/ });
});

t.test('a 401 (the token expired) fetches a new token and sends the call once more', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const asked = request('670000000');
  await momo.requestPayment(asked);
  fake.expireTokens();
  t.strictSame(await momo.paymentStatus(asked), { status: 'succeeded' }, 'the call succeeds with a new token');
  t.equal(fake.tokensIssued(), 2, 'one new token');
  fake.failNext('status', 401, 2);
  t.match(await momo.paymentStatus(asked), { status: 'unknown', detail: 'MTN MoMo requesttopay status: HTTP 401' }, 'a second 401 in a row is unknown');
  t.equal(fake.tokensIssued(), 3, 'once more only');
});

t.test('concurrent calls without a token fetch one token between them', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  const outcomes = await Promise.all(Array.from({ length: 12 }, () => momo.requestPayment(request('670000000'))));
  t.ok(outcomes.every((o) => o.outcome === 'accepted'));
  t.equal(fake.tokensIssued(), 1);
  fake.expireTokens();
  await Promise.all(Array.from({ length: 12 }, () => momo.requestPayment(request('670000000'))));
  t.equal(fake.tokensIssued(), 2, 'and one new token when the token expired under all of them');
});

t.test('a token is kept until shortly before its expires_in, then fetched again', async (t) => {
  const fake = await startFakeMomo(t);
  fake.tokenLifetime(2);
  const momo = connector(fake);
  await momo.requestPayment(request('670000000'));
  await momo.requestPayment(request('670000000'));
  t.equal(fake.tokensIssued(), 1, 'kept while fresh');
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  await momo.requestPayment(request('670000000'));
  t.equal(fake.tokensIssued(), 2, 'fetched again before it expired at MTN');
});

t.test('a token MTN will not give (wrong keys, timeout) makes the call unknown and names no secret', async (t) => {
  const fake = await startFakeMomo(t);
  const wrongKey = await connector(fake, { MOMO_API_KEY: 'not-the-key' }).requestPayment(request('670000000'));
  t.match(wrongKey, { outcome: 'unknown', detail: 'token: HTTP 401' });
  fake.failNext('token', 'hang');
  const slow = await connector(fake).paymentStatus(request('670000000'));
  t.match(slow, { status: 'unknown', detail: 'token: timed out' });
  noSecretIn(t, 'wrong key', (wrongKey as { detail: string }).detail);
});

t.test('the account holder check: active, not active (no wallet), unknown when MTN cannot say', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = connector(fake);
  t.strictSame(await momo.checkPayer('670000000', 'carrier1_momo'), { payer: 'active' });
  t.strictSame(await momo.checkPayer('+237 670 00 00 07', 'carrier1_momo'), { payer: 'not_found' });
  fake.failNext('accountholder', 500);
  t.match(await momo.checkPayer('670000000', 'carrier1_momo'), { payer: 'unknown', detail: 'MTN MoMo accountholder: HTTP 500' });
  fake.failNext('accountholder', 'hang');
  t.match(await momo.checkPayer('670000000', 'carrier1_momo'), { payer: 'unknown', detail: 'MTN MoMo accountholder: timed out' });
});
