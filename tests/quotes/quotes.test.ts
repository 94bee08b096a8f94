import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, MALFORMED_JSON, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import {
  addDays,
  cash,
  convert,
  createCustomer,
  createPromotion,
  createQuote,
  deleteQuote,
  freeLine,
  getQuote,
  ids,
  listQuotes,
  mark,
  markQuote,
  movements,
  onHand,
  postQuote,
  productWithVariants,
  putQuote,
  QUOTE_ITEM_KEYS,
  QUOTE_KEYS,
  readQuote,
  saleCount,
  setShop,
  shopDay,
  staffedShop,
  storedQuotes,
  vatOf,
} from './quote-fixtures.ts';

const api = await startService(t);

const document = (token: string, id: string, query = '') => api.request('GET', `/quotes/${id}/document${query}`, { token });

// Creating a quote

t.test('a quote answers 201 with the whole record: its number, draft, its lines, its totals and its author; GET answers the same', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const soap = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1500, vat_rate: 19.25 }, 5);
  const customer = await createCustomer(api, owner.token, { name: 'Quincaillerie Mbarga' });
  const reply = await postQuote(api, cashier.token, { customer_id: customer.id, note: 'Livraison comprise', items: [{ product_id: soap.id, quantity: 2 }] });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.strictSame(Object.keys(reply.body), ['data']);
  const quote = reply.body.data;
  t.strictSame(Object.keys(quote).sort(), QUOTE_KEYS, 'the keys of a Quote');
  t.strictSame(Object.keys(quote.items[0]).sort(), QUOTE_ITEM_KEYS, 'the keys of a quote line');
  t.match(quote, {
    quote_no: 1, status: 'draft', customer_id: customer.id, customer_name: 'Quincaillerie Mbarga', note: 'Livraison comprise',
    subtotal_xaf: 3000, discount_xaf: 0, vat_xaf: vatOf(3000, 19.25), total_xaf: 3000,
    sale_id: null, converted_at: null, created_by: cashier.user.id, created_by_name: cashier.user.name,
  });
  t.match(quote.items[0], { line_no: 1, product_id: soap.id, variant_id: null, name: 'Savon', quantity: 2, unit_price_xaf: 1500, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0, vat_rate: 19.25, total_xaf: 3000 });
  t.ok(quote.created_at.endsWith('Z') && !Number.isNaN(Date.parse(quote.created_at)), 'created_at is ISO-8601 UTC');
  t.ok(quote.updated_at.endsWith('Z') && !Number.isNaN(Date.parse(quote.updated_at)), 'updated_at is ISO-8601 UTC');
  t.strictSame(await readQuote(api, owner.token, quote.id), quote, 'GET /quotes/{id} answers the same record');
});

t.test('quote numbers are 1, 2, 3... per shop, independent between shops; a refused quote takes none', async (t) => {
  const first = await registerShop(api);
  const second = await registerShop(api);
  t.equal((await createQuote(api, first.token, { items: [freeLine(100)] })).quote_no, 1);
  expectInvalid(t, await postQuote(api, first.token, { items: [{ product_id: randomUUID(), quantity: 1 }] }), 'items.0.product_id', 'refused');
  t.equal((await createQuote(api, first.token, { items: [freeLine(100)] })).quote_no, 2, 'no gap after a refused quote');
  t.equal((await createQuote(api, second.token, { items: [freeLine(100)] })).quote_no, 1, 'the other shop counts from 1');
  t.equal((await createQuote(api, first.token, { items: [freeLine(100)] })).quote_no, 3);
});

t.test('valid_until defaults to 30 days after today in the shop\'s calendar, whatever its time zone; a date given is kept', async (t) => {
  const owner = await registerShop(api);
  const today = await shopDay(api, owner.shop.id);
  t.equal((await createQuote(api, owner.token, { items: [freeLine(100)] })).valid_until, addDays(today, 30), 'omitted');
  t.equal((await createQuote(api, owner.token, { valid_until: null, items: [freeLine(100)] })).valid_until, addDays(today, 30), 'null');
  t.equal((await createQuote(api, owner.token, { valid_until: '2099-12-31', items: [freeLine(100)] })).valid_until, '2099-12-31', 'given');
  // UTC+14 and UTC-11 are never on the same day: at least one of them is not on UTC's (nor the server's) day.
  for (const timezone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
    await setShop(api, owner, { timezone });
    const local = await shopDay(api, owner.shop.id);
    t.equal((await createQuote(api, owner.token, { items: [freeLine(100)] })).valid_until, addDays(local, 30), timezone);
  }
});

t.test('a past valid_until is accepted and the quote shows expired; a quote valid until today (shop calendar) is still a draft', async (t) => {
  const owner = await registerShop(api);
  const today = await shopDay(api, owner.shop.id);
  const past = await createQuote(api, owner.token, { valid_until: addDays(today, -1), items: [freeLine(100)] });
  t.match(past, { status: 'expired', valid_until: addDays(today, -1) });
  t.equal((await readQuote(api, owner.token, past.id)).status, 'expired', 'GET shows it expired');
  const lastDay = await createQuote(api, owner.token, { valid_until: today, items: [freeLine(100)] });
  t.equal(lastDay.status, 'draft', 'valid until the end of today');
  for (const timezone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
    await setShop(api, owner, { timezone });
    const local = await shopDay(api, owner.shop.id);
    t.equal((await createQuote(api, owner.token, { valid_until: local, items: [freeLine(100)] })).status, 'draft', `${timezone}: valid until its today`);
    const yesterday = await createQuote(api, owner.token, { valid_until: addDays(local, -1), items: [freeLine(100)] });
    t.equal(yesterday.status, 'expired', `${timezone}: valid until its yesterday`);
    t.equal((await readQuote(api, owner.token, yesterday.id)).status, 'expired', `${timezone}: GET agrees`);
  }
});

t.test('quotes made at the same moment each take their own number, without gap or repeat', async (t) => {
  const owner = await registerShop(api);
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => postQuote(api, owner.token, { items: [freeLine(100 + i)] })));
  t.strictSame(replies.map((reply) => reply.status), Array(12).fill(201), 'all created');
  t.strictSame(replies.map((reply) => reply.body.data.quote_no).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 1));
});

t.test('an Idempotency-Key makes POST /quotes create one quote however often it is sent; another body with it is a 409 idempotency_conflict', async (t) => {
  const owner = await registerShop(api);
  const body = { note: 'Devis mariage', items: [freeLine(25_000)] };
  const headers = { 'idempotency-key': `devis-${randomUUID()}` };
  const first = await postQuote(api, owner.token, body, headers);
  t.equal(first.status, 201);
  const retry = await postQuote(api, owner.token, body, headers);
  t.equal(retry.status, 201);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.strictSame(retry.body, first.body, 'the stored answer');
  expectConflict(t, await postQuote(api, owner.token, { ...body, note: 'Autre' }, headers), 'idempotency_conflict');
  t.equal((await storedQuotes(api, owner.shop.id)).length, 1, 'one quote');
});

// Pricing: the sale's rules

t.test('a line that omits price and VAT rate takes the catalogue\'s; a variant line takes the variant\'s price and name', async (t) => {
  const owner = await registerShop(api);
  const plain = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1500, vat_rate: 5.5 });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 0 }, L: { price_xaf: 3000, on_hand: 0 } }, { name: 'Chemise', price_xaf: 1000, vat_rate: 19.25 });
  const rice = await createProduct(api, owner.token, { name: 'Riz', price_xaf: 2000, vat_rate: 19.25 });
  const quote = await createQuote(api, owner.token, {
    items: [
      { product_id: plain.id, quantity: 2 },
      { product_id: shirt.id, variant_id: variants.L.id, quantity: 1 },
      { product_id: rice.id, quantity: 1, unit_price_xaf: 1800, vat_rate: 0, name: 'Riz (sac abîmé)' },
    ],
  });
  t.match(quote.items[0], { line_no: 1, product_id: plain.id, variant_id: null, name: 'Savon', unit_price_xaf: 1500, vat_rate: 5.5, total_xaf: 3000, vat_xaf: vatOf(3000, 5.5) });
  t.match(quote.items[1], { line_no: 2, product_id: shirt.id, variant_id: variants.L.id, name: 'Chemise (L)', unit_price_xaf: 3000, vat_rate: 19.25, total_xaf: 3000 });
  t.match(quote.items[2], { line_no: 3, product_id: rice.id, name: 'Riz (sac abîmé)', unit_price_xaf: 1800, vat_rate: 0, vat_xaf: 0, total_xaf: 1800 });
  t.equal(quote.total_xaf, 7800);
});

t.test('a line without a product needs a name and a unit price (422 on items.N.product_id); its VAT rate defaults to the shop\'s', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postQuote(api, owner.token, { items: [{ quantity: 1, unit_price_xaf: 500 }] }), 'items.0.product_id', 'no name');
  expectInvalid(t, await postQuote(api, owner.token, { items: [freeLine(10), { name: 'Pose', quantity: 1 }] }), 'items.1.product_id', 'no price');
  const quote = await createQuote(api, owner.token, { items: [{ name: 'Réparation', quantity: 1, unit_price_xaf: 1000 }] });
  t.match(quote.items[0], { product_id: null, variant_id: null, name: 'Réparation', unit_price_xaf: 1000, vat_rate: 19.25, vat_xaf: 161, total_xaf: 1000 });
  await setShop(api, owner, { default_vat_rate: 10 });
  t.match((await createQuote(api, owner.token, { items: [{ name: 'Réparation', quantity: 1, unit_price_xaf: 1100 }] })).items[0], { vat_rate: 10, vat_xaf: 100 }, 'the shop\'s current default');
  t.equal((await storedQuotes(api, owner.shop.id)).length, 2, 'the refused quotes were not recorded');
});

t.test('an unknown product is a 422 on items.N.product_id; a product with variants needs variant_id (422 variant_required)', async (t) => {
  const owner = await registerShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 3 } });
  const other = await productWithVariants(api, owner.token, { S: { price_xaf: 900, on_hand: 3 } });
  expectInvalid(t, await postQuote(api, owner.token, { items: [freeLine(10), { product_id: randomUUID(), quantity: 1 }] }), 'items.1.product_id', 'an unknown product');
  expectInvalid(t, await postQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] }), 'items.0.variant_id', 'no variant', 'variant_required');
  expectInvalid(t, await postQuote(api, owner.token, { items: [{ product_id: product.id, variant_id: other.variants.S.id, quantity: 1 }] }), 'items.0.variant_id', 'another product\'s variant');
  t.strictSame(await storedQuotes(api, owner.shop.id), [], 'nothing recorded');
  t.equal((await createQuote(api, owner.token, { items: [{ product_id: product.id, variant_id: variants.M.id, quantity: 1 }] })).total_xaf, 2500);
});

t.test('a line\'s total is round(quantity x unit price) - its discount, half away from zero; the quote adds up its lines', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, {
    items: [
      freeLine(101, { quantity: 2.5 }), // 252.5 -> 253 (half to even would say 252)
      freeLine(4, { quantity: 0.125 }), // 0.5 -> 1
      freeLine(100, { quantity: 1.005 }), // 100.5 -> 101
      freeLine(333, { quantity: 1.5, discount_xaf: 99 }), // 499.5 -> 500, less 99
      freeLine(1000, { quantity: 3 }),
    ],
  });
  t.strictSame(quote.items.map((i: any) => i.total_xaf), [253, 1, 101, 401, 3000]);
  t.strictSame(quote.items.map((i: any) => i.quantity), [2.5, 0.125, 1.005, 1.5, 3], 'quantities kept with their decimals');
  t.strictSame(quote.items.map((i: any) => i.line_no), [1, 2, 3, 4, 5], 'lines in the order sent');
  t.equal(quote.subtotal_xaf, 253 + 1 + 101 + 500 + 3000, 'subtotal: the rounded gross of each line');
  t.equal(quote.discount_xaf, 99);
  t.equal(quote.total_xaf, 253 + 1 + 101 + 401 + 3000);
});

t.test('a line\'s VAT is round(total x rate / (100 + rate)) half away from zero, the quote\'s VAT their sum, and the breakdown one row per rate', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, {
    items: [
      freeLine(1031, { discount_xaf: 20, vat_rate: 20 }), // 1011 x 20 / 120 = 168.5 -> 169 (half to even: 168)
      freeLine(1000, { vat_rate: 19.25 }), // 161.42 -> 161
      freeLine(15, { vat_rate: 20 }), // 2.5 -> 3
      freeLine(999, { vat_rate: 0 }),
      freeLine(500, { vat_rate: 19.25 }), // 80.71 -> 81
    ],
  });
  t.strictSame(quote.items.map((i: any) => i.vat_xaf), [169, 161, 3, 0, 81]);
  t.equal(quote.vat_xaf, 169 + 161 + 3 + 81);
  t.equal(quote.total_xaf, 1011 + 1000 + 15 + 999 + 500);
  t.strictSame(quote.vat_breakdown, [
    { rate: 0, base_xaf: 999, vat_xaf: 0, total_xaf: 999 },
    { rate: 19.25, base_xaf: 1500 - 161 - 81, vat_xaf: 161 + 81, total_xaf: 1500 },
    { rate: 20, base_xaf: 1026 - 172, vat_xaf: 169 + 3, total_xaf: 1026 },
  ]);
});

t.test('the best single promotion live today applies per line, carried with its discount; the quote\'s discount counts it', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const promoted = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  const plain = await createProduct(api, owner.token, { price_xaf: 700, vat_rate: 19.25 });
  const tenPercent = await createPromotion(api, manager.token, { kind: 'percent', value: 10, product_ids: [promoted.id] });
  await createPromotion(api, manager.token, { kind: 'amount_xaf', value: 50, product_ids: [promoted.id] });
  await createPromotion(api, manager.token, { kind: 'percent', value: 50, product_ids: [plain.id], starts_at: '2099-01-01T00:00:00Z' });
  const quote = await createQuote(api, owner.token, { items: [{ product_id: promoted.id, quantity: 3, discount_xaf: 100 }, { product_id: plain.id, quantity: 1 }] });
  // 3000 - 100 = 2900; 10 % of it is 290 (3 x 50 = 150 off is smaller); never both.
  t.match(quote.items[0], { promotion_id: tenPercent.id, promotion_discount_xaf: 290, discount_xaf: 100, total_xaf: 2610, vat_xaf: vatOf(2610, 19.25) });
  t.match(quote.items[1], { promotion_id: null, promotion_discount_xaf: 0, total_xaf: 700 }, 'a promotion not yet started does not apply');
  t.match(quote, { subtotal_xaf: 3700, discount_xaf: 390, total_xaf: 3310, vat_xaf: vatOf(2610, 19.25) + vatOf(700, 19.25) });
});

t.test('a quote reserves no stock: on-hand and movements unchanged, and more than is on hand may be quoted', async (t) => {
  const owner = await registerShop(api);
  const cement = await createProduct(api, owner.token, { price_xaf: 5000 }, 3);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2000, on_hand: 1 } });
  const before = await movements(api, cement.id);
  const quote = await createQuote(api, owner.token, { items: [{ product_id: cement.id, quantity: 50 }, { product_id: shirt.id, variant_id: variants.M.id, quantity: 7 }] });
  t.equal(quote.total_xaf, 50 * 5000 + 7 * 2000);
  t.equal(await onHand(api, cement.id), 3);
  t.equal(await onHand(api, shirt.id, variants.M.id), 1);
  t.strictSame(await movements(api, cement.id), before, 'no movement');
  await createQuote(api, owner.token, { items: [{ product_id: cement.id, quantity: 3 }] });
  t.equal((await api.request('GET', `/products/${cement.id}`, { token: owner.token })).body.data.on_hand, 3, 'the catalogue still shows all of it');
});

t.test('a cashier is held to the catalogue\'s price and VAT rate (403), unless the shop\'s cashier_price_override is on', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  expectError(t, await postQuote(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 900 }] }), 403, FORBIDDEN, 'another price');
  expectError(t, await postQuote(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, vat_rate: 0 }] }), 403, FORBIDDEN, 'another VAT rate');
  t.strictSame(await storedQuotes(api, owner.shop.id), [], 'nothing recorded');
  t.equal((await createQuote(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1000, vat_rate: 19.25 }] })).total_xaf, 1000, 'the catalogue\'s own figures, sent');
  t.equal((await createQuote(api, cashier.token, { items: [freeLine(123, { vat_rate: 5 })] })).total_xaf, 123, 'a free line is the cashier\'s own');
  await setShop(api, owner, { cashier_price_override: true });
  t.match((await createQuote(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 900, vat_rate: 0 }] })).items[0], { unit_price_xaf: 900, vat_rate: 0 }, 'with the override on');
});

t.test('a cashier\'s line discount is capped by cashier_max_discount_percent: beyond, 422 discount_not_allowed on items.N.discount_xaf', async (t) => {
  const { owner, cashier, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  const line = (discount: number) => ({ items: [freeLine(50), { product_id: product.id, quantity: 3, discount_xaf: discount }] });
  expectInvalid(t, await postQuote(api, cashier.token, line(301)), 'items.1.discount_xaf', 'default 10 %: 301 off 3000', 'discount_not_allowed');
  t.equal((await postQuote(api, cashier.token, line(300))).status, 201, '300 off 3000');
  await setShop(api, owner, { cashier_max_discount_percent: 0 });
  expectInvalid(t, await postQuote(api, cashier.token, line(1)), 'items.1.discount_xaf', '0 %', 'discount_not_allowed');
  t.equal((await postQuote(api, manager.token, line(3000))).status, 201, 'a manager is not capped');
  t.equal((await storedQuotes(api, owner.shop.id)).length, 2);
});

t.test('the customer must be one of the shop\'s: an unknown or another shop\'s is a 422 on customer_id', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = await createCustomer(api, theirs.token);
  expectInvalid(t, await postQuote(api, mine.token, { customer_id: randomUUID(), items: [freeLine(100)] }), 'customer_id', 'unknown');
  expectInvalid(t, await postQuote(api, mine.token, { customer_id: their.id, items: [freeLine(100)] }), 'customer_id', 'another shop\'s');
  t.strictSame(await storedQuotes(api, mine.shop.id), []);
  t.match(await createQuote(api, mine.token, { customer_id: null, items: [freeLine(100)] }), { customer_id: null, customer_name: null }, 'no customer');
});

// Bounds

t.test('items: 1 to 500 lines', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postQuote(api, owner.token, { items: [] }), 'items', 'none');
  expectInvalid(t, await postQuote(api, owner.token, {}), 'items', 'missing');
  expectInvalid(t, await postQuote(api, owner.token, { items: null }), 'items', 'null');
  expectInvalid(t, await postQuote(api, owner.token, { items: Array.from({ length: 501 }, (_, i) => freeLine(1, { name: `Article ${i}` })) }), 'items', '501');
  const full = await createQuote(api, owner.token, { items: Array.from({ length: 500 }, (_, i) => freeLine(10, { name: `Article ${i + 1}` })) });
  t.equal(full.items.length, 500);
  t.match(full.items[499], { line_no: 500, name: 'Article 500' });
  t.equal(full.total_xaf, 5000);
});

t.test('note: at most 255 characters or null; valid_until: a real day written YYYY-MM-DD', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postQuote(api, owner.token, { note: chars(256), items: [freeLine(1)] }), 'note', '256');
  expectInvalid(t, await postQuote(api, owner.token, { note: 5, items: [freeLine(1)] }), 'note', 'a number');
  t.equal((await createQuote(api, owner.token, { note: chars(255), items: [freeLine(1)] })).note, chars(255), '255');
  t.equal((await createQuote(api, owner.token, { note: null, items: [freeLine(1)] })).note, null, 'null');
  for (const day of ['2026-02-30', '31-12-2026', '2026-1-5', 'demain', '2026-12-31T00:00:00Z', 20261231]) {
    expectInvalid(t, await postQuote(api, owner.token, { valid_until: day, items: [freeLine(1)] }), 'valid_until', JSON.stringify(day));
  }
  t.equal((await storedQuotes(api, owner.shop.id)).length, 2);
});

t.test('lines are bounded as a sale\'s: quantity > 0 with 3 decimals, prices and discounts whole and >= 0, VAT 0..100, ids uuids', async (t) => {
  const owner = await registerShop(api);
  const bad: [Record<string, unknown>, string][] = [
    [freeLine(1, { quantity: 0 }), 'items.0.quantity'],
    [freeLine(1, { quantity: 1.0005 }), 'items.0.quantity'],
    [freeLine(1, { quantity: '1' }), 'items.0.quantity'],
    [freeLine(-1), 'items.0.unit_price_xaf'],
    [freeLine(1.5), 'items.0.unit_price_xaf'],
    [freeLine(10, { discount_xaf: -1 }), 'items.0.discount_xaf'],
    [freeLine(10, { vat_rate: 100.01 }), 'items.0.vat_rate'],
    [freeLine(10, { name: chars(201) }), 'items.0.name'],
    [{ product_id: 'savon', quantity: 1 }, 'items.0.product_id'],
  ];
  for (const [line, key] of bad) expectInvalid(t, await postQuote(api, owner.token, { items: [line] }), key, JSON.stringify(line).slice(0, 60));
  expectInvalid(t, await postQuote(api, owner.token, { customer_id: 'client-1', items: [freeLine(1)] }), 'customer_id', 'a malformed customer_id');
  // Every input within its bounds (10^9 x 10^9 a line), but ten such lines add up beyond what the ledger holds.
  expectInvalid(t, await postQuote(api, owner.token, { items: Array.from({ length: 10 }, () => freeLine(1_000_000_000, { quantity: 1_000_000_000 })) }), 'items', 'a quote too large to record');
  expectError(t, await api.request('POST', '/quotes', { token: owner.token, rawBody: '{"items": [' }), 400, MALFORMED_JSON, 'not JSON');
  t.strictSame(await storedQuotes(api, owner.shop.id), []);
});

// Reading

t.test('GET /quotes/{id}: an unknown id or another shop\'s quote is 404; a malformed id is 422 on quote_id on every route', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = await createQuote(api, theirs.token, { items: [freeLine(100)] });
  expectError(t, await getQuote(api, mine.token, randomUUID()), 404, NOT_FOUND, 'unknown');
  expectError(t, await getQuote(api, mine.token, their.id), 404, NOT_FOUND, 'another shop\'s');
  expectInvalid(t, await getQuote(api, mine.token, 'devis-12'), 'quote_id', 'GET');
  expectInvalid(t, await putQuote(api, mine.token, 'devis-12', { note: 'x' }), 'quote_id', 'PUT');
  expectInvalid(t, await deleteQuote(api, mine.token, 'devis-12'), 'quote_id', 'DELETE');
  expectInvalid(t, await markQuote(api, mine.token, 'devis-12', 'sent'), 'quote_id', 'status');
  expectInvalid(t, await api.request('POST', '/quotes/devis-12/convert', { token: mine.token, body: {} }), 'quote_id', 'convert');
  expectInvalid(t, await document(mine.token, 'devis-12'), 'quote_id', 'document');
});

// Lists

t.test('GET /quotes lists newest first, whole records, and next_cursor visits each quote once, even those made at the same instant', async (t) => {
  const owner = await registerShop(api);
  const made: any[] = [];
  for (let i = 0; i < 4; i++) made.push(await createQuote(api, owner.token, { items: [freeLine(100 + i)] }));
  const all = await listQuotes(api, owner.token);
  t.strictSame(ids(all.data), ids(made).reverse(), 'newest first');
  t.strictSame(all.meta, { next_cursor: null });
  t.strictSame(all.data[0], await readQuote(api, owner.token, made[3].id), 'listed quotes are whole records');
  await api.ownerSql`update quotes set created_at = '2026-03-10T09:00:00Z' where id in ${api.ownerSql(ids(made.slice(1)))}`;
  const seen: string[] = [];
  let cursor: string | null = '';
  let pages = 0;
  while (cursor !== null && pages < 10) {
    const page: any = await listQuotes(api, owner.token, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.ok(page.data.length <= 1);
    seen.push(...ids(page.data));
    cursor = page.meta.next_cursor;
    pages++;
  }
  t.equal(seen[0], made[0].id, 'the quote left at its own time is the newest');
  t.equal(seen.length, 4);
  t.strictSame([...seen].sort(), ids(made).sort(), 'each exactly once');
});

t.test('the status filter uses the status shown: expired includes drafts and sent quotes past their date, draft and sent exclude them', async (t) => {
  const owner = await registerShop(api);
  const today = await shopDay(api, owner.shop.id);
  const quote = (fields: Record<string, unknown> = {}) => createQuote(api, owner.token, { items: [freeLine(100)], ...fields });
  const draft = await quote();
  const sent = await quote();
  await mark(api, owner.token, sent.id, 'sent');
  const declined = await quote();
  await mark(api, owner.token, declined.id, 'declined');
  const marked = await quote();
  await mark(api, owner.token, marked.id, 'expired');
  const lapsedDraft = await quote({ valid_until: addDays(today, -3) });
  const lapsedSent = await quote();
  await mark(api, owner.token, lapsedSent.id, 'sent');
  await api.ownerSql`update quotes set valid_until = ${addDays(today, -1)}::date where id = ${lapsedSent.id}`;
  const converted = await quote();
  await convert(api, owner.token, converted.id, { payments: cash(100) });

  t.equal((await readQuote(api, owner.token, lapsedSent.id)).status, 'expired', 'a sent quote past its date shows expired');
  t.equal((await readQuote(api, owner.token, lapsedDraft.id)).status, 'expired', 'a draft past its date shows expired');
  const filtered = async (status: string) => ids((await listQuotes(api, owner.token, `?status=${status}`)).data);
  t.strictSame(await filtered('draft'), [draft.id], 'draft');
  t.strictSame(await filtered('sent'), [sent.id], 'sent');
  t.strictSame(await filtered('declined'), [declined.id], 'declined');
  t.strictSame(await filtered('expired'), [lapsedSent.id, lapsedDraft.id, marked.id], 'expired: marked, and past their date');
  t.strictSame(await filtered('converted'), [converted.id], 'converted');
  const all = (await listQuotes(api, owner.token)).data;
  t.strictSame(all.map((q: any) => q.status), ['converted', 'expired', 'expired', 'expired', 'declined', 'sent', 'draft'], 'the list shows each status as GET does');
});

t.test('customer_id filters the list to that customer\'s quotes', async (t) => {
  const owner = await registerShop(api);
  const awa = await createCustomer(api, owner.token);
  const ali = await createCustomer(api, owner.token);
  const forAwa = await createQuote(api, owner.token, { customer_id: awa.id, items: [freeLine(100)] });
  await createQuote(api, owner.token, { customer_id: ali.id, items: [freeLine(100)] });
  await createQuote(api, owner.token, { items: [freeLine(100)] });
  const later = await createQuote(api, owner.token, { customer_id: awa.id, items: [freeLine(200)] });
  t.strictSame(ids((await listQuotes(api, owner.token, `?customer_id=${awa.id}`)).data), [later.id, forAwa.id]);
  t.strictSame((await listQuotes(api, owner.token, `?customer_id=${randomUUID()}`)).data, [], 'an unknown customer has no quotes');
  t.strictSame(ids((await listQuotes(api, owner.token, `?customer_id=${awa.id}&status=draft`)).data), [later.id, forAwa.id], 'filters combine');
});

t.test('from and to are days of creation in the shop\'s calendar, both included', async (t) => {
  const owner = await registerShop(api);
  const late = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const early = await createQuote(api, owner.token, { items: [freeLine(100)] });
  await api.ownerSql`update quotes set created_at = '2026-03-01T23:30:00Z' where id = ${late.id}`; // 00:30 on 2 March in Douala
  await api.ownerSql`update quotes set created_at = '2026-03-01T22:59:00Z' where id = ${early.id}`; // 23:59 on 1 March
  t.strictSame(ids((await listQuotes(api, owner.token, '?from=2026-03-02&to=2026-03-02')).data), [late.id]);
  t.strictSame(ids((await listQuotes(api, owner.token, '?from=2026-03-01&to=2026-03-01')).data), [early.id]);
  t.strictSame(ids((await listQuotes(api, owner.token, '?from=2026-03-01')).data), [late.id, early.id]);
  t.strictSame(ids((await listQuotes(api, owner.token, '?to=2026-02-28')).data), []);
});

t.test('list bounds: limit 1 to 200, dates real days with to on or after from, status one of five, customer_id a uuid, cursor one of ours', async (t) => {
  const owner = await registerShop(api);
  await createQuote(api, owner.token, { items: [freeLine(100)] });
  await createQuote(api, owner.token, { items: [freeLine(100)] });
  await api.ownerSql`
    insert into quotes (shop_id, quote_no, valid_until, subtotal_xaf, discount_xaf, vat_xaf, total_xaf, created_at)
    select ${owner.shop.id}, 100 + n, '2099-01-01', 0, 0, 0, 0, now() - n * interval '1 minute' from generate_series(1, 49) n`;
  const page = await listQuotes(api, owner.token);
  t.equal(page.data.length, 50, 'limit defaults to 50');
  t.type(page.meta.next_cursor, 'string');
  t.equal((await listQuotes(api, owner.token, `?cursor=${encodeURIComponent(page.meta.next_cursor)}`)).data.length, 1, 'the 51st on the next page');
  const first = await listQuotes(api, owner.token, '?limit=1');
  t.equal(first.data.length, 1);
  t.type(first.meta.next_cursor, 'string');
  t.equal((await listQuotes(api, owner.token, '?limit=200')).data.length, 51);
  t.equal((await listQuotes(api, owner.token, '?from=2026-03-01&to=2026-03-01')).data.length, 0, 'to equal to from');
  const bad: [string, string][] = [
    ['limit=0', 'limit'], ['limit=201', 'limit'], ['limit=abc', 'limit'], ['status=accepted', 'status'], ['status=DRAFT', 'status'],
    ['customer_id=client', 'customer_id'], ['from=01-03-2026', 'from'], ['to=2026-13-01', 'to'], ['from=2026-03-02&to=2026-03-01', 'to'],
    ['cursor=garbage', 'cursor'], ['cursor=bm9uc2Vuc2U', 'cursor'],
  ];
  for (const [query, key] of bad) expectInvalid(t, await api.request('GET', `/quotes?${query}`, { token: owner.token }), key, query);
});

// Changing a quote

t.test('PUT changes only the fields sent: the others, the lines and their prices are kept', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { name: 'Awa Couture' });
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  const quote = await createQuote(api, owner.token, { customer_id: customer.id, note: 'Premier devis', valid_until: '2099-01-31', items: [{ product_id: product.id, quantity: 2 }] });
  await api.request('PUT', `/products/${product.id}`, { token: owner.token, body: { price_xaf: 1200 } });

  const noted = await putQuote(api, owner.token, quote.id, { note: 'Remise négociée' });
  t.equal(noted.status, 200, JSON.stringify(noted.body));
  t.strictSame(Object.keys(noted.body), ['data']);
  const { note, updated_at, ...rest } = noted.body.data;
  const { note: _note, updated_at: _updated, ...before } = quote;
  t.equal(note, 'Remise négociée');
  t.strictSame(rest, before, 'everything else as it was, the lines at their old price included');
  t.ok(Date.parse(updated_at) >= Date.parse(quote.updated_at), 'updated_at moves on');

  const moved = (await putQuote(api, owner.token, quote.id, { valid_until: '2099-02-28' })).body.data;
  t.match(moved, { valid_until: '2099-02-28', note: 'Remise négociée', customer_id: customer.id, total_xaf: 2000 });
  const anonymous = (await putQuote(api, owner.token, quote.id, { customer_id: null, note: null })).body.data;
  t.match(anonymous, { customer_id: null, customer_name: null, note: null, valid_until: '2099-02-28', total_xaf: 2000 });
  const unchanged = (await putQuote(api, owner.token, quote.id, {})).body.data;
  t.strictSame({ ...unchanged, updated_at: null }, { ...anonymous, updated_at: null }, 'an empty body changes nothing');
  t.strictSame(await readQuote(api, owner.token, quote.id), unchanged, 'GET answers what PUT answered');
});

t.test('PUT items replace every line and are priced again with today\'s catalogue', async (t) => {
  const owner = await registerShop(api);
  const soap = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1000, vat_rate: 19.25 });
  const oil = await createProduct(api, owner.token, { name: 'Huile', price_xaf: 2500, vat_rate: 0 });
  const quote = await createQuote(api, owner.token, { note: 'Gardé', items: [{ product_id: soap.id, quantity: 2 }, freeLine(300)] });
  await api.request('PUT', `/products/${soap.id}`, { token: owner.token, body: { price_xaf: 1100 } });
  const reply = await putQuote(api, owner.token, quote.id, { items: [{ product_id: oil.id, quantity: 1 }, { product_id: soap.id, quantity: 3 }] });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  const updated = reply.body.data;
  t.strictSame(updated.items.map((i: any) => [i.line_no, i.name, i.quantity, i.unit_price_xaf]), [[1, 'Huile', 1, 2500], [2, 'Savon', 3, 1100]], 'two new lines at today\'s prices');
  t.match(updated, { note: 'Gardé', quote_no: quote.quote_no, subtotal_xaf: 5800, total_xaf: 5800, vat_xaf: vatOf(3300, 19.25) });
  t.strictSame(updated.vat_breakdown.map((v: any) => v.rate), [0, 19.25]);
  t.strictSame(await readQuote(api, owner.token, quote.id), updated);
});

t.test('PUT items take today\'s promotions: one begun since applies, one ended since no longer does', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 0 });
  const flour = await createProduct(api, owner.token, { price_xaf: 500, vat_rate: 0 });
  const ended = await createPromotion(api, manager.token, { kind: 'percent', value: 10, product_ids: [rice.id] });
  const items = [{ product_id: rice.id, quantity: 2 }, { product_id: flour.id, quantity: 2 }];
  const quote = await createQuote(api, owner.token, { items });
  t.match(quote, { total_xaf: 1800 + 1000, discount_xaf: 200 });
  t.equal((await api.request('DELETE', `/promotions/${ended.id}`, { token: manager.token })).status, 204);
  const begun = await createPromotion(api, manager.token, { kind: 'amount_xaf', value: 100, product_ids: [flour.id] });
  t.match((await putQuote(api, owner.token, quote.id, { note: 'Sans nouveaux prix' })).body.data, { total_xaf: 2800, discount_xaf: 200 }, 'without items the old pricing stands');
  const repriced = (await putQuote(api, owner.token, quote.id, { items })).body.data;
  t.match(repriced.items, [{ promotion_id: null, promotion_discount_xaf: 0, total_xaf: 2000 }, { promotion_id: begun.id, promotion_discount_xaf: 200, total_xaf: 800 }]);
  t.match(repriced, { subtotal_xaf: 3000, discount_xaf: 200, total_xaf: 2800 });
});

t.test('a cashier may change the note, date or customer of a quote a manager priced off the catalogue: its lines are kept, not checked again', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  const customer = await createCustomer(api, owner.token);
  const quote = await createQuote(api, manager.token, { items: [{ product_id: product.id, quantity: 2, unit_price_xaf: 700, vat_rate: 0, discount_xaf: 700 }] });
  const reply = await putQuote(api, cashier.token, quote.id, { note: 'Relancé par téléphone', valid_until: '2099-03-31', customer_id: customer.id });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.strictSame(reply.body.data?.items, quote.items, 'the manager\'s lines as they were');
  t.match(reply.body.data, { total_xaf: 700, customer_id: customer.id, created_by: manager.user.id });
  t.equal((await markQuote(api, cashier.token, quote.id, 'sent')).status, 200, 'and mark it');
  expectError(t, await putQuote(api, cashier.token, quote.id, { items: quote.items.map((i: any) => ({ product_id: i.product_id, quantity: i.quantity, unit_price_xaf: i.unit_price_xaf, vat_rate: i.vat_rate })) }), 403, FORBIDDEN, 'sending the lines again is pricing them');
});

t.test('PUT is validated as a new quote: the lines, the customer, the cashier\'s limits', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 });
  const quote = await createQuote(api, cashier.token, { items: [{ product_id: product.id, quantity: 1 }] });
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { items: [] }), 'items', 'no line');
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { items: [{ product_id: randomUUID(), quantity: 1 }] }), 'items.0.product_id', 'an unknown product');
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { customer_id: randomUUID() }), 'customer_id', 'an unknown customer');
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { valid_until: '2026-02-30' }), 'valid_until', 'not a day');
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { note: chars(256) }), 'note', 'a long note');
  expectError(t, await putQuote(api, cashier.token, quote.id, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1 }] }), 403, FORBIDDEN, 'a cashier\'s own price');
  expectInvalid(t, await putQuote(api, cashier.token, quote.id, { items: [{ product_id: product.id, quantity: 1, discount_xaf: 101 }] }), 'items.0.discount_xaf', 'beyond the cap', 'discount_not_allowed');
  t.strictSame(await readQuote(api, owner.token, quote.id), quote, 'the quote is as it was');
});

t.test('a draft or sent quote shown expired by its date may still be changed: a later valid_until shows it as stored again, and it converts', async (t) => {
  const owner = await registerShop(api);
  const today = await shopDay(api, owner.shop.id);
  const quote = await createQuote(api, owner.token, { valid_until: addDays(today, -2), items: [freeLine(100)] });
  t.equal(quote.status, 'expired');
  const revived = await putQuote(api, owner.token, quote.id, { valid_until: addDays(today, 7) });
  t.equal(revived.status, 200, JSON.stringify(revived.body));
  t.match(revived.body.data, { status: 'draft', valid_until: addDays(today, 7) });
  t.strictSame(ids((await listQuotes(api, owner.token, '?status=draft')).data), [quote.id]);
  const sent = await createQuote(api, owner.token, { items: [freeLine(100)] });
  await mark(api, owner.token, sent.id, 'sent');
  await api.ownerSql`update quotes set valid_until = ${addDays(today, -1)}::date where id = ${sent.id}`;
  const resent = await putQuote(api, owner.token, sent.id, { valid_until: today });
  t.equal(resent.status, 200, JSON.stringify(resent.body));
  t.equal(resent.body.data?.status, 'sent', 'a sent quote shows sent again');
  t.equal((await convert(api, owner.token, sent.id, { payments: cash(100) })).quote.status, 'converted', 'and converts');
});

t.test('a declined, marked expired or converted quote cannot be changed: 409 quote_closed, and it stays as it was', async (t) => {
  const owner = await registerShop(api);
  for (const state of ['declined', 'expired', 'converted']) {
    const quote = await createQuote(api, owner.token, { note: 'Avant', items: [freeLine(100)] });
    if (state === 'converted') await convert(api, owner.token, quote.id, { payments: cash(100) });
    else await mark(api, owner.token, quote.id, state);
    const before = await readQuote(api, owner.token, quote.id);
    expectConflict(t, await putQuote(api, owner.token, quote.id, { note: 'Après' }), 'quote_closed', `${state}: the note`);
    expectConflict(t, await putQuote(api, owner.token, quote.id, { valid_until: '2099-12-31' }), 'quote_closed', `${state}: a later date`);
    expectConflict(t, await putQuote(api, owner.token, quote.id, { items: [freeLine(5)] }), 'quote_closed', `${state}: the lines`);
    t.strictSame(await readQuote(api, owner.token, quote.id), before, `${state}: unchanged`);
  }
});

// Deleting a quote

t.test('a draft or sent quote is deleted (204): it reads 404 and leaves the list', async (t) => {
  const owner = await registerShop(api);
  const draft = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const sent = await createQuote(api, owner.token, { items: [freeLine(100)] });
  await mark(api, owner.token, sent.id, 'sent');
  const kept = await createQuote(api, owner.token, { items: [freeLine(100)] });
  for (const quote of [draft, sent]) {
    const reply = await deleteQuote(api, owner.token, quote.id);
    t.equal(reply.status, 204);
    t.equal(reply.body, '', 'no body');
    expectError(t, await getQuote(api, owner.token, quote.id), 404, NOT_FOUND, 'then GET');
    expectError(t, await deleteQuote(api, owner.token, quote.id), 404, NOT_FOUND, 'deleted twice');
    expectError(t, await putQuote(api, owner.token, quote.id, { note: 'x' }), 404, NOT_FOUND, 'then PUT');
    expectError(t, await markQuote(api, owner.token, quote.id, 'sent'), 404, NOT_FOUND, 'then a status');
    expectError(t, await api.request('POST', `/quotes/${quote.id}/convert`, { token: owner.token, body: { payments: cash(100) } }), 404, NOT_FOUND, 'then convert');
    expectError(t, await document(owner.token, quote.id), 404, NOT_FOUND, 'then the document');
  }
  t.strictSame(ids((await listQuotes(api, owner.token)).data), [kept.id]);
  t.equal((await createQuote(api, owner.token, { items: [freeLine(100)] })).quote_no, 4, 'numbers are not reused');
  t.equal(await saleCount(api, owner.shop.id), 0);
});

t.test('a declined, marked expired or converted quote cannot be deleted: 409 quote_closed', async (t) => {
  const owner = await registerShop(api);
  for (const state of ['declined', 'expired', 'converted']) {
    const quote = await createQuote(api, owner.token, { items: [freeLine(100)] });
    if (state === 'converted') await convert(api, owner.token, quote.id, { payments: cash(100) });
    else await mark(api, owner.token, quote.id, state);
    expectConflict(t, await deleteQuote(api, owner.token, quote.id), 'quote_closed', state);
    t.equal((await readQuote(api, owner.token, quote.id)).status, state, `${state}: still there`);
  }
});

// Marking a quote

t.test('a quote moves freely between draft, sent, declined and expired, raising no sale', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 5);
  const quote = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }] });
  for (const status of ['sent', 'declined', 'draft', 'expired', 'sent', 'draft', 'declined', 'sent']) {
    const reply = await markQuote(api, owner.token, quote.id, status);
    t.equal(reply.status, 200, `to ${status}`);
    t.equal(reply.body.data?.status, status, `shows ${status}`);
    t.equal((await readQuote(api, owner.token, quote.id)).status, status, `reads ${status}`);
  }
  const last = await readQuote(api, owner.token, quote.id);
  t.match(last, { sale_id: null, converted_at: null, total_xaf: 2000 });
  t.equal(await saleCount(api, owner.shop.id), 0, 'no sale');
  t.equal(await onHand(api, product.id), 5, 'no stock moved');
});

t.test('status must be draft, sent, declined or expired: converted or anything else is a 422 on status', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(100)] });
  for (const status of ['converted', 'accepted', 'DRAFT', '', null, 3]) {
    expectInvalid(t, await markQuote(api, owner.token, quote.id, status), 'status', JSON.stringify(status));
  }
  expectInvalid(t, await api.request('POST', `/quotes/${quote.id}/status`, { token: owner.token, body: {} }), 'status', 'missing');
  t.match(await readQuote(api, owner.token, quote.id), { status: 'draft', sale_id: null });
  t.equal(await saleCount(api, owner.shop.id), 0);
});

t.test('a converted quote\'s status cannot change: 409 quote_closed', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const { sale } = await convert(api, owner.token, quote.id, { payments: cash(100) });
  for (const status of ['draft', 'sent', 'declined', 'expired']) expectConflict(t, await markQuote(api, owner.token, quote.id, status), 'quote_closed', status);
  t.match(await readQuote(api, owner.token, quote.id), { status: 'converted', sale_id: sale.id });
});

// The document

t.test('GET /quotes/{id}/document is an HTML page titled "Devis / Proforma" in French, "Proforma invoice" in English, in the shop\'s language by default', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { name: 'Hôtel du Wouri' });
  const quote = await createQuote(api, owner.token, { customer_id: customer.id, valid_until: '2099-06-30', items: [freeLine(12_500, { name: 'Nappes brodées' }), freeLine(100, { name: '<script>alert(1)</script>' })] });
  const french = await document(owner.token, quote.id);
  t.equal(french.status, 200);
  t.match(french.headers.get('content-type'), /^text\/html/);
  t.ok(french.body.includes('Devis / Proforma'), 'a French title by default (the shop is French)');
  t.match(french.body, /<title>[^<]*Devis[^<]*<\/title>/, 'the page is named a quote');
  for (const shown of ['Hôtel du Wouri', 'Nappes brodées', '&lt;script&gt;']) t.ok(french.body.includes(shown), `shows ${shown}`);
  t.notOk(french.body.includes('<script'), 'a name is escaped, never a tag');
  t.ok(/30\/06\/2099|2099-06-30/.test(french.body), 'shows the validity date');
  const english = await document(owner.token, quote.id, '?locale=en&format=a3');
  t.equal(english.status, 200);
  t.match(english.body, /<title>[^<]*Proforma[^<]*<\/title>/, 'an English title');
  t.notOk(english.body.includes('Devis'), 'nothing French');
  await setShop(api, owner, { locale: 'en' });
  t.match((await document(owner.token, quote.id)).body, /<title>[^<]*Proforma[^<]*<\/title>/, 'the shop\'s language by default');
  t.ok((await document(owner.token, quote.id, '?locale=fr')).body.includes('Devis / Proforma'), 'French when asked');
  expectInvalid(t, await document(owner.token, quote.id, '?format=a5'), 'format', 'a5');
  expectInvalid(t, await document(owner.token, quote.id, '?locale=de'), 'locale', 'de');
  expectError(t, await document(owner.token, randomUUID()), 404, NOT_FOUND, 'an unknown quote');
});

// Tenancy and roles

t.test('another shop\'s quote is a 404 on every route, and it stays as it was', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = await createQuote(api, theirs.token, { note: 'À eux', items: [freeLine(100)] });
  const calls: [string, string, unknown?][] = [
    ['GET', `/quotes/${their.id}`],
    ['PUT', `/quotes/${their.id}`, { note: 'Volé' }],
    ['DELETE', `/quotes/${their.id}`],
    ['POST', `/quotes/${their.id}/status`, { status: 'declined' }],
    ['POST', `/quotes/${their.id}/convert`, { payments: cash(100) }],
    ['GET', `/quotes/${their.id}/document`],
  ];
  for (const [method, path, body] of calls) expectError(t, await api.request(method, path, { token: mine.token, body }), 404, NOT_FOUND, `${method} ${path}`);
  t.strictSame((await listQuotes(api, mine.token)).data, [], 'the list holds only the caller\'s quotes');
  t.strictSame(await readQuote(api, theirs.token, their.id), their, 'theirs unchanged');
  t.equal(await saleCount(api, mine.shop.id), 0);
  t.equal(await saleCount(api, theirs.shop.id), 0);
});

t.test('another shop\'s product or variant in a line is a 422 on its key', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const product = await createProduct(api, theirs.token, { price_xaf: 100 });
  const { product: shirt, variants } = await productWithVariants(api, theirs.token, { M: { price_xaf: 2000, on_hand: 2 } });
  const myShirt = await productWithVariants(api, mine.token, { M: { price_xaf: 2000, on_hand: 2 } });
  expectInvalid(t, await postQuote(api, mine.token, { items: [freeLine(10), { product_id: product.id, quantity: 1 }] }), 'items.1.product_id', 'their product');
  expectInvalid(t, await postQuote(api, mine.token, { items: [{ product_id: shirt.id, variant_id: variants.M.id, quantity: 1 }] }), 'items.0.product_id', 'their product and variant');
  expectInvalid(t, await postQuote(api, mine.token, { items: [{ product_id: myShirt.product.id, variant_id: variants.M.id, quantity: 1 }] }), 'items.0.variant_id', 'their variant on my product');
  t.strictSame(await storedQuotes(api, mine.shop.id), []);
});

t.test('a cashier, a manager and the owner may each create, read, list, change, mark, convert and delete quotes', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  for (const [who, user] of [['cashier', cashier], ['manager', manager], ['owner', owner]] as const) {
    const created = await postQuote(api, user.token, { items: [{ product_id: product.id, quantity: 1 }] });
    t.equal(created.status, 201, `${who} creates`);
    const id = created.body.data.id;
    t.equal(created.body.data.created_by, user.user.id, `${who} is its author`);
    t.equal((await getQuote(api, user.token, id)).status, 200, `${who} reads`);
    t.ok((await listQuotes(api, user.token)).data.some((q: any) => q.id === id), `${who} lists`);
    t.equal((await putQuote(api, user.token, id, { note: who })).status, 200, `${who} changes`);
    t.equal((await markQuote(api, user.token, id, 'sent')).status, 200, `${who} marks`);
    t.equal((await document(user.token, id)).status, 200, `${who} prints`);
    t.equal((await api.request('POST', `/quotes/${id}/convert`, { token: user.token, body: { payments: cash(1000) } })).status, 201, `${who} converts`);
    const spare = await createQuote(api, user.token, { items: [freeLine(10)] });
    t.equal((await deleteQuote(api, user.token, spare.id)).status, 204, `${who} deletes`);
  }
  t.equal(await saleCount(api, owner.shop.id), 3);
});

t.test('every quotes route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const calls: [string, string, unknown?][] = [
    ['GET', '/quotes'], ['POST', '/quotes', { items: [freeLine(100)] }], ['GET', `/quotes/${quote.id}`], ['PUT', `/quotes/${quote.id}`, { note: 'x' }],
    ['DELETE', `/quotes/${quote.id}`], ['POST', `/quotes/${quote.id}/status`, { status: 'sent' }], ['POST', `/quotes/${quote.id}/convert`, { payments: cash(100) }],
    ['GET', `/quotes/${quote.id}/document`],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.strictSame(await readQuote(api, owner.token, quote.id), quote, 'unchanged');
  t.equal((await storedQuotes(api, owner.shop.id)).length, 1);
});

t.test('once the subscription has ended every write is a 402 and the quotes still read', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const quote = await createQuote(api, cashier.token, { items: [freeLine(100)] });
  await expireSubscription(api, owner.shop.id);
  const writes: [string, string, unknown?][] = [
    ['POST', '/quotes', { items: [freeLine(100)] }], ['PUT', `/quotes/${quote.id}`, { note: 'x' }], ['DELETE', `/quotes/${quote.id}`],
    ['POST', `/quotes/${quote.id}/status`, { status: 'sent' }], ['POST', `/quotes/${quote.id}/convert`, { payments: cash(100) }],
  ];
  for (const [method, path, body] of writes) {
    for (const [who, token] of [['cashier', cashier.token], ['owner', owner.token]]) {
      expectError(t, await api.request(method, path, { token, body }), 402, SUBSCRIPTION_REQUIRED, `${who}: ${method} ${path}`);
    }
  }
  t.strictSame(await readQuote(api, cashier.token, quote.id), quote, 'GET still answers, unchanged');
  t.strictSame(ids((await listQuotes(api, cashier.token)).data), [quote.id], 'the list still answers');
  t.equal((await document(cashier.token, quote.id)).status, 200, 'the document still answers');
  t.equal(await saleCount(api, owner.shop.id), 0);
});

t.test('quotes have no other routes: 405 or 404, never a 500', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const calls: [string, string][] = [['PUT', '/quotes'], ['DELETE', '/quotes'], ['POST', `/quotes/${quote.id}`], ['GET', `/quotes/${quote.id}/convert`]];
  for (const [method, path] of calls) {
    const reply: Reply = await api.request(method, path, { token: owner.token, body: method === 'GET' || method === 'DELETE' ? undefined : { note: 'x' } });
    t.ok([404, 405].includes(reply.status), `${method} ${path}: ${reply.status}`);
  }
  t.strictSame(await readQuote(api, owner.token, quote.id), quote);
});
