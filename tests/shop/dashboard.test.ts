import t from 'tap';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { addStaff, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { expectError, FORBIDDEN, UNAUTHENTICATED } from '../support/replies.ts';
import { openShift } from '../sales/sale-fixtures.ts';

const api = await startService(t);

const dashboard = (token: string) => api.request('GET', '/dashboard', { token });

async function staffCounts(token: string) {
  const reply = await dashboard(token);
  if (reply.status !== 200) throw new Error(`dashboard failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.staff;
}

t.test('the owner and a manager see the dashboard; a cashier may not (403)', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    const reply = await dashboard(token);
    t.equal(reply.status, 200, who);
    t.strictSame(Object.keys(reply.body), ['data'], `${who}: {data}`);
    t.strictSame(Object.keys(reply.body.data).sort(), ['customers', 'generated_at', 'purchases', 'sales_today', 'shop', 'staff', 'stock'], `${who}: sections`);
    t.strictSame(Object.keys(reply.body.data.shop).sort(), ['days_left', 'name', 'subscription_ends_at', 'subscription_status', 'trial_ends_at'], `${who}: shop keys`);
    t.strictSame(Object.keys(reply.body.data.staff).sort(), ['cashier', 'manager', 'owner', 'total'], `${who}: staff keys`);
  }
  expectError(t, await dashboard(cashier.token), 403, FORBIDDEN, 'cashier');
  expectError(t, await api.request('GET', '/dashboard'), 401, UNAUTHENTICATED, 'no token');
});

t.test('a new shop is on a 30-day trial with its owner as only staff', async (t) => {
  const owner = await registerShop(api, { shop_name: 'Alimentation Ngoa' });
  const reply = await dashboard(owner.token);
  t.equal(reply.status, 200);
  const { shop, staff, generated_at } = reply.body.data;
  t.match(shop, { name: 'Alimentation Ngoa', subscription_status: 'trial', subscription_ends_at: null, days_left: 30 });
  t.equal(shop.trial_ends_at, owner.shop.trial_ends_at, 'the trial ends when the shop says');
  t.strictSame(staff, { owner: 1, manager: 0, cashier: 0, total: 1 });
  t.ok(Math.abs(Date.parse(generated_at) - Date.now()) < 60_000 && generated_at.endsWith('Z'), 'generated_at is now, in UTC');
});

t.test('adding, promoting and removing staff changes the counts', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  t.strictSame(await staffCounts(owner.token), { owner: 1, manager: 0, cashier: 1, total: 2 }, 'a cashier');
  const manager = await addStaff(api, owner, 'manager');
  t.strictSame(await staffCounts(owner.token), { owner: 1, manager: 1, cashier: 1, total: 3 }, 'and a manager');
  t.strictSame(await staffCounts(manager.token), { owner: 1, manager: 1, cashier: 1, total: 3 }, 'the manager sees the same');
  t.equal((await api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body: { role: 'manager' } })).status, 200);
  t.strictSame(await staffCounts(owner.token), { owner: 1, manager: 2, cashier: 0, total: 3 }, 'the cashier promoted');
  t.equal((await api.request('DELETE', `/users/${manager.user.id}`, { token: owner.token })).status, 204);
  t.strictSame(await staffCounts(owner.token), { owner: 1, manager: 1, cashier: 0, total: 2 }, 'a manager removed');
});

t.test('an ended trial shows expired with 0 days left', async (t) => {
  const owner = await registerShop(api);
  await expireSubscription(api, owner.shop.id);
  const reply = await dashboard(owner.token);
  t.equal(reply.status, 200, 'still readable');
  t.match(reply.body.data.shop, { subscription_status: 'expired', days_left: 0, subscription_ends_at: null });
});

t.test('a paid subscription shows active with the days until it ends', async (t) => {
  const owner = await registerShop(api);
  await api.ownerSql`
    update shops set trial_ends_at = now() - interval '1 day', subscription_ends_at = now() + interval '10 days' where id = ${owner.shop.id}`;
  const reply = await dashboard(owner.token);
  t.equal(reply.status, 200);
  t.match(reply.body.data.shop, { subscription_status: 'active', days_left: 10 });
  t.type(reply.body.data.shop.subscription_ends_at, 'string');
});

t.test('another shop\'s staff is never counted', async (t) => {
  const mine = await registerShop(api);
  const manager = await addStaff(api, mine, 'manager');
  const theirs = await registerShop(api);
  for (const role of ['owner', 'manager', 'cashier', 'cashier'] as const) await addStaff(api, theirs, role);
  t.strictSame(await staffCounts(mine.token), { owner: 1, manager: 1, cashier: 0, total: 2 }, 'the owner\'s view');
  t.strictSame(await staffCounts(manager.token), { owner: 1, manager: 1, cashier: 0, total: 2 }, 'the manager\'s view');
  t.strictSame(await staffCounts(theirs.token), { owner: 2, manager: 1, cashier: 2, total: 5 }, 'the other shop counts its own');
});

t.test('the stock section counts products, low stock and the stock value at last cost', async (t) => {
  const owner = await registerShop(api);
  const empty = await api.request('GET', '/dashboard', { token: owner.token });
  t.strictSame(empty.body.data.stock, { products: 0, low_stock: 0, stock_value_xaf: 0 }, 'zeros on a new shop');
  await createProduct(api, owner.token, { cost_xaf: 333, reorder_level: 5 }, 2.5);
  await createProduct(api, owner.token, { cost_xaf: 100, reorder_level: 1 }, 10);
  await createProduct(api, owner.token, { tracked: false, cost_xaf: 999 });
  const reply = await api.request('GET', '/dashboard', { token: owner.token });
  t.strictSame(reply.body.data.stock, { products: 3, low_stock: 1, stock_value_xaf: 833 + 1000 }, '2.5 x 333 = 832.5 rounds to 833');
});

t.test('the customers section counts customers, who owes, what is owed and the points held', async (t) => {
  const owner = await registerShop(api);
  t.strictSame((await api.request('GET', '/dashboard', { token: owner.token })).body.data.customers, { customers: 0, owing: 0, receivables_xaf: 0, points_outstanding: 0 });
  const awa = (await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa', credit_ceiling_xaf: 10000 } })).body.data;
  await api.request('POST', '/customers', { token: owner.token, body: { name: 'Bala' } });
  await inTenant(api.appSql, { shopId: owner.shop.id, userId: owner.user.id }, (tx) => tx`select customer_charge(${awa.id}, 'sale', gen_random_uuid(), 4000)`);
  await api.request('POST', `/customers/${awa.id}/points`, { token: owner.token, body: { delta: 120, reason: 'Bienvenue' } });
  const reply = await api.request('GET', '/dashboard', { token: owner.token });
  t.strictSame(reply.body.data.customers, { customers: 2, owing: 1, receivables_xaf: 4000, points_outstanding: 120 });
});

t.test('the sales_today section counts today\'s sales net of voids and refunds', async (t) => {
  const owner = await registerShop(api);
  await openShift(api, owner.token);
  const dashboard = async () => (await api.request('GET', '/dashboard', { token: owner.token })).body.data.sales_today;
  t.strictSame(await dashboard(), { count: 0, total_xaf: 0, refunded_xaf: 0, net_xaf: 0 }, 'zeros on a new shop');
  const product = await createProduct(api, owner.token, { price_xaf: 1000, tracked: false });
  const sell = async (quantity: number) =>
    (await api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity }], payments: [{ method: 'cash', amount_xaf: quantity * 1000 }] } })).body.data;
  const kept = await sell(3);
  const voided = await sell(2);
  await api.request('POST', `/sales/${voided.id}/void`, { token: owner.token, body: { reason: 'Erreur de caisse' } });
  await api.request('POST', `/sales/${kept.id}/refund`, { token: owner.token, body: { method: 'cash', items: [{ sale_item_id: kept.items[0].id, quantity: 1 }] } });
  t.strictSame(await dashboard(), { count: 1, total_xaf: 3000, refunded_xaf: 1000, net_xaf: 2000 });
  const z = (await api.request('GET', '/reports/z', { token: owner.token })).body.data;
  t.equal(z.net_total_xaf, (await dashboard()).net_xaf, 'the same figures as today\'s Z');
});

t.test('the dashboard shows today\'s purchases and what is owed to suppliers', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token);
  t.strictSame((await dashboard(owner.token)).body.data.purchases, { today_count: 0, today_total_xaf: 0, payables_xaf: 0, open_purchases: 0 });
  const first = await api.request('POST', '/purchases', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 2, unit_cost_xaf: 5_000 }] } });
  await api.request('POST', '/purchases', { token: owner.token, body: { vat_rate: 10, items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 1_000 }] } });
  await api.request('POST', `/purchases/${first.body.data.id}/pay`, { token: owner.token, body: { amount_xaf: 4_000, method: 'cash' } });
  t.strictSame((await dashboard(owner.token)).body.data.purchases, { today_count: 2, today_total_xaf: 11_100, payables_xaf: 7_100, open_purchases: 2 });
  await api.ownerSql`update purchases set created_at = now() - interval '2 days' where id = ${first.body.data.id}`;
  t.match((await dashboard(owner.token)).body.data.purchases, { today_count: 1, today_total_xaf: 1_100, payables_xaf: 7_100 });
});
