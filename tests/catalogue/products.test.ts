import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, chars, createCategory, createProduct, expireSubscription, registerShop, postVariant as postVariantWithAxes } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';

const api = await startService(t);

const PRODUCT_KEYS = [
  'active', 'barcode', 'category_id', 'cost_xaf', 'created_at', 'has_variants', 'id', 'name', 'on_hand', 'price_xaf',
  'reorder_level', 'sku', 'tracked', 'unit', 'updated_at', 'vat_rate',
];
const LIST_ITEM_KEYS = [...PRODUCT_KEYS, 'matched_variant'].sort();
const DETAIL_KEYS = [...PRODUCT_KEYS, 'options', 'variants'].sort();
/** Unit prices and costs: at most 10^9 XAF, so that quantity x unit price fits a bigint. */
const MAX_XAF = 1_000_000_000;

const postProduct = (token: string, body: Record<string, unknown>) => api.request('POST', '/products', { token, body });
const putProduct = (token: string, id: string, body: Record<string, unknown>) => api.request('PUT', `/products/${id}`, { token, body });
const getProduct = (token: string, id: string) => api.request('GET', `/products/${id}`, { token });
const deleteProduct = (token: string, id: string) => api.request('DELETE', `/products/${id}`, { token });
const postVariant = (token: string, productId: string, body: { options: Record<string, string> } & Record<string, unknown>) =>
  postVariantWithAxes(api, token, productId, body);

/** GET /products with the given query parameters (values are encoded here). */
function listProducts(token: string, query: Record<string, string> = {}): Promise<Reply> {
  const search = new URLSearchParams({ limit: '200', ...query }).toString();
  return api.request('GET', `/products?${search}`, { token });
}

async function listedNames(token: string, query: Record<string, string> = {}): Promise<string[]> {
  const reply = await listProducts(token, query);
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.map((p: any) => p.name);
}

/** A valid creation body with the given changes. */
const productBody = (fields: Record<string, unknown> = {}) => ({ name: 'Savon de Marseille', price_xaf: 750, ...fields });

/** The product row as stored, read past row-level security. */
async function storedProduct(id: string) {
  const [row] = await api.ownerSql`
    select id, shop_id, name, sku, barcode, category_id, price_xaf, cost_xaf, vat_rate, unit, tracked, reorder_level, on_hand, active, deleted_at
      from products where id = ${id}`;
  return row;
}

async function productCount(shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from products where shop_id = ${shopId}`;
  return row!.n;
}

// Creating

t.test('a product created with a name and a price gets the defaults', async (t) => {
  const owner = await registerShop(api);
  const reply = await postProduct(owner.token, { name: 'Savon de Marseille', price_xaf: 750 });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const product = reply.body.data;
  t.strictSame(Object.keys(product).sort(), PRODUCT_KEYS);
  t.match(product.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.strictSame(
    { ...product, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'Savon de Marseille',
      sku: null,
      barcode: null,
      category_id: null,
      price_xaf: 750,
      cost_xaf: 0,
      vat_rate: 19.25,
      unit: 'piece',
      tracked: true,
      reorder_level: 0,
      on_hand: 0,
      active: true,
      has_variants: false,
      created_at: undefined,
      updated_at: undefined,
    },
  );
  t.ok(product.created_at.endsWith('Z') && !Number.isNaN(Date.parse(product.created_at)), 'created_at is ISO-8601 UTC');
  t.match(await storedProduct(product.id), { shop_id: owner.shop.id, deleted_at: null, vat_rate: 19.25 });
});

t.test('vat_rate defaults to the shop\'s default_vat_rate, and an explicit rate (even 0) is kept', async (t) => {
  const owner = await registerShop(api);
  t.equal(owner.shop.default_vat_rate, 19.25, 'a new shop in Cameroon charges 19.25');
  const settings = await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: 5.5 } });
  t.equal(settings.status, 200);
  const defaulted = await postProduct(owner.token, productBody());
  t.equal(defaulted.status, 201);
  t.equal(defaulted.body.data.vat_rate, 5.5, 'the shop\'s current default');
  const zero = await postProduct(owner.token, productBody({ vat_rate: 0 }));
  t.equal(zero.status, 201);
  t.equal(zero.body.data.vat_rate, 0, 'an exempt product stays at 0');
  const explicit = await postProduct(owner.token, productBody({ vat_rate: 19.25 }));
  t.equal(explicit.body.data.vat_rate, 19.25);
});

t.test('every field sent at creation is stored as sent', async (t) => {
  const owner = await registerShop(api);
  const category = await createCategory(api, owner.token);
  const body = {
    name: 'Riz parfumé 5 kg',
    sku: 'RIZ-5',
    barcode: '6001234567890',
    category_id: category.id,
    price_xaf: 4500,
    cost_xaf: 3900,
    vat_rate: 0,
    unit: 'kg',
    tracked: false,
    reorder_level: 2.5,
    active: false,
  };
  const reply = await postProduct(owner.token, body);
  t.equal(reply.status, 201);
  t.match(reply.body.data, { ...body, on_hand: 0, has_variants: false });
  const read = await getProduct(owner.token, reply.body.data.id);
  t.equal(read.status, 200);
  t.match(read.body.data, { ...body, on_hand: 0 });
  t.match(await storedProduct(reply.body.data.id), { ...body, on_hand: 0 });
});

// Bounds

t.test('name is required, trimmed and 1 to 200 characters', async (t) => {
  const owner = await registerShop(api);
  const longest = await postProduct(owner.token, productBody({ name: chars(200) }));
  t.equal(longest.status, 201, '200 characters');
  t.equal((await postProduct(owner.token, productBody({ name: 'A' }))).status, 201, '1 character');
  const padded = await postProduct(owner.token, productBody({ name: `  ${chars(200, 'b')}  ` }));
  t.equal(padded.status, 201, '200 characters between spaces');
  t.equal(padded.body.data.name, chars(200, 'b'), 'stored trimmed');
  expectInvalid(t, await postProduct(owner.token, productBody({ name: chars(201) })), 'name', '201 characters');
  expectInvalid(t, await postProduct(owner.token, productBody({ name: '' })), 'name', 'empty');
  expectInvalid(t, await postProduct(owner.token, productBody({ name: '  ' })), 'name', 'blank');
  expectInvalid(t, await postProduct(owner.token, productBody({ name: null })), 'name', 'null');
  expectInvalid(t, await postProduct(owner.token, { price_xaf: 100 }), 'name', 'missing');
  expectInvalid(t, await putProduct(owner.token, longest.body.data.id, { name: chars(201) }), 'name', 'PUT 201 characters');
  expectInvalid(t, await putProduct(owner.token, longest.body.data.id, { name: '' }), 'name', 'PUT empty');
  t.equal(await productCount(owner.shop.id), 3, 'only the valid ones were created');
});

for (const field of ['sku', 'barcode'] as const) {
  t.test(`${field} is trimmed and 1 to 64 characters, or null`, async (t) => {
    const owner = await registerShop(api);
    const longest = await postProduct(owner.token, productBody({ [field]: chars(64, 'L') }));
    t.equal(longest.status, 201, '64 characters');
    t.equal(longest.body.data[field], chars(64, 'L'));
    const one = await postProduct(owner.token, productBody({ [field]: '1' }));
    t.equal(one.status, 201, '1 character');
    const padded = await postProduct(owner.token, productBody({ [field]: `  ${chars(64, 'P')}  ` }));
    t.equal(padded.status, 201, '64 characters between spaces');
    t.equal(padded.body.data[field], chars(64, 'P'), 'stored trimmed');
    const none = await postProduct(owner.token, productBody({ [field]: null }));
    t.equal(none.status, 201, 'null');
    t.equal(none.body.data[field], null);

    expectInvalid(t, await postProduct(owner.token, productBody({ [field]: chars(65, 'X') })), field, '65 characters');
    expectInvalid(t, await postProduct(owner.token, productBody({ [field]: '' })), field, 'empty');
    expectInvalid(t, await postProduct(owner.token, productBody({ [field]: '   ' })), field, 'blank');
    expectInvalid(t, await postProduct(owner.token, productBody({ [field]: 12345 })), field, 'a number');
    expectInvalid(t, await putProduct(owner.token, one.body.data.id, { [field]: chars(65, 'Y') }), field, 'PUT 65 characters');
    const cleared = await putProduct(owner.token, one.body.data.id, { [field]: null });
    t.equal(cleared.status, 200, 'PUT null clears it');
    t.equal(cleared.body.data[field], null);
    t.equal(await productCount(owner.shop.id), 4, 'only the valid ones were created');
  });
}

for (const field of ['price_xaf', 'cost_xaf'] as const) {
  t.test(`${field} is an integer from 0 to 1000000000`, async (t) => {
    const owner = await registerShop(api);
    for (const value of [0, 1, MAX_XAF]) {
      const reply = await postProduct(owner.token, productBody({ [field]: value }));
      t.equal(reply.status, 201, `${value}`);
      t.equal(reply.body.data[field], value);
      t.equal((await storedProduct(reply.body.data.id))![field], value, `${value} stored exactly`);
    }
    for (const value of [-1, 10.5, 0.1, MAX_XAF + 1, '100', null]) {
      expectInvalid(t, await postProduct(owner.token, productBody({ [field]: value })), field, `POST ${JSON.stringify(value)}`);
    }
    const product = await createProduct(api, owner.token);
    for (const value of [-1, 10.5, MAX_XAF + 1]) {
      expectInvalid(t, await putProduct(owner.token, product.id, { [field]: value }), field, `PUT ${value}`);
    }
    const put = await putProduct(owner.token, product.id, { [field]: MAX_XAF });
    t.equal(put.status, 200, `PUT ${MAX_XAF}`);
    t.equal(put.body.data[field], MAX_XAF);
    t.equal(await productCount(owner.shop.id), 4, 'no invalid product was created');
  });
}

t.test('price_xaf is required', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postProduct(owner.token, { name: 'Sans prix' }), 'price_xaf');
  t.equal(await productCount(owner.shop.id), 0);
});

t.test('vat_rate is 0 to 100 with at most 2 decimals', async (t) => {
  const owner = await registerShop(api);
  for (const vat_rate of [0, 0.01, 19.25, 99.99, 100]) {
    const reply = await postProduct(owner.token, productBody({ vat_rate }));
    t.equal(reply.status, 201, `${vat_rate}`);
    t.equal(reply.body.data.vat_rate, vat_rate);
  }
  for (const vat_rate of [-0.01, 100.01, 101, 19.255, 0.001, '19.25', null]) {
    expectInvalid(t, await postProduct(owner.token, productBody({ vat_rate })), 'vat_rate', `POST ${JSON.stringify(vat_rate)}`);
  }
  const product = await createProduct(api, owner.token);
  expectInvalid(t, await putProduct(owner.token, product.id, { vat_rate: 100.01 }), 'vat_rate', 'PUT 100.01');
  expectInvalid(t, await putProduct(owner.token, product.id, { vat_rate: 5.125 }), 'vat_rate', 'PUT 5.125');
  const put = await putProduct(owner.token, product.id, { vat_rate: 5.5 });
  t.equal(put.status, 200);
  t.equal(put.body.data.vat_rate, 5.5);
});

t.test('unit is one of piece, kg, g, l, ml, m', async (t) => {
  const owner = await registerShop(api);
  for (const unit of ['piece', 'kg', 'g', 'l', 'ml', 'm']) {
    const reply = await postProduct(owner.token, productBody({ unit }));
    t.equal(reply.status, 201, unit);
    t.equal(reply.body.data.unit, unit);
  }
  for (const unit of ['box', 'KG', 'pieces', '', null, 1]) {
    expectInvalid(t, await postProduct(owner.token, productBody({ unit })), 'unit', `POST ${JSON.stringify(unit)}`);
  }
  const product = await createProduct(api, owner.token);
  expectInvalid(t, await putProduct(owner.token, product.id, { unit: 'cm' }), 'unit', 'PUT cm');
  const put = await putProduct(owner.token, product.id, { unit: 'ml' });
  t.equal(put.status, 200);
  t.equal(put.body.data.unit, 'ml');
});

t.test('reorder_level is at least 0 with at most 3 decimals', async (t) => {
  const owner = await registerShop(api);
  for (const reorder_level of [0, 0.001, 2.5, 12.125, 1000]) {
    const reply = await postProduct(owner.token, productBody({ reorder_level }));
    t.equal(reply.status, 201, `${reorder_level}`);
    t.equal(reply.body.data.reorder_level, reorder_level);
    t.equal((await storedProduct(reply.body.data.id))!.reorder_level, reorder_level, `${reorder_level} stored exactly`);
  }
  for (const reorder_level of [-0.001, -1, 1.0001, 0.0005, '5', null]) {
    expectInvalid(t, await postProduct(owner.token, productBody({ reorder_level })), 'reorder_level', `POST ${JSON.stringify(reorder_level)}`);
  }
  const product = await createProduct(api, owner.token);
  expectInvalid(t, await putProduct(owner.token, product.id, { reorder_level: -0.001 }), 'reorder_level', 'PUT -0.001');
  expectInvalid(t, await putProduct(owner.token, product.id, { reorder_level: 0.1234 }), 'reorder_level', 'PUT 0.1234');
});

t.test('tracked and active are booleans', async (t) => {
  const owner = await registerShop(api);
  for (const field of ['tracked', 'active']) {
    const off = await postProduct(owner.token, productBody({ [field]: false }));
    t.equal(off.status, 201, `${field} false`);
    t.equal(off.body.data[field], false);
    for (const value of ['true', 1, null]) {
      expectInvalid(t, await postProduct(owner.token, productBody({ [field]: value })), field, `${field} ${JSON.stringify(value)}`);
    }
  }
});

t.test('category_id must be a category of this shop (422 on category_id)', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createCategory(api, other.token);
  const gone = await createCategory(api, owner.token);
  t.equal((await api.request('DELETE', `/categories/${gone.id}`, { token: owner.token })).status, 204);
  const mine = await createCategory(api, owner.token);

  expectInvalid(t, await postProduct(owner.token, productBody({ category_id: theirs.id })), 'category_id', 'POST another shop\'s category');
  expectInvalid(t, await postProduct(owner.token, productBody({ category_id: randomUUID() })), 'category_id', 'POST an unknown uuid');
  expectInvalid(t, await postProduct(owner.token, productBody({ category_id: gone.id })), 'category_id', 'POST a deleted category');
  expectInvalid(t, await postProduct(owner.token, productBody({ category_id: 'rayon-1' })), 'category_id', 'POST not a uuid');
  t.equal(await productCount(owner.shop.id), 0, 'nothing was created');

  const product = await createProduct(api, owner.token, { category_id: mine.id });
  t.equal(product.category_id, mine.id, 'a category of this shop is accepted');
  expectInvalid(t, await putProduct(owner.token, product.id, { category_id: theirs.id }), 'category_id', 'PUT another shop\'s category');
  expectInvalid(t, await putProduct(owner.token, product.id, { category_id: randomUUID() }), 'category_id', 'PUT an unknown uuid');
  t.equal((await storedProduct(product.id))!.category_id, mine.id, 'the product kept its category');
});

t.test('on_hand in a POST or PUT body is refused as an unknown field: only stock movements change it', async (t) => {
  const owner = await registerShop(api);
  const created = await postProduct(owner.token, productBody({ on_hand: 50, has_variants: true }));
  t.equal(created.status, 422);
  t.strictSame(created.body.errors, { on_hand: ['Champ inconnu.'], has_variants: ['Champ inconnu.'] }, 'POST: neither is writable');
  const [products] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from products where shop_id = ${owner.shop.id}`;
  t.equal(products!.n, 0, 'nothing was created');

  const stocked = await createProduct(api, owner.token, {}, 5);
  const put = await putProduct(owner.token, stocked.id, { on_hand: 99, name: 'Renamed' });
  t.equal(put.status, 422);
  t.strictSame(put.body.errors, { on_hand: ['Champ inconnu.'] });
  t.equal((await storedProduct(stocked.id))!.on_hand, 5, 'PUT: unchanged');
  t.equal((await storedProduct(stocked.id))!.name, stocked.name, 'nothing of the body applied');
  const [movements] = await api.ownerSql<{ n: number; total: number }[]>`
    select count(*)::int as n, sum(quantity)::float8 as total from stock_movements where product_id = ${stocked.id}`;
  t.strictSame({ ...movements }, { n: 1, total: 5 }, 'the opening adjustment is the only movement');
});

// Codes

t.test('a SKU already used in the shop is a 409 sku_taken, on POST and PUT', async (t) => {
  const owner = await registerShop(api);
  const first = await createProduct(api, owner.token, { sku: 'SKU-1' });
  expectConflict(t, await postProduct(owner.token, productBody({ sku: 'SKU-1' })), 'sku_taken', 'POST the same SKU');
  expectConflict(t, await postProduct(owner.token, productBody({ sku: '  SKU-1 ' })), 'sku_taken', 'POST the same SKU with spaces');
  t.equal(await productCount(owner.shop.id), 1, 'nothing was created');
  const second = await createProduct(api, owner.token, { sku: 'SKU-2' });
  expectConflict(t, await putProduct(owner.token, second.id, { sku: 'SKU-1' }), 'sku_taken', 'PUT another product\'s SKU');
  t.equal((await storedProduct(second.id))!.sku, 'SKU-2', 'the refused change kept nothing');
  const same = await putProduct(owner.token, first.id, { sku: 'SKU-1', name: 'Same code' });
  t.equal(same.status, 200, 'a product may keep its own SKU');
  t.equal(same.body.data.sku, 'SKU-1');
  const barcodeLike = await postProduct(owner.token, productBody({ barcode: 'SKU-1' }));
  t.equal(barcodeLike.status, 201, 'a barcode equal to a SKU is a different code');
  const other = await registerShop(api);
  t.equal((await postProduct(other.token, productBody({ sku: 'SKU-1' }))).status, 201, 'another shop may use the same SKU');
});

t.test('a barcode already used in the shop is a 409 barcode_taken, on POST and PUT', async (t) => {
  const owner = await registerShop(api);
  const first = await createProduct(api, owner.token, { barcode: '6001234500001' });
  expectConflict(t, await postProduct(owner.token, productBody({ barcode: '6001234500001' })), 'barcode_taken', 'POST the same barcode');
  expectConflict(t, await postProduct(owner.token, productBody({ barcode: ' 6001234500001  ' })), 'barcode_taken', 'POST the same barcode with spaces');
  t.equal(await productCount(owner.shop.id), 1, 'nothing was created');
  const second = await createProduct(api, owner.token, { barcode: '6001234500002' });
  expectConflict(t, await putProduct(owner.token, second.id, { barcode: '6001234500001' }), 'barcode_taken', 'PUT another product\'s barcode');
  t.equal((await storedProduct(second.id))!.barcode, '6001234500002', 'the refused change kept nothing');
  t.equal((await putProduct(owner.token, first.id, { barcode: '6001234500001' })).status, 200, 'a product may keep its own barcode');
  const other = await registerShop(api);
  t.equal((await postProduct(other.token, productBody({ barcode: '6001234500001' }))).status, 201, 'another shop may use the same barcode');
});

t.test('a variant\'s SKU and barcode are taken for products too (409)', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise' });
  const variant = await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, sku: 'CHEM-M', barcode: '2000000000015' });
  t.equal(variant.status, 201);
  expectConflict(t, await postProduct(owner.token, productBody({ sku: 'CHEM-M' })), 'sku_taken', 'POST a variant\'s SKU');
  expectConflict(t, await postProduct(owner.token, productBody({ barcode: '2000000000015' })), 'barcode_taken', 'POST a variant\'s barcode');
  const other = await createProduct(api, owner.token);
  expectConflict(t, await putProduct(owner.token, other.id, { sku: 'CHEM-M' }), 'sku_taken', 'PUT a variant\'s SKU');
  expectConflict(t, await putProduct(owner.token, other.id, { barcode: '2000000000015' }), 'barcode_taken', 'PUT a variant\'s barcode');
  expectConflict(t, await putProduct(owner.token, shirt.id, { barcode: '2000000000015' }), 'barcode_taken', 'a product may not take its own variant\'s barcode');
});

t.test('a deleted product\'s SKU and barcode are free again', async (t) => {
  const owner = await registerShop(api);
  const old = await createProduct(api, owner.token, { sku: 'OLD-1', barcode: '6009999000001' });
  t.equal((await deleteProduct(owner.token, old.id)).status, 204);
  const reused = await postProduct(owner.token, productBody({ sku: 'OLD-1', barcode: '6009999000001' }));
  t.equal(reused.status, 201);
  t.not(reused.body.data.id, old.id);
  t.match(reused.body.data, { sku: 'OLD-1', barcode: '6009999000001' });

  const withVariant = await createProduct(api, owner.token);
  t.equal((await postVariant(owner.token, withVariant.id, { options: { Taille: 'S' }, sku: 'VAR-S', barcode: '6009999000002' })).status, 201);
  t.equal((await deleteProduct(owner.token, withVariant.id)).status, 204);
  const fromVariant = await postProduct(owner.token, productBody({ sku: 'VAR-S', barcode: '6009999000002' }));
  t.equal(fromVariant.status, 201, 'the codes of a deleted product\'s variants are free too');
});

// Search and filters

t.test('q finds names case- and accent-insensitively: "cafe", "CAFE" and "crème" find "Café Crème"', async (t) => {
  const owner = await registerShop(api);
  await createProduct(api, owner.token, { name: 'Café Crème' });
  await createProduct(api, owner.token, { name: 'Thé vert' });
  await createProduct(api, owner.token, { name: 'Crémier' });
  for (const q of ['cafe', 'CAFE', 'Café', 'CAFÉ', 'crème', 'CREME', 'fe cr', '  cafe  ']) {
    t.strictSame(await listedNames(owner.token, { q }), ['Café Crème'], `q=${JSON.stringify(q)}`);
  }
  t.strictSame(await listedNames(owner.token, { q: 'crem' }), ['Crémier', 'Café Crème'], 'a part of a word: the name that starts so first');
  t.strictSame(await listedNames(owner.token, { q: 'chocolat' }), [], 'no match is an empty list');
  const reply = await listProducts(owner.token, { q: 'cafe' });
  t.strictSame(Object.keys(reply.body.data[0]).sort(), LIST_ITEM_KEYS);
  t.equal(reply.body.data[0].matched_variant, null, 'a name match names no variant');
  t.strictSame(reply.body.meta, { next_cursor: null });
});

t.test('a % or _ in q is matched literally, not as a wildcard', async (t) => {
  const owner = await registerShop(api);
  await createProduct(api, owner.token, { name: 'Tissu 100% coton' });
  await createProduct(api, owner.token, { name: 'Tissu 1000 coton' });
  await createProduct(api, owner.token, { name: 'Jus_orange' });
  await createProduct(api, owner.token, { name: 'Jus orange' });
  t.strictSame(await listedNames(owner.token, { q: '%' }), ['Tissu 100% coton'], 'q=%');
  t.strictSame(await listedNames(owner.token, { q: '100%' }), ['Tissu 100% coton'], 'q=100%');
  t.strictSame(await listedNames(owner.token, { q: '100% c' }), ['Tissu 100% coton'], 'q=100% c');
  t.strictSame(await listedNames(owner.token, { q: '_' }), ['Jus_orange'], 'q=_');
  t.strictSame(await listedNames(owner.token, { q: 's_o' }), ['Jus_orange'], 'q=s_o');
  t.strictSame(await listedNames(owner.token, { q: 'tissu%' }), [], 'q=tissu% (no such text)');
  t.strictSame(await listedNames(owner.token, { q: '\\' }), [], 'q=\\ (a backslash, not an escape)');
});

t.test('q equal to a product\'s SKU or barcode returns that product, with matched_variant null', async (t) => {
  const owner = await registerShop(api);
  const soap = await createProduct(api, owner.token, { name: 'Savon', sku: 'SAV-01', barcode: '6001111000013' });
  await createProduct(api, owner.token, { name: 'Shampooing', sku: 'SHA-01', barcode: '6001111000020' });
  for (const q of ['SAV-01', '6001111000013', ' 6001111000013 ']) {
    const reply = await listProducts(owner.token, { q });
    t.equal(reply.status, 200, `q=${JSON.stringify(q)}`);
    t.strictSame(reply.body.data, [{ ...soap, matched_variant: null }], `q=${JSON.stringify(q)} answers exactly that product`);
  }
  t.strictSame(await listedNames(owner.token, { q: '6001111000' }), [], 'a part of a barcode is no scan');
});

t.test('q equal to a variant\'s barcode or SKU returns its product with matched_variant set to that variant', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise lin' });
  const small = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, sku: 'LIN-S', barcode: '2100000000012' })).body.data;
  const large = (await postVariant(owner.token, shirt.id, { options: { Taille: 'L' }, sku: 'LIN-L', barcode: '2100000000029' })).body.data;
  await createProduct(api, owner.token, { name: 'Chemise coton' });

  for (const [q, variant] of [['2100000000029', large], ['LIN-S', small], ['2100000000012', small]] as const) {
    const reply = await listProducts(owner.token, { q });
    t.equal(reply.status, 200);
    t.equal(reply.body.data.length, 1, `q=${q}: one product`);
    t.equal(reply.body.data[0].id, shirt.id, `q=${q}: the variant's product`);
    t.strictSame(reply.body.data[0].matched_variant, variant, `q=${q}: matched_variant is that variant`);
    t.equal(reply.body.data[0].has_variants, true);
  }
  const byName = await listProducts(owner.token, { q: 'chemise' });
  t.strictSame(byName.body.data.map((p: any) => [p.name, p.matched_variant]), [['Chemise coton', null], ['Chemise lin', null]], 'a name match names no variant');
});

t.test('category_id, active and tracked filter the list', async (t) => {
  const owner = await registerShop(api);
  const drinks = await createCategory(api, owner.token);
  const food = await createCategory(api, owner.token);
  await createProduct(api, owner.token, { name: 'A soda', category_id: drinks.id });
  await createProduct(api, owner.token, { name: 'B juice', category_id: drinks.id, active: false });
  await createProduct(api, owner.token, { name: 'C bread', category_id: food.id, tracked: false });
  await createProduct(api, owner.token, { name: 'D loose', tracked: false, active: false });

  t.strictSame(await listedNames(owner.token), ['A soda', 'B juice', 'C bread', 'D loose'], 'no filter');
  t.strictSame(await listedNames(owner.token, { category_id: drinks.id }), ['A soda', 'B juice'], 'category_id');
  t.strictSame(await listedNames(owner.token, { category_id: food.id }), ['C bread']);
  t.strictSame(await listedNames(owner.token, { category_id: randomUUID() }), [], 'an unknown category');
  t.strictSame(await listedNames(owner.token, { active: 'true' }), ['A soda', 'C bread'], 'active=true');
  t.strictSame(await listedNames(owner.token, { active: 'false' }), ['B juice', 'D loose'], 'active=false');
  t.strictSame(await listedNames(owner.token, { active: '0' }), ['B juice', 'D loose'], 'active=0');
  t.strictSame(await listedNames(owner.token, { tracked: 'true' }), ['A soda', 'B juice'], 'tracked=true');
  t.strictSame(await listedNames(owner.token, { tracked: '0' }), ['C bread', 'D loose'], 'tracked=0');
  t.strictSame(await listedNames(owner.token, { category_id: drinks.id, active: '1' }), ['A soda'], 'filters combine');
  t.strictSame(await listedNames(owner.token, { q: 'b', tracked: 'false' }), ['C bread'], 'with q too');
  expectInvalid(t, await listProducts(owner.token, { active: 'maybe' }), 'active', 'active=maybe');
  expectInvalid(t, await listProducts(owner.token, { tracked: 'yes' }), 'tracked', 'tracked=yes');
  expectInvalid(t, await listProducts(owner.token, { low_stock: '2' }), 'low_stock', 'low_stock=2');
  expectInvalid(t, await listProducts(owner.token, { category_id: 'drinks' }), 'category_id', 'category_id not a uuid');
});

t.test('low_stock=true lists the tracked products whose on_hand is at or below their reorder level', async (t) => {
  const owner = await registerShop(api);
  await createProduct(api, owner.token, { name: 'A at the level', reorder_level: 5 }, 5);
  await createProduct(api, owner.token, { name: 'B above the level', reorder_level: 5 }, 6);
  await createProduct(api, owner.token, { name: 'C empty, level 0', reorder_level: 0 });
  await createProduct(api, owner.token, { name: 'D untracked', tracked: false, reorder_level: 10 });
  await createProduct(api, owner.token, { name: 'E below a decimal level', reorder_level: 2.5 }, 2);
  await createProduct(api, owner.token, { name: 'F just above a decimal level', reorder_level: 2.499 }, 2.5);
  t.strictSame(await listedNames(owner.token, { low_stock: 'true' }), ['A at the level', 'C empty, level 0', 'E below a decimal level']);
  t.strictSame(await listedNames(owner.token, { low_stock: 'false' }), ['B above the level', 'D untracked', 'F just above a decimal level']);
});

t.test('the list is ordered by name, and walking next_cursor with limit=1 visits every product once', async (t) => {
  const owner = await registerShop(api);
  const created = [];
  for (const name of ['Mangue', 'Ananas', 'Mangue', 'Banane', 'Zeste', 'Ananas', 'Citron']) created.push(await createProduct(api, owner.token, { name }));
  const expected = [...created]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((p) => p.id);
  const all = await listProducts(owner.token);
  t.strictSame(all.body.data.map((p: any) => p.id), expected, 'by name, then id');

  const visited: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (; pages < 20; pages++) {
    const query: Record<string, string> = cursor ? { limit: '1', cursor } : { limit: '1' };
    const reply: Reply = await listProducts(owner.token, query);
    t.equal(reply.status, 200, `page ${pages}`);
    t.ok(reply.body.data.length <= 1, `page ${pages} holds at most one product`);
    visited.push(...reply.body.data.map((p: any) => p.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, expected, 'every product once, in name order');

  const filtered: string[] = [];
  cursor = null;
  for (let page = 0; page < 10; page++) {
    const query: Record<string, string> = cursor ? { limit: '1', q: 'an', cursor } : { limit: '1', q: 'an' };
    const reply: Reply = await listProducts(owner.token, query);
    filtered.push(...reply.body.data.map((p: any) => p.name));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.strictSame(filtered, ['Ananas', 'Ananas', 'Banane', 'Mangue', 'Mangue'], 'a search pages the same way');
  expectInvalid(t, await listProducts(owner.token, { limit: '0' }), 'limit', 'limit=0');
  expectInvalid(t, await listProducts(owner.token, { limit: '201' }), 'limit', 'limit=201');
  expectInvalid(t, await listProducts(owner.token, { cursor: 'garbage' }), 'cursor', 'a garbage cursor');
});

t.test('a search lists the scanned product, then the names that start with q, then those that contain it further on, each by accent-free name', async (t) => {
  const owner = await registerShop(api);
  const names = ['Jus de goyave', 'Pain au jus', 'jus d\'ananas', 'Bonjus orange', 'Jusquiame', 'Ajus', 'Éjus'];
  for (const name of names) await createProduct(api, owner.token, { name });
  const scanned = await createProduct(api, owner.token, { name: 'Zeste', sku: 'jus' });
  const expected = ['Zeste', 'jus d\'ananas', 'Jus de goyave', 'Jusquiame', 'Ajus', 'Bonjus orange', 'Éjus', 'Pain au jus'];
  t.strictSame(await listedNames(owner.token, { q: 'jus' }), expected, 'the SKU, the starts, the rest');
  t.equal((await listProducts(owner.token, { q: 'jus' })).body.data[0].id, scanned.id);

  for (const limit of ['1', '2', '3']) {
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const query: Record<string, string> = cursor ? { q: 'jus', limit, cursor } : { q: 'jus', limit };
      const reply: Reply = await listProducts(owner.token, query);
      t.equal(reply.status, 200);
      walked.push(...reply.body.data.map((p: any) => p.name));
      cursor = reply.body.meta.next_cursor;
      if (cursor === null) break;
    }
    t.strictSame(walked, expected, `limit=${limit}: walking next_cursor visits every match once, across the groups`);
  }
  const searchCursor = (await listProducts(owner.token, { q: 'jus', limit: '1' })).body.meta.next_cursor;
  const listCursor = (await listProducts(owner.token, { limit: '1' })).body.meta.next_cursor;
  expectInvalid(t, await listProducts(owner.token, { cursor: searchCursor }), 'cursor', "a search's cursor without q");
  expectInvalid(t, await listProducts(owner.token, { q: 'jus', cursor: listCursor }), 'cursor', "a list's cursor with q");
  const forged = Buffer.from(JSON.stringify([3, 'jus', randomUUID()])).toString('base64url');
  expectInvalid(t, await listProducts(owner.token, { q: 'jus', cursor: forged }), 'cursor', 'a group that does not exist');
});

// Reading, changing, deleting

t.test('GET /products/{id} answers the product with its options and variants', async (t) => {
  const owner = await registerShop(api);
  const plain = await createProduct(api, owner.token, { name: 'Sel' });
  const read = await getProduct(owner.token, plain.id);
  t.equal(read.status, 200);
  t.strictSame(Object.keys(read.body), ['data']);
  t.strictSame(Object.keys(read.body.data).sort(), DETAIL_KEYS);
  t.strictSame(read.body.data, { ...plain, options: [], variants: [] });

  const shirt = await createProduct(api, owner.token, { name: 'T-shirt' });
  const options = await api.request('POST', `/products/${shirt.id}/options`, {
    token: owner.token,
    body: { options: [{ name: 'Taille', values: ['S', 'M'] }, { name: 'Couleur', values: ['Noir'] }] },
  });
  t.equal(options.status, 200);
  const generated = await api.request('POST', `/products/${shirt.id}/variants/generate`, { token: owner.token, body: {} });
  t.equal(generated.status, 200);
  const detail = await getProduct(owner.token, shirt.id);
  t.equal(detail.status, 200);
  t.strictSame(detail.body.data.options, options.body.data, 'the options, in order');
  t.strictSame(
    detail.body.data.variants.map((v: any) => v.id).sort(),
    generated.body.data.map((v: any) => v.id).sort(),
    'every variant',
  );
  t.strictSame(detail.body.data.variants.map((v: any) => v.options).sort((a: any, b: any) => a.Taille.localeCompare(b.Taille)), [
    { Taille: 'M', Couleur: 'Noir' },
    { Taille: 'S', Couleur: 'Noir' },
  ]);
  t.equal(detail.body.data.has_variants, true);
});

t.test('PUT changes only the fields it sends', async (t) => {
  const owner = await registerShop(api);
  const category = await createCategory(api, owner.token);
  const product = await createProduct(api, owner.token, {
    name: 'Huile 1 L', sku: 'HUI-1', barcode: '6002222000011', category_id: category.id, price_xaf: 1500, cost_xaf: 1200,
    vat_rate: 19.25, unit: 'l', reorder_level: 3, tracked: true, active: true,
  }, 4);

  const priced = await putProduct(owner.token, product.id, { price_xaf: 1600 });
  t.equal(priced.status, 200);
  t.strictSame(Object.keys(priced.body), ['data']);
  t.strictSame(Object.keys(priced.body.data).sort(), PRODUCT_KEYS);
  t.strictSame({ ...priced.body.data, updated_at: undefined }, { ...product, price_xaf: 1600, updated_at: undefined }, 'only the price changed');

  const renamed = await putProduct(owner.token, product.id, { name: 'Huile de palme 1 L', active: false });
  t.equal(renamed.status, 200);
  t.strictSame(
    { ...renamed.body.data, updated_at: undefined },
    { ...product, price_xaf: 1600, name: 'Huile de palme 1 L', active: false, updated_at: undefined },
  );
  t.strictSame(await listedNames(owner.token, { q: 'palme' }), ['Huile de palme 1 L'], 'the new name is searchable');

  const cleared = await putProduct(owner.token, product.id, { category_id: null, sku: null });
  t.equal(cleared.status, 200);
  t.match(cleared.body.data, { category_id: null, sku: null, barcode: '6002222000011', unit: 'l', on_hand: 4 });
  t.strictSame(await listedNames(owner.token, { q: 'HUI-1' }), [], 'a cleared SKU no longer scans');

  const nothing = await putProduct(owner.token, product.id, {});
  t.equal(nothing.status, 200, 'an empty body changes nothing');
  t.match(await storedProduct(product.id), {
    name: 'Huile de palme 1 L', sku: null, barcode: '6002222000011', category_id: null, price_xaf: 1600, cost_xaf: 1200,
    vat_rate: 19.25, unit: 'l', reorder_level: 3, tracked: true, active: false, on_hand: 4,
  });
});

t.test('DELETE is a soft delete: 204, then 404, while the row and its stock movements stay', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { name: 'Lait en poudre', sku: 'LAIT-1' }, 5);
  await createProduct(api, owner.token, { name: 'Lait concentré' });
  const [before] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stock_movements where product_id = ${product.id}`;
  t.equal(before!.n, 1, 'one movement before');

  const reply = await deleteProduct(owner.token, product.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  expectError(t, await getProduct(owner.token, product.id), 404, NOT_FOUND, 'GET');
  expectError(t, await putProduct(owner.token, product.id, { name: 'Back' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await deleteProduct(owner.token, product.id), 404, NOT_FOUND, 'DELETE again');
  t.strictSame(await listedNames(owner.token), ['Lait concentré'], 'not listed');
  t.strictSame(await listedNames(owner.token, { q: 'poudre' }), [], 'not found by name');
  t.strictSame(await listedNames(owner.token, { q: 'LAIT-1' }), [], 'not found by SKU');

  const row = await storedProduct(product.id);
  t.ok(row, 'the row is still in the database');
  t.ok(row!.deleted_at instanceof Date, 'with deleted_at set');
  t.match(row, { name: 'Lait en poudre', on_hand: 5, shop_id: owner.shop.id });
  const movements = await api.ownerSql`select type, quantity, on_hand_after from stock_movements where product_id = ${product.id}`;
  t.strictSame(movements.map((m) => ({ ...m })), [{ type: 'adjustment', quantity: 5, on_hand_after: 5 }], 'its movements are all still there');
});

// Identifiers, roles, tenancy, subscription

t.test('an unknown product id is 404 and a malformed one 422 on id', async (t) => {
  const owner = await registerShop(api);
  expectError(t, await getProduct(owner.token, randomUUID()), 404, NOT_FOUND, 'GET unknown');
  expectError(t, await putProduct(owner.token, randomUUID(), { name: 'Nobody' }), 404, NOT_FOUND, 'PUT unknown');
  expectError(t, await deleteProduct(owner.token, randomUUID()), 404, NOT_FOUND, 'DELETE unknown');
  expectInvalid(t, await getProduct(owner.token, 'abc'), 'id', 'GET malformed');
  expectInvalid(t, await putProduct(owner.token, 'abc', { name: 'Nobody' }), 'id', 'PUT malformed');
  expectInvalid(t, await deleteProduct(owner.token, 'abc'), 'id', 'DELETE malformed');
});

t.test('every product route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token);
  const calls: [string, string, unknown][] = [
    ['GET', '/products', undefined],
    ['POST', '/products', productBody()],
    ['GET', `/products/${product.id}`, undefined],
    ['PUT', `/products/${product.id}`, { name: 'X' }],
    ['DELETE', `/products/${product.id}`, undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.equal(await productCount(owner.shop.id), 1);
});

t.test('a manager creates, changes and deletes products', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const created = await postProduct(manager.token, productBody());
  t.equal(created.status, 201);
  t.equal((await putProduct(manager.token, created.body.data.id, { price_xaf: 800 })).body.data.price_xaf, 800);
  t.equal((await deleteProduct(manager.token, created.body.data.id)).status, 204);
});

t.test('a cashier reads the catalogue (200) but gets 403 on every product write', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const product = await createProduct(api, owner.token, { name: 'Biscuits', sku: 'BIS-1' });
  const list = await listProducts(cashier.token);
  t.equal(list.status, 200, 'list');
  t.strictSame(list.body.data, [{ ...product, matched_variant: null }]);
  t.equal((await listProducts(cashier.token, { q: 'BIS-1' })).body.data.length, 1, 'a cashier scans');
  const read = await getProduct(cashier.token, product.id);
  t.equal(read.status, 200, 'read');
  t.strictSame(read.body.data, { ...product, options: [], variants: [] });

  expectError(t, await postProduct(cashier.token, productBody()), 403, FORBIDDEN, 'POST');
  expectError(t, await putProduct(cashier.token, product.id, { price_xaf: 1 }), 403, FORBIDDEN, 'PUT');
  expectError(t, await deleteProduct(cashier.token, product.id), 403, FORBIDDEN, 'DELETE');
  t.equal(await productCount(owner.shop.id), 1, 'nothing was created');
  t.match(await storedProduct(product.id), { price_xaf: product.price_xaf, deleted_at: null }, 'nothing changed');
});

t.test('another shop\'s product is 404 on GET, PUT and DELETE and never appears in the list or a search', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createProduct(api, other.token, { name: 'Produit secret', sku: 'SECRET-1', barcode: '6003333000017' });
  t.equal((await postVariant(other.token, theirs.id, { options: { Taille: 'XL' }, sku: 'SECRET-XL', barcode: '6003333000024' })).status, 201);
  await createProduct(api, owner.token, { name: 'Produit public' });

  expectError(t, await getProduct(owner.token, theirs.id), 404, NOT_FOUND, 'GET');
  expectError(t, await putProduct(owner.token, theirs.id, { name: 'Hijacked' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await putProduct(owner.token, theirs.id, {}), 404, NOT_FOUND, 'PUT with an empty body');
  expectError(t, await deleteProduct(owner.token, theirs.id), 404, NOT_FOUND, 'DELETE');
  t.strictSame(await listedNames(owner.token), ['Produit public'], 'the list');
  for (const q of ['secret', 'Produit', 'SECRET-1', '6003333000017', 'SECRET-XL', '6003333000024']) {
    const names = await listedNames(owner.token, { q });
    t.notOk(names.includes('Produit secret'), `q=${q} never finds it`);
  }
  t.match(await storedProduct(theirs.id), { name: 'Produit secret', deleted_at: null, shop_id: other.shop.id }, 'left unchanged');
});

t.test('once the subscription has ended, product writes answer 402 and reads still answer 200', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const product = await createProduct(api, owner.token, { name: 'Bougie' });
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await postProduct(token, productBody()), 402, SUBSCRIPTION_REQUIRED, `${who} POST`);
    expectError(t, await putProduct(token, product.id, { price_xaf: 1 }), 402, SUBSCRIPTION_REQUIRED, `${who} PUT`);
    expectError(t, await deleteProduct(token, product.id), 402, SUBSCRIPTION_REQUIRED, `${who} DELETE`);
    t.equal((await listProducts(token)).status, 200, `${who} list`);
    t.equal((await getProduct(token, product.id)).status, 200, `${who} read`);
  }
  t.equal(await productCount(owner.shop.id), 1, 'nothing was created');
  t.match(await storedProduct(product.id), { price_xaf: product.price_xaf, deleted_at: null }, 'nothing changed');
});
