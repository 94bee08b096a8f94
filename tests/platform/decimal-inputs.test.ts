import { randomUUID } from 'node:crypto';
import t from 'tap';
import { decimalPlaces } from '../../api/schemas.ts';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * Quantities take at most 3 decimals, VAT rates and multipliers 2, the earn rate 4, counted exactly
 * from the number's decimal form: `numeric(14,3)` would round 1e-10 to 0 (and break a check) or
 * store 1.0000000001 as 1.
 */

const api = await startService(t);
const owner = await registerShop(api);
const token = owner.token;
const product = await createProduct(api, token, { price_xaf: 1000 }, 10);

const saleOf = (quantity: number) => ({ items: [{ product_id: product.id, quantity }], payments: [{ method: 'cash', amount_xaf: 100_000 }] });
const rawSale = (quantity: string) =>
  `{"items":[{"product_id":"${product.id}","quantity":${quantity}}],"payments":[{"method":"cash","amount_xaf":100000}]}`;

t.test('decimal places are counted exactly from the number\'s shortest round-trip form', async (t) => {
  const cases: [number, number][] = [
    [0, 0], [123, 0], [1e21, 0], [19.25, 2], [0.001, 3], [-2.125, 3], [1e-10, 10], [1.5e-7, 8], [1.0000000001, 10], [0.1 + 0.2, 17], [10.0000000001, 10],
  ];
  for (const [value, places] of cases) t.equal(decimalPlaces(value), places, String(value));
});

t.test('a sale line of quantity 1e-10 or 1.0000000001 is a 422 on items.0.quantity, never a failed insert nor a rounded one', async (t) => {
  for (const quantity of ['1e-10', '1.0000000001', '0.0005', '2.1234']) {
    expectInvalid(t, await api.request('POST', '/sales', { token, rawBody: rawSale(quantity) }), 'items.0.quantity', quantity);
  }
  const kept = await api.request('POST', '/sales', { token, body: saleOf(0.125) });
  t.equal(kept.status, 201, 'three decimals are taken');
  t.equal(kept.body.data.items[0].quantity, 0.125);
});

t.test('an adjustment to 10.0000000001 when 10 are on hand is a 422 on new_quantity', async (t) => {
  const fresh = await createProduct(api, token, {}, 10);
  for (const quantity of ['10.0000000001', '1e-10', '9.9999']) {
    expectInvalid(t, await api.request('POST', `/products/${fresh.id}/adjust`, { token, rawBody: `{"new_quantity":${quantity}}` }), 'new_quantity', quantity);
  }
  const read = await api.request('GET', `/products/${fresh.id}`, { token });
  t.equal(read.body.data.on_hand, 10, 'stock unchanged');
});

t.test('a refund quantity of 1e-10 is a 422 on items.0.quantity', async (t) => {
  const sale = (await api.request('POST', '/sales', { token, body: saleOf(2) })).body.data;
  const itemId = sale.items[0].id;
  for (const quantity of ['1e-10', '1.0000000001']) {
    const body = `{"method":"cash","items":[{"sale_item_id":"${itemId}","quantity":${quantity}}]}`;
    expectInvalid(t, await api.request('POST', `/sales/${sale.id}/refund`, { token, rawBody: body }), 'items.0.quantity', quantity);
  }
});

t.test('a stocktake count with more than 3 decimals is a 422 on its key', async (t) => {
  const opened = await api.request('POST', '/stocktakes', { token, body: {} });
  t.equal(opened.status, 201);
  const itemId = opened.body.data.items[0].id;
  for (const quantity of ['1e-10', '1.0000000001', '5.0005']) {
    const body = `{"counts":[{"item_id":"${itemId}","counted_quantity":${quantity}}]}`;
    expectInvalid(t, await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token, rawBody: body }), 'counts.0.counted_quantity', quantity);
  }
});

t.test('the promotions preview refuses a quantity with more than 3 decimals on its key', async (t) => {
  for (const quantity of ['1e-10', '1.0000000001']) {
    const body = `{"items":[{"product_id":"${product.id}","quantity":${quantity}}]}`;
    expectInvalid(t, await api.request('POST', '/promotions/preview', { token, rawBody: body }), 'items.0.quantity', quantity);
  }
});

t.test('a pushed sale with quantity 1e-10 is rejected as validation_failed on items.0.quantity', async (t) => {
  const body = `{"sales":[{"id":"${randomUUID()}","items":[{"product_id":"${product.id}","quantity":1e-10}],"payments":[{"method":"cash","amount_xaf":1000}]}]}`;
  const reply = await api.request('POST', '/sync/push', { token, rawBody: body });
  t.equal(reply.status, 200);
  const [result] = reply.body.data.results;
  t.equal(result.status, 'rejected');
  t.equal(result.code, 'validation_failed');
  t.strictSame(Object.keys(result.errors ?? {}), ['items.0.quantity']);
});

t.test('other quantities (reorder level, promotion minimum) take at most 3 decimals, exactly', async (t) => {
  expectInvalid(t, await api.request('POST', '/products', { token, rawBody: '{"name":"Riz","price_xaf":1,"reorder_level":1.0000000001}' }), 'reorder_level');
  const promotion = `{"name":"Promo","kind":"percent","value":10,"min_quantity":1e-10}`;
  expectInvalid(t, await api.request('POST', '/promotions', { token, rawBody: promotion }), 'min_quantity');
});

t.test('rates take their decimals exactly: VAT and multipliers 2, the earn rate 4', async (t) => {
  expectInvalid(t, await api.request('POST', '/products', { token, rawBody: '{"name":"Riz","price_xaf":1,"vat_rate":19.2500000001}' }), 'vat_rate', 'product VAT');
  expectInvalid(t, await api.request('PUT', '/shop', { token, rawBody: '{"default_vat_rate":1e-9}' }), 'default_vat_rate', 'shop VAT');
  expectInvalid(t, await api.request('PUT', '/shop', { token, rawBody: '{"loyalty_earn_rate":0.00000001}' }), 'loyalty_earn_rate', 'earn rate');
  const tiers = '{"tiers":[{"key":"base","name":"Base","min_points":0,"multiplier":1.0000000001}]}';
  expectInvalid(t, await api.request('PUT', '/loyalty/tiers', { token, rawBody: tiers }), 'tiers.0.multiplier', 'multiplier');
  const promotion = `{"name":"Promo","kind":"percent","value":10.0000000001}`;
  expectInvalid(t, await api.request('POST', '/promotions', { token, rawBody: promotion }), 'value', 'promotion value');
  const kept = await api.request('PUT', '/shop', { token, body: { default_vat_rate: 19.25, loyalty_earn_rate: 0.0125 } });
  t.equal(kept.status, 200, 'the allowed decimals are taken');
  t.equal(kept.body.data.default_vat_rate, 19.25);
  t.equal(kept.body.data.loyalty_earn_rate, 0.0125);
});
