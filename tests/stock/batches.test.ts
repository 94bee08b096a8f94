import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { batchesOf, receive, sell } from '../purchases/purchase-fixtures.ts';
import { openShift } from '../sales/sale-fixtures.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { adjustTo, expectLedgerInvariants, productRecord, productWithVariants, staffedShop } from './stock-fixtures.ts';

/**
 * Batches follow the stock (CONTRACT section 7, db/functions/stock/batches.sql): whatever lowers an
 * item's stock takes from its batches first expired first out, voids and refunds give back to the
 * batches their sale took from, rises by count are unbatched, receipts fill a batch only up to the
 * on-hand. Read through GET /products/{id}/batches, or straight from the database with batchesOf.
 */

const api = await startService(t);

const BATCH_KEYS = ['batch_number', 'cost_xaf', 'created_at', 'expiry_date', 'id', 'name', 'product_id', 'quantity', 'updated_at', 'value_xaf', 'variant_id'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * A product with 10 on hand: batches B (2, soonest), A (3), C (4, undated) and 1 unbatched unit,
 * received in an order that is not the order they go out in.
 */
async function batchedProduct(token: string) {
  const product = await createProduct(api, token, { price_xaf: 100 });
  await receive(api, token, {
    items: [
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'C' },
      { product_id: product.id, quantity: 3, unit_cost_xaf: 50, batch_number: 'A', expiry_date: '2027-06-30' },
      { product_id: product.id, quantity: 1, unit_cost_xaf: 50 },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'B', expiry_date: '2027-01-31' },
    ],
  });
  return product;
}

const listBatches = (token: string, productId: string, query = '') => api.request('GET', `/products/${productId}/batches${query}`, { token });

async function onHand(token: string, productId: string, variantId?: string): Promise<number> {
  const product = await productRecord(api, token, productId);
  return variantId ? product.variants.find((v: any) => v.id === variantId).on_hand : product.on_hand;
}

async function refund(token: string, sale: any, quantity: number, line = 0): Promise<void> {
  const reply = await api.request('POST', `/sales/${sale.id}/refund`, { token, body: { method: 'cash', items: [{ sale_item_id: sale.items[line].id, quantity }] } });
  if (reply.status !== 201) throw new Error(`refund failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

async function voidSale(token: string, saleId: string): Promise<void> {
  const reply = await api.request('POST', `/sales/${saleId}/void`, { token, body: { reason: 'Erreur de caisse' } });
  if (reply.status !== 200) throw new Error(`void failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** The batch movements a source wrote, as [batch_number, type, quantity], in the order they were written. */
async function batchMovementsOf(sourceId: string): Promise<[string | null, string, number][]> {
  const rows = await api.ownerSql<{ batch_number: string | null; type: string; quantity: number }[]>`
    select b.batch_number, m.type, m.quantity from batch_movements m join batches b on b.id = m.batch_id
     where m.source_id = ${sourceId} order by m.created_at, m.id`;
  return rows.map((row) => [row.batch_number, row.type, Number(row.quantity)]);
}

t.test('a sale takes first expired first out: the soonest batch, the next, undated batches last, then unbatched stock', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'LATE', expiry_date: '2028-03-31' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'UNDATED' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'SOON', expiry_date: '2027-01-31' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, expiry_date: '2027-06-30' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50 },
    ],
  });
  t.strictSame(await batchesOf(api, product.id), [['SOON', 2], [null, 2], ['LATE', 2], ['UNDATED', 2]]);
  await sell(api, owner.token, { product_id: product.id }, 3);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 0], [null, 1], ['LATE', 2], ['UNDATED', 2]], 'the soonest, then the next');
  const second = await sell(api, owner.token, { product_id: product.id }, 2.5);
  t.strictSame(await batchMovementsOf(second.id), [[null, 'sale', -1], ['LATE', 'sale', -1.5]], 'one movement per batch taken from, in the order taken');
  await sell(api, owner.token, { product_id: product.id }, 3);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 0], [null, 0], ['LATE', 0], ['UNDATED', 0]], 'the undated batch last of the batches');
  t.equal(await onHand(owner.token, product.id), 1.5, 'then 0.5 of the unbatched stock');
  const last = await sell(api, owner.token, { product_id: product.id }, 1.5);
  t.strictSame(await batchMovementsOf(last.id), [], 'a sale of unbatched stock touches no batch');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('batches of one expiry date go out oldest receipt first, in the order the list shows them', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'FIRST', expiry_date: '2027-05-01' }] });
  await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'THEN-1', expiry_date: '2027-05-01' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'THEN-2', expiry_date: '2027-05-01' },
    ],
  });
  const order = (await listBatches(owner.token, product.id)).body.data.map((b: any) => b.batch_number);
  t.equal(order[0], 'FIRST', 'the older receipt first');
  await sell(api, owner.token, { product_id: product.id }, 3);
  const after = Object.fromEntries((await listBatches(owner.token, product.id, '?include_empty=true')).body.data.map((b: any) => [b.batch_number, b.quantity]));
  t.strictSame([after[order[0]], after[order[1]], after[order[2]]], [0, 1, 2], `taken in the listed order ${order.join(', ')}`);
});

t.test('a variant\'s batches are taken by that variant\'s sales only', async (t) => {
  const { owner } = await staffedShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { S: 0, M: 0 }, { price_xaf: 100 });
  await receive(api, owner.token, {
    items: [
      { variant_id: variants.S.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'S-LATE', expiry_date: '2027-09-30' },
      { variant_id: variants.M.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'M-SOON', expiry_date: '2027-01-31' },
      { variant_id: variants.S.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'S-SOON', expiry_date: '2027-03-31' },
    ],
  });
  await sell(api, owner.token, { product_id: product.id, variant_id: variants.S.id }, 3);
  t.strictSame(await batchesOf(api, product.id), [['M-SOON', 2], ['S-SOON', 0], ['S-LATE', 1]], 'M\'s sooner batch is left alone');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a void gives back to the batches its sale took from, never what other sales took', async (t) => {
  const { owner } = await staffedShop(api);
  await openShift(api, owner.token);
  const product = await batchedProduct(owner.token);
  const first = await sell(api, owner.token, { product_id: product.id }, 3); // B 2, A 1.
  await sell(api, owner.token, { product_id: product.id }, 2); // A 2.
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 4]]);
  await voidSale(owner.token, first.id);
  t.strictSame(await batchesOf(api, product.id), [['B', 2], ['A', 1], ['C', 4]], 'B its 2 and A its 1; the other sale\'s 2 stay sold');
  t.strictSame(await batchMovementsOf(first.id), [['B', 'sale', -2], ['A', 'sale', -1], ['A', 'void', 1], ['B', 'void', 2]], 'the last taken given back first');
  t.equal(await onHand(owner.token, product.id), 8);

  const plain = await createProduct(api, owner.token, { price_xaf: 100 }, 5);
  const unbatched = await sell(api, owner.token, { product_id: plain.id }, 2);
  await receive(api, owner.token, { items: [{ product_id: plain.id, quantity: 3, unit_cost_xaf: 50, batch_number: 'LATER', expiry_date: '2027-02-28' }] });
  await voidSale(owner.token, unbatched.id);
  t.strictSame(await batchesOf(api, plain.id), [['LATER', 3]], 'a sale of unbatched stock gives nothing to a batch received after it');
  t.equal(await onHand(owner.token, plain.id), 8);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('refunds give back to the batches the sale took from, the last taken first, never more than taken', async (t) => {
  const { owner } = await staffedShop(api);
  await openShift(api, owner.token);
  const product = await batchedProduct(owner.token);
  const sale = await sell(api, owner.token, { product_id: product.id }, 10); // B 2, A 3, C 4, then the unbatched unit.
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]]);
  await refund(owner.token, sale, 0.5);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0.5]], 'C, the last batch taken from');
  await refund(owner.token, sale, 4);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0.5], ['C', 4]], 'C back to the 4 taken, then A');
  await refund(owner.token, sale, 4.5);
  t.strictSame(await batchesOf(api, product.id), [['B', 2], ['A', 3], ['C', 4]], 'A to its 3, then B to its 2');
  await refund(owner.token, sale, 1);
  t.strictSame(await batchesOf(api, product.id), [['B', 2], ['A', 3], ['C', 4]], 'every batch had all it gave: the last unit is unbatched');
  t.equal(await onHand(owner.token, product.id), 10);
  const given = await api.ownerSql<{ given: number }[]>`
    select sum(quantity) as given from batch_movements where sale_id = ${sale.id} and type = 'refund'`;
  t.equal(Number(given[0]!.given), 9, 'the refunds gave the batches 9, what the sale took from them');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('an offline sale pushed later takes first expired first out too, below zero included', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await batchedProduct(owner.token);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { S: 0 }, { price_xaf: 100 });
  await receive(api, owner.token, {
    items: [
      { variant_id: variants.S.id, quantity: 1, unit_cost_xaf: 50, batch_number: 'S2', expiry_date: '2027-08-31' },
      { variant_id: variants.S.id, quantity: 1, unit_cost_xaf: 50, batch_number: 'S1', expiry_date: '2027-02-28' },
    ],
  });
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const basket = offlineSale(randomUUID(), product.id, 4, {
    user_id: cashier.user.id,
    created_at: hourAgo,
    items: [{ product_id: product.id, quantity: 4 }, { product_id: shirt.id, variant_id: variants.S.id, quantity: 1 }],
  });
  const first = await push(api, { device: device.token }, { sales: [basket] });
  t.match(first.body.data.results, [{ status: 'applied' }], JSON.stringify(first.body));
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 1], ['C', 4]]);
  t.strictSame(await batchesOf(api, shirt.id), [['S1', 0], ['S2', 1]], 'the variant\'s soonest batch');

  const second = await push(api, { device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 9, { user_id: cashier.user.id })] });
  t.match(second.body.data.results, [{ status: 'applied' }], 'never refused for stock');
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]], 'every batch emptied');
  t.equal(await onHand(owner.token, product.id), -3);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('an adjustment or a stocktake down takes first expired first out; up, it adds unbatched stock', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await batchedProduct(owner.token);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { S: 0 }, { price_xaf: 100 });
  await receive(api, owner.token, { items: [{ variant_id: variants.S.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'S1', expiry_date: '2027-02-28' }] });

  const down = await adjustTo(api, owner.token, product.id, 7);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 2], ['C', 4]], '3 missing: B then A');
  t.strictSame(await batchMovementsOf(down.movement.id), [['B', 'adjustment', -2], ['A', 'adjustment', -1]]);
  await adjustTo(api, owner.token, product.id, 12);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 2], ['C', 4]], '5 found: unbatched');
  await adjustTo(api, owner.token, shirt.id, 5, variants.S.id);
  t.strictSame(await batchesOf(api, shirt.id), [['S1', 2]], 'a variant found more: unbatched');

  const count = async (counts: [string | null, number][]) => {
    const opened = await api.request('POST', '/stocktakes', { token: owner.token, body: {} });
    if (opened.status !== 201) throw new Error(`stocktake failed: ${opened.status} ${JSON.stringify(opened.body)}`);
    const items = counts.map(([variantId, counted]) => ({
      item_id: opened.body.data.items.find((i: any) => (variantId ? i.variant_id === variantId : i.product_id === product.id)).id,
      counted_quantity: counted,
    }));
    t.equal((await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token: owner.token, body: { counts: items } })).status, 200);
    t.equal((await api.request('POST', `/stocktakes/${opened.body.data.id}/commit`, { token: owner.token })).status, 200);
    return opened.body.data.id as string;
  };
  const stocktake = await count([[null, 3], [variants.S.id, 1]]);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]], '9 missing of 12: the batches\' 6 first, then 3 of the 6 unbatched');
  t.strictSame(await batchesOf(api, shirt.id), [['S1', 0]], '4 missing of 5: the batch\'s 2 first, then 2 of the 3 unbatched');
  t.equal(await onHand(owner.token, product.id), 3);
  const written = await batchMovementsOf(stocktake);
  t.strictSame(written.sort(), [['A', 'stocktake', -2], ['C', 'stocktake', -4], ['S1', 'stocktake', -2]].sort(), 'stocktake movements of the batches taken from');
  await count([[null, 5], [variants.S.id, 4]]);
  t.strictSame(await batchesOf(api, product.id), [['B', 0], ['A', 0], ['C', 0]], 'counted more: unbatched');
  t.strictSame(await batchesOf(api, shirt.id), [['S1', 0]]);
  t.equal(await onHand(owner.token, shirt.id, variants.S.id), 4);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a purchase into an existing batch number and expiry date tops that batch up at the new cost', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 2, unit_cost_xaf: 40, batch_number: 'X', expiry_date: '2027-03-31' }] });
  const [before] = (await listBatches(owner.token, product.id)).body.data;
  await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 3, unit_cost_xaf: 55, batch_number: 'X', expiry_date: '2027-03-31' },
      { product_id: product.id, quantity: 1, unit_cost_xaf: 55, batch_number: 'X', expiry_date: '2027-04-30' },
      { product_id: product.id, quantity: 1, unit_cost_xaf: 55, batch_number: 'X' },
      { product_id: product.id, quantity: 1, unit_cost_xaf: 55, expiry_date: '2027-03-31' },
      { product_id: product.id, quantity: 0.5, unit_cost_xaf: 55, batch_number: 'X', expiry_date: '2027-03-31' },
    ],
  });
  const batches = (await listBatches(owner.token, product.id)).body.data;
  t.strictSame(
    batches.map((b: any) => [b.batch_number, b.expiry_date, b.quantity, b.cost_xaf]),
    [['X', '2027-03-31', 5.5, 55], [null, '2027-03-31', 1, 55], ['X', '2027-04-30', 1, 55], ['X', null, 1, 55]],
    'the same number and date is one batch (twice in one purchase too); another date, or no number, another batch',
  );
  t.equal(batches[0].id, before.id, 'the batch first received');
  t.equal(batches[0].created_at, before.created_at);
  t.equal(await onHand(owner.token, product.id), 8.5);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('goods received after the stock went below zero fill their batch only up to the new on-hand', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  await push(api, { device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 3)] });
  t.equal(await onHand(owner.token, product.id), -3);
  await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50, batch_number: 'P1', expiry_date: '2027-02-01' },
      { product_id: product.id, quantity: 5, unit_cost_xaf: 50, batch_number: 'P2', expiry_date: '2027-03-01' },
    ],
  });
  t.strictSame(await batchesOf(api, product.id), [['P1', 0], ['P2', 4]], 'P1\'s 2 and 1 of P2 were the 3 sold before they came');
  t.equal(await onHand(owner.token, product.id), 4);
  t.strictSame((await listBatches(owner.token, product.id)).body.data.map((b: any) => b.batch_number), ['P2'], 'the empty batch is listed on request only');
  await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 3, unit_cost_xaf: 50, batch_number: 'P1', expiry_date: '2027-02-01' }] });
  t.strictSame(await batchesOf(api, product.id), [['P1', 3], ['P2', 4]], 'once the stock is back above zero, the whole receipt');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('GET /products/{id}/batches: its batches and its variants\', first expired first out, valued at cost; empty ones on request', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { S: 0, M: 0 }, { price_xaf: 100 });
  await receive(api, owner.token, {
    items: [
      { variant_id: variants.M.id, quantity: 1, unit_cost_xaf: 40, batch_number: 'M1' },
      { variant_id: variants.S.id, quantity: 2.5, unit_cost_xaf: 33, batch_number: 'S1', expiry_date: '2027-02-28' },
      { variant_id: variants.M.id, quantity: 1, unit_cost_xaf: 40, batch_number: 'M0', expiry_date: '2027-01-15' },
    ],
  });
  await sell(api, owner.token, { product_id: product.id, variant_id: variants.M.id }, 1);
  const reply = await listBatches(manager.token, product.id);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.meta, { next_cursor: null }, 'one page');
  t.strictSame(
    reply.body.data.map((b: any) => [b.name, b.batch_number, b.expiry_date, b.quantity, b.cost_xaf, b.value_xaf]),
    [[`${product.name} (S)`, 'S1', '2027-02-28', 2.5, 33, 83], [`${product.name} (M)`, 'M1', null, 1, 40, 40]],
    'M0 sold out is left out; 2.5 x 33 = 82.5 is worth 83',
  );
  for (const batch of reply.body.data) {
    t.strictSame(Object.keys(batch).sort(), BATCH_KEYS);
    t.equal(batch.product_id, product.id);
    t.match(batch.created_at, ISO_UTC);
    t.match(batch.updated_at, ISO_UTC);
  }
  t.strictSame(reply.body.data.map((b: any) => b.variant_id), [variants.S.id, variants.M.id]);
  const all = await listBatches(manager.token, product.id, '?include_empty=true');
  t.strictSame(all.body.data.map((b: any) => [b.batch_number, b.quantity, b.value_xaf]), [['M0', 0, 0], ['S1', 2.5, 83], ['M1', 1, 40]]);
  t.strictSame((await listBatches(manager.token, product.id, '?include_empty=1')).body.data, all.body.data);
  t.strictSame((await listBatches(manager.token, product.id, '?include_empty=false')).body.data, reply.body.data);
  expectInvalid(t, await listBatches(manager.token, product.id, '?include_empty=maybe'), 'include_empty');

  const untouched = await createProduct(api, owner.token, {}, 4);
  const none = await listBatches(owner.token, untouched.id, '?include_empty=true');
  t.strictSame([none.status, none.body.data], [200, []], 'a product with unbatched stock only has no batch');
});

t.test('GET /products/{id}/batches is the shop\'s own and read by the stock ledger\'s readers', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const other = await registerShop(api);
  const product = await batchedProduct(owner.token);
  expectError(t, await listBatches(other.token, product.id), 404, NOT_FOUND, 'another shop\'s product');
  expectError(t, await listBatches(owner.token, randomUUID()), 404, NOT_FOUND, 'an unknown product');
  expectInvalid(t, await listBatches(owner.token, 'not-a-uuid'), 'product_id');
  expectError(t, await api.request('GET', `/products/${product.id}/batches`), 401, UNAUTHENTICATED);
  for (const [role, token] of [['owner', owner.token], ['manager', manager.token], ['cashier', cashier.token]] as const) {
    const ledger = await api.request('GET', `/products/${product.id}/movements`, { token });
    const batches = await listBatches(token, product.id);
    t.equal(batches.status, ledger.status, `${role}: as for the movements (${ledger.status})`);
  }
  expectError(t, await listBatches(cashier.token, product.id), 403, FORBIDDEN, 'a cashier, as for every stock report (CONTRACT section 3)');
  t.equal((await listBatches(manager.token, product.id)).body.data.length, 3);
});

t.test('a purchase return of a batched line beyond what its batch holds is a 422 insufficient_stock, and changes nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 100 });
  const purchase = await receive(api, owner.token, {
    items: [
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'R', expiry_date: '2027-01-31' },
      { product_id: product.id, quantity: 6, unit_cost_xaf: 50 },
    ],
  });
  await sell(api, owner.token, { product_id: product.id }, 3);
  t.strictSame(await batchesOf(api, product.id), [['R', 1]], 'the sale took R first');
  const giveBack = (items: [number, number][]) =>
    api.request('POST', `/purchases/${purchase.id}/returns`, {
      token: owner.token,
      body: { items: items.map(([line, quantity]) => ({ purchase_item_id: purchase.items[line].id, quantity })) },
    });

  expectInvalid(t, await giveBack([[0, 2]]), 'items.0.quantity', '7 on hand, but R holds 1', 'insufficient_stock');
  t.strictSame(await batchesOf(api, product.id), [['R', 1]]);
  t.equal(await onHand(owner.token, product.id), 7);
  const read = await api.request('GET', `/purchases/${purchase.id}`, { token: owner.token });
  t.strictSame(read.body.data.items.map((i: any) => i.returned_quantity), [0, 0], 'nothing returned');

  t.equal((await giveBack([[0, 1]])).status, 201, 'what R holds');
  t.strictSame(await batchesOf(api, product.id), [['R', 0]]);
  expectInvalid(t, await giveBack([[1, 1], [0, 1]]), 'items.1.quantity', 'R is empty', 'insufficient_stock');
  t.equal(await onHand(owner.token, product.id), 6, 'the unbatched line\'s unit was not returned either');
  await expectLedgerInvariants(t, api, owner.shop.id);
});
