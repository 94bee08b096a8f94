import t from 'tap';
import { createProduct, postVariant, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { createSupplier, receive, sell } from '../purchases/purchase-fixtures.ts';

const api = await startService(t);

const ALERT_KEYS = ['batch_id', 'batch_number', 'days_left', 'expiry_date', 'kind', 'last_sold_at', 'name', 'product_id', 'quantity', 'reorder_level', 'variant_id'];
const EXPIRING_KEYS = ['batch_id', 'batch_number', 'days_left', 'expiry_date', 'name', 'product_id', 'quantity', 'value_xaf', 'variant_id'];

/** The shop's calendar day `days` from today, YYYY-MM-DD. */
async function shopDate(shopId: string, days: number): Promise<string> {
  const [row] = await api.ownerSql<{ day: string }[]>`
    select to_char((now() at time zone timezone)::date + ${days}::int, 'YYYY-MM-DD') as day from shops where id = ${shopId}`;
  return row!.day;
}

const alerts = (token: string, query = '') => api.request('GET', `/alerts${query}`, { token });
const expiring = (token: string, query = '') => api.request('GET', `/reports/expiring${query}`, { token });

t.test('GET /alerts lists every kind, most urgent first: negative, expired, out of stock, expiring (soonest first), low, dead', async (t) => {
  const { owner } = await staffedShop(api);
  const shopId = owner.shop.id;
  const negative = await createProduct(api, owner.token, { name: 'Zeste négatif' }, 1);
  await api.request('PUT', '/shop', { token: owner.token, body: { allow_negative_stock: true } });
  await sell(api, owner.token, { product_id: negative.id }, 3);
  await createProduct(api, owner.token, { name: 'Aucun stock' });
  await createProduct(api, owner.token, { name: 'Bas niveau', reorder_level: 5 }, 4);
  const dated = await createProduct(api, owner.token, { name: 'Yaourt' });
  await receive(api, owner.token, {
    items: [
      { product_id: dated.id, quantity: 10, unit_cost_xaf: 100, batch_number: 'OLD', expiry_date: await shopDate(shopId, -2) },
      { product_id: dated.id, quantity: 10, unit_cost_xaf: 100, batch_number: 'SOON', expiry_date: await shopDate(shopId, 5) },
      { product_id: dated.id, quantity: 10, unit_cost_xaf: 100, batch_number: 'LATER', expiry_date: await shopDate(shopId, 20) },
      { product_id: dated.id, quantity: 10, unit_cost_xaf: 100, batch_number: 'FAR', expiry_date: await shopDate(shopId, 200) },
    ],
  });
  const dead = await createProduct(api, owner.token, { name: 'Vieux stock' }, 7);
  await api.ownerSql`update products set created_at = now() - interval '100 days' where id = ${dead.id}`;
  await createProduct(api, owner.token, { name: 'Non suivi', tracked: false });
  const reply = await alerts(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body.data[0]).sort(), ALERT_KEYS);
  t.strictSame(
    reply.body.data.map((a: any) => [a.kind, a.name, a.quantity, a.batch_number, a.days_left]),
    [
      ['negative_stock', 'Zeste négatif', -2, null, null],
      ['expired', 'Yaourt', 10, 'OLD', -2],
      ['out_of_stock', 'Aucun stock', 0, null, null],
      ['expiring', 'Yaourt', 10, 'SOON', 5],
      ['expiring', 'Yaourt', 10, 'LATER', 20],
      ['low_stock', 'Bas niveau', 4, null, null],
      ['dead_stock', 'Vieux stock', 7, null, null],
    ],
  );
  t.equal(reply.body.data.find((a: any) => a.kind === 'dead_stock').last_sold_at, null, 'never sold');
  t.equal(reply.body.data.find((a: any) => a.kind === 'low_stock').reorder_level, 5);
  t.equal(reply.body.data.length, 7, 'the untracked product and the far batch are not alerts');
});

t.test('dead stock is stock with no sale for dead_days days; expiring_days and limit narrow the list', async (t) => {
  const { owner } = await staffedShop(api);
  const sold = await createProduct(api, owner.token, { name: 'Vendu il y a 40 jours' }, 5);
  await sell(api, owner.token, { product_id: sold.id }, 1);
  await api.ownerSql`update stock_movements set created_at = now() - interval '40 days' where product_id = ${sold.id} and type = 'sale'`;
  await api.ownerSql`update products set created_at = now() - interval '400 days' where id = ${sold.id}`;
  const dated = await createProduct(api, owner.token, { name: 'Lait' });
  await receive(api, owner.token, { items: [{ product_id: dated.id, quantity: 2, unit_cost_xaf: 100, expiry_date: await shopDate(owner.shop.id, 10) }] });
  t.strictSame((await alerts(owner.token)).body.data.map((a: any) => a.kind), ['expiring'], '40 days is not 90');
  const thirty = (await alerts(owner.token, '?dead_days=30&expiring_days=5')).body.data;
  t.strictSame(thirty.map((a: any) => a.kind), ['dead_stock']);
  t.ok(thirty[0].last_sold_at.endsWith('Z'));
  t.equal((await alerts(owner.token, '?dead_days=30&limit=1')).body.data.length, 1);
});

t.test('a product with variants is judged by its variants', async (t) => {
  const { owner } = await staffedShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise' });
  const small = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'S' } })).body.data;
  const large = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'L' } })).body.data;
  await receive(api, owner.token, { items: [{ variant_id: large.id, quantity: 3, unit_cost_xaf: 100 }] });
  const list = (await alerts(owner.token)).body.data;
  t.strictSame(list.map((a: any) => [a.kind, a.name, a.variant_id]), [['out_of_stock', 'Chemise (S)', small.id]]);
});

t.test('alert bounds: dead_days and expiring_days 1 to 3650, limit 1 or more', async (t) => {
  const { owner } = await staffedShop(api);
  for (const query of ['?dead_days=1', '?dead_days=3650', '?expiring_days=1', '?expiring_days=3650', '?limit=1', '?limit=500', '?limit=501', '?limit=9007199254740991']) {
    t.equal((await alerts(owner.token, query)).status, 200, query);
  }
  for (const [query, key] of [['?dead_days=0', 'dead_days'], ['?dead_days=3651', 'dead_days'], ['?dead_days=1.5', 'dead_days'], ['?expiring_days=0', 'expiring_days'],
    ['?expiring_days=abc', 'expiring_days'], ['?limit=0', 'limit'], ['?limit=-3', 'limit']] as const) {
    expectInvalid(t, await alerts(owner.token, query), key, query);
  }
});

t.test('GET /reports/expiring lists batches with stock expiring within within_days, expired ones included, soonest first, at cost', async (t) => {
  const { owner } = await staffedShop(api);
  const shopId = owner.shop.id;
  const drops = await createProduct(api, owner.token, { name: 'Collyre' });
  await receive(api, owner.token, {
    items: [
      { product_id: drops.id, quantity: 4, unit_cost_xaf: 1_250, batch_number: 'L-30', expiry_date: await shopDate(shopId, 30) },
      { product_id: drops.id, quantity: 1.5, unit_cost_xaf: 1_001, batch_number: 'L-X', expiry_date: await shopDate(shopId, -1) },
      { product_id: drops.id, quantity: 2, unit_cost_xaf: 1_000, batch_number: 'L-31', expiry_date: await shopDate(shopId, 31) },
      { product_id: drops.id, quantity: 2, unit_cost_xaf: 1_000, batch_number: 'SANS-DATE' },
    ],
  });
  const reply = await expiring(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body.data[0]).sort(), EXPIRING_KEYS);
  t.strictSame(reply.body.data.map((b: any) => [b.batch_number, b.days_left, b.quantity, b.value_xaf]), [['L-X', -1, 1.5, 1_502], ['L-30', 30, 4, 5_000]]);
  t.match(reply.body.meta, { within_days: 30, as_of: await shopDate(shopId, 0), total_value_xaf: 6_502 });
  t.equal((await expiring(owner.token, '?within_days=31')).body.data.length, 3);
  // Sold out batches leave the report: the sale takes the expired batch first (FEFO).
  await sell(api, owner.token, { product_id: drops.id }, 1.5);
  t.strictSame((await expiring(owner.token)).body.data.map((b: any) => b.batch_number), ['L-30']);
  for (const query of ['?within_days=0', '?within_days=3651', '?within_days=2.5', '?within_days=x']) expectInvalid(t, await expiring(owner.token, query), 'within_days', query);
  t.equal((await expiring(owner.token, '?within_days=3650')).status, 200);
});

t.test('GET /reports/payables: per supplier, what remains of each purchase aged by invoice date, with totals', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token);
  const a = await createSupplier(api, owner.token, { name: 'Alpha', phone: '+237 600 00 00 01' });
  const b = await createSupplier(api, owner.token, { name: 'Bêta' });
  const p1 = await receive(api, owner.token, { supplier_id: a.id, items: [{ product_id: rice.id, quantity: 1, unit_cost_xaf: 10_000 }] });
  const p2 = await receive(api, owner.token, { supplier_id: a.id, items: [{ product_id: rice.id, quantity: 1, unit_cost_xaf: 3_000 }] });
  const p3 = await receive(api, owner.token, { supplier_id: b.id, items: [{ product_id: rice.id, quantity: 1, unit_cost_xaf: 2_000 }] });
  await receive(api, owner.token, { items: [{ product_id: rice.id, quantity: 1, unit_cost_xaf: 500 }] });
  await api.request('POST', `/purchases/${p1.id}/pay`, { token: owner.token, body: { amount_xaf: 4_000, method: 'cash' } });
  await api.ownerSql`update purchases set created_at = now() - interval '45 days' where id = ${p1.id}`;
  await api.ownerSql`update purchases set created_at = now() - interval '100 days' where id = ${p3.id}`;
  await api.request('POST', `/purchases/${p2.id}/pay`, { token: owner.token, body: { amount_xaf: 3_000, method: 'cash' } });
  const reply = await api.request('GET', '/reports/payables', { token: owner.token });
  t.equal(reply.status, 200);
  const report = reply.body.data;
  t.strictSame(
    report.suppliers.map((s: any) => [s.name, s.balance_xaf, s.days_0_30_xaf, s.days_31_60_xaf, s.days_61_90_xaf, s.days_over_90_xaf]),
    [['Alpha', 6_000, 0, 6_000, 0, 0], ['Bêta', 2_000, 0, 0, 0, 2_000], [null, 500, 500, 0, 0, 0]],
  );
  t.equal(report.suppliers[0].phone, '+237 600 00 00 01');
  t.strictSame(report.totals, { balance_xaf: 8_500, days_0_30_xaf: 500, days_31_60_xaf: 6_000, days_61_90_xaf: 0, days_over_90_xaf: 2_000 });
  t.ok(report.as_of.endsWith('Z'));
  const other = await registerShop(api);
  t.strictSame((await api.request('GET', '/reports/payables', { token: other.token })).body.data.suppliers, [], 'another shop sees none of it');
});

t.test('alerts and expiring batches are a manager\'s reading: a cashier gets 403; another shop\'s are never listed', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await createProduct(api, owner.token);
  expectError(t, await alerts(cashier.token), 403, FORBIDDEN);
  expectError(t, await expiring(cashier.token), 403, FORBIDDEN);
  const other = await registerShop(api);
  t.strictSame((await alerts(other.token)).body.data, []);
  t.strictSame((await expiring(other.token)).body.data, []);
});
