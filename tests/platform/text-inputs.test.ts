import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, createProduct, registerShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * PostgreSQL stores neither a NUL character nor half of a UTF-16 surrogate pair (JSON `"\ud800"`
 * parses to such a string): every text input refuses them with a 422 on its own key, never a failed
 * query (a 500).
 */

const api = await startService(t);
const owner = await registerShop(api);
const cashier = await addStaff(api, owner, 'cashier');
const product = await createProduct(api, owner.token, {}, 5);

const NUL = 'a\u0000b';
/** JSON texts whose strings are not storable: a NUL, a lone high and a lone low surrogate, a pair in the wrong order. */
const UNSTORABLE_JSON = ['"a\\u0000b"', '"\\ud800"', '"x\\udc00y"', '"\\udc00\\ud800"'];

t.test('a NUL character in a body\'s text field is a 422 on that field', async (t) => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['POST', '/products', { name: NUL, price_xaf: 1 }, 'name'],
    ['POST', '/products', { name: 'Riz', sku: NUL, price_xaf: 1 }, 'sku'],
    ['POST', '/categories', { name: NUL }, 'name'],
    ['POST', '/customers', { name: 'Awa', note: NUL }, 'note'],
    ['PUT', '/shop', { receipt_footer: NUL }, 'receipt_footer'],
    ['PUT', '/shop', { timezone: `Africa/Douala${'\u0000'}` }, 'timezone'],
    ['PUT', '/profile', { name: NUL }, 'name'],
    ['POST', '/sales', { items: [{ name: NUL, quantity: 1, unit_price_xaf: 100 }], payments: [{ method: 'cash', amount_xaf: 100 }] }, 'items.0.name'],
    ['POST', '/promotions', { name: NUL, kind: 'percent', value: 10 }, 'name'],
    ['POST', '/loyalty-cards/register', { card_no: NUL, name: 'Awa' }, 'card_no'],
    ['POST', `/products/${product.id}/options`, { options: [{ name: 'Taille', values: ['M', NUL] }] }, 'options.0.values.1'],
    ['POST', '/auth/login', { email: owner.email, password: NUL }, 'password'],
  ];
  for (const [method, path, body, key] of cases) {
    expectInvalid(t, await api.request(method, path, { token: owner.token, body }), key, `${method} ${path} ${key}`);
  }
});

t.test('a lone UTF-16 surrogate is refused the same way as a NUL', async (t) => {
  for (const text of UNSTORABLE_JSON) {
    const reply = await api.request('POST', '/products', { token: owner.token, rawBody: `{"name":${text},"price_xaf":1}` });
    expectInvalid(t, reply, 'name', `product name ${text}`);
    const customer = await api.request('POST', '/customers', { token: cashier.token, rawBody: `{"name":"Awa","phone":${text}}` });
    expectInvalid(t, customer, 'phone', `customer phone ${text}`);
  }
});

t.test('a character outside the Basic Multilingual Plane (a well-formed surrogate pair) is kept as sent', async (t) => {
  const name = 'Thé vert 🍵 𝄞';
  const reply = await api.request('POST', '/products', { token: owner.token, body: { name, price_xaf: 100 } });
  t.equal(reply.status, 201);
  t.equal(reply.body.data.name, name);
  const read = await api.request('GET', `/products/${reply.body.data.id}`, { token: owner.token });
  t.equal(read.body.data.name, name);
});

t.test('a variant option whose axis name or value holds a NUL is a 422 on options', async (t) => {
  const key = await api.request('POST', `/products/${product.id}/variants`, { token: owner.token, body: { options: { [NUL]: 'M' } } });
  t.equal(key.status, 422, 'axis name');
  t.ok(Object.keys(key.body.errors ?? {}).every((k) => k.startsWith('options')), 'keyed under options');
  expectInvalid(t, await api.request('POST', `/products/${product.id}/variants`, { token: owner.token, body: { options: { Taille: NUL } } }), 'options.Taille', 'value');
});

t.test('a NUL in a query string or a path parameter is a 422 on its name', async (t) => {
  const cases: [string, string][] = [
    ['/products?q=a%00b', 'q'],
    ['/customers?q=%00', 'q'],
    ['/customers/find-by-card?card_no=12%0034', 'card_no'],
    ['/sync/pull?since=%00', 'since'],
    ['/products?cursor=%00', 'cursor'],
  ];
  for (const [path, key] of cases) expectInvalid(t, await api.request('GET', path, { token: owner.token }), key, path);
  expectInvalid(t, await api.request('GET', '/device-pairings/AB%00CDEFG'), 'code', 'pairing code');
  expectInvalid(t, await api.request('POST', '/device-pairings/AB%00CDEFG/claim', { token: owner.token }), 'code', 'pairing code to claim');
});

t.test('a cursor whose key hides a NUL is a 422 on cursor', async (t) => {
  const cursor = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
  for (const path of ['/products', '/customers', '/reports/low-stock', '/reports/stock-valuation']) {
    expectInvalid(t, await api.request('GET', `${path}?cursor=${cursor([NUL, randomUUID()])}`, { token: owner.token }), 'cursor', path);
  }
});

t.test('a pushed record with a NUL or a lone surrogate is rejected as validation_failed on that field; the others apply', async (t) => {
  const good = { id: randomUUID(), name: 'Client correct' };
  const body = `{"customers":[{"id":"${randomUUID()}","name":"a\\u0000b"},{"id":"${randomUUID()}","name":"Awa","note":"\\ud800"},${JSON.stringify(good)}],` +
    `"sales":[{"id":"${randomUUID()}","items":[{"name":"x\\u0000","quantity":1,"unit_price_xaf":100}],"payments":[{"method":"cash","amount_xaf":100}]}],` +
    `"cash_movements":[{"id":"${randomUUID()}","direction":"in","amount_xaf":100,"reason":"\\udfff"}]}`;
  const reply = await api.request('POST', '/sync/push', { token: owner.token, rawBody: body });
  t.equal(reply.status, 200);
  const results = reply.body.data.results;
  const rejected = (index: number, key: string) => {
    t.equal(results[index].status, 'rejected', `record ${index} rejected`);
    t.equal(results[index].code, 'validation_failed', `record ${index} validation_failed`);
    t.strictSame(Object.keys(results[index].errors ?? {}), [key], `record ${index} keyed ${key}`);
  };
  rejected(0, 'name');
  rejected(1, 'note');
  t.equal(results[2].status, 'applied', 'the good customer applies');
  rejected(3, 'items.0.name');
  rejected(4, 'reason');
});
