import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, ledgerInvariants, postVariant, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { batchesOf, receive, sell } from '../purchases/purchase-fixtures.ts';

const api = await startService(t);

const BATCH_KEYS = ['batch_number', 'cost_xaf', 'created_at', 'expiry_date', 'id', 'name', 'product_id', 'quantity', 'updated_at', 'value_xaf', 'variant_id'];

/** A product with three batches (soonest expiry first: B 2, A 3, C undated 4) and 1 unbatched unit: 10 on hand. */
async function batchedProduct(token: string) {
  const product = await createProduct(api, token, { price_xaf: 100 });
  await receive(api, token, {
    items: [
      { product_id: product.id, quantity: 3, unit_cost_xaf: 50, batch_number: 'A', expiry_date: '2027-06-30' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'B', expiry_date: '2027-01-31' },
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'C' },
      { product_id: product.id, quantity: 1, unit_cost_xaf: 50 },
    ],
  });
  return product;
}

const adjust = (token: string, productId: string, quantity: number) =>
  api.request('POST', `/products/${productId}/adjust`, { token, body: { new_quantity: quantity, reason: 'Recomptage' } });

t.test('a sale takes first expired first out: the soonest batch, then the next, undated batches last, then unbatched stock', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await batchedProduct(owner.token);
  await sell(api, owner.token, { product_id: product.id }, 3);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 2], ['C', 4]]);
  await sell(api, owner.token, { product_id: product.id }, 6.5);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]], 'then the unbatched unit');
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('a void gives back to the batches its sale took from, and a refund the last taken first, never more than taken', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await batchedProduct(owner.token);
  const voided = await sell(api, owner.token, { product_id: product.id }, 3);
  t.equal((await api.request('POST', `/sales/${voided.id}/void`, { token: owner.token, body: { reason: 'Erreur de caisse' } })).status, 200);
  t.strictSame(await batchesOf(api, product.id), [['B', 2], ['A', 3], ['C', 4]]);
  const sale = await sell(api, owner.token, { product_id: product.id }, 6); // B 2, A 3, C 1.
  const refund = (quantity: number) =>
    api.request('POST', `/sales/${sale.id}/refund`, { token: owner.token, body: { method: 'cash', items: [{ sale_item_id: sale.items[0].id, quantity }] } });
  t.equal((await refund(2)).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 1], ['C', 4]], 'C got its 1 back, then A 1');
  t.equal((await refund(4)).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['B', 2], ['A', 3], ['C', 4]], 'every batch has what it had');
});

t.test('an offline sale pushed later takes first expired first out too, even below zero', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await batchedProduct(owner.token);
  const reply = await push(api, { device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 12, { user_id: cashier.user.id })] });
  t.equal(reply.status, 200);
  t.match(reply.body.data.results, [{ status: 'applied' }]);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]]);
  t.equal((await api.request('GET', `/products/${product.id}`, { token: owner.token })).body.data.on_hand, -2);
});

t.test('an adjustment or a stocktake down takes first expired first out; up, it adds unbatched stock', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await batchedProduct(owner.token);
  t.equal((await adjust(owner.token, product.id, 7)).status, 200);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 2], ['C', 4]]);
  t.equal((await adjust(owner.token, product.id, 20)).status, 200);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 2], ['C', 4]], 'found goods are unbatched');
  const opened = await api.request('POST', '/stocktakes', { token: owner.token, body: {} });
  t.equal(opened.status, 201, JSON.stringify(opened.body));
  const item = opened.body.data.items[0];
  t.equal((await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token: owner.token, body: { counts: [{ item_id: item.id, counted_quantity: 1 }] } })).status, 200);
  t.equal((await api.request('POST', `/stocktakes/${opened.body.data.id}/commit`, { token: owner.token })).status, 200);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]], '19 counted missing: every batch (6) first, then 13 of the 14 unbatched');
  t.equal((await api.request('GET', `/products/${product.id}`, { token: owner.token })).body.data.on_hand, 1);
});

t.test('goods received after the stock went below zero fill their batch only up to the new on-hand', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token);
  await push(api, { device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 3, {})] });
  await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 50, batch_number: 'N1', expiry_date: '2027-01-01' }] });
  t.strictSame(await batchesOf(api, product.id), [['N1', 7]], 'the 3 sold before were these goods');
});

t.test('batches of a variant are the variant\'s, taken by its sales only', async (t) => {
  const { owner } = await staffedShop(api);
  const shoe = await createProduct(api, owner.token, { price_xaf: 100 });
  const small = (await postVariant(api, owner.token, shoe.id, { options: { Pointure: '40' } })).body.data;
  const large = (await postVariant(api, owner.token, shoe.id, { options: { Pointure: '44' } })).body.data;
  await receive(api, owner.token, {
    items: [
      { variant_id: small.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'S' },
      { variant_id: large.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'L' },
    ],
  });
  await sell(api, owner.token, { product_id: shoe.id, variant_id: large.id }, 1);
  const reply = await api.request('GET', `/products/${shoe.id}/batches`, { token: owner.token });
  t.strictSame(reply.body.data.map((b: any) => [b.name, b.batch_number, b.quantity]).sort(), [[`${shoe.name} (40)`, 'S', 2], [`${shoe.name} (44)`, 'L', 1]]);
});

t.test('GET /products/{id}/batches lists batches with stock first expired first out, valued at cost; empty ones on request', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await batchedProduct(owner.token);
  await sell(api, owner.token, { product_id: product.id }, 2);
  const reply = await api.request('GET', `/products/${product.id}/batches`, { token: manager.token });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.strictSame(Object.keys(reply.body.data[0]).sort(), BATCH_KEYS);
  t.strictSame(reply.body.data.map((b: any) => [b.batch_number, b.expiry_date, b.quantity, b.value_xaf]), [['A', '2027-06-30', 3, 150], ['C', null, 4, 200]]);
  const all = await api.request('GET', `/products/${product.id}/batches?include_empty=true`, { token: manager.token });
  t.strictSame(all.body.data.map((b: any) => b.batch_number), ['B', 'A', 'C']);
  expectInvalid(t, await api.request('GET', `/products/${product.id}/batches?include_empty=maybe`, { token: manager.token }), 'include_empty');
});

t.test('batches are the shop\'s own and a manager\'s reading: another shop\'s product is 404, a cashier 403', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const other = await registerShop(api);
  const product = await batchedProduct(owner.token);
  expectError(t, await api.request('GET', `/products/${product.id}/batches`, { token: other.token }), 404, NOT_FOUND);
  expectError(t, await api.request('GET', `/products/${product.id}/batches`, { token: cashier.token }), 403, FORBIDDEN);
  expectError(t, await api.request('GET', `/products/${randomUUID()}/batches`, { token: owner.token }), 404, NOT_FOUND);
});

t.test('a purchase return takes the line\'s goods from its own batch; an unbatched line from unbatched stock first', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  const purchase = await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'LATE', expiry_date: '2028-01-01' },
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'SOON', expiry_date: '2027-01-01' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50 },
    ],
  });
  const giveBack = (line: number, quantity: number) =>
    api.request('POST', `/purchases/${purchase.id}/returns`, { token: owner.token, body: { items: [{ purchase_item_id: purchase.items[line].id, quantity }] } });
  t.equal((await giveBack(0, 1)).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 4], ['LATE', 3]], 'from LATE, its own batch, not the soonest');
  t.equal((await giveBack(2, 2)).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 4], ['LATE', 3]], 'the unbatched units');
  await sell(api, owner.token, { product_id: product.id }, 4);
  expectInvalid(t, await giveBack(1, 1), 'items.0.quantity', 'SOON was sold', 'insufficient_stock');
});
