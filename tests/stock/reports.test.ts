import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { allPages, deleteProduct, productWithVariants, staffedShop } from './stock-fixtures.ts';

const api = await startService(t);

const LINE_KEYS = ['cost_xaf', 'name', 'on_hand', 'product_id', 'sku', 'unit', 'value_xaf'];

const lowStock = (token: string, query = '') => api.request('GET', `/reports/low-stock${query}`, { token });
const valuation = (token: string, query = '') => api.request('GET', `/reports/stock-valuation${query}`, { token });
const names = (reply: { body: any }) => reply.body.data.map((p: any) => p.name);

// Low stock

t.test('low stock lists the tracked products at or below their reorder level, by name', async (t) => {
  const { owner, manager } = await staffedShop(api);
  await createProduct(api, owner.token, { name: 'Sucre', reorder_level: 5 }, 4);
  await createProduct(api, owner.token, { name: 'Huile', reorder_level: 5 }, 5);
  await createProduct(api, owner.token, { name: 'Farine', reorder_level: 2.5, unit: 'kg' }, 2.5);
  await createProduct(api, owner.token, { name: 'Bière', reorder_level: 12 });
  const reply = await lowStock(manager.token);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.strictSame(names(reply), ['Bière', 'Farine', 'Huile', 'Sucre'], 'below, exactly at (4 = 4, 2.5 = 2.5) and empty ones, by name');
  t.match(reply.body.data[2], { name: 'Huile', tracked: true, on_hand: 5, reorder_level: 5 });
});

t.test('a product above its reorder level is not low', async (t) => {
  const { owner } = await staffedShop(api);
  await createProduct(api, owner.token, { name: 'Sel', reorder_level: 5 }, 5.001);
  await createProduct(api, owner.token, { name: 'Riz', reorder_level: 0 }, 0.001);
  await createProduct(api, owner.token, { name: 'Lait', reorder_level: 5 }, 5);
  t.strictSame(names(await lowStock(owner.token)), ['Lait'], 'only the one at its level');
});

t.test('an untracked product is never low', async (t) => {
  const { owner } = await staffedShop(api);
  await createProduct(api, owner.token, { name: 'Recharge', tracked: false, reorder_level: 10 });
  await createProduct(api, owner.token, { name: 'Service', tracked: false });
  t.strictSame(names(await lowStock(owner.token)), []);
});

t.test('a product with variants is low by the sum of its variants', async (t) => {
  const { owner } = await staffedShop(api);
  await productWithVariants(api, owner.token, { M: 2, L: 2 }, { name: 'Chemise', reorder_level: 4 });
  await productWithVariants(api, owner.token, { M: 2, L: 2.5 }, { name: 'Pagne', reorder_level: 4 });
  const reply = await lowStock(owner.token);
  t.strictSame(names(reply), ['Chemise'], '2 + 2 is at 4; 2 + 2.5 is above');
  t.equal(reply.body.data[0].on_hand, 4);
});

t.test('deleted products and other shops\' products are not listed as low', async (t) => {
  const { owner } = await staffedShop(api);
  const gone = await createProduct(api, owner.token, { name: 'Ancien', reorder_level: 5 }, 1);
  await deleteProduct(api, owner.token, gone.id);
  const theirs = await registerShop(api);
  await createProduct(api, theirs.token, { name: 'Leur produit', reorder_level: 5 }, 1);
  await createProduct(api, owner.token, { name: 'Mien', reorder_level: 5 }, 1);
  t.strictSame(names(await lowStock(owner.token)), ['Mien']);
});

t.test('low stock pages by name, visiting each product once', async (t) => {
  const { owner } = await staffedShop(api);
  for (const name of ['Eau', 'Café', 'Beurre', 'Ail', 'Dattes']) await createProduct(api, owner.token, { name, reorder_level: 3 }, 1);
  const pages = await allPages(api, owner.token, '/reports/low-stock', 2);
  t.strictSame(pages.map((page) => names(page)), [['Ail', 'Beurre'], ['Café', 'Dattes'], ['Eau']]);
  expectInvalid(t, await lowStock(owner.token, '?limit=0'), 'limit', 'limit 0');
  expectInvalid(t, await lowStock(owner.token, '?limit=201'), 'limit', 'limit 201');
  t.equal((await lowStock(owner.token, '?limit=200')).status, 200, 'limit 200');
});

// Valuation

t.test('valuation values each tracked product at on-hand x last cost, rounded half away from zero', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const flour = await createProduct(api, owner.token, { name: 'Farine', cost_xaf: 3333, unit: 'kg', sku: 'FAR-1' }, 2.5);
  await createProduct(api, owner.token, { name: 'Gingembre', cost_xaf: 1, unit: 'kg' }, 0.5);
  await createProduct(api, owner.token, { name: 'Huile', cost_xaf: 1500 }, 4);
  await createProduct(api, owner.token, { name: 'Piment', cost_xaf: 3, unit: 'kg' }, 0.1);
  await createProduct(api, owner.token, { name: 'Vide', cost_xaf: 900 });
  const reply = await valuation(manager.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body).sort(), ['data', 'meta']);
  for (const line of reply.body.data) t.strictSame(Object.keys(line).sort(), LINE_KEYS);
  t.strictSame(reply.body.data[0], { product_id: flour.id, name: 'Farine', sku: 'FAR-1', unit: 'kg', on_hand: 2.5, cost_xaf: 3333, value_xaf: 8333 }, '8332.5 rounds up');
  t.strictSame(
    reply.body.data.map((line: any) => [line.name, line.value_xaf]),
    [['Farine', 8333], ['Gingembre', 1], ['Huile', 6000], ['Piment', 0], ['Vide', 0]],
    'by name; 0.5 rounds to 1, 0.3 to 0',
  );
  t.strictSame(reply.body.meta, { next_cursor: null, total_xaf: 14334, products: 5 });
});

t.test('valuation excludes untracked, deleted and other shops\' products', async (t) => {
  const { owner } = await staffedShop(api);
  await createProduct(api, owner.token, { name: 'Riz', cost_xaf: 100 }, 3);
  await createProduct(api, owner.token, { name: 'Recharge', cost_xaf: 100, tracked: false });
  const gone = await createProduct(api, owner.token, { name: 'Ancien', cost_xaf: 100 }, 7);
  await deleteProduct(api, owner.token, gone.id);
  const theirs = await registerShop(api);
  await createProduct(api, theirs.token, { name: 'Leur riz', cost_xaf: 100 }, 50);
  const reply = await valuation(owner.token);
  t.strictSame(reply.body.data.map((line: any) => line.name), ['Riz']);
  t.strictSame(reply.body.meta, { next_cursor: null, total_xaf: 300, products: 1 });
});

t.test('a product with variants is valued on the sum of its variants at the product\'s cost', async (t) => {
  const { owner } = await staffedShop(api);
  await productWithVariants(api, owner.token, { M: 2, L: 1.5 }, { name: 'Chemise', cost_xaf: 2000 });
  const reply = await valuation(owner.token);
  t.match(reply.body.data, [{ name: 'Chemise', on_hand: 3.5, cost_xaf: 2000, value_xaf: 7000 }]);
  t.equal(reply.body.meta.total_xaf, 7000);
});

t.test('valuation pages by name and every page carries the total and the count of all tracked products', async (t) => {
  const { owner } = await staffedShop(api);
  const stock: [string, number, number][] = [
    ['Eau', 150, 24],
    ['Café', 2750, 1.25],
    ['Beurre', 1333, 2.5],
    ['Ail', 40, 0.125],
    ['Dattes', 0, 9],
  ];
  for (const [name, cost, onHand] of stock) await createProduct(api, owner.token, { name, cost_xaf: cost, unit: 'kg' }, onHand);
  await createProduct(api, owner.token, { name: 'Bougie', tracked: false, cost_xaf: 50 });
  // 40 x 0.125 = 5; 1333 x 2.5 = 3332.5 -> 3333; 2750 x 1.25 = 3437.5 -> 3438; 0; 150 x 24 = 3600.
  const expected = 5 + 3333 + 3438 + 0 + 3600;
  const pages = await allPages(api, owner.token, '/reports/stock-valuation', 2);
  t.equal(pages.length, 3);
  t.strictSame(pages.map((page) => page.body.data.map((line: any) => line.name)), [['Ail', 'Beurre'], ['Café', 'Dattes'], ['Eau']], 'each once, by name');
  for (const [index, page] of pages.entries()) {
    t.equal(page.body.meta.total_xaf, expected, `page ${index + 1}: the total over all pages`);
    t.equal(page.body.meta.products, 5, `page ${index + 1}: every tracked product counted`);
  }
  const lines = pages.flatMap((page) => page.body.data);
  t.equal(lines.reduce((sum: number, line: any) => sum + line.value_xaf, 0), expected, 'the lines add up to the total');
  expectInvalid(t, await valuation(owner.token, '?limit=201'), 'limit', 'limit 201');
  expectInvalid(t, await valuation(owner.token, '?cursor=garbage'), 'cursor', 'a tampered cursor');
});

t.test('the valuation answers for every stock and cost the API accepts', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { name: 'Or', cost_xaf: 1 }, 1_000_000_000);
  const repriced = await api.request('PUT', `/products/${product.id}`, { token: owner.token, body: { cost_xaf: 1_000_000_000 } });
  t.equal(repriced.status, 200, 'cost_xaf at its maximum is accepted');
  const reply = await valuation(owner.token);
  t.equal(reply.status, 200, `answered ${reply.status} ${JSON.stringify(reply.body)}`);
  t.equal(reply.body.meta.total_xaf, 1e18, '10^9 units at 10^9 XAF');
});

t.test('an empty shop is valued at 0', async (t) => {
  const { owner } = await staffedShop(api);
  const reply = await valuation(owner.token);
  t.strictSame(reply.body, { data: [], meta: { next_cursor: null, total_xaf: 0, products: 0 } });
});

// Who may read them

t.test('a cashier may not read the stock reports (403)', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await createProduct(api, owner.token, { reorder_level: 5 }, 1);
  expectError(t, await lowStock(cashier.token), 403, FORBIDDEN, 'low stock');
  expectError(t, await valuation(cashier.token), 403, FORBIDDEN, 'valuation');
  t.equal((await lowStock(owner.token)).status, 200, 'the owner reads low stock');
  t.equal((await valuation(owner.token)).status, 200, 'the owner reads the valuation');
});
