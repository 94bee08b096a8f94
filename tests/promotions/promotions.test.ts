import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  createCategory,
  createProduct,
  createPromotion,
  deletePromotion,
  postPromotion,
  productWithVariants,
  putPromotion,
  staffedShop,
} from './promotion-fixtures.ts';

const api = await startService(t);

const PROMOTION_KEYS = [
  'active', 'category_ids', 'created_at', 'days_of_week', 'ends_at', 'ends_time', 'id', 'kind', 'min_quantity', 'min_total_xaf', 'name',
  'product_ids', 'scope', 'starts_at', 'starts_time', 'updated_at', 'value', 'variant_ids',
];

const post = (token: string, body: Record<string, unknown>) => postPromotion(api, token, body);
const put = (token: string, id: string, body: Record<string, unknown>) => putPromotion(api, token, id, body);
const list = (token: string, query = '') => api.request('GET', `/promotions${query}`, { token });

/**
 * The promotion as the list shows it (there is no single read), without the list's stray
 * `cursor_at` (see "a listed promotion carries exactly the fields of a promotion").
 */
async function listed(token: string, id: string): Promise<any> {
  const reply = await list(token, '?limit=200');
  const found = reply.body.data.find((p: any) => p.id === id);
  if (!found) return found;
  const { cursor_at: _cursor, ...record } = found;
  return record;
}

async function storedCount(shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from promotions where shop_id = ${shopId}`;
  return row!.n;
}

/** A shop with a manager, and a product to aim promotions at. */
async function shopWithProduct() {
  const shop = await staffedShop(api);
  const product = await createProduct(api, shop.manager.token, { price_xaf: 1000 });
  return { ...shop, product };
}

const percentOff = (fields: Record<string, unknown> = {}) => ({ name: 'Soldes', kind: 'percent', value: 10, ...fields });

// Creating and reading

t.test('a manager creates a whole-sale percent promotion (201) with the defaults filled in', async (t) => {
  const { manager } = await staffedShop(api);
  const reply = await post(manager.token, percentOff());
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body.data).sort(), PROMOTION_KEYS);
  t.match(reply.body.data, {
    name: 'Soldes',
    kind: 'percent',
    value: 10,
    scope: 'sale',
    product_ids: [],
    category_ids: [],
    variant_ids: [],
    min_quantity: 0,
    min_total_xaf: 0,
    starts_at: null,
    ends_at: null,
    days_of_week: null,
    starts_time: null,
    ends_time: null,
    active: true,
  });
});

t.test('every field of a promotion is stored as sent', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, manager.token);
  const category = await createCategory(api, manager.token);
  const { variants } = await productWithVariants(api, manager.token, { M: 1500 });
  const body = {
    name: 'Happy hour boissons',
    kind: 'amount_xaf',
    value: 150,
    product_ids: [product.id],
    category_ids: [category.id],
    variant_ids: [variants.M.id],
    min_quantity: 2.5,
    min_total_xaf: 5000,
    starts_at: '2025-06-01T08:00:00+01:00',
    ends_at: '2025-07-01T00:00:00Z',
    days_of_week: [5, 6, 7],
    starts_time: '17:00',
    ends_time: '19:30',
    active: false,
  };
  const reply = await post(owner.token, body);
  t.equal(reply.status, 201, 'the owner may too');
  t.strictSame(reply.body.data, {
    ...body,
    id: reply.body.data.id,
    scope: 'items',
    starts_at: '2025-06-01T07:00:00.000Z',
    ends_at: '2025-07-01T00:00:00.000Z',
    created_at: reply.body.data.created_at,
    updated_at: reply.body.data.updated_at,
  });
  t.strictSame(await listed(owner.token, reply.body.data.id), reply.body.data, 'listed the same');
});

t.test('promotions are listed oldest first, paginated, and filtered by active', async (t) => {
  const { manager, cashier } = await staffedShop(api);
  const created = [];
  for (let i = 0; i < 5; i++) created.push(await createPromotion(api, manager.token, percentOff({ name: `P${i}`, active: i % 2 === 0 })));
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: any = await list(cashier.token, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(reply.status, 200);
    ids.push(...reply.body.data.map((p: any) => p.id));
    cursor = reply.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.strictSame(ids, created.map((p) => p.id), 'every promotion once, oldest first');
  t.equal(pages, 3);
  t.strictSame((await list(cashier.token, '?active=true')).body.data.map((p: any) => p.name), ['P0', 'P2', 'P4']);
  t.strictSame((await list(cashier.token, '?active=false')).body.data.map((p: any) => p.name), ['P1', 'P3']);
  expectInvalid(t, await list(cashier.token, '?active=maybe'), 'active');
  expectInvalid(t, await list(cashier.token, '?limit=201'), 'limit');
});

t.test('a listed promotion carries exactly the fields of a promotion', async (t) => {
  const { manager } = await staffedShop(api);
  await createPromotion(api, manager.token, percentOff());
  const [record] = (await list(manager.token)).body.data;
  t.strictSame(Object.keys(record).sort(), PROMOTION_KEYS, 'the documented fields');
});

// Bounds of each field

t.test('name is 1 to 160 characters', async (t) => {
  const { manager } = await staffedShop(api);
  for (const [what, name] of [['empty', ''], ['blank', '   '], ['161 characters', chars(161, 'p')], ['missing', undefined], ['null', null]] as const) {
    expectInvalid(t, await post(manager.token, percentOff({ name })), 'name', what);
  }
  const reply = await post(manager.token, percentOff({ name: chars(160, 'p') }));
  t.equal(reply.status, 201, '160 characters');
  t.equal(reply.body.data.name, chars(160, 'p'));
  t.equal((await post(manager.token, percentOff({ name: 'P' }))).status, 201, '1 character');
});

t.test('kind is percent, amount_xaf, buy_x_get_y or price_xaf', async (t) => {
  const { manager, product } = await shopWithProduct();
  for (const [what, kind] of [['unknown', 'bogus'], ['missing', undefined], ['upper case', 'PERCENT']] as const) {
    expectInvalid(t, await post(manager.token, percentOff({ kind, product_ids: [product.id] })), 'kind', what);
  }
  const bodies: Record<string, unknown>[] = [
    { kind: 'percent', value: 10 },
    { kind: 'amount_xaf', value: 100 },
    { kind: 'buy_x_get_y', value: 1, min_quantity: 2 },
    { kind: 'price_xaf', value: 500 },
  ];
  for (const body of bodies) {
    const reply = await post(manager.token, { name: 'K', product_ids: [product.id], ...body });
    t.equal(reply.status, 201, `${body.kind}`);
    t.equal(reply.body.data.kind, body.kind);
  }
});

t.test('value is a number with at most 2 decimals', async (t) => {
  const { manager, product } = await shopWithProduct();
  for (const [what, value] of [['3 decimals', 12.345], ['a string', '10'], ['missing', undefined], ['negative', -5]] as const) {
    expectInvalid(t, await post(manager.token, percentOff({ value })), 'value', what);
  }
  const reply = await post(manager.token, percentOff({ value: 12.34 }));
  t.equal(reply.status, 201, '2 decimals');
  t.equal(reply.body.data.value, 12.34);
  expectInvalid(t, await post(manager.token, { name: 'A', kind: 'amount_xaf', value: 0.001, product_ids: [product.id] }), 'value', 'amount with 3 decimals');
});

t.test('a whole-sale promotion (no products, categories or variants) must be a percent (422 on kind)', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const bodies: Record<string, unknown>[] = [
    { kind: 'amount_xaf', value: 100 },
    { kind: 'price_xaf', value: 100 },
    { kind: 'buy_x_get_y', value: 1, min_quantity: 2 },
    { kind: 'amount_xaf', value: 100, product_ids: [], category_ids: [], variant_ids: [] },
  ];
  for (const body of bodies) expectInvalid(t, await post(manager.token, { name: 'W', ...body }), 'kind', `${body.kind}${body.product_ids ? ' with empty lists' : ''}`);
  t.equal(await storedCount(owner.shop.id), 0, 'nothing stored');
});

t.test('a percent is more than 0 and at most 100', async (t) => {
  const { manager } = await staffedShop(api);
  expectInvalid(t, await post(manager.token, percentOff({ value: 0 })), 'value', '0');
  expectInvalid(t, await post(manager.token, percentOff({ value: 100.01 })), 'value', '100.01');
  expectInvalid(t, await post(manager.token, percentOff({ value: 250 })), 'value', '250');
  t.equal((await post(manager.token, percentOff({ value: 0.01 }))).status, 201, '0.01');
  t.equal((await post(manager.token, percentOff({ value: 100 }))).status, 201, '100');
});

t.test('an amount off is a whole number of XAF, at least 1', async (t) => {
  const { manager, product } = await shopWithProduct();
  const amount = (value: unknown) => ({ name: 'A', kind: 'amount_xaf', value, product_ids: [product.id] });
  expectInvalid(t, await post(manager.token, amount(0)), 'value', '0');
  expectInvalid(t, await post(manager.token, amount(1.5)), 'value', '1.5');
  t.equal((await post(manager.token, amount(1))).status, 201, '1');
});

t.test('a fixed price is a whole number of XAF, at least 0', async (t) => {
  const { manager, product } = await shopWithProduct();
  const price = (value: unknown) => ({ name: 'F', kind: 'price_xaf', value, product_ids: [product.id] });
  expectInvalid(t, await post(manager.token, price(-1)), 'value', '-1');
  expectInvalid(t, await post(manager.token, price(99.5)), 'value', '99.5');
  t.equal((await post(manager.token, price(0))).status, 201, '0: given away');
  t.equal((await post(manager.token, price(750))).status, 201, '750');
});

t.test('buy X get Y needs a whole free quantity (value) and a whole quantity to buy (min_quantity), each at least 1', async (t) => {
  const { manager, product } = await shopWithProduct();
  const bxgy = (fields: Record<string, unknown>) => ({ name: 'B', kind: 'buy_x_get_y', product_ids: [product.id], value: 1, min_quantity: 2, ...fields });
  expectInvalid(t, await post(manager.token, bxgy({ value: 0 })), 'value', 'value 0');
  expectInvalid(t, await post(manager.token, bxgy({ value: 1.5 })), 'value', 'value 1.5');
  expectInvalid(t, await post(manager.token, bxgy({ min_quantity: 0 })), 'min_quantity', 'min_quantity 0');
  expectInvalid(t, await post(manager.token, bxgy({ min_quantity: undefined })), 'min_quantity', 'min_quantity missing');
  expectInvalid(t, await post(manager.token, bxgy({ min_quantity: 2.5 })), 'min_quantity', 'min_quantity 2.5');
  expectInvalid(t, await post(manager.token, bxgy({ value: 0, min_quantity: 0 })), ['value', 'min_quantity'], 'both');
  t.equal((await post(manager.token, bxgy({ value: 1, min_quantity: 1 }))).status, 201, 'buy 1 get 1');
});

t.test('min_quantity is at least 0 with at most 3 decimals; min_total_xaf a whole number at least 0', async (t) => {
  const { manager } = await staffedShop(api);
  expectInvalid(t, await post(manager.token, percentOff({ min_quantity: -1 })), 'min_quantity', 'min_quantity -1');
  expectInvalid(t, await post(manager.token, percentOff({ min_quantity: 0.0005 })), 'min_quantity', 'min_quantity with 4 decimals');
  expectInvalid(t, await post(manager.token, percentOff({ min_total_xaf: -1 })), 'min_total_xaf', 'min_total_xaf -1');
  expectInvalid(t, await post(manager.token, percentOff({ min_total_xaf: 10.5 })), 'min_total_xaf', 'min_total_xaf 10.5');
  const reply = await post(manager.token, percentOff({ min_quantity: 0.125, min_total_xaf: 0 }));
  t.equal(reply.status, 201);
  t.equal(reply.body.data.min_quantity, 0.125);
});

t.test('ends_at must be after starts_at (422 on ends_at); either may be given alone', async (t) => {
  const { manager } = await staffedShop(api);
  expectInvalid(t, await post(manager.token, percentOff({ starts_at: '2025-06-01T10:00:00Z', ends_at: '2025-06-01T10:00:00Z' })), 'ends_at', 'equal');
  expectInvalid(t, await post(manager.token, percentOff({ starts_at: '2025-06-01T10:00:00Z', ends_at: '2025-06-01T10:30:00+01:00' })), 'ends_at', 'before, once offsets are counted');
  expectInvalid(t, await post(manager.token, percentOff({ starts_at: '2025-06-01' })), 'starts_at', 'a date without a time');
  expectInvalid(t, await post(manager.token, percentOff({ ends_at: 'soon' })), 'ends_at', 'not a time');
  t.equal((await post(manager.token, percentOff({ starts_at: '2025-06-01T10:00:00Z', ends_at: '2025-06-01T10:00:01Z' }))).status, 201, 'a second later');
  t.equal((await post(manager.token, percentOff({ starts_at: '2025-06-01T10:00:00Z' }))).status, 201, 'no end');
  t.equal((await post(manager.token, percentOff({ ends_at: '2025-06-01T10:00:00Z' }))).status, 201, 'no start');
});

t.test('starts_time and ends_time are HH:MM, given both or neither', async (t) => {
  const { manager } = await staffedShop(api);
  for (const [what, time] of [['24:00', '24:00'], ['7:00', '7:00'], ['07:60', '07:60'], ['with seconds', '07:00:00'], ['a number', 700]] as const) {
    expectInvalid(t, await post(manager.token, percentOff({ starts_time: time, ends_time: '12:00' })), 'starts_time', `starts_time ${what}`);
    expectInvalid(t, await post(manager.token, percentOff({ starts_time: '06:00', ends_time: time })), 'ends_time', `ends_time ${what}`);
  }
  expectInvalid(t, await post(manager.token, percentOff({ starts_time: '08:00' })), 'ends_time', 'a start without an end');
  expectInvalid(t, await post(manager.token, percentOff({ ends_time: '08:00' })), 'starts_time', 'an end without a start');
  expectInvalid(t, await post(manager.token, percentOff({ starts_time: '08:00', ends_time: '08:00' })), 'ends_time', 'an empty window');
  const day = await post(manager.token, percentOff({ starts_time: '00:00', ends_time: '23:59' }));
  t.equal(day.status, 201, '00:00 to 23:59');
  t.match(day.body.data, { starts_time: '00:00', ends_time: '23:59' });
  const night = await post(manager.token, percentOff({ starts_time: '22:00', ends_time: '02:00' }));
  t.equal(night.status, 201, 'over midnight');
  t.match(night.body.data, { starts_time: '22:00', ends_time: '02:00' });
});

t.test('days_of_week are ISO days 1 (Monday) to 7 (Sunday)', async (t) => {
  const { manager } = await staffedShop(api);
  expectInvalid(t, await post(manager.token, percentOff({ days_of_week: [0] })), 'days_of_week.0', '0');
  expectInvalid(t, await post(manager.token, percentOff({ days_of_week: [1, 8] })), 'days_of_week.1', '8');
  expectInvalid(t, await post(manager.token, percentOff({ days_of_week: [1.5] })), 'days_of_week.0', '1.5');
  expectInvalid(t, await post(manager.token, percentOff({ days_of_week: [] })), 'days_of_week', 'no day');
  expectInvalid(t, await post(manager.token, percentOff({ days_of_week: [1, 2, 3, 4, 5, 6, 7, 1] })), 'days_of_week', '8 entries');
  const reply = await post(manager.token, percentOff({ days_of_week: [1, 7] }));
  t.equal(reply.status, 201, 'Monday and Sunday');
  t.strictSame(reply.body.data.days_of_week, [1, 7]);
  t.equal((await post(manager.token, percentOff({ days_of_week: [1, 2, 3, 4, 5, 6, 7] }))).status, 201, 'every day');
  t.equal((await post(manager.token, percentOff({ days_of_week: null }))).status, 201, 'null: every day');
});

t.test('product_ids, category_ids and variant_ids must name live records of this shop (422 on the entry)', async (t) => {
  const { owner, manager, product } = await shopWithProduct();
  const theirs = await registerShop(api);
  const theirProduct = await createProduct(api, theirs.token);
  const theirCategory = await createCategory(api, theirs.token);
  const { variants: theirVariants } = await productWithVariants(api, theirs.token, { S: 900 });
  const gone = await createProduct(api, manager.token);
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: manager.token })).status, 204);
  const amount = (fields: Record<string, unknown>) => ({ name: 'R', kind: 'amount_xaf', value: 50, ...fields });
  expectInvalid(t, await post(manager.token, amount({ product_ids: [product.id, randomUUID()] })), 'product_ids.1', 'an unknown product');
  expectInvalid(t, await post(manager.token, amount({ product_ids: [theirProduct.id] })), 'product_ids.0', 'another shop\'s product');
  expectInvalid(t, await post(manager.token, amount({ product_ids: [product.id, gone.id] })), 'product_ids.1', 'a deleted product');
  expectInvalid(t, await post(manager.token, amount({ category_ids: [theirCategory.id] })), 'category_ids.0', 'another shop\'s category');
  expectInvalid(t, await post(manager.token, amount({ category_ids: [randomUUID()] })), 'category_ids.0', 'an unknown category');
  expectInvalid(t, await post(manager.token, amount({ variant_ids: [theirVariants.S.id] })), 'variant_ids.0', 'another shop\'s variant');
  expectInvalid(t, await post(manager.token, amount({ variant_ids: [randomUUID()] })), 'variant_ids.0', 'an unknown variant');
  expectInvalid(t, await post(manager.token, amount({ product_ids: ['not-a-uuid'] })), 'product_ids.0', 'not a uuid');
  expectInvalid(
    t,
    await post(manager.token, amount({ product_ids: [randomUUID()], category_ids: [randomUUID()], variant_ids: [randomUUID()] })),
    ['product_ids.0', 'category_ids.0', 'variant_ids.0'],
    'all three at once',
  );
  t.equal(await storedCount(owner.shop.id), 0, 'nothing stored');
});

// Changing and deleting

t.test('PUT changes only the fields sent', async (t) => {
  const { manager, product } = await shopWithProduct();
  const created = await createPromotion(api, manager.token, {
    name: 'Lot', kind: 'amount_xaf', value: 100, product_ids: [product.id], min_quantity: 2, starts_time: '08:00', ends_time: '12:00', days_of_week: [1],
  });
  const reply = await put(manager.token, created.id, { name: 'Lot renommé', value: 120 });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data, { ...created, name: 'Lot renommé', value: 120, updated_at: reply.body.data.updated_at });
  t.strictSame(await listed(manager.token, created.id), reply.body.data, 'as saved');
  const cleared = await put(manager.token, created.id, { starts_time: null, ends_time: null, days_of_week: null });
  t.equal(cleared.status, 200, 'optional fields cleared with null');
  t.match(cleared.body.data, { starts_time: null, ends_time: null, days_of_week: null, min_quantity: 2 });
});

t.test('PUT re-checks the whole promotion after merging, and a refused change keeps the stored one', async (t) => {
  const { manager, product } = await shopWithProduct();
  const created = await createPromotion(api, manager.token, {
    name: 'Lot', kind: 'amount_xaf', value: 100, product_ids: [product.id], starts_at: '2025-06-01T00:00:00Z',
  });
  expectInvalid(t, await put(manager.token, created.id, { product_ids: [] }), 'kind', 'dropping the products of an amount off');
  expectInvalid(t, await put(manager.token, created.id, { kind: 'percent', value: 150 }), 'value', 'a percent over 100');
  expectInvalid(t, await put(manager.token, created.id, { kind: 'buy_x_get_y' }), 'min_quantity', 'buy X get Y without a quantity to buy');
  expectInvalid(t, await put(manager.token, created.id, { ends_at: '2025-05-31T00:00:00Z' }), 'ends_at', 'an end before the stored start');
  expectInvalid(t, await put(manager.token, created.id, { starts_time: '10:00' }), 'ends_time', 'a start time without the end');
  expectInvalid(t, await put(manager.token, created.id, { value: 1.5 }), 'value', 'a fractional amount');
  expectInvalid(t, await put(manager.token, created.id, { product_ids: [randomUUID()] }), 'product_ids.0', 'an unknown product');
  expectInvalid(t, await put(manager.token, created.id, { name: '' }), 'name', 'an empty name');
  t.strictSame(await listed(manager.token, created.id), created, 'unchanged by the refused ones');
  const ok = await put(manager.token, created.id, { kind: 'percent', value: 15, product_ids: [] });
  t.equal(ok.status, 200, 'a whole-sale percent is fine');
  t.equal(ok.body.data.scope, 'sale');
});

t.test('a promotion naming a product deleted since can still be switched off', async (t) => {
  const { manager, product } = await shopWithProduct();
  const created = await createPromotion(api, manager.token, { kind: 'amount_xaf', value: 100, product_ids: [product.id] });
  t.equal((await api.request('DELETE', `/products/${product.id}`, { token: manager.token })).status, 204);
  const reply = await put(manager.token, created.id, { active: false });
  t.equal(reply.status, 200, `deactivated (${reply.status} ${JSON.stringify(reply.body?.errors ?? '')})`);
});

t.test('DELETE answers 204, then the promotion is gone (404)', async (t) => {
  const { manager } = await staffedShop(api);
  const created = await createPromotion(api, manager.token, percentOff());
  const kept = await createPromotion(api, manager.token, percentOff({ name: 'Kept' }));
  const reply = await deletePromotion(api, manager.token, created.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  expectError(t, await deletePromotion(api, manager.token, created.id), 404, NOT_FOUND, 'DELETE again');
  expectError(t, await put(manager.token, created.id, { name: 'Back' }), 404, NOT_FOUND, 'PUT');
  t.strictSame((await list(manager.token)).body.data.map((p: any) => p.id), [kept.id], 'no longer listed');
});

t.test('an unknown promotion is 404 and a malformed id 422', async (t) => {
  const { manager } = await staffedShop(api);
  expectError(t, await put(manager.token, randomUUID(), { name: 'X' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await deletePromotion(api, manager.token, randomUUID()), 404, NOT_FOUND, 'DELETE');
  expectInvalid(t, await put(manager.token, 'abc', { name: 'X' }), 'promotion_id', 'PUT');
  expectInvalid(t, await deletePromotion(api, manager.token, 'abc'), 'promotion_id', 'DELETE');
});

// Who may do what

t.test('a cashier reads promotions (200) but may not create, change or delete them (403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const created = await createPromotion(api, manager.token, percentOff());
  t.equal((await list(cashier.token)).status, 200);
  expectError(t, await post(cashier.token, percentOff()), 403, FORBIDDEN, 'POST');
  expectError(t, await put(cashier.token, created.id, { name: 'Mine' }), 403, FORBIDDEN, 'PUT');
  expectError(t, await deletePromotion(api, cashier.token, created.id), 403, FORBIDDEN, 'DELETE');
  t.equal(await storedCount(owner.shop.id), 1);
  t.strictSame(await listed(manager.token, created.id), created, 'unchanged');
});

t.test('another shop\'s promotion is not listed, changed or deleted (404)', async (t) => {
  const { manager } = await staffedShop(api);
  const theirs = await registerShop(api);
  const theirPromotion = await createPromotion(api, theirs.token, percentOff({ name: 'Theirs' }));
  t.strictSame((await list(manager.token)).body.data, [], 'not listed');
  expectError(t, await put(manager.token, theirPromotion.id, { name: 'Hijacked', active: false }), 404, NOT_FOUND, 'PUT');
  expectError(t, await deletePromotion(api, manager.token, theirPromotion.id), 404, NOT_FOUND, 'DELETE');
  t.strictSame(await listed(theirs.token, theirPromotion.id), theirPromotion, 'untouched');
});

t.test('after the subscription ends, writes answer 402 and reading still answers', async (t) => {
  const { owner, manager, product } = await shopWithProduct();
  const created = await createPromotion(api, manager.token, percentOff());
  await expireSubscription(api, owner.shop.id);
  expectError(t, await post(manager.token, percentOff()), 402, SUBSCRIPTION_REQUIRED, 'POST');
  expectError(t, await put(manager.token, created.id, { name: 'Late' }), 402, SUBSCRIPTION_REQUIRED, 'PUT');
  expectError(t, await deletePromotion(api, manager.token, created.id), 402, SUBSCRIPTION_REQUIRED, 'DELETE');
  t.equal(await storedCount(owner.shop.id), 1);
  t.strictSame(await listed(manager.token, created.id), created, 'unchanged');
  const previewed = await api.request('POST', '/promotions/preview', { token: manager.token, body: { items: [{ product_id: product.id, quantity: 1 }] } });
  t.equal(previewed.status, 200, 'a till can still price a basket');
});
