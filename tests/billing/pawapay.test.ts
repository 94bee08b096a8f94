import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { PAWAPAY_FAILURE_REASONS, pawaPay, pawapayFailureReason } from '../../api/billing/providers/pawapay.ts';
import type { ChargeMethod, PaymentRequest } from '../../api/billing/providers/types.ts';
import { startFakePawapay, type FakePawapay } from '../support/fake-pawapay.ts';

/**
 * The pawaPay deposits v2 connector against the fake of tests/support/fake-pawapay.ts (same documentation):
 * the request it sends, how each documented answer is read, and that a timeout, a reset, a 5xx, a 429, a
 * refused token or an answer not understood is `unknown`, never a failure and never a throw. The config is
 * built directly (all the connector takes), apart from loadConfig's other checks.
 */
const configFor = (fake: FakePawapay, extra: { PAWAPAY_API_TOKEN?: string; PAWAPAY_BASE_URL?: string } = {}) => ({
  PAWAPAY_BASE_URL: fake.url,
  PAWAPAY_API_TOKEN: fake.token,
  PAWAPAY_TIMEOUT_MS: 300,
  MOMO_COUNTRY_CODE: '237',
  ...extra,
});

const request = (phone: string, method: ChargeMethod = 'carrier1_momo'): PaymentRequest => {
  const requestId = randomUUID();
  return { requestId, reference: requestId, amountXaf: 5_000, phone, method, callbackUrl: 'https://pos.example/billing/callbacks/pawapay/x' };
};

/** Every `detail` a test saw: none may carry the token. */
const noSecretIn = (t: Test, fake: FakePawapay, answers: unknown[]) => {
  for (const answer of answers) {
    const detail = (answer as { detail?: string }).detail;
    if (detail !== undefined) t.notOk(detail.includes(fake.token) || detail.includes('Bearer'), `no token in "${detail}"`);
  }
};

t.test('a deposit is the documented request: the requestId as depositId, the amount as a string in XAF, the provider of the method, the MSISDN with 237, no callback URL', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  const mtn = request('670 00 00 00');
  const orange = request('+237 699 00 00 00', 'carrier2_money');
  t.strictSame(await pawapay.requestPayment(mtn), { outcome: 'accepted' });
  t.strictSame(await pawapay.requestPayment(orange), { outcome: 'accepted' });
  t.strictSame(fake.deposits.get(mtn.requestId)!.body, {
    depositId: mtn.requestId,
    amount: '5000',
    currency: 'XAF',
    payer: { type: 'MMO', accountDetails: { phoneNumber: '237670000000', provider: 'MTN_MOMO_CMR' } },
    clientReferenceId: mtn.reference,
    customerMessage: `Abonnement ${mtn.reference.replace(/-/g, '').slice(0, 11)}`,
  });
  t.match(fake.deposits.get(orange.requestId)!.body.payer.accountDetails, { phoneNumber: '237699000000', provider: 'ORANGE_CMR' }, 'an international number kept as it is');
  t.equal(fake.deposits.get(mtn.requestId)!.status, 'ACCEPTED');
});

t.test('the same request sent again is DUPLICATE_IGNORED at pawaPay: accepted, and still one deposit', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  const asked = request('670000000');
  t.strictSame(await pawapay.requestPayment(asked), { outcome: 'accepted' });
  t.strictSame(await pawapay.requestPayment(asked), { outcome: 'accepted' });
  t.equal(fake.initiations(), 2, 'both reached pawaPay');
  t.equal(fake.deposits.size, 1, 'one deposit');
});

t.test('REJECTED on initiation is rejected with the reason its failure code maps to', async (t) => {
  const fake = await startFakePawapay(t);
  const outcome = await pawaPay(configFor(fake)).requestPayment(request('670000008'));
  t.strictSame(outcome, { outcome: 'rejected', reason: 'provider_rejected', detail: 'pawaPay deposit: REJECTED PROVIDER_TEMPORARILY_UNAVAILABLE' });
  t.equal(fake.deposits.size, 0);
});

t.test('a 400 naming a documented technical failure is rejected (provider_rejected); a 400 without one is unknown', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  const refused = await pawapay.requestPayment({ ...request('670000000'), requestId: 'not-a-uuid' });
  t.strictSame(refused, { outcome: 'rejected', reason: 'provider_rejected', detail: 'pawaPay deposit: HTTP 400 INVALID_PARAMETER' });
  fake.failNext('deposit', 400);
  t.strictSame(await pawapay.requestPayment(request('670000000')), { outcome: 'unknown', detail: 'pawaPay deposit: HTTP 400' });
});

t.test('the status: COMPLETED succeeds, FAILED fails with the mapped reason, ACCEPTED and PROCESSING are pending, NOT_FOUND is not_found', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  const answers = [];
  for (const phone of ['670000000', '670000001', '670000002', '670000003']) {
    const asked = request(phone);
    await pawapay.requestPayment(asked);
    answers.push(await pawapay.paymentStatus(asked));
    if (phone.endsWith('2')) {
      answers.push(await pawapay.paymentStatus(asked));
      t.equal(fake.deposits.get(asked.requestId)!.status, 'PROCESSING', 'ACCEPTED first, PROCESSING then');
    }
  }
  answers.push(await pawapay.paymentStatus(request('670000000')));
  t.strictSame(answers, [
    { status: 'succeeded' },
    { status: 'failed', reason: 'payer_declined', detail: 'pawaPay deposit: FAILED PAYMENT_NOT_APPROVED' },
    { status: 'pending' },
    { status: 'pending' },
    { status: 'failed', reason: 'not_enough_funds', detail: 'pawaPay deposit: FAILED INSUFFICIENT_BALANCE' },
    { status: 'not_found' },
  ]);
  const settled = request('670000002');
  await pawapay.requestPayment(settled);
  fake.settle(settled.requestId, 'COMPLETED');
  t.strictSame(await pawapay.paymentStatus(settled), { status: 'succeeded' }, 'settle decides the end');
  t.equal(fake.statusCalls(), 7);
});

t.test('each documented failure code maps to its reason; an unknown one is provider_rejected', async (t) => {
  const table = {
    PAYMENT_NOT_APPROVED: 'payer_declined',
    INSUFFICIENT_BALANCE: 'not_enough_funds',
    PAYER_LIMIT_REACHED: 'payer_limit_reached',
    WALLET_LIMIT_REACHED: 'payer_limit_reached',
    PAYER_NOT_FOUND: 'payer_not_found',
    INVALID_PHONE_NUMBER: 'payer_not_found',
    PAYMENT_IN_PROGRESS: 'provider_rejected',
    TRANSACTION_ALREADY_IN_PROCESS: 'provider_rejected',
    UNSPECIFIED_FAILURE: 'provider_rejected',
    UNKNOWN_ERROR: 'provider_rejected',
    AMOUNT_OUT_OF_BOUNDS: 'provider_rejected',
    PROVIDER_TEMPORARILY_UNAVAILABLE: 'provider_rejected',
    SOMETHING_NEW: 'provider_rejected',
  } as const;
  for (const [code, reason] of Object.entries(table)) t.equal(pawapayFailureReason(code), reason, code);
  t.equal(pawapayFailureReason(undefined), 'provider_rejected', 'no code');
  t.equal(pawapayFailureReason('toString'), 'provider_rejected', 'not an inherited property');
  t.same(Object.keys(PAWAPAY_FAILURE_REASONS).filter((code) => !(code in table)), [], 'every mapped code is in this table');

  // And through a FAILED status answer, as pawaPay sends it.
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  for (const [code, reason] of Object.entries(table)) {
    const asked = request('670000000');
    await pawapay.requestPayment(asked);
    fake.settle(asked.requestId, 'FAILED', code);
    t.strictSame(await pawapay.paymentStatus(asked), { status: 'failed', reason, detail: `pawaPay deposit: FAILED ${code}` }, `FAILED ${code}`);
  }
});

t.test('a timeout, a reset, a 500 or a 429 is unknown on both calls: never failed, never a throw', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  const known = request('670000000');
  await pawapay.requestPayment(known);
  const seen: unknown[] = [];
  for (const fault of ['hang', 'reset', 500, 503, 429] as const) {
    fake.failNext('deposit', fault);
    fake.failNext('status', fault);
    const started = Date.now();
    const outcome = await pawapay.requestPayment(request('670000000'));
    const status = await pawapay.paymentStatus(known);
    t.ok(Date.now() - started < 5_000, `${fault}: the timeout holds`);
    t.match(outcome, { outcome: 'unknown', detail: String }, `${fault}: the request is unknown`);
    t.match(status, { status: 'unknown', detail: String }, `${fault}: the status is unknown`);
    seen.push(outcome, status);
  }
  t.match(seen[0], { detail: 'pawaPay deposit: timed out' });
  t.match(seen[2], { detail: 'pawaPay deposit: unreachable' });
  t.match(seen[5], { detail: 'pawaPay deposit status: HTTP 500 UNKNOWN_ERROR' });
  t.match(seen[9], { detail: 'pawaPay deposit status: HTTP 429' });
  t.equal(fake.deposits.size, 1, 'a faulty call stored nothing');
  t.strictSame(await pawapay.paymentStatus(known), { status: 'succeeded' }, 'and the next call is read again');
  noSecretIn(t, fake, seen);
});

t.test('an answer not understood is unknown', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  fake.failNext('deposit', 200);
  fake.failNext('status', 200);
  fake.failNext('status', 202);
  fake.failNext('predict', 200);
  t.strictSame(await pawapay.requestPayment(request('670000000')), { outcome: 'unknown', detail: 'pawaPay deposit: HTTP 200 (answer not understood)' });
  t.strictSame(await pawapay.paymentStatus(request('670000000')), { status: 'unknown', detail: 'pawaPay deposit status: HTTP 200 (answer not understood)' });
  t.strictSame(await pawapay.paymentStatus(request('670000000')), { status: 'unknown', detail: 'pawaPay deposit status: HTTP 202' });
  t.strictSame(await pawapay.checkPayer('670000000', 'carrier1_momo'), { payer: 'unknown', detail: 'pawaPay predict-provider: HTTP 200 (answer not understood)' });
});

t.test('a token pawaPay refuses (401, 403) or none at all is unknown: our configuration, not the payer', async (t) => {
  const fake = await startFakePawapay(t);
  const wrongToken = 'wrong-token-do-not-log';
  const refused = pawaPay(configFor(fake, { PAWAPAY_API_TOKEN: wrongToken }));
  const asked = request('670000000');
  const answers = [await refused.requestPayment(asked), await refused.paymentStatus(asked), await refused.checkPayer('670000000', 'carrier1_momo')];
  t.strictSame(answers, [
    { outcome: 'unknown', detail: 'pawaPay deposit: HTTP 403 AUTHENTICATION_ERROR' },
    { status: 'unknown', detail: 'pawaPay deposit status: HTTP 403 AUTHENTICATION_ERROR' },
    { payer: 'unknown', detail: 'pawaPay predict-provider: HTTP 403 AUTHENTICATION_ERROR' },
  ]);
  for (const answer of answers) t.notOk(JSON.stringify(answer).includes(wrongToken), 'the wrong token is not repeated either');
  fake.failNext('deposit', 401);
  const unauthenticated = await pawaPay(configFor(fake)).requestPayment(asked);
  t.strictSame(unauthenticated, { outcome: 'unknown', detail: 'pawaPay deposit: HTTP 401 NO_AUTHENTICATION' });
  const noToken = pawaPay(configFor(fake, { PAWAPAY_API_TOKEN: '' }));
  t.strictSame(await noToken.requestPayment(asked), { outcome: 'unknown', detail: 'pawaPay deposit: no API token configured' });
  t.equal(fake.initiations(), 2, 'without a token nothing is sent');
  t.equal(fake.deposits.size, 0);
  noSecretIn(t, fake, [...answers, unauthenticated]);
});

t.test('an unreachable pawaPay is unknown on every call', async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake, { PAWAPAY_BASE_URL: 'http://127.0.0.1:9' }));
  const asked = request('670000000');
  t.strictSame(await pawapay.requestPayment(asked), { outcome: 'unknown', detail: 'pawaPay deposit: unreachable' });
  t.strictSame(await pawapay.paymentStatus(asked), { status: 'unknown', detail: 'pawaPay deposit status: unreachable' });
  t.strictSame(await pawapay.checkPayer('670000000', 'carrier1_momo'), { payer: 'unknown', detail: 'pawaPay predict-provider: unreachable' });
});

t.test("checkPayer: the method's operator is active; another operator's number or a malformed one is not_found; a 500 or a timeout is unknown", async (t) => {
  const fake = await startFakePawapay(t);
  const pawapay = pawaPay(configFor(fake));
  t.strictSame(await pawapay.checkPayer('670 00 00 00', 'carrier1_momo'), { payer: 'active' }, 'MTN number, MTN method');
  t.strictSame(await pawapay.checkPayer('+237 699 00 00 00', 'carrier2_money'), { payer: 'active' }, 'Orange number, Orange method');
  t.strictSame(await pawapay.checkPayer('655000000', 'carrier2_money'), { payer: 'active' }, '655 is Orange');
  t.strictSame(await pawapay.checkPayer('699000000', 'carrier1_momo'), { payer: 'not_found' }, 'Orange number, MTN method');
  t.strictSame(await pawapay.checkPayer('670000000', 'carrier2_money'), { payer: 'not_found' }, 'MTN number, Orange method');
  t.strictSame(await pawapay.checkPayer('12345', 'carrier1_momo'), { payer: 'not_found' }, 'malformed');
  t.strictSame(await pawapay.checkPayer('222000000', 'carrier1_momo'), { payer: 'not_found' }, 'no operator of the country');
  fake.failNext('predict', 500);
  fake.failNext('predict', 'hang');
  const failing = [await pawapay.checkPayer('670000000', 'carrier1_momo'), await pawapay.checkPayer('670000000', 'carrier1_momo')];
  t.strictSame(failing, [
    { payer: 'unknown', detail: 'pawaPay predict-provider: HTTP 500 UNKNOWN_ERROR' },
    { payer: 'unknown', detail: 'pawaPay predict-provider: timed out' },
  ]);
  noSecretIn(t, fake, failing);
});
