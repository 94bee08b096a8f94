import t from 'tap';
import { CRONTAB } from '../../worker/worker.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import {
  accrualsDone,
  admin,
  ageLine,
  createPartner,
  linesOf,
  markPayable,
  pay,
  paidLine,
  queueAccruals,
  referredShop,
  YEARLY,
} from './partner-fixtures.ts';

/**
 * Referral at registration and commission accrual (CONTRACT section 11): a shop registered with an
 * active partner's code is its referral; each succeeded charge of a referred shop within the
 * partner's commission months accrues one line, in a real graphile-worker (commission__accrue,
 * queued by the charge's success); the daily commission__mark_payable makes a line payable 14 days
 * after its charge.
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);
const root = await admin(api);

const partnerOf = async (shopId: string) =>
  (await api.ownerSql<{ partner_id: string | null; referral_code: string | null }[]>`select partner_id, referral_code from shops where id = ${shopId}`)[0]!;
const setPartner = (id: string, body: Record<string, unknown>) => api.request('PUT', `/admin/partners/${id}`, { token: root.token, body });

t.test('the payable task is on the crontab, daily, with a pinned id and a day of backfill', async (t) => {
  t.match(CRONTAB, /^30 2 \* \* \* commission__mark_payable \?id=commission_mark_payable&fill=1d$/m);
});

t.test('a shop registered with an active partner\'s code, whatever its case and spaces, is that partner\'s referral; the code is kept as typed', async (t) => {
  const partner = await createPartner(api, root, { code: 'Yaounde-Centre' });
  const shop = await referredShop(api, '  yAOUNDE-centre ');
  t.strictSame(await partnerOf(shop.shop.id), { partner_id: partner.id, referral_code: 'yAOUNDE-centre' });
});

t.test('an unknown code never blocks signup: the shop is kept unreferred with the code as typed', async (t) => {
  const shop = await referredShop(api, 'NOBODY-42');
  t.strictSame(await partnerOf(shop.shop.id), { partner_id: null, referral_code: 'NOBODY-42' });
});

t.test('a suspended partner\'s code refers nobody', async (t) => {
  const partner = await createPartner(api, root);
  t.equal((await setPartner(partner.id, { status: 'suspended' })).status, 200);
  const shop = await referredShop(api, partner.code);
  t.equal((await partnerOf(shop.shop.id)).partner_id, null);
});

t.test('the referral is set once: the shop cannot move itself to another partner', async (t) => {
  const first = await createPartner(api, root);
  const second = await createPartner(api, root);
  const shop = await referredShop(api, first.code);
  const reply = await api.request('PUT', '/shop', { token: shop.token, body: { name: 'Renamed', partner_id: second.id, referral_code: second.code } });
  t.strictSame([reply.status, Object.keys(reply.body.errors ?? {}).sort()], [422, ['partner_id', 'referral_code']], 'the shop\'s settings do not take them');
  t.equal((await partnerOf(shop.shop.id)).partner_id, first.id);
});

t.test('a succeeded charge of a referred shop accrues one pending line of round(amount * rate / 100), payable 14 days after the payment', async (t) => {
  const partner = await createPartner(api, root, { commission_rate: 15 });
  const shop = await referredShop(api, partner.code);
  const { reference, line } = await paidLine(api, shop, YEARLY);
  const [stored] = await api.ownerSql<{ shop_id: string; base: number; rate: number; amount: number; status: string; window: string; payout_reference: null }[]>`
    select c.shop_id, c.base_amount_xaf::int as base, c.commission_rate::float8 as rate, c.amount_xaf::int as amount, c.status,
           (c.payable_after - ch.settled_at)::text as window, c.payout_reference
      from partner_commissions c join subscription_charges ch on ch.reference = c.charge_reference where c.id = ${line.id}`;
  t.strictSame(stored, { shop_id: shop.shop.id, base: 50_000, rate: 15, amount: 7_500, status: 'pending', window: '14 days', payout_reference: null });
  t.equal(line.partner_id, partner.id);
  t.equal((await linesOf(api, reference)).length, 1);
});

t.test('amounts are whole francs rounded half away from zero', async (t) => {
  // 5,000 * 0.01% = 0.5 -> 1; 5,000 * 33.33% = 1,666.5 -> 1,667; 50,000 * 12.345...: rates have 2 decimals, 12.35% = 6,175 exactly.
  for (const [rate, plan, expected] of [[0.01, undefined, 1], [33.33, undefined, 1_667], [12.35, YEARLY, 6_175], [0.03, undefined, 2]] as const) {
    const partner = await createPartner(api, root, { commission_rate: rate });
    const shop = await referredShop(api, partner.code);
    const { line } = await paidLine(api, shop, plan);
    t.equal(line.amount_xaf, expected, `${rate}%`);
  }
});

t.test('a commission that rounds to nothing accrues no line', async (t) => {
  const partner = await createPartner(api, root, { commission_rate: 0 });
  const shop = await referredShop(api, partner.code);
  const reference = await pay(api, shop);
  await accrualsDone(api);
  t.equal((await linesOf(api, reference)).length, 0);
});

t.test('the accrual is queued in the transaction that marks the charge succeeded, for a referred shop only', async (t) => {
  const partner = await createPartner(api, root);
  for (const [shop, expected] of [[await referredShop(api, partner.code), 1], [await registerShop(api), 0]] as const) {
    // A number ending in 2 stays pending at the simulator: the test settles it itself, and rolls back.
    const reply = await api.request('POST', '/billing/subscribe', { token: shop.token, body: { plan_id: YEARLY, method: 'carrier1_momo', phone: '+237670000002' } });
    const { reference } = reply.body.data;
    const queued = await api.ownerSql
      .begin(async (sql) => {
        await sql`select charge_settle(${reference}, 'succeeded')`;
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`commission_accrue:${reference}`}`;
        throw Object.assign(new Error('roll back'), { n: row!.n });
      })
      .catch((error: { n?: number }) => error.n);
    t.equal(queued, expected, expected ? 'referred: queued with the success' : 'not referred: nothing queued');
  }
});

t.test('a shop nobody referred accrues nothing', async (t) => {
  const shop = await registerShop(api);
  const reference = await pay(api, shop);
  await queueAccruals(api, reference, 1);
  await accrualsDone(api);
  t.equal((await linesOf(api, reference)).length, 0);
});

t.test('a failed or expired charge accrues nothing', async (t) => {
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const failed = await api.request('POST', '/billing/subscribe', { token: shop.token, body: { plan_id: YEARLY, method: 'carrier1_momo', phone: '+237670000001' } });
  const { reference } = failed.body.data;
  await api.request('POST', `/billing/confirm/${reference}`, { token: shop.token });
  await queueAccruals(api, reference, 1);
  await accrualsDone(api);
  t.equal((await linesOf(api, reference)).length, 0);
});

t.test('a charge the worker settles (never confirmed by the client) accrues its line too', async (t) => {
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const reply = await api.request('POST', '/billing/subscribe', { token: shop.token, body: { plan_id: YEARLY, method: 'carrier2_money', phone: '+237690000005' } });
  const { reference } = reply.body.data;
  const lines = await waitFor(async () => {
    const found = await linesOf(api, reference);
    return found.length > 0 && found;
  }, 'the poll to settle the charge and the accrual to run', 60_000);
  t.match(lines, [{ partner_id: partner.id, amount_xaf: 10_000, status: 'pending' }]);
});

t.test('only charges asked for within the partner\'s commission months of the shop\'s registration accrue', async (t) => {
  const partner = await createPartner(api, root, { commission_months: 6 });
  const young = await referredShop(api, partner.code);
  const old = await referredShop(api, partner.code);
  await api.ownerSql`update shops set created_at = now() - interval '5 months 27 days' where id = ${young.shop.id}`;
  await api.ownerSql`update shops set created_at = now() - interval '6 months 1 day' where id = ${old.shop.id}`;
  const within = await pay(api, young);
  const beyond = await pay(api, old);
  await accrualsDone(api);
  t.equal((await linesOf(api, within)).length, 1, 'within 6 months');
  t.equal((await linesOf(api, beyond)).length, 0, 'past 6 months');
});

t.test('a suspended partner accrues nothing new, and keeps the lines it had', async (t) => {
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const { line } = await paidLine(api, shop);
  t.equal((await setPartner(partner.id, { status: 'suspended' })).status, 200);
  const later = await pay(api, shop);
  await accrualsDone(api);
  t.equal((await linesOf(api, later)).length, 0, 'nothing new');
  t.match(await api.ownerSql`select status from partner_commissions where id = ${line.id}`, [{ status: 'pending' }], 'the old line stays');
  t.equal((await setPartner(partner.id, { status: 'active' })).status, 200);
  const again = await pay(api, shop);
  await accrualsDone(api);
  t.equal((await linesOf(api, again)).length, 1, 'active again: it accrues');
});

t.test('a new rate applies to lines accrued from then on; a line keeps the rate it was accrued at', async (t) => {
  const partner = await createPartner(api, root, { commission_rate: 10 });
  const shop = await referredShop(api, partner.code);
  const first = await paidLine(api, shop);
  t.equal((await setPartner(partner.id, { commission_rate: 30 })).status, 200);
  const second = await paidLine(api, shop);
  t.equal(first.line.amount_xaf, 500);
  t.equal(second.line.amount_xaf, 1_500);
  t.equal((await linesOf(api, first.reference))[0]!.amount_xaf, 500);
});

t.test('the accrual run again, or by several jobs on two workers at once, writes one line per charge', async (t) => {
  // A second graphile-worker beside the file's: the jobs race across both.
  await startMailWorker(t, api, mailbox);
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const { reference, line } = await paidLine(api, shop);
  await queueAccruals(api, reference, 6);
  await accrualsDone(api);
  await queueAccruals(api, reference, 1);
  await accrualsDone(api);
  t.strictSame((await linesOf(api, reference)).map((row) => row.id), [line.id]);
  const [unique] = await api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from pg_indexes where tablename = 'partner_commissions' and indexdef like 'CREATE UNIQUE INDEX % (charge_reference)'`;
  t.equal(unique!.n, 1, 'a unique key holds it, not a check before the insert');
});

t.test('the daily task makes a line payable once 14 days have passed since its payment, and not before', async (t) => {
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const due = await paidLine(api, shop);
  const early = await paidLine(api, shop);
  await ageLine(api, due.reference, 14);
  await ageLine(api, early.reference, 13);
  await markPayable(api);
  await markPayable(api);
  t.equal((await linesOf(api, due.reference))[0]!.status, 'payable', '14 days: payable');
  t.equal((await linesOf(api, early.reference))[0]!.status, 'pending', '13 days: still pending');
});

t.test('the daily task leaves paid lines and lines held pending by an administrator as they are', async (t) => {
  const partner = await createPartner(api, root);
  const shop = await referredShop(api, partner.code);
  const paid = await paidLine(api, shop);
  const held = await paidLine(api, shop);
  const pay_ = await api.request('POST', '/admin/partner-commissions/pay', { token: root.token, body: { ids: [paid.line.id], payout_reference: 'OM-778' } });
  t.equal(pay_.status, 200);
  const hold = await api.request('POST', '/admin/partner-commissions/pay', { token: root.token, body: { ids: [held.line.id], status: 'pending' } });
  t.equal(hold.status, 200);
  await ageLine(api, paid.reference, 20);
  await ageLine(api, held.reference, 20);
  await markPayable(api);
  t.equal((await linesOf(api, paid.reference))[0]!.status, 'paid');
  t.equal((await linesOf(api, held.reference))[0]!.status, 'pending');
});
