import t, { type Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import { startWorker } from '../../worker/worker.ts';
import { startFakeMomo } from '../support/fake-momo.ts';
import { startFakePawapay, type FakePawapay } from '../support/fake-pawapay.ts';
import { registerShop, stopChargePolling, waitFor, type ShopFixture } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService, type Service } from '../support/service.ts';

/**
 * Orange Money (and MTN) through pawaPay's deposits API v2, end to end through the API and a real
 * worker against the fake of pawaPay's documented API (CONTRACT section 12): `carrier2_money` goes to
 * ORANGE_CMR, the charge's reference is the depositId, a re-send is DUPLICATE_IGNORED, REJECTED and
 * FAILED fail the charge with their reason, anything unknown leaves it pending.
 */
const MONTHLY = '6b1c1a70-0000-4000-8000-000000000030';

interface Setup {
  api: Service;
  pawapay: FakePawapay;
  owner: ShopFixture;
}

async function setup(t: Test, env: Record<string, string> = {}, { worker = true } = {}): Promise<Setup> {
  const pawapay = await startFakePawapay(t);
  const api = await startService(t, { MOBILE_MONEY_PROVIDER: 'pawapay', PAWAPAY_BASE_URL: pawapay.url, PAWAPAY_API_TOKEN: pawapay.token, PAWAPAY_TIMEOUT_MS: '400', ...env });
  if (worker) {
    const running = await startWorker(api.runtime, createLogger('silent'));
    t.teardown(() => running.stop());
  }
  return { api, pawapay, owner: await registerShop(api) };
}

const subscribe = (s: Setup, method: 'carrier1_momo' | 'carrier2_money', phone: string) =>
  s.api.request('POST', '/billing/subscribe', { token: s.owner.token, body: { plan_id: MONTHLY, method, phone } });
const confirm = (s: Setup, reference: string) => s.api.request('POST', `/billing/confirm/${reference}`, { token: s.owner.token });
const statusOf = async (s: Setup, reference: string) =>
  (await s.api.ownerSql<{ status: string; failure_reason: string | null }[]>`select status, failure_reason from subscription_charges where reference = ${reference}`)[0]!;

t.test('Orange Money goes to pawaPay as ORANGE_CMR, the charge\'s reference as depositId, and is settled by the worker', async (t) => {
  const s = await setup(t);
  const reply = await subscribe(s, 'carrier2_money', '+237 690 00 00 00');
  t.equal(reply.status, 202);
  const { reference } = reply.body.data;
  const deposit = await waitFor(() => s.pawapay.deposits.get(reference), 'the deposit at pawaPay');
  t.match(deposit.body, { depositId: reference, amount: '5000', currency: 'XAF', payer: { type: 'MMO', accountDetails: { phoneNumber: '237690000000', provider: 'ORANGE_CMR' } } });
  await waitFor(async () => (await statusOf(s, reference)).status === 'succeeded', 'the charge to succeed');
});

t.test('MTN MoMo direct and Orange Money through pawaPay in one set-up: each method to its own provider', async (t) => {
  const momo = await startFakeMomo(t);
  const s = await setup(t, { MOBILE_MONEY_PROVIDER: 'mtn_momo', MOBILE_MONEY_PROVIDER_CARRIER2_MONEY: 'pawapay', ...momo.env, MOMO_TIMEOUT_MS: '400' });
  const viaMtn = (await subscribe(s, 'carrier1_momo', '670000000')).body.data.reference;
  const viaPawapay = (await subscribe(s, 'carrier2_money', '690000000')).body.data.reference;
  await waitFor(async () => (await statusOf(s, viaMtn)).status === 'succeeded' && (await statusOf(s, viaPawapay)).status === 'succeeded', 'both charges to succeed');
  t.ok(momo.requests.has(viaMtn), 'MoMo went to MTN');
  t.notOk(momo.requests.has(viaPawapay));
  t.ok(s.pawapay.deposits.has(viaPawapay), 'Orange Money went to pawaPay');
  t.notOk(s.pawapay.deposits.has(viaMtn));
});

t.test('an Orange number asked on MTN MoMo through pawaPay has no wallet there: 422 payer_not_found, no charge', async (t) => {
  const s = await setup(t, {}, { worker: false });
  expectInvalid(t, await subscribe(s, 'carrier1_momo', '690000000'), 'phone', 'another operator\'s number', 'payer_not_found');
  expectInvalid(t, await subscribe(s, 'carrier2_money', '12345'), 'phone', 'not a number', 'payer_not_found');
  t.equal(s.pawapay.initiations(), 0);
});

t.test('REJECTED at initiation fails the charge at once with its reason', async (t) => {
  const s = await setup(t);
  const { reference } = (await subscribe(s, 'carrier2_money', '690000008')).body.data;
  await waitFor(async () => (await statusOf(s, reference)).status === 'failed', 'the charge to fail');
  t.match(await statusOf(s, reference), { failure_reason: 'provider_rejected' });
});

t.test('FAILED with PAYMENT_NOT_APPROVED or INSUFFICIENT_BALANCE fails the charge with our reason', async (t) => {
  const s = await setup(t);
  const declined = (await subscribe(s, 'carrier2_money', '690000001')).body.data.reference;
  const poor = (await subscribe(s, 'carrier2_money', '690000003')).body.data.reference;
  await waitFor(async () => (await statusOf(s, declined)).status === 'failed' && (await statusOf(s, poor)).status === 'failed', 'both to fail');
  t.match(await statusOf(s, declined), { failure_reason: 'payer_declined' });
  t.match(await statusOf(s, poor), { failure_reason: 'not_enough_funds' });
});

t.test('a timeout on the deposit, then COMPLETED: sent again as DUPLICATE_IGNORED or looked up, the subscription extended once', async (t) => {
  const s = await setup(t, {}, { worker: false });
  s.pawapay.failNext('deposit', 'hang');
  const { reference } = (await subscribe(s, 'carrier2_money', '690000000')).body.data;
  await stopChargePolling(s.api, reference);
  t.match((await confirm(s, reference)).body.data, { status: 'pending' }, 'a timeout leaves it pending');
  t.match((await confirm(s, reference)).body.data, { status: 'succeeded' }, 'NOT_FOUND at pawaPay: sent again, then COMPLETED');
  t.equal(s.pawapay.deposits.size, 1);
  const [shop] = await s.api.ownerSql<{ ends: Date }[]>`select subscription_ends_at as ends from shops where id = ${s.owner.shop.id}`;
  await confirm(s, reference);
  const [again] = await s.api.ownerSql<{ ends: Date }[]>`select subscription_ends_at as ends from shops where id = ${s.owner.shop.id}`;
  t.equal(again!.ends.getTime(), shop!.ends.getTime(), 'extended once');
});

t.test('a 5xx, a 429 or a 401 from pawaPay leaves the charge pending, never failed', async (t) => {
  const s = await setup(t, {}, { worker: false });
  for (const fault of [500, 429, 401, 'reset'] as const) {
    s.pawapay.failNext('deposit', fault);
    const { reference } = (await subscribe(s, 'carrier2_money', '690000000')).body.data;
    await stopChargePolling(s.api, reference);
    t.match((await confirm(s, reference)).body.data, { status: 'pending', failure_reason: null }, `${fault}: pending`);
  }
});

t.test('pawaPay\'s callback to its dashboard URL names the deposit in its body: the charge is asked about at once', async (t) => {
  const s = await setup(t);
  const { reference } = (await subscribe(s, 'carrier2_money', '690000002')).body.data;
  await waitFor(() => s.pawapay.deposits.get(reference), 'the deposit');
  await waitFor(async () => {
    const [job] = await s.api.ownerSql<{ run_at: Date }[]>`select run_at from graphile_worker.jobs where key = ${`charge_poll:${reference}`} and locked_at is null`;
    return job && job.run_at.getTime() > Date.now() + 3_000;
  }, 'the next poll to be scheduled later');
  s.pawapay.settle(reference, 'COMPLETED');
  const reply = await s.api.request('POST', '/billing/callbacks/pawapay', { body: { depositId: reference, status: 'COMPLETED' } });
  t.equal(reply.status, 204);
  await waitFor(async () => (await statusOf(s, reference)).status === 'succeeded', 'the charge to succeed', 5_000);
});
