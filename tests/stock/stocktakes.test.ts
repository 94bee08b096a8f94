import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { chars, createCategory, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import {
  adjustTo,
  allPages,
  deleteProduct,
  expectLedgerInvariants,
  journalEntryCount,
  journalLines,
  movementCount,
  productRecord,
  productWithVariants,
  staffedShop,
} from './stock-fixtures.ts';

const api = await startService(t);

const ITEM_KEYS = ['counted_at', 'counted_quantity', 'expected_quantity', 'id', 'name', 'product_id', 'sku', 'variance', 'variance_value_xaf', 'variant_id'];
const STOCKTAKE_KEYS = [
  'cancelled_at',
  'category_id',
  'committed_at',
  'committed_by',
  'created_at',
  'created_by',
  'id',
  'note',
  'status',
  'summary',
  'updated_at',
];

const openStocktake = (token: string, body: Record<string, unknown> = {}) => api.request('POST', '/stocktakes', { token, body });
const readStocktake = (token: string, id: string) => api.request('GET', `/stocktakes/${id}`, { token });
const recordCounts = (token: string, id: string, counts: unknown) => api.request('POST', `/stocktakes/${id}/counts`, { token, body: { counts } });
const commit = (token: string, id: string) => api.request('POST', `/stocktakes/${id}/commit`, { token });
const cancel = (token: string, id: string) => api.request('POST', `/stocktakes/${id}/cancel`, { token });

/** Opens a stocktake; throws unless 201. */
async function opened(token: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await openStocktake(token, body);
  if (reply.status !== 201) throw new Error(`open stocktake failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Records counts; throws unless 200. */
async function counted(token: string, id: string, counts: { item_id: string; counted_quantity: number | null }[]): Promise<any> {
  const reply = await recordCounts(token, id, counts);
  if (reply.status !== 200) throw new Error(`record counts failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

function itemOf(stocktake: any, productId: string, variantId: string | null = null): any {
  const item = stocktake.items.find((i: any) => i.product_id === productId && i.variant_id === variantId);
  if (!item) throw new Error(`no item for ${productId}/${variantId} in ${JSON.stringify(stocktake.items)}`);
  return item;
}

/** The items as [product_id, variant_id, expected_quantity], in a stable order for comparison. */
const snapshot = (stocktake: any) =>
  stocktake.items
    .map((i: any) => [i.product_id, i.variant_id, i.expected_quantity])
    .sort((a: any[], b: any[]) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`));

const expectedSnapshot = (rows: [string, string | null, number][]) =>
  [...rows].sort((a, b) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`));

async function storedOnHand(id: string, table: 'products' | 'variants' = 'products'): Promise<number> {
  const [row] = await api.ownerSql<{ on_hand: number }[]>`select on_hand from ${api.ownerSql(table)} where id = ${id}`;
  return row!.on_hand;
}

async function stocktakeMovements(stocktakeId: string) {
  const rows = await api.ownerSql<{ product_id: string; variant_id: string | null; type: string; quantity: number; on_hand_after: number }[]>`
    select product_id, variant_id, type, quantity, on_hand_after from stock_movements
     where source_type = 'stocktake' and source_id = ${stocktakeId} order by created_at, id`;
  return [...rows];
}

// Opening

t.test('a stocktake snapshots every tracked product without variants and every variant, at its on-hand', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { name: 'Riz 5 kg' }, 4);
  const empty = await createProduct(api, owner.token, { name: 'Savon' });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: 2, L: 3.5, XL: 0 }, { name: 'Chemise' });
  await createProduct(api, owner.token, { name: 'Recharge', tracked: false });
  const gone = await createProduct(api, owner.token, { name: 'Ancien' }, 6);
  await deleteProduct(api, owner.token, gone.id);
  t.equal((await api.request('DELETE', `/variants/${variants.XL.id}`, { token: owner.token })).status, 204, 'an empty variant deleted');
  const reply = await openStocktake(manager.token, { note: 'Inventaire de fin de mois' });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  const stocktake = reply.body.data;
  t.strictSame(Object.keys(stocktake).sort(), [...STOCKTAKE_KEYS, 'items'].sort());
  t.match(stocktake, { status: 'open', note: 'Inventaire de fin de mois', category_id: null, created_by: manager.user.id, committed_at: null, cancelled_at: null });
  t.strictSame(
    snapshot(stocktake),
    expectedSnapshot([
      [rice.id, null, 4],
      [empty.id, null, 0],
      [shirt.id, variants.M.id, 2],
      [shirt.id, variants.L.id, 3.5],
    ]),
    'tracked products without variants and live variants; not the product with variants itself, untracked or deleted ones',
  );
  for (const item of stocktake.items) {
    t.strictSame(Object.keys(item).sort(), ITEM_KEYS);
    t.match(item, { counted_quantity: null, variance: null, variance_value_xaf: null, counted_at: null });
  }
  t.match(itemOf(stocktake, shirt.id, variants.M.id), { name: 'Chemise (M)' });
  t.strictSame(stocktake.summary, { items: 4, counted: 0, variance_value_xaf: 0 });
  t.strictSame((await readStocktake(manager.token, stocktake.id)).body.data, stocktake, 'read back the same');
});

t.test('the snapshot is taken when the stocktake opens: later stock changes do not move expected_quantity', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const stocktake = await opened(owner.token);
  await adjustTo(api, owner.token, rice.id, 3);
  const read = (await readStocktake(owner.token, stocktake.id)).body.data;
  t.equal(itemOf(read, rice.id).expected_quantity, 10);
  const later = await createProduct(api, owner.token, {}, 2);
  t.notOk(read.items.some((i: any) => i.product_id === later.id), 'a product created later is not part of it');
});

t.test('with category_id only that category and its subcategories are counted', async (t) => {
  const { owner } = await staffedShop(api);
  const food = await createCategory(api, owner.token, { name: 'Alimentation' });
  const grains = await createCategory(api, owner.token, { name: 'Céréales', parent_id: food.id });
  const rice = await createCategory(api, owner.token, { name: 'Riz', parent_id: grains.id });
  const drinks = await createCategory(api, owner.token, { name: 'Boissons' });
  const oil = await createProduct(api, owner.token, { category_id: food.id }, 3);
  const maize = await createProduct(api, owner.token, { category_id: grains.id }, 4);
  const basmati = await createProduct(api, owner.token, { category_id: rice.id }, 5);
  const { product: sacks, variants } = await productWithVariants(api, owner.token, { '25 kg': 1, '50 kg': 2 }, { category_id: rice.id });
  await createProduct(api, owner.token, { category_id: rice.id, tracked: false });
  await createProduct(api, owner.token, { category_id: drinks.id }, 7);
  await createProduct(api, owner.token, {}, 8);
  const whole = await opened(owner.token, { category_id: food.id });
  t.equal(whole.category_id, food.id);
  t.strictSame(
    snapshot(whole),
    expectedSnapshot([
      [oil.id, null, 3],
      [maize.id, null, 4],
      [basmati.id, null, 5],
      [sacks.id, variants['25 kg'].id, 1],
      [sacks.id, variants['50 kg'].id, 2],
    ]),
    'the category and every level below it',
  );
  const sub = await opened(owner.token, { category_id: grains.id });
  t.strictSame(
    snapshot(sub),
    expectedSnapshot([
      [maize.id, null, 4],
      [basmati.id, null, 5],
      [sacks.id, variants['25 kg'].id, 1],
      [sacks.id, variants['50 kg'].id, 2],
    ]),
    'a subcategory: not its parent',
  );
  t.equal((await opened(owner.token, { category_id: null })).items.length, 7, 'category_id null: the whole shop');
});

t.test('an unknown category is 422 on category_id and opens nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const foreign = await createCategory(api, theirs.token);
  await createProduct(api, owner.token, {}, 1);
  expectInvalid(t, await openStocktake(owner.token, { category_id: randomUUID() }), 'category_id', 'unknown');
  expectInvalid(t, await openStocktake(owner.token, { category_id: foreign.id }), 'category_id', 'another shop\'s');
  expectInvalid(t, await openStocktake(owner.token, { category_id: 'rayon' }), 'category_id', 'malformed');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stocktakes where shop_id = ${owner.shop.id}`;
  t.equal(row!.n, 0, 'no stocktake was opened');
});

t.test('note is at most 255 characters, or null', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await openStocktake(owner.token, { note: chars(256) }), 'note', '256 characters');
  t.equal((await opened(owner.token, { note: chars(255) })).note, chars(255), '255 characters');
  t.equal((await opened(owner.token, { note: null })).note, null, 'null');
  t.equal((await opened(owner.token)).note, null, 'omitted');
});

// Counting

t.test('a count is recorded, corrected and cleared with null while the stocktake is open', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { cost_xaf: 100 }, 10);
  const soap = await createProduct(api, owner.token, { cost_xaf: 100 }, 5);
  const stocktake = await opened(owner.token);
  const riceItem = itemOf(stocktake, rice.id);
  const soapItem = itemOf(stocktake, soap.id);
  const first = await counted(manager.token, stocktake.id, [{ item_id: riceItem.id, counted_quantity: 8 }]);
  t.match(itemOf(first, rice.id), { counted_quantity: 8, variance: -2 });
  t.ok(Number.isFinite(Date.parse(itemOf(first, rice.id).counted_at)), 'counted_at set');
  t.match(itemOf(first, soap.id), { counted_quantity: null, counted_at: null }, 'the other item is untouched');
  const corrected = await counted(manager.token, stocktake.id, [
    { item_id: riceItem.id, counted_quantity: 11 },
    { item_id: soapItem.id, counted_quantity: 5 },
  ]);
  t.match(itemOf(corrected, rice.id), { counted_quantity: 11, variance: 1 }, 'corrected');
  t.match(itemOf(corrected, soap.id), { counted_quantity: 5, variance: 0 });
  t.equal(corrected.summary.counted, 2);
  const cleared = await counted(manager.token, stocktake.id, [{ item_id: riceItem.id, counted_quantity: null }]);
  t.match(itemOf(cleared, rice.id), { counted_quantity: null, variance: null, variance_value_xaf: null, counted_at: null }, 'cleared');
  t.equal(cleared.summary.counted, 1);
  t.strictSame((await readStocktake(owner.token, stocktake.id)).body.data, cleared, 'stored as answered');
  t.equal(await storedOnHand(rice.id), 10, 'counting alone changes no stock');
});

t.test('an item of another stocktake is 422 on counts.N.item_id and nothing of the request is applied', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const soap = await createProduct(api, owner.token, {}, 5);
  const mine = await opened(owner.token);
  const other = await opened(owner.token);
  const theirs = await registerShop(api);
  await createProduct(api, theirs.token, {}, 1);
  const foreign = await opened(theirs.token);
  const foreignItem = foreign.items[0].id;
  expectInvalid(t, await recordCounts(owner.token, mine.id, [{ item_id: itemOf(other, rice.id).id, counted_quantity: 3 }]), 'counts.0.item_id', 'first');
  const mixed = await recordCounts(owner.token, mine.id, [
    { item_id: itemOf(mine, soap.id).id, counted_quantity: 4 },
    { item_id: itemOf(other, rice.id).id, counted_quantity: 3 },
  ]);
  expectInvalid(t, mixed, 'counts.1.item_id', 'second, after a valid one');
  expectInvalid(t, await recordCounts(owner.token, mine.id, [{ item_id: foreignItem, counted_quantity: 3 }]), 'counts.0.item_id', 'another shop\'s item');
  expectInvalid(t, await recordCounts(owner.token, mine.id, [{ item_id: randomUUID(), counted_quantity: 3 }]), 'counts.0.item_id', 'unknown item');
  const read = (await readStocktake(owner.token, mine.id)).body.data;
  t.equal(itemOf(read, soap.id).counted_quantity, null, 'the valid count of the refused request was not saved');
  t.equal(read.summary.counted, 0);
  t.equal(itemOf((await readStocktake(owner.token, other.id)).body.data, rice.id).counted_quantity, null, 'the other stocktake is untouched');
  t.equal(itemOf((await readStocktake(theirs.token, foreign.id)).body.data, foreign.items[0].product_id).counted_quantity, null, 'the other shop\'s too');
});

t.test('counted_quantity is at least 0 with at most 3 decimals', async (t) => {
  const { owner } = await staffedShop(api);
  const flour = await createProduct(api, owner.token, { unit: 'kg' }, 10);
  const stocktake = await opened(owner.token);
  const item = itemOf(stocktake, flour.id).id;
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, [{ item_id: item, counted_quantity: -0.001 }]), 'counts.0.counted_quantity', '-0.001');
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 1.0005 }]), 'counts.0.counted_quantity', '1.0005');
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, [{ item_id: item, counted_quantity: '2' }]), 'counts.0.counted_quantity', 'a string');
  t.equal(itemOf((await readStocktake(owner.token, stocktake.id)).body.data, flour.id).counted_quantity, null, 'nothing saved');
  t.equal(itemOf(await counted(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 0 }]), flour.id).counted_quantity, 0, '0');
  t.equal(itemOf(await counted(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 2.125 }]), flour.id).counted_quantity, 2.125, '2.125');
});

t.test('counts is required with at least one count, each naming an item', async (t) => {
  const { owner } = await staffedShop(api);
  await createProduct(api, owner.token, {}, 1);
  const stocktake = await opened(owner.token);
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, []), 'counts', 'empty');
  expectInvalid(t, await api.request('POST', `/stocktakes/${stocktake.id}/counts`, { token: owner.token, body: {} }), 'counts', 'missing');
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, [{ counted_quantity: 1 }]), 'counts.0.item_id', 'no item_id');
  expectInvalid(t, await recordCounts(owner.token, stocktake.id, [{ item_id: 'x', counted_quantity: 1 }]), 'counts.0.item_id', 'malformed item_id');
  t.equal((await recordCounts(owner.token, stocktake.id, [{ item_id: stocktake.items[0].id, counted_quantity: 1 }])).status, 200, 'one count');
});

t.test('each counted item carries its variance and its value at last cost, and the summary their totals', async (t) => {
  const { owner } = await staffedShop(api);
  const flour = await createProduct(api, owner.token, { cost_xaf: 3333, unit: 'kg' }, 10);
  const oil = await createProduct(api, owner.token, { cost_xaf: 1500 }, 4);
  const sugar = await createProduct(api, owner.token, { cost_xaf: 3333, unit: 'kg' }, 1);
  const salt = await createProduct(api, owner.token, { cost_xaf: 250 }, 6);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: 2 }, { cost_xaf: 4000 });
  const stocktake = await opened(owner.token);
  const after = await counted(owner.token, stocktake.id, [
    { item_id: itemOf(stocktake, flour.id).id, counted_quantity: 7.5 },
    { item_id: itemOf(stocktake, sugar.id).id, counted_quantity: 3.5 },
    { item_id: itemOf(stocktake, oil.id).id, counted_quantity: 6 },
    { item_id: itemOf(stocktake, shirt.id, variants.M.id).id, counted_quantity: 2 },
  ]);
  // ±2.5 x 3333 = ±8332.5, rounded half away from zero both ways (not down, not to even).
  t.match(itemOf(after, flour.id), { expected_quantity: 10, counted_quantity: 7.5, variance: -2.5, variance_value_xaf: -8333 });
  t.match(itemOf(after, sugar.id), { expected_quantity: 1, counted_quantity: 3.5, variance: 2.5, variance_value_xaf: 8333 });
  t.match(itemOf(after, oil.id), { expected_quantity: 4, counted_quantity: 6, variance: 2, variance_value_xaf: 3000 });
  t.match(itemOf(after, shirt.id, variants.M.id), { variance: 0, variance_value_xaf: 0 });
  t.match(itemOf(after, salt.id), { counted_quantity: null, variance: null, variance_value_xaf: null }, 'not counted');
  t.strictSame(after.summary, { items: 5, counted: 4, variance_value_xaf: 3000 });
});

// Committing

t.test('commit applies each counted variance against the on-hand at commit time', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { cost_xaf: 1000 }, 10);
  const stocktake = await opened(manager.token);
  t.equal(itemOf(stocktake, rice.id).expected_quantity, 10);
  await adjustTo(api, owner.token, rice.id, 7); // as if 3 were sold while the shelves were counted
  await counted(manager.token, stocktake.id, [{ item_id: itemOf(stocktake, rice.id).id, counted_quantity: 8 }]);
  const reply = await commit(manager.token, stocktake.id);
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.equal(await storedOnHand(rice.id), 5, '7 on hand, 2 missing at the count: 5');
  t.equal((await productRecord(api, manager.token, rice.id)).on_hand, 5);
  t.strictSame(await stocktakeMovements(stocktake.id), [{ product_id: rice.id, variant_id: null, type: 'stocktake', quantity: -2, on_hand_after: 5 }]);
  const ledger = await api.request('GET', `/products/${rice.id}/movements`, { token: manager.token });
  t.match(ledger.body.data[0], { type: 'stocktake', quantity: -2, on_hand_after: 5, source_type: 'stocktake', source_id: stocktake.id, user_id: manager.user.id });
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('commit moves variants and their product, leaves uncounted items and exact counts without a movement', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const soap = await createProduct(api, owner.token, {}, 5);
  const oil = await createProduct(api, owner.token, {}, 3);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: 2, L: 3 });
  const stocktake = await opened(owner.token);
  await adjustTo(api, owner.token, soap.id, 4);
  await counted(owner.token, stocktake.id, [
    { item_id: itemOf(stocktake, oil.id).id, counted_quantity: 3 },
    { item_id: itemOf(stocktake, shirt.id, variants.L.id).id, counted_quantity: 5.5 },
  ]);
  const movementsBefore = await movementCount(api, owner.shop.id);
  t.equal((await commit(owner.token, stocktake.id)).status, 200);
  t.equal(await storedOnHand(rice.id), 10, 'uncounted: untouched');
  t.equal(await storedOnHand(soap.id), 4, 'uncounted: keeps the change made during the count');
  t.equal(await storedOnHand(oil.id), 3, 'counted as expected: unchanged');
  t.equal(await storedOnHand(variants.L.id, 'variants'), 5.5, 'the variant counted');
  t.equal(await storedOnHand(variants.M.id, 'variants'), 2, 'its sibling, uncounted');
  t.equal(await storedOnHand(shirt.id), 7.5, 'the product is the sum of its variants');
  t.strictSame(await stocktakeMovements(stocktake.id), [{ product_id: shirt.id, variant_id: variants.L.id, type: 'stocktake', quantity: 2.5, on_hand_after: 5.5 }]);
  t.equal(await movementCount(api, owner.shop.id), movementsBefore + 1, 'one movement in all');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('commit skips counted items that no longer keep stock of their own: deleted, untracked, or now with variants', async (t) => {
  const { owner } = await staffedShop(api);
  const gone = await createProduct(api, owner.token, { name: 'Ancien' }, 5);
  const service = await createProduct(api, owner.token, { name: 'Service' }, 5);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise' });
  const rice = await createProduct(api, owner.token, { name: 'Riz' }, 10);
  const stocktake = await opened(owner.token);
  await counted(owner.token, stocktake.id, [
    { item_id: itemOf(stocktake, gone.id).id, counted_quantity: 1 },
    { item_id: itemOf(stocktake, service.id).id, counted_quantity: 2 },
    { item_id: itemOf(stocktake, shirt.id).id, counted_quantity: 4 },
    { item_id: itemOf(stocktake, rice.id).id, counted_quantity: 8 },
  ]);
  await deleteProduct(api, owner.token, gone.id);
  t.equal((await api.request('PUT', `/products/${service.id}`, { token: owner.token, body: { tracked: false } })).status, 200, 'made untracked');
  t.equal(
    (await api.request('POST', `/products/${shirt.id}/options`, { token: owner.token, body: { options: [{ name: 'Taille', values: ['M'] }] } })).status,
    200,
  );
  t.equal((await api.request('POST', `/products/${shirt.id}/variants`, { token: owner.token, body: { options: { Taille: 'M' } } })).status, 201, 'given a variant');
  const reply = await commit(owner.token, stocktake.id);
  t.equal(reply.status, 200, `the stocktake commits (answered ${reply.status} ${JSON.stringify(reply.body)})`);
  t.equal(await storedOnHand(gone.id), 5, 'the deleted product is untouched');
  t.equal(await storedOnHand(service.id), 5, 'the untracked product is untouched');
  t.equal(await storedOnHand(shirt.id), 0, 'the product with variants is untouched');
  t.equal(await storedOnHand(rice.id), 8, 'the others are applied');
  t.strictSame((await stocktakeMovements(stocktake.id)).map((m) => m.product_id), [rice.id]);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('commit posts the variance value to the journal, balanced', async (t) => {
  const { owner } = await staffedShop(api);
  const flour = await createProduct(api, owner.token, { cost_xaf: 3333, unit: 'kg' }, 10);
  const oil = await createProduct(api, owner.token, { cost_xaf: 1500 }, 4);
  const losses = await opened(owner.token, { note: 'Inventaire' });
  await counted(owner.token, losses.id, [
    { item_id: itemOf(losses, flour.id).id, counted_quantity: 7.5 },
    { item_id: itemOf(losses, oil.id).id, counted_quantity: 6 },
  ]);
  t.equal((await commit(owner.token, losses.id)).status, 200);
  t.strictSame(await journalLines(api, 'stocktake', losses.id), [
    { account: '6031', debit_xaf: 5333, credit_xaf: 0 },
    { account: '31', debit_xaf: 0, credit_xaf: 5333 },
  ], 'a net loss of 8333 - 3000');
  const gains = await opened(owner.token);
  await counted(owner.token, gains.id, [{ item_id: itemOf(gains, oil.id).id, counted_quantity: 7 }]);
  t.equal((await commit(owner.token, gains.id)).status, 200);
  t.strictSame(await journalLines(api, 'stocktake', gains.id), [
    { account: '31', debit_xaf: 1500, credit_xaf: 0 },
    { account: '6031', debit_xaf: 0, credit_xaf: 1500 },
  ], 'a gain');
  const nothing = await opened(owner.token);
  await counted(owner.token, nothing.id, [{ item_id: itemOf(nothing, oil.id).id, counted_quantity: 7 }]);
  t.equal((await commit(owner.token, nothing.id)).status, 200);
  t.strictSame(await journalLines(api, 'stocktake', nothing.id), [], 'no variance: no entry');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('commit sets the status to committed, with who and when', async (t) => {
  const { owner, manager } = await staffedShop(api);
  await createProduct(api, owner.token, {}, 1);
  const stocktake = await opened(owner.token);
  const reply = await commit(manager.token, stocktake.id);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body.data).sort(), [...STOCKTAKE_KEYS, 'items'].sort());
  t.match(reply.body.data, { id: stocktake.id, status: 'committed', created_by: owner.user.id, committed_by: manager.user.id, cancelled_at: null });
  t.ok(Number.isFinite(Date.parse(reply.body.data.committed_at)), 'committed_at set');
  t.equal((await readStocktake(owner.token, stocktake.id)).body.data.status, 'committed');
});

t.test('a committed stocktake cannot be committed, counted or cancelled (409 stocktake_not_open)', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { cost_xaf: 100 }, 10);
  const stocktake = await opened(owner.token);
  const item = itemOf(stocktake, rice.id).id;
  await counted(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 8 }]);
  t.equal((await commit(owner.token, stocktake.id)).status, 200);
  const movementsAfter = await movementCount(api, owner.shop.id);
  const entriesAfter = await journalEntryCount(api, owner.shop.id);
  expectConflict(t, await commit(owner.token, stocktake.id), 'stocktake_not_open', 'commit again');
  expectConflict(t, await recordCounts(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 1 }]), 'stocktake_not_open', 'counts');
  expectConflict(t, await cancel(owner.token, stocktake.id), 'stocktake_not_open', 'cancel');
  t.equal(await storedOnHand(rice.id), 8, 'applied once');
  t.equal(await movementCount(api, owner.shop.id), movementsAfter);
  t.equal(await journalEntryCount(api, owner.shop.id), entriesAfter);
  const read = (await readStocktake(owner.token, stocktake.id)).body.data;
  t.equal(read.status, 'committed');
  t.equal(itemOf(read, rice.id).counted_quantity, 8, 'the count is kept as committed');
});

// Cancelling

t.test('an open stocktake can be cancelled and the stock stays as it was', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const stocktake = await opened(owner.token);
  await counted(owner.token, stocktake.id, [{ item_id: itemOf(stocktake, rice.id).id, counted_quantity: 2 }]);
  const movementsBefore = await movementCount(api, owner.shop.id);
  const entriesBefore = await journalEntryCount(api, owner.shop.id);
  const reply = await cancel(manager.token, stocktake.id);
  t.equal(reply.status, 200);
  t.match(reply.body.data, { id: stocktake.id, status: 'cancelled', committed_at: null, committed_by: null });
  t.ok(Number.isFinite(Date.parse(reply.body.data.cancelled_at)), 'cancelled_at set');
  t.equal(await storedOnHand(rice.id), 10);
  t.equal(await movementCount(api, owner.shop.id), movementsBefore);
  t.equal(await journalEntryCount(api, owner.shop.id), entriesBefore);
});

t.test('a cancelled stocktake cannot be cancelled, committed or counted (409 stocktake_not_open)', async (t) => {
  const { owner } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const stocktake = await opened(owner.token);
  const item = itemOf(stocktake, rice.id).id;
  await counted(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 2 }]);
  t.equal((await cancel(owner.token, stocktake.id)).status, 200);
  expectConflict(t, await cancel(owner.token, stocktake.id), 'stocktake_not_open', 'cancel again');
  expectConflict(t, await commit(owner.token, stocktake.id), 'stocktake_not_open', 'commit');
  expectConflict(t, await recordCounts(owner.token, stocktake.id, [{ item_id: item, counted_quantity: 3 }]), 'stocktake_not_open', 'counts');
  t.equal(await storedOnHand(rice.id), 10, 'nothing applied');
  t.equal((await readStocktake(owner.token, stocktake.id)).body.data.status, 'cancelled');
});

// Concurrency

/** A stocktake of one product (on-hand 10, counted 4) ready to commit. */
async function stocktakeToCommit() {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { cost_xaf: 250 }, 10);
  const stocktake = await opened(owner.token);
  await counted(owner.token, stocktake.id, [{ item_id: itemOf(stocktake, rice.id).id, counted_quantity: 4 }]);
  return { owner, manager, rice, stocktake };
}

/**
 * Holds the stocktake's row while `requests` start, until `waiting` of them queue behind it: they have
 * authenticated and reached the commit's own lock, so they meet there at the same moment.
 */
async function meetingAtTheStocktake(stocktakeId: string, waiting: number, requests: () => Promise<Reply[]>): Promise<{ met: boolean; replies: Reply[] }> {
  let replies!: Promise<Reply[]>;
  let met = false;
  await api.ownerSql.begin(async (tx) => {
    await tx`select 1 from stocktakes where id = ${stocktakeId} for update`;
    let settled = false;
    replies = requests().finally(() => {
      settled = true;
    });
    const deadline = Date.now() + 10_000;
    while (!settled && Date.now() < deadline) {
      const [row] = await api.ownerSql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      met = row!.n >= waiting;
      if (met) break;
      await sleep(5);
    }
  });
  return { met, replies: await replies };
}

async function expectAppliedOnce(t: Test, replies: Reply[], shopId: string, riceId: string, stocktakeId: string, label: string) {
  t.strictSame(replies.map((r) => r.status).sort(), [200, 409], `${label}: one commit succeeds, one is refused`);
  const refused = replies.find((r) => r.status !== 200);
  if (refused) expectConflict(t, refused, 'stocktake_not_open', label);
  t.equal(await storedOnHand(riceId), 4, `${label}: on-hand moved once`);
  t.equal((await stocktakeMovements(stocktakeId)).length, 1, `${label}: one movement`);
  t.equal((await journalLines(api, 'stocktake', stocktakeId)).length, 2, `${label}: one journal entry`);
  await expectLedgerInvariants(t, api, shopId, label);
}

t.test('two commits of the same stocktake meeting at its lock apply it once', async (t) => {
  for (let round = 1; round <= 3; round++) {
    const { owner, manager, rice, stocktake } = await stocktakeToCommit();
    const { met, replies } = await meetingAtTheStocktake(stocktake.id, 2, () =>
      Promise.all([commit(owner.token, stocktake.id), commit(manager.token, stocktake.id)]),
    );
    t.ok(met, `round ${round}: both commits reached the stocktake together`);
    await expectAppliedOnce(t, replies, owner.shop.id, rice.id, stocktake.id, `round ${round}`);
  }
});

t.test('two concurrent commits of the same stocktake apply it once', async (t) => {
  for (let round = 1; round <= 3; round++) {
    const { owner, manager, rice, stocktake } = await stocktakeToCommit();
    const replies = await Promise.all([commit(owner.token, stocktake.id), commit(manager.token, stocktake.id)]);
    await expectAppliedOnce(t, replies, owner.shop.id, rice.id, stocktake.id, `round ${round}`);
  }
});

// Listing

t.test('the list shows stocktakes newest first and filters by status', async (t) => {
  const { owner, manager } = await staffedShop(api);
  await createProduct(api, owner.token, {}, 1);
  const first = await opened(owner.token, { note: 'first' });
  const second = await opened(owner.token, { note: 'second' });
  const third = await opened(owner.token, { note: 'third' });
  const fourth = await opened(owner.token, { note: 'fourth' });
  t.equal((await commit(owner.token, second.id)).status, 200);
  t.equal((await cancel(owner.token, third.id)).status, 200);
  const all = await api.request('GET', '/stocktakes', { token: manager.token });
  t.equal(all.status, 200);
  t.strictSame(all.body.meta, { next_cursor: null });
  t.strictSame(all.body.data.map((s: any) => s.note), ['fourth', 'third', 'second', 'first'], 'newest first');
  for (const record of all.body.data) t.strictSame(Object.keys(record).sort(), STOCKTAKE_KEYS, 'list records carry no items');
  t.strictSame(all.body.data[0].summary, { items: 1, counted: 0, variance_value_xaf: 0 });
  const ids = (status: string) => api.request('GET', `/stocktakes?status=${status}`, { token: manager.token }).then((r) => r.body.data.map((s: any) => s.id));
  t.strictSame(await ids('open'), [fourth.id, first.id], 'open');
  t.strictSame(await ids('committed'), [second.id], 'committed');
  t.strictSame(await ids('cancelled'), [third.id], 'cancelled');
  expectInvalid(t, await api.request('GET', '/stocktakes?status=closed', { token: manager.token }), 'status', 'an unknown status');
  const pages = await allPages(api, manager.token, '/stocktakes', 1);
  t.strictSame(pages.flatMap((page) => page.body.data.map((s: any) => s.id)), [fourth.id, third.id, second.id, first.id], 'limit=1 pages visit each once');
  const theirs = await registerShop(api);
  t.strictSame((await api.request('GET', '/stocktakes', { token: theirs.token })).body.data, [], 'another shop sees none of them');
});

// Who may, and whose

t.test('a cashier gets 403 on every stocktake operation', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const stocktake = await opened(owner.token);
  const item = itemOf(stocktake, rice.id).id;
  expectError(t, await api.request('GET', '/stocktakes', { token: cashier.token }), 403, FORBIDDEN, 'list');
  expectError(t, await openStocktake(cashier.token), 403, FORBIDDEN, 'open');
  expectError(t, await readStocktake(cashier.token, stocktake.id), 403, FORBIDDEN, 'read');
  expectError(t, await recordCounts(cashier.token, stocktake.id, [{ item_id: item, counted_quantity: 1 }]), 403, FORBIDDEN, 'counts');
  expectError(t, await commit(cashier.token, stocktake.id), 403, FORBIDDEN, 'commit');
  expectError(t, await cancel(cashier.token, stocktake.id), 403, FORBIDDEN, 'cancel');
  const read = (await readStocktake(owner.token, stocktake.id)).body.data;
  t.match(read, { status: 'open' });
  t.equal(itemOf(read, rice.id).counted_quantity, null);
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stocktakes where shop_id = ${owner.shop.id}`;
  t.equal(row!.n, 1, 'the cashier opened none');
});

t.test('another shop\'s stocktake is 404 on every operation and stays as it was', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const rice = await createProduct(api, theirs.token, {}, 10);
  const stocktake = await opened(theirs.token);
  const item = itemOf(stocktake, rice.id).id;
  await counted(theirs.token, stocktake.id, [{ item_id: item, counted_quantity: 3 }]);
  for (const id of [stocktake.id, randomUUID()]) {
    const what = id === stocktake.id ? 'another shop\'s' : 'unknown';
    expectError(t, await readStocktake(owner.token, id), 404, NOT_FOUND, `${what}: read`);
    expectError(t, await recordCounts(owner.token, id, [{ item_id: item, counted_quantity: 1 }]), 404, NOT_FOUND, `${what}: counts`);
    expectError(t, await commit(owner.token, id), 404, NOT_FOUND, `${what}: commit`);
    expectError(t, await cancel(owner.token, id), 404, NOT_FOUND, `${what}: cancel`);
  }
  expectInvalid(t, await readStocktake(owner.token, 'not-a-uuid'), 'stocktake_id', 'a malformed id');
  const read = (await readStocktake(theirs.token, stocktake.id)).body.data;
  t.equal(read.status, 'open');
  t.equal(itemOf(read, rice.id).counted_quantity, 3);
  t.equal(await storedOnHand(rice.id), 10);
});

t.test('once the subscription has ended stocktake changes are 402 and reads still answer', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, {}, 10);
  const stocktake = await opened(owner.token);
  const item = itemOf(stocktake, rice.id).id;
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await openStocktake(token), 402, SUBSCRIPTION_REQUIRED, `${who}: open`);
    expectError(t, await recordCounts(token, stocktake.id, [{ item_id: item, counted_quantity: 1 }]), 402, SUBSCRIPTION_REQUIRED, `${who}: counts`);
    expectError(t, await commit(token, stocktake.id), 402, SUBSCRIPTION_REQUIRED, `${who}: commit`);
    expectError(t, await cancel(token, stocktake.id), 402, SUBSCRIPTION_REQUIRED, `${who}: cancel`);
    t.equal((await readStocktake(token, stocktake.id)).status, 200, `${who}: read`);
    t.equal((await api.request('GET', '/stocktakes', { token })).status, 200, `${who}: list`);
  }
  t.equal((await readStocktake(owner.token, stocktake.id)).body.data.status, 'open');
  t.equal(await storedOnHand(rice.id), 10);
});
