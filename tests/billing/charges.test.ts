import t, { type Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import { startWorker } from '../../worker/worker.ts';
import { startFakeMomo, type FakeMomo } from '../support/fake-momo.ts';
import { registerShop, stopChargePolling, waitFor, type ShopFixture } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService, type Service } from '../support/service.ts';

/**
 * A subscription charge through the API and a real graphile-worker, against the fake of MTN MoMo's
 * documented API (CONTRACT sections 10 and 12): the charge fails only when MTN says so; whatever MTN
 * leaves unknown keeps it pending and it is asked again with the same reference; no request to MTN
 * runs while a database transaction is open.
 */
const MONTHLY = '6b1c1a70-0000-4000-8000-000000000030';
const DAY = 86_400_000;

interface Setup {
  api: Service;
  fake: FakeMomo;
  owner: ShopFixture;
}

/** A service paying through the fake MTN, with a worker beside it unless told otherwise. */
async function setup(t: Test, env: Record<string, string> = {}, { worker = true } = {}): Promise<Setup> {
  const fake = await startFakeMomo(t);
  const api = await startService(t, { MOBILE_MONEY_PROVIDER: 'mtn_momo', ...fake.env, MOMO_TIMEOUT_MS: '400', ...env });
  if (worker) await startTestWorker(t, api);
  return { api, fake, owner: await registerShop(api) };
}

async function startTestWorker(t: Test, api: Service): Promise<void> {
  const running = await startWorker(api.runtime, createLogger('silent'));
  t.teardown(() => running.stop());
}

const subscribe = (s: Setup, phone: string) =>
  s.api.request('POST', '/billing/subscribe', { token: s.owner.token, body: { plan_id: MONTHLY, method: 'carrier1_momo', phone } });
const confirm = (s: Setup, reference: string) => s.api.request('POST', `/billing/confirm/${reference}`, { token: s.owner.token });
const billing = async (s: Setup) => (await s.api.request('GET', '/billing', { token: s.owner.token })).body.data;

interface StoredCharge {
  status: string;
  failure_reason: string | null;
  requested_at: Date | null;
  acknowledged_at: Date | null;
}
const stored = async (s: Setup, reference: string): Promise<StoredCharge> =>
  (await s.api.ownerSql<StoredCharge[]>`select status, failure_reason, requested_at, acknowledged_at from subscription_charges where reference = ${reference}`)[0]!;
const subscriptionEnd = async (s: Setup) =>
  (await s.api.ownerSql<{ ends: Date | null }[]>`select subscription_ends_at as ends from shops where id = ${s.owner.shop.id}`)[0]!.ends;
/** The payment receipts queued for a charge (with no worker running, they stay queued). */
const receiptsQueued = async (s: Setup, reference: string) =>
  (await s.api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'billing__email_receipt' and j.payload->>'reference' = ${reference}`)[0]!.n;

t.test('the request to pay leaves from the worker once the charge has committed, named by the charge\'s reference', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const reply = await subscribe(s, '670000002');
  t.equal(reply.status, 202);
  const { reference } = reply.body.data;
  t.match(reply.body.data, { status: 'pending', failure_reason: null, failure_message: null });
  t.equal(s.fake.calls('request'), 0, 'the API itself asked MTN for nothing but the payer check');
  t.equal(s.fake.calls('accountholder'), 1);
  await startTestWorker(t, s.api);
  const kept = await waitFor(() => s.fake.requests.get(reference), 'the request to pay at MTN');
  t.equal(kept.referenceId, reference, 'X-Reference-Id is the charge\'s reference');
  t.equal(kept.body.externalId, reference);
  const charge = await waitFor(async () => {
    const row = await stored(s, reference);
    return row.acknowledged_at ? row : undefined;
  }, 'the acknowledgement to be recorded');
  t.equal(charge.status, 'pending', 'PENDING at MTN: still pending here');
});

t.test('no request to MTN runs while a database transaction is open', async (t) => {
  const s = await setup(t, { MOMO_TIMEOUT_MS: '2000' });
  const inTransaction = async () =>
    (await s.api.ownerSql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid() and state in ('idle in transaction', 'idle in transaction (aborted)')`)[0]!.n;
  const watch = async (what: string, during: () => boolean) => {
    const seen: number[] = [];
    while (during()) {
      seen.push(await inTransaction());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.ok(seen.length >= 5, `${what}: watched ${seen.length} times`);
    t.strictSame(seen.filter((n) => n > 0), [], `${what}: no connection idle in a transaction while MTN was asked`);
  };

  s.fake.failNext('accountholder', 'hang');
  let answered = false;
  const subscribing = subscribe(s, '670000002').finally(() => (answered = true));
  await watch('the payer check', () => !answered);
  const { reference } = (await subscribing).body.data;

  await waitFor(() => s.fake.requests.get(reference), 'the request to pay');
  await stopChargePolling(s.api, reference);
  s.fake.failNext('status', 'hang');
  answered = false;
  const confirming = confirm(s, reference).finally(() => (answered = true));
  await watch('a confirmation', () => !answered);
  t.equal((await confirming).body.data.status, 'pending', 'a timeout leaves it pending');

  s.fake.failNext('request', 'hang');
  const requests = s.fake.calls('request');
  const second = (await subscribe(s, '670000002')).body.data.reference;
  await waitFor(() => s.fake.calls('request') > requests, 'the worker to send the second request');
  let givenUp = false;
  const giveUp = waitFor(async () => (await stored(s, second)).requested_at !== null, 'the worker to give up waiting', 10_000).finally(() => (givenUp = true));
  await watch('the worker\'s request to pay', () => !givenUp);
  await giveUp;
});

t.test('a timeout on the request to pay, then SUCCESSFUL on the status: the subscription is extended exactly once', async (t) => {
  const s = await setup(t);
  s.fake.failNext('request', 'keep-and-hang');
  const { reference } = (await subscribe(s, '670000000')).body.data;
  const unknown = await waitFor(async () => {
    const row = await stored(s, reference);
    return row.requested_at ? row : undefined;
  }, 'the request to time out');
  t.match(unknown, { status: 'pending', acknowledged_at: null }, 'a timeout is not a failure');
  const before = Date.now();
  // The callback brings the next question forward: MTN has it, SUCCESSFUL.
  t.equal((await s.api.request('PUT', `/billing/callbacks/mtn_momo/${reference}`, { body: {} })).status, 204);
  await waitFor(async () => (await stored(s, reference)).status === 'succeeded', 'the charge to succeed');
  const end = (await subscriptionEnd(s))!;
  t.ok(Math.abs(end.getTime() - (before + 30 * DAY)) < 120_000, 'extended by the plan\'s period');
  for (let i = 0; i < 3; i++) await confirm(s, reference);
  await s.api.request('PUT', `/billing/callbacks/mtn_momo/${reference}`, { body: {} });
  t.equal((await subscriptionEnd(s))!.getTime(), end.getTime(), 'not extended again by later confirmations and callbacks');
  t.equal(s.fake.calls('request'), 1, 'MTN had it: nothing sent twice');
});

t.test('a 5xx, a 429 or a reset on the request to pay leaves the charge pending; sent again with the same reference, it is paid once', async (t) => {
  for (const fault of [500, 503, 429, 'reset'] as const) {
    const s = await setup(t, {}, { worker: false });
    s.fake.failNext('request', fault);
    const { reference } = (await subscribe(s, '670000000')).body.data;
    await stopChargePolling(s.api, reference);
    const first = await confirm(s, reference);
    t.match(first.body.data, { status: 'pending', failure_reason: null }, `${fault}: pending`);
    t.equal(s.fake.requests.size, 0, `${fault}: MTN does not have it`);
    const second = await confirm(s, reference);
    t.match(second.body.data, { status: 'succeeded' }, `${fault}: asked again, sent again, paid`);
    t.equal(s.fake.requests.size, 1);
    t.ok(s.fake.requests.has(reference), `${fault}: the same reference`);
  }
});

t.test('a 404 on the status of a request MTN never acknowledged: it is sent again', async (t) => {
  const s = await setup(t, {}, { worker: false });
  s.fake.failNext('request', 'reset');
  const { reference } = (await subscribe(s, '670000000')).body.data;
  await stopChargePolling(s.api, reference);
  await confirm(s, reference);
  t.match(await stored(s, reference), { status: 'pending', acknowledged_at: null });
  t.not((await stored(s, reference)).requested_at, null, 'sent once');
  const statusCalls = s.fake.calls('status');
  const reply = await confirm(s, reference);
  t.equal(s.fake.calls('status') - statusCalls, 2, 'looked up (404), sent, looked up again');
  t.equal(s.fake.calls('request'), 2, 'sent again');
  t.match(reply.body.data, { status: 'succeeded' });
});

t.test('MTN\'s 409 on a re-send means it has the request: it is looked up and settled', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const { reference } = (await subscribe(s, '670000000')).body.data;
  await stopChargePolling(s.api, reference);
  s.fake.failNext('request', 'keep-and-hang');
  await confirm(s, reference);
  t.ok(s.fake.requests.has(reference), 'MTN took it; its answer was lost');
  // As if the process had died before it wrote the request down.
  await s.api.ownerSql`update subscription_charges set requested_at = null where reference = ${reference}`;
  const reply = await confirm(s, reference);
  t.equal(s.fake.calls('request'), 2, 'sent again: 409 RESOURCE_ALREADY_EXIST');
  t.match(reply.body.data, { status: 'succeeded' }, 'then looked up: SUCCESSFUL');
  t.equal(await receiptsQueued(s, reference), 1);
});

t.test('a request MTN acknowledged and no longer knows: pending within the approval window, failed past it', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const { reference } = (await subscribe(s, '670000002')).body.data;
  await stopChargePolling(s.api, reference);
  t.match((await confirm(s, reference)).body.data, { status: 'pending' });
  t.not((await stored(s, reference)).acknowledged_at, null, 'acknowledged');
  s.fake.forget(reference);
  t.match((await confirm(s, reference)).body.data, { status: 'pending' }, 'a 404 right after: pending');
  await s.api.ownerSql`update subscription_charges set acknowledged_at = now() - interval '11 minutes' where reference = ${reference}`;
  t.match((await confirm(s, reference)).body.data, { status: 'failed', failure_reason: 'provider_rejected' }, 'past the window: failed');
  t.equal(s.fake.calls('request'), 1, 'never sent again once acknowledged');
});

t.test('a 401 (expired token) on the request to pay: one new token, the request sent again, the charge taken', async (t) => {
  const s = await setup(t, {}, { worker: false });
  await subscribe(s, '670000002'); // a token in hand
  const tokens = s.fake.tokensIssued();
  s.fake.expireTokens();
  const { reference } = (await subscribe(s, '670000000')).body.data;
  await stopChargePolling(s.api, reference);
  t.match((await confirm(s, reference)).body.data, { status: 'succeeded' });
  t.equal(s.fake.tokensIssued() - tokens, 1, 'one token fetched');
});

t.test('MTN\'s FAILED fails the charge with its reason, and GET /billing says why in the owner\'s language', async (t) => {
  const s = await setup(t);
  const { reference } = (await subscribe(s, '670000003')).body.data;
  await waitFor(async () => (await stored(s, reference)).status === 'failed', 'the charge to fail');
  const [charge] = (await billing(s)).charges;
  t.match(charge, { reference, status: 'failed', failure_reason: 'not_enough_funds', failure_message: "Le solde du compte mobile money n'est pas suffisant." });
  await s.api.request('PUT', '/profile', { token: s.owner.token, body: { locale: 'en' } });
  t.equal((await billing(s)).charges[0].failure_message, 'The mobile-money account does not hold enough funds.');
  t.equal(await subscriptionEnd(s), null, 'nothing extended');
});

t.test('a number with no active MTN wallet is a 422 payer_not_found on phone, and no charge is made', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const reply = await subscribe(s, '+237 670 00 00 07');
  expectInvalid(t, reply, 'phone', 'inactive payer', 'payer_not_found');
  t.equal((await billing(s)).charges.length, 0);
  t.equal(s.fake.calls('request'), 0);
});

t.test('when MTN cannot say whether the payer has a wallet, the charge is made all the same', async (t) => {
  const s = await setup(t, {}, { worker: false });
  s.fake.failNext('accountholder', 500);
  const reply = await subscribe(s, '670000000');
  t.equal(reply.status, 202);
  t.equal(reply.body.data.status, 'pending');
});

t.test('a callback answers 204 whatever it holds and whether or not the charge exists, and only brings the next question forward', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const { reference } = (await subscribe(s, '670000002')).body.data;
  await stopChargePolling(s.api, reference);
  await confirm(s, reference);
  const polls = async () =>
    (await s.api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`charge_poll:${reference}`} and run_at <= now() + interval '1 second'`)[0]!.n;

  const lying = await s.api.request('PUT', `/billing/callbacks/mtn_momo/${reference}`, { body: { externalId: reference, status: 'SUCCESSFUL', financialTransactionId: '1' } });
  t.equal(lying.status, 204);
  t.equal(lying.body, '', 'no body');
  t.equal(await polls(), 1, 'the charge\'s poll is due now');
  t.equal((await stored(s, reference)).status, 'pending', 'the body is not believed: MTN still says PENDING');

  for (const [what, path, options] of [
    ['an unknown reference', '/billing/callbacks/mtn_momo/00000000-0000-4000-8000-000000000000', { body: {} }],
    ['another provider', `/billing/callbacks/pawapay/${reference}`, { body: {} }],
    ['not JSON', `/billing/callbacks/mtn_momo/${reference}`, { rawBody: '<xml/>', headers: { 'content-type': 'application/xml' } }],
    ['no body', `/billing/callbacks/mtn_momo/${reference}`, {}],
    ['a reference in the body', '/billing/callbacks/pawapay', { body: { depositId: reference, status: 'COMPLETED' } }],
    ['garbage in the body', '/billing/callbacks/pawapay', { rawBody: '{"depositId": [1,2' }],
  ] as const) {
    const reply = await s.api.request('PUT', path, options as object);
    t.equal(reply.status, 204, `${what}: 204`);
    const posted = await s.api.request('POST', path, options as object);
    t.equal(posted.status, 204, `${what}: POST, 204`);
  }
  const unknownJobs = await s.api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = 'charge_poll:00000000-0000-4000-8000-000000000000'`;
  t.equal(unknownJobs[0]!.n, 0, 'nothing queued for a reference that does not exist');
  t.equal((await s.api.request('PUT', `/billing/callbacks/bank/${reference}`, { body: {} })).status, 422, 'an unknown provider is refused');
});

t.test('a callback through the worker: the charge MTN completed is settled at once', async (t) => {
  const s = await setup(t);
  const { reference } = (await subscribe(s, '670000002')).body.data;
  await waitFor(async () => (await stored(s, reference)).acknowledged_at !== null, 'the request to be acknowledged');
  s.fake.settle(reference, 'SUCCESSFUL');
  const started = Date.now();
  await s.api.request('PUT', `/billing/callbacks/mtn_momo/${reference}`, { body: { status: 'SUCCESSFUL' } });
  await waitFor(async () => (await stored(s, reference)).status === 'succeeded', 'the charge to succeed', 8_000);
  t.ok(Date.now() - started < 8_000, `settled ${Date.now() - started} ms after the callback, before the poll's own turn`);
});

t.test('callbacks are limited per address', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const statuses: number[] = [];
  for (let i = 0; i < 121; i++) statuses.push((await s.api.request('PUT', `/billing/callbacks/mtn_momo/ref-${i}`, { body: {} })).status);
  t.equal(statuses.filter((status) => status === 204).length, 120);
  const limited = await s.api.request('PUT', '/billing/callbacks/mtn_momo/ref-last', { body: {} });
  t.equal(limited.status, 429);
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'with Retry-After');
});

t.test('X-Callback-Url names the charge under PUBLIC_BASE_URL when it is set, and is not sent otherwise', async (t) => {
  const s = await setup(t, { PUBLIC_BASE_URL: 'https://pos.example.cm/' });
  const { reference } = (await subscribe(s, '670000002')).body.data;
  const kept = await waitFor(() => s.fake.requests.get(reference), 'the request to pay');
  t.equal(kept.headers['x-callback-url'], `https://pos.example.cm/api/v1/billing/callbacks/mtn_momo/${reference}`);
  const plain = await setup(t);
  const other = (await subscribe(plain, '670000002')).body.data.reference;
  t.notOk('x-callback-url' in (await waitFor(() => plain.fake.requests.get(other), 'the request to pay')).headers);
});

t.test('past 24 hours: a charge never sent is expired unsent; MTN\'s last word still settles one it has; while MTN cannot be asked it waits', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const age = (reference: string) => s.api.ownerSql`update subscription_charges set created_at = now() - interval '25 hours' where reference = ${reference}`;

  const unsent = (await subscribe(s, '670000000')).body.data.reference;
  await stopChargePolling(s.api, unsent);
  await age(unsent);
  t.match((await confirm(s, unsent)).body.data, { status: 'expired', failure_message: "Le paiement n'a pas été approuvé à temps." }, 'never sent: expired');
  t.equal(s.fake.calls('request'), 0, 'and not sent a day late');

  const late = (await subscribe(s, '670000002')).body.data.reference;
  await stopChargePolling(s.api, late);
  await confirm(s, late);
  await age(late);
  s.fake.settle(late, 'SUCCESSFUL');
  s.fake.failNext('status', 503);
  t.match((await confirm(s, late)).body.data, { status: 'pending' }, 'MTN cannot be asked: still pending');
  t.match((await confirm(s, late)).body.data, { status: 'succeeded' }, 'MTN says SUCCESSFUL: paid, however late');

  const stale = (await subscribe(s, '670000002')).body.data.reference;
  await stopChargePolling(s.api, stale);
  await confirm(s, stale);
  await age(stale);
  t.match((await confirm(s, stale)).body.data, { status: 'expired' }, 'still PENDING at MTN a day later: expired');
});

t.test('the application role settles or records only its own shop\'s charges, never with no shop set', async (t) => {
  const s = await setup(t, {}, { worker: false });
  const { reference } = (await subscribe(s, '670000002')).body.data;
  await stopChargePolling(s.api, reference);
  const other = await registerShop(s.api);
  const asApp = (shopId: string | null) =>
    s.api.appSql.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shopId ?? ''}, true)`;
      await tx`select charge_note_request(${reference}, true)`;
      return (await tx<{ status: string | null }[]>`select (charge_settle(${reference}, 'succeeded')).status`)[0]!.status;
    });
  t.equal(await asApp(null), null, 'no shop set: nothing settled');
  t.equal(await asApp(other.shop.id), null, 'another shop: nothing settled');
  t.match(await stored(s, reference), { status: 'pending', requested_at: null, acknowledged_at: null }, 'nor recorded');
  t.equal(await subscriptionEnd(s), null);
});
