import t from 'tap';
import { expireSubscription, login } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { admin, ageLine, createPartner, markPayable, paidLine, referredShop, YEARLY } from './partner-fixtures.ts';

/**
 * A partner's own pages (CONTRACT section 11): its login, its headline totals, its referred shops
 * (name, signup date, subscription state and commissions; nothing else of a shop) and its lines.
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);
const root = await admin(api);

const get = (token: string, path: string) => api.request('GET', path, { token });
const payLines = (ids: string[], payout_reference = 'MM-2026-11') =>
  api.request('POST', '/admin/partner-commissions/pay', { token: root.token, body: { ids, payout_reference } });

/** A partner with three referred shops: one in its trial, one paying (yearly, then monthly), one whose trial ended unpaid. */
async function partnerWithShops() {
  const partner = await createPartner(api, root, { commission_rate: 10 });
  const trial = await referredShop(api, partner.code, { shop_name: 'Pharmacie du Lac' });
  const paying = await referredShop(api, partner.code, { shop_name: 'Quincaillerie Mboa' });
  const lapsed = await referredShop(api, partner.code, { shop_name: 'Boutique Ndolo' });
  await expireSubscription(api, lapsed.shop.id);
  const yearly = await paidLine(api, paying, YEARLY); // 5,000
  const monthly = await paidLine(api, paying); // 500
  return { partner, trial, paying, lapsed, yearly, monthly };
}

t.test('a partner logs in with the one login route: kind partner, no shop', async (t) => {
  const partner = await createPartner(api, root);
  const reply = await api.request('POST', '/auth/login', { body: { email: partner.email, password: 'secret-pass-1' } });
  t.equal(reply.status, 200);
  t.match(reply.body.data.user, { id: partner.id, kind: 'partner', role: null, shop_id: null });
  t.equal(reply.body.data.shop, null);
});

t.test('the dashboard counts the partner\'s shops by subscription state and its commissions by status', async (t) => {
  const { partner, yearly, monthly } = await partnerWithShops();
  await ageLine(api, yearly.reference, 15);
  await markPayable(api);
  t.equal((await payLines([monthly.line.id])).status, 200);
  const reply = await get(partner.token, '/partner/dashboard');
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data, {
    partner: { id: partner.id, name: 'Moussa Diallo', code: partner.code, commission_rate: 10, commission_months: 12, status: 'active' },
    referred_shops: 3,
    trial_shops: 1,
    active_shops: 1,
    expired_shops: 1,
    commission_pending_xaf: 0,
    commission_payable_xaf: 5_000,
    commission_paid_xaf: 500,
    commission_total_xaf: 5_500,
  });
});

t.test('a new partner\'s dashboard is all zeros', async (t) => {
  const partner = await createPartner(api, root);
  t.match((await get(partner.token, '/partner/dashboard')).body.data, {
    referred_shops: 0, trial_shops: 0, active_shops: 0, expired_shops: 0, commission_total_xaf: 0, commission_pending_xaf: 0,
  });
});

t.test('referrals list each referred shop, newest first, with only its name, signup date, subscription state and commissions', async (t) => {
  const { partner, trial, paying, lapsed } = await partnerWithShops();
  const reply = await get(partner.token, '/partner/referrals');
  t.equal(reply.status, 200);
  const rows = reply.body.data;
  t.strictSame(rows.map((row: { shop_id: string }) => row.shop_id), [lapsed.shop.id, paying.shop.id, trial.shop.id]);
  for (const row of rows) {
    t.strictSame(Object.keys(row).sort(), [
      'commission_paid_xaf', 'commission_payable_xaf', 'commission_pending_xaf', 'commission_total_xaf', 'commission_until', 'name', 'shop_id',
      'signed_up_at', 'subscription_ends_at', 'subscription_status', 'trial_ends_at',
    ]);
  }
  t.match(rows[0], { name: 'Boutique Ndolo', subscription_status: 'expired', subscription_ends_at: null, commission_total_xaf: 0 });
  t.match(rows[1], { name: 'Quincaillerie Mboa', subscription_status: 'active', commission_total_xaf: 5_500, commission_pending_xaf: 5_500 });
  t.match(rows[2], { name: 'Pharmacie du Lac', subscription_status: 'trial', commission_total_xaf: 0 });
  const signedUp = new Date(rows[1].signed_up_at);
  const until = new Date(rows[1].commission_until);
  t.equal(until.getUTCFullYear() - signedUp.getUTCFullYear(), 1, '12 months after signup');
  t.equal(until.getUTCMonth(), signedUp.getUTCMonth());
  t.notOk(JSON.stringify(rows).includes(paying.email), 'no owner e-mail');
});

t.test('referrals page with limit and cursor, each shop once', async (t) => {
  const { partner } = await partnerWithShops();
  const first = await get(partner.token, '/partner/referrals?limit=2');
  t.equal(first.body.data.length, 2);
  t.type(first.body.meta.next_cursor, 'string');
  const second = await get(partner.token, `/partner/referrals?limit=2&cursor=${first.body.meta.next_cursor}`);
  t.equal(second.body.data.length, 1);
  t.equal(second.body.meta.next_cursor, null);
  const ids = [...first.body.data, ...second.body.data].map((row: { shop_id: string }) => row.shop_id);
  t.equal(new Set(ids).size, 3);
  expectInvalid(t, await get(partner.token, '/partner/referrals?cursor=nonsense'), 'cursor');
  expectInvalid(t, await get(partner.token, '/partner/referrals?limit=0'), 'limit');
});

t.test('commission lines are the partner\'s own, newest first, with their shop and charge', async (t) => {
  const { partner, paying, yearly, monthly } = await partnerWithShops();
  const reply = await get(partner.token, '/partner/commissions');
  t.equal(reply.status, 200);
  t.match(reply.body.data, [
    { id: monthly.line.id, partner_id: partner.id, shop_id: paying.shop.id, shop_name: 'Quincaillerie Mboa', charge_reference: monthly.reference, base_amount_xaf: 5_000, commission_rate: 10, amount_xaf: 500, status: 'pending', payout_reference: null, paid_at: null },
    { id: yearly.line.id, charge_reference: yearly.reference, base_amount_xaf: 50_000, amount_xaf: 5_000, status: 'pending' },
  ]);
  t.equal(reply.body.data.length, 2);
});

t.test('commission lines filter by status, shop and UTC day of accrual, and page', async (t) => {
  const { partner, paying, trial, yearly, monthly } = await partnerWithShops();
  t.equal((await payLines([yearly.line.id], 'OM-123')).status, 200);
  const paid = await get(partner.token, '/partner/commissions?status=paid');
  t.match(paid.body.data, [{ id: yearly.line.id, status: 'paid', payout_reference: 'OM-123' }]);
  t.equal(paid.body.data.length, 1);
  t.equal((await get(partner.token, `/partner/commissions?shop_id=${paying.shop.id}`)).body.data.length, 2);
  t.equal((await get(partner.token, `/partner/commissions?shop_id=${trial.shop.id}`)).body.data.length, 0);
  await ageLine(api, yearly.reference, 10);
  const today = new Date().toISOString().slice(0, 10);
  const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
  t.strictSame((await get(partner.token, `/partner/commissions?from=${today}`)).body.data.map((row: { id: string }) => row.id), [monthly.line.id]);
  t.strictSame((await get(partner.token, `/partner/commissions?to=${tenDaysAgo}`)).body.data.map((row: { id: string }) => row.id), [yearly.line.id]);
  expectInvalid(t, await get(partner.token, `/partner/commissions?from=${today}&to=${tenDaysAgo}`), 'to', 'to before from');
  expectInvalid(t, await get(partner.token, '/partner/commissions?status=refunded'), 'status');
  expectInvalid(t, await get(partner.token, '/partner/commissions?shop_id=42'), 'shop_id');
  const first = await get(partner.token, '/partner/commissions?limit=1');
  const second = await get(partner.token, `/partner/commissions?limit=1&cursor=${first.body.meta.next_cursor}`);
  t.strictSame([first.body.data[0].id, second.body.data[0].id], [monthly.line.id, yearly.line.id]);
  t.equal(second.body.meta.next_cursor, null);
});

t.test('a suspended partner still logs in and reads its pages, showing its status', async (t) => {
  const { partner } = await partnerWithShops();
  t.equal((await api.request('PUT', `/admin/partners/${partner.id}`, { token: root.token, body: { status: 'suspended' } })).status, 200);
  const token = await login(api, partner.email);
  t.equal((await get(token, '/partner/dashboard')).body.data.partner.status, 'suspended');
  t.equal((await get(token, '/partner/commissions')).body.data.length, 2);
});
