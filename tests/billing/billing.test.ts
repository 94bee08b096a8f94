import t from 'tap';
import { addStaff, createProduct, expireSubscription, registerShop, stopChargePolling, waitFor } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { CRONTAB } from '../../worker/worker.ts';

/**
 * Subscription billing (CONTRACT section 10) with the default simulator provider, which decides by
 * the payer's number: last digit 1 fails (payer_declined), 2 stays pending, any other succeeds. The
 * charge__poll task runs in a real graphile-worker.
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const MONTHLY = '6b1c1a70-0000-4000-8000-000000000030';
const YEARLY = '6b1c1a70-0000-4000-8000-000000000365';
const DAY = 86_400_000;

const subscribe = (token: string, phone: string, plan_id = MONTHLY) =>
  api.request('POST', '/billing/subscribe', { token, body: { plan_id, method: 'carrier1_momo', phone } });
const confirm = (token: string, reference: string) => api.request('POST', `/billing/confirm/${reference}`, { token });
const billing = async (token: string) => (await api.request('GET', '/billing', { token })).body.data;

const shop = () => registerShop(api);

t.test('the renewal reminders are on the crontab, hourly, with a pinned id', async (t) => {
  t.match(CRONTAB, /^20 \* \* \* \* billing__remind_renewal \?id=billing_remind_renewal$/m);
});

t.test('the plans: a monthly and a yearly one in XAF, for any shop user', async (t) => {
  const owner = await shop();
  const cashier = await addStaff(api, owner, 'cashier');
  const reply = await api.request('GET', '/billing/plans', { token: cashier.token });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data, [
    { id: MONTHLY, name: 'Mensuel', price_xaf: 5_000, period_days: 30 },
    { id: YEARLY, name: 'Annuel', price_xaf: 50_000, period_days: 365 },
  ]);
});

t.test('GET /billing and POST /billing/subscribe need the owner', async (t) => {
  const owner = await shop();
  const manager = await addStaff(api, owner, 'manager');
  expectError(t, await api.request('GET', '/billing', { token: manager.token }), 403, FORBIDDEN, 'a manager reads');
  expectError(t, await subscribe(manager.token, '+237670000000'), 403, FORBIDDEN, 'a manager subscribes');
  const state = await billing(owner.token);
  t.match(state, { status: 'trial', subscription_ends_at: null, plan: null, charges: [] });
});

t.test('subscribe answers 202 with the pending charge of the plan\'s price; an unknown plan or method is a 422 on its key', async (t) => {
  const owner = await shop();
  const reply = await subscribe(owner.token, '+237 670 00 00 02', YEARLY);
  t.equal(reply.status, 202);
  t.match(reply.body.data, { status: 'pending', plan_id: YEARLY, amount_xaf: 50_000, method: 'carrier1_momo', phone: '+237 670 00 00 02', failure_reason: null, settled_at: null });
  t.match(reply.body.data.reference, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'the reference is a UUID v4: it names the request at the provider too');
  expectInvalid(t, await subscribe(owner.token, '+237670000000', '00000000-0000-4000-8000-000000000000'), 'plan_id', 'unknown plan');
  expectInvalid(t, await api.request('POST', '/billing/subscribe', { token: owner.token, body: { plan_id: MONTHLY, method: 'cash', phone: '670' } }), 'method', 'not mobile money');
  expectInvalid(t, await api.request('POST', '/billing/subscribe', { token: owner.token, body: { plan_id: MONTHLY, method: 'carrier2_money', phone: '' } }), 'phone', 'no phone');
  t.equal((await billing(owner.token)).charges.length, 1, 'the refused ones left nothing');
});

t.test('a charge confirmed as paid activates the subscription for the plan\'s period, from now', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237670000000')).body.data;
  const before = Date.now();
  const reply = await confirm(owner.token, reference);
  t.equal(reply.status, 200);
  t.equal(reply.body.data.status, 'succeeded');
  const state = await billing(owner.token);
  t.equal(state.status, 'active');
  t.match(state.plan, { id: MONTHLY, period_days: 30 });
  const ends = Date.parse(state.subscription_ends_at);
  t.ok(Math.abs(ends - (before + 30 * DAY)) < 60_000, `30 days from now (${state.subscription_ends_at})`);
  t.equal(reply.body.data.subscription_ends_at, state.subscription_ends_at, 'the charge says the end it brought');
});

t.test('a renewal runs from the later of now and the current end', async (t) => {
  const owner = await shop();
  const first = (await subscribe(owner.token, '+237670000000')).body.data;
  await confirm(owner.token, first.reference);
  const afterFirst = Date.parse((await billing(owner.token)).subscription_ends_at);
  const second = (await subscribe(owner.token, '+237670000000', YEARLY)).body.data;
  await confirm(owner.token, second.reference);
  const afterSecond = Date.parse((await billing(owner.token)).subscription_ends_at);
  t.equal(afterSecond - afterFirst, 365 * DAY, 'the year added to the month still running');
  // An end long past: the period runs from now.
  await api.ownerSql`update shops set subscription_ends_at = now() - interval '40 days' where id = ${owner.shop.id}`;
  const third = (await subscribe(owner.token, '+237670000000')).body.data;
  const before = Date.now();
  await confirm(owner.token, third.reference);
  t.ok(Math.abs(Date.parse((await billing(owner.token)).subscription_ends_at) - (before + 30 * DAY)) < 60_000, 'from now');
});

t.test('a declined payment fails the charge with the provider\'s reason; a pending one stays pending', async (t) => {
  const owner = await shop();
  const declined = (await subscribe(owner.token, '+237670000001')).body.data;
  const failed = await confirm(owner.token, declined.reference);
  t.match(failed.body.data, { status: 'failed', failure_reason: 'payer_declined', subscription_ends_at: null });
  const waiting = (await subscribe(owner.token, '+237670000002')).body.data;
  t.match((await confirm(owner.token, waiting.reference)).body.data, { status: 'pending', settled_at: null });
  const state = await billing(owner.token);
  t.equal(state.status, 'trial', 'nothing activated');
  t.strictSame(state.charges.map((charge: { status: string }) => charge.status), ['pending', 'failed'], 'newest first');
  t.match((await confirm(owner.token, declined.reference)).body.data, { status: 'failed' }, 'a settled charge is answered as it is');
});

t.test('eight confirmations and a poll at the same time activate the subscription once', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237670000000')).body.data;
  const before = Date.now();
  const replies = await Promise.all([
    ...Array.from({ length: 8 }, () => confirm(owner.token, reference)),
    api.ownerSql`select graphile_worker.add_job('charge__poll', json_build_object('reference', ${reference}::text))`.then(() => ({ status: 200, body: { data: { status: 'succeeded' } } })),
  ]);
  t.strictSame(replies.map((reply) => [reply.status, reply.body.data.status]), Array.from({ length: 9 }, () => [200, 'succeeded']));
  const state = await billing(owner.token);
  t.ok(Math.abs(Date.parse(state.subscription_ends_at) - (before + 30 * DAY)) < 60_000, 'one period, not several');
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`charge_poll:${reference}`}`;
    return row!.n === 0;
  }, 'the polls');
  t.ok(Math.abs(Date.parse((await billing(owner.token)).subscription_ends_at) - (before + 30 * DAY)) < 60_000, 'still one period after the polls');
});

t.test('a charge nobody confirms is activated by the worker\'s polls', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237699000000')).body.data;
  const charge = await waitFor(async () => {
    const state = await billing(owner.token);
    return state.charges.find((c: { reference: string; status: string }) => c.reference === reference && c.status === 'succeeded');
  }, 'the poll to settle the charge');
  t.ok(charge.settled_at);
  t.equal((await billing(owner.token)).status, 'active');
});

t.test('a charge still pending after 24 hours is expired by the next poll', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237670000002')).body.data;
  await stopChargePolling(api, reference);
  await api.ownerSql`update subscription_charges set created_at = now() - interval '25 hours' where reference = ${reference}`;
  await api.ownerSql`select graphile_worker.add_job('charge__poll', json_build_object('reference', ${reference}::text))`;
  const expired = await waitFor(async () => (await billing(owner.token)).charges.find((c: { status: string }) => c.status === 'expired'), 'the charge to expire');
  t.match(expired, { reference, status: 'expired', subscription_ends_at: null });
});

t.test('an ended subscription never blocks paying, and a payment lifts the 402 at once', async (t) => {
  const owner = await shop();
  await expireSubscription(api, owner.shop.id);
  const write = () => createProduct(api, owner.token, { name: 'Savon' }).then(() => 201, (error: Error) => (/402/.test(error.message) ? 402 : 500));
  t.equal(await write(), 402, 'writes answer 402');
  t.equal((await billing(owner.token)).status, 'expired');
  const reply = await subscribe(owner.token, '+237670000000');
  t.equal(reply.status, 202, 'subscribing is not blocked');
  t.equal((await confirm(owner.token, reply.body.data.reference)).status, 200);
  t.equal(await write(), 201, 'the next write goes through');
});

t.test('an unknown reference, or another shop\'s, is a 404', async (t) => {
  const owner = await shop();
  const other = await shop();
  const { reference } = (await subscribe(other.token, '+237670000002')).body.data;
  expectError(t, await confirm(owner.token, reference), 404, NOT_FOUND, 'another shop\'s');
  expectError(t, await confirm(owner.token, 'SUB-0000000000000000'), 404, NOT_FOUND, 'unknown');
  t.equal((await billing(owner.token)).charges.length, 0, 'nor is it listed');
});

t.test('the owners receive an e-mailed receipt of the payment, in the shop\'s language, once', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237670000000')).body.data;
  await confirm(owner.token, reference);
  await confirm(owner.token, reference);
  const mails = await waitFor(() => {
    const found = mailbox.received.filter((mail) => mail.to.includes(owner.email));
    return found.length ? found : undefined;
  }, 'the receipt');
  t.match(mails[0]!.subject, /reçu de votre abonnement/);
  t.match(mails[0]!.text, /Paiement reçu : 5 000 FCFA/);
  t.match(mails[0]!.text, new RegExp(reference));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal(mailbox.received.filter((mail) => mail.to.includes(owner.email)).length, 1, 'one mail, however many confirmations');

  const english = await shop();
  await api.ownerSql`update shops set locale = 'en' where id = ${english.shop.id}`;
  const paid = (await subscribe(english.token, '+237670000000')).body.data;
  await confirm(english.token, paid.reference);
  const [mail] = await waitFor(() => {
    const found = mailbox.received.filter((m) => m.to.includes(english.email));
    return found.length ? found : undefined;
  }, 'the English receipt');
  t.match(mail!.subject, /your subscription receipt/);
});

t.test('a shop whose subscription ends within 3 days gets one reminder, however often and on however many workers the task runs', async (t) => {
  const ending = await shop();
  const later = await shop();
  await api.ownerSql`update shops set trial_ends_at = now() - interval '1 day', subscription_ends_at = now() + interval '2 days' where id = ${ending.shop.id}`;
  await api.ownerSql`update shops set trial_ends_at = now() - interval '1 day', subscription_ends_at = now() + interval '10 days' where id = ${later.shop.id}`;
  await Promise.all(Array.from({ length: 3 }, () => api.ownerSql`select graphile_worker.add_job('billing__remind_renewal', '{}'::json)`));
  const [mail] = await waitFor(() => {
    const found = mailbox.received.filter((m) => m.to.includes(ending.email));
    return found.length ? found : undefined;
  }, 'the reminder');
  t.match(mail!.subject, /votre abonnement se termine bientôt/);
  await api.ownerSql`select graphile_worker.add_job('billing__remind_renewal', '{}'::json)`;
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier in ('billing__remind_renewal', 'billing__send_reminder')`;
    return row!.n === 0;
  }, 'the runs');
  t.equal(mailbox.received.filter((m) => m.to.includes(ending.email)).length, 1, 'one reminder for this end');
  t.equal(mailbox.received.filter((m) => m.to.includes(later.email)).length, 0, 'none 10 days before');
});

t.test('a crash between the provider\'s answer and the commit activates nothing; the next confirmation activates once', async (t) => {
  const owner = await shop();
  const { reference } = (await subscribe(owner.token, '+237670000002')).body.data;
  await stopChargePolling(api, reference);
  // The settling of a worker that dies before its commit: rolled back with everything it did.
  await t.rejects(
    api.ownerSql.begin(async (sql) => {
      await sql`select charge_settle(${reference}, 'succeeded')`;
      throw new Error('the worker died');
    }),
    /the worker died/,
  );
  const state = await billing(owner.token);
  t.match(state, { status: 'trial', subscription_ends_at: null });
  t.equal(state.charges[0].status, 'pending', 'still pending');
  const [queued] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`billing_receipt:${reference}`}`;
  t.equal(queued!.n, 0, 'no receipt queued either');
  // The provider answers "paid" the next time (the simulator's pending number stands in; settled directly as the poll would).
  const before = Date.now();
  await api.ownerSql`select charge_settle(${reference}, 'succeeded')`;
  await api.ownerSql`select charge_settle(${reference}, 'succeeded')`;
  const after = await billing(owner.token);
  t.equal(after.status, 'active');
  t.ok(Math.abs(Date.parse(after.subscription_ends_at) - (before + 30 * DAY)) < 60_000, 'one period');
});
