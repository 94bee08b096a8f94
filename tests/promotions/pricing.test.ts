import { randomUUID } from 'node:crypto';
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  createCategory,
  createProduct,
  createPromotion,
  deletePromotion,
  preview,
  priced,
  productWithVariants,
  putPromotion,
  setShop,
  staffedShop,
  type PreviewItem,
} from './promotion-fixtures.ts';

const api = await startService(t);

/** A Wednesday, 11:00 in Douala: inside every window that is not the subject of a test. */
const AT = '2025-06-04T10:00:00Z';

/** The promotion part of each line: [promotion_id, promotion_discount_xaf]. */
const promotionsOf = (data: any) => data.items.map((line: any) => [line.promotion_id, line.promotion_discount_xaf]);

/** A shop whose owner manages promotions, with a product at the given price. */
async function shopWith(price = 1000, fields: Record<string, unknown> = {}) {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: price, ...fields });
  return { owner, manager, cashier, product };
}

/** The promotion discount of one line of `quantity` of the product at `at`. */
async function discountOn(token: string, item: PreviewItem, at = AT): Promise<[string | null, number]> {
  const data = await priced(api, token, [item], at);
  return [data.items[0].promotion_id, data.items[0].promotion_discount_xaf];
}

// The preview itself

t.test('a cashier may preview a basket; each line comes back with its prices and the basket with its totals', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const other = await createProduct(api, owner.token, { price_xaf: 450 });
  const promotion = await createPromotion(api, owner.token, { name: 'Dix pour cent', kind: 'percent', value: 10, product_ids: [product.id] });
  const reply = await preview(api, cashier.token, [{ product_id: product.id, quantity: 3 }, { product_id: other.id, quantity: 2, discount_xaf: 100 }], AT);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data, {
    at: '2025-06-04T10:00:00.000Z',
    items: [
      {
        index: 0, product_id: product.id, variant_id: null, quantity: 3, unit_price_xaf: 1000, gross_xaf: 3000, discount_xaf: 0,
        promotion_id: promotion.id, promotion_name: 'Dix pour cent', promotion_discount_xaf: 300, total_xaf: 2700,
      },
      {
        index: 1, product_id: other.id, variant_id: null, quantity: 2, unit_price_xaf: 450, gross_xaf: 900, discount_xaf: 100,
        promotion_id: null, promotion_name: null, promotion_discount_xaf: 0, total_xaf: 800,
      },
    ],
    subtotal_xaf: 3900,
    discount_xaf: 400,
    total_xaf: 3500,
  });
});

t.test('without `at` the basket is priced now', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  await createPromotion(api, owner.token, { kind: 'percent', value: 10, ends_at: new Date(Date.now() + 3_600_000).toISOString() });
  await createPromotion(api, owner.token, { kind: 'percent', value: 50, starts_at: new Date(Date.now() + 3_600_000).toISOString() });
  const before = Date.now();
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 1 }]);
  t.ok(Date.parse(data.at) >= before - 1000 && Date.parse(data.at) <= Date.now() + 1000, 'at is now');
  t.equal(data.items[0].promotion_discount_xaf, 100, 'the promotion running now, not the one starting in an hour');
});

t.test('the basket is validated: 1 to 200 lines, a positive quantity, whole XAF prices and discounts, an ISO time', async (t) => {
  const { cashier, product } = await shopWith(1000);
  const line = { product_id: product.id, quantity: 1 };
  const send = (items: unknown, at?: unknown) => api.request('POST', '/promotions/preview', { token: cashier.token, body: at === undefined ? { items } : { items, at } });
  expectInvalid(t, await send([]), 'items', 'no line');
  expectInvalid(t, await send(Array.from({ length: 201 }, () => line)), 'items', '201 lines');
  t.equal((await send(Array.from({ length: 200 }, () => line))).status, 200, '200 lines');
  expectInvalid(t, await send([{ ...line, quantity: 0 }]), 'items.0.quantity', 'quantity 0');
  expectInvalid(t, await send([line, { ...line, quantity: -1 }]), 'items.1.quantity', 'quantity -1');
  expectInvalid(t, await send([{ ...line, quantity: 1.0005 }]), 'items.0.quantity', 'quantity with 4 decimals');
  expectInvalid(t, await send([{ ...line, unit_price_xaf: -1 }]), 'items.0.unit_price_xaf', 'negative price');
  expectInvalid(t, await send([{ ...line, unit_price_xaf: 10.5 }]), 'items.0.unit_price_xaf', 'fractional price');
  expectInvalid(t, await send([{ ...line, discount_xaf: -1 }]), 'items.0.discount_xaf', 'negative discount');
  expectInvalid(t, await send([{ ...line, product_id: 'nope' }]), 'items.0.product_id', 'not a uuid');
  expectInvalid(t, await send([line], '2025-06-04'), 'at', 'a date without a time');
  t.equal((await send([{ ...line, quantity: 0.001 }])).status, 200, 'quantity 0.001');
});

t.test('an unknown, deleted or another shop\'s product is 422 on items.N.product_id; a variant not of the product on items.N.variant_id', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const theirs = await registerShop(api);
  const theirProduct = await createProduct(api, theirs.token);
  const gone = await createProduct(api, owner.token);
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: owner.token })).status, 204);
  const { variants } = await productWithVariants(api, owner.token, { M: 1200 });
  const line = { product_id: product.id, quantity: 1 };
  expectInvalid(t, await preview(api, cashier.token, [line, { product_id: randomUUID(), quantity: 1 }], AT), 'items.1.product_id', 'unknown');
  expectInvalid(t, await preview(api, cashier.token, [{ product_id: theirProduct.id, quantity: 1 }], AT), 'items.0.product_id', 'another shop\'s');
  expectInvalid(t, await preview(api, cashier.token, [{ product_id: gone.id, quantity: 1 }], AT), 'items.0.product_id', 'deleted');
  expectInvalid(t, await preview(api, cashier.token, [{ ...line, variant_id: variants.M.id }], AT), 'items.0.variant_id', 'another product\'s variant');
  expectInvalid(t, await preview(api, cashier.token, [{ ...line, variant_id: randomUUID() }], AT), 'items.0.variant_id', 'unknown variant');
});

t.test('unit_price_xaf defaults to the catalogue price, the variant\'s when a variant is given', async (t) => {
  const { owner, cashier } = await shopWith();
  const { product, variants } = await productWithVariants(api, owner.token, { M: 1200, L: 1350 }, { price_xaf: 1000 });
  const data = await priced(api, cashier.token, [
    { product_id: product.id, quantity: 1 },
    { product_id: product.id, variant_id: variants.M.id, quantity: 1 },
    { product_id: product.id, variant_id: variants.L.id, quantity: 2 },
    { product_id: product.id, variant_id: variants.L.id, quantity: 1, unit_price_xaf: 900 },
    { product_id: product.id, quantity: 1, unit_price_xaf: 0 },
  ], AT);
  t.strictSame(data.items.map((line: any) => [line.unit_price_xaf, line.gross_xaf]), [[1000, 1000], [1200, 1200], [1350, 2700], [900, 900], [0, 0]]);
  t.equal(data.subtotal_xaf, 5800);
});

// Kinds

t.test('a percent promotion on a product takes that percent off its lines only', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const other = await createProduct(api, owner.token, { price_xaf: 500 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 12.5, product_ids: [product.id] });
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 3 }, { product_id: other.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(data), [[promotion.id, 375], [null, 0]]);
});

t.test('a percent promotion on a category applies to the products of that category', async (t) => {
  const { owner, cashier } = await shopWith();
  const drinks = await createCategory(api, owner.token, { name: 'Boissons' });
  const soda = await createProduct(api, owner.token, { price_xaf: 400, category_id: drinks.id });
  const { product: juice, variants } = await productWithVariants(api, owner.token, { '1L': 1500 }, { price_xaf: 800, category_id: drinks.id });
  const bread = await createProduct(api, owner.token, { price_xaf: 250 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 20, category_ids: [drinks.id] });
  const data = await priced(api, cashier.token, [
    { product_id: soda.id, quantity: 2 },
    { product_id: juice.id, variant_id: variants['1L'].id, quantity: 1 },
    { product_id: bread.id, quantity: 4 },
  ], AT);
  t.strictSame(promotionsOf(data), [[promotion.id, 160], [promotion.id, 300], [null, 0]]);
});

t.test('a percent promotion on a variant applies to that variant only', async (t) => {
  const { owner, cashier } = await shopWith();
  const { product, variants } = await productWithVariants(api, owner.token, { M: 2000, L: 2400 }, { price_xaf: 2000 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 25, variant_ids: [variants.M.id] });
  const data = await priced(api, cashier.token, [
    { product_id: product.id, variant_id: variants.M.id, quantity: 1 },
    { product_id: product.id, variant_id: variants.L.id, quantity: 1 },
    { product_id: product.id, quantity: 1 },
  ], AT);
  t.strictSame(promotionsOf(data), [[promotion.id, 500], [null, 0], [null, 0]]);
});

t.test('a promotion on a product covers each of its variants', async (t) => {
  const { owner, cashier } = await shopWith();
  const { product, variants } = await productWithVariants(api, owner.token, { M: 2000 }, { price_xaf: 1800 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id] });
  const data = await priced(api, cashier.token, [{ product_id: product.id, variant_id: variants.M.id, quantity: 1 }, { product_id: product.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(data), [[promotion.id, 200], [promotion.id, 180]]);
});

t.test('a whole-sale percent applies to every line', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const other = await createProduct(api, owner.token, { price_xaf: 350 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 5 });
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 2 }, { product_id: other.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(data), [[promotion.id, 100], [promotion.id, 18]], '5% of 350 = 17.5 rounds to 18');
});

t.test('an amount off takes its value off each unit, never more than the line', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const promotion = await createPromotion(api, owner.token, { kind: 'amount_xaf', value: 150, product_ids: [product.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 3 }), [promotion.id, 450], '3 units');
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 0.5 }), [promotion.id, 75], 'half a unit');
  const cheap = await createProduct(api, owner.token, { price_xaf: 100 });
  const over = await createPromotion(api, owner.token, { kind: 'amount_xaf', value: 150, product_ids: [cheap.id] });
  const data = await priced(api, cashier.token, [{ product_id: cheap.id, quantity: 2 }], AT);
  t.strictSame(promotionsOf(data), [[over.id, 200]], 'capped at the line');
  t.equal(data.items[0].total_xaf, 0, 'the line is free, not negative');
});

t.test('a fixed price sells each unit at that price; a fixed price above the unit price gives nothing', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const fixed = await createPromotion(api, owner.token, { kind: 'price_xaf', value: 750, product_ids: [product.id] });
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 4 }], AT);
  t.strictSame(promotionsOf(data), [[fixed.id, 1000]]);
  t.equal(data.items[0].total_xaf, 3000, '4 at 750');
  const dear = await createProduct(api, owner.token, { price_xaf: 1000 });
  await createPromotion(api, owner.token, { kind: 'price_xaf', value: 1200, product_ids: [dear.id] });
  const above = await priced(api, cashier.token, [{ product_id: dear.id, quantity: 2 }], AT);
  t.strictSame(promotionsOf(above), [[null, 0]], 'no promotion applied');
  t.equal(above.items[0].total_xaf, 2000, 'the catalogue price, not more');
  const free = await createProduct(api, owner.token, { price_xaf: 600 });
  const gift = await createPromotion(api, owner.token, { kind: 'price_xaf', value: 0, product_ids: [free.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: free.id, quantity: 2 }), [gift.id, 1200], 'a fixed price of 0 gives the line away');
});

t.test('buy 2 get 1: in each group of 3 units one is free', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const promotion = await createPromotion(api, owner.token, { kind: 'buy_x_get_y', value: 1, min_quantity: 2, product_ids: [product.id] });
  const cases: [number, number][] = [[1, 0], [2, 0], [3, 1000], [5, 1000], [6, 2000], [7.5, 2000], [9, 3000]];
  for (const [quantity, discount] of cases) {
    const [id, amount] = await discountOn(cashier.token, { product_id: product.id, quantity });
    t.equal(amount, discount, `${quantity} units: ${discount / 1000} free`);
    t.equal(id, discount > 0 ? promotion.id : null, `${quantity} units: promotion ${discount > 0 ? 'applied' : 'not applied'}`);
  }
});

// Conditions

t.test('min_quantity: a line needs at least that quantity, counted line by line', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id], min_quantity: 3 });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 2.999 }), [null, 0], 'just under');
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 3 }), [promotion.id, 300], 'exactly');
  const split = await priced(api, cashier.token, [{ product_id: product.id, quantity: 2 }, { product_id: product.id, quantity: 2 }], AT);
  t.strictSame(promotionsOf(split), [[null, 0], [null, 0]], 'two lines of 2 are not a line of 4');
});

t.test('min_total_xaf: the basket, after manual discounts, needs at least that total', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const other = await createProduct(api, owner.token, { price_xaf: 2000 });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, min_total_xaf: 5000 });
  const under = await priced(api, cashier.token, [{ product_id: product.id, quantity: 2 }, { product_id: other.id, quantity: 1, unit_price_xaf: 2999 }], AT);
  t.equal(under.subtotal_xaf, 4999);
  t.strictSame(promotionsOf(under), [[null, 0], [null, 0]], '4999');
  const exact = await priced(api, cashier.token, [{ product_id: product.id, quantity: 3 }, { product_id: other.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(exact), [[promotion.id, 300], [promotion.id, 200]], '5000: every line');
  const discounted = await priced(api, cashier.token, [{ product_id: product.id, quantity: 3, discount_xaf: 1 }, { product_id: other.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(discounted), [[null, 0], [null, 0]], 'a manual discount of 1 brings it to 4999');
});

// When a promotion runs

t.test('a promotion runs from starts_at (included) until ends_at (excluded)', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const promotion = await createPromotion(api, owner.token, {
    kind: 'percent', value: 10, product_ids: [product.id], starts_at: '2025-06-01T00:00:00Z', ends_at: '2025-06-08T00:00:00Z',
  });
  const item = { product_id: product.id, quantity: 1 };
  t.strictSame(await discountOn(cashier.token, item, '2025-05-31T23:59:59.999Z'), [null, 0], 'just before');
  t.strictSame(await discountOn(cashier.token, item, '2025-06-01T00:00:00Z'), [promotion.id, 100], 'at the start');
  t.strictSame(await discountOn(cashier.token, item, '2025-06-01T01:00:00+02:00'), [null, 0], 'an offset is honoured: 23:00 UTC the day before');
  t.strictSame(await discountOn(cashier.token, item, '2025-06-07T23:59:59.999Z'), [promotion.id, 100], 'just before the end');
  t.strictSame(await discountOn(cashier.token, item, '2025-06-08T00:00:00Z'), [null, 0], 'at the end');
});

t.test('days of the week are the shop\'s local days', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  await setShop(api, owner, { timezone: 'Asia/Tokyo' });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id], days_of_week: [1] });
  const item = { product_id: product.id, quantity: 1 };
  t.strictSame(await discountOn(cashier.token, item, '2025-01-05T15:00:00Z'), [promotion.id, 100], 'Sunday in UTC, Monday 00:00 in Tokyo');
  t.strictSame(await discountOn(cashier.token, item, '2025-01-05T14:59:59Z'), [null, 0], 'Sunday 23:59:59 in Tokyo');
  t.strictSame(await discountOn(cashier.token, item, '2025-01-06T14:59:59Z'), [promotion.id, 100], 'Monday 23:59:59 in Tokyo');
  t.strictSame(await discountOn(cashier.token, item, '2025-01-06T16:00:00Z'), [null, 0], 'Monday in UTC, Tuesday in Tokyo');
  const weekend = await createPromotion(api, owner.token, { kind: 'percent', value: 20, product_ids: [product.id], days_of_week: [6, 7] });
  t.strictSame(await discountOn(cashier.token, item, '2025-01-04T03:00:00Z'), [weekend.id, 200], 'Saturday noon in Tokyo');
  t.strictSame(await discountOn(cashier.token, item, '2025-01-05T14:00:00Z'), [weekend.id, 200], 'Sunday 23:00 in Tokyo');
});

t.test('daily hours are the shop\'s local time, from starts_time (included) to ends_time (excluded)', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  await setShop(api, owner, { timezone: 'Asia/Kolkata' });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id], starts_time: '09:00', ends_time: '12:00' });
  const item = { product_id: product.id, quantity: 1 };
  const cases: [string, string, boolean][] = [
    ['2025-06-04T03:29:59Z', '08:59:59', false],
    ['2025-06-04T03:30:00Z', '09:00', true],
    ['2025-06-04T06:29:00Z', '11:59', true],
    ['2025-06-04T06:30:00Z', '12:00', false],
    ['2025-06-04T10:00:00Z', '15:30', false],
  ];
  for (const [at, local, applies] of cases) {
    t.strictSame(await discountOn(cashier.token, item, at), applies ? [promotion.id, 100] : [null, 0], `${local} in Kolkata: ${applies ? 'on' : 'off'}`);
  }
});

t.test('a window from 22:00 to 02:00 runs over midnight', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  await setShop(api, owner, { timezone: 'Asia/Tokyo' });
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id], starts_time: '22:00', ends_time: '02:00' });
  const item = { product_id: product.id, quantity: 1 };
  const cases: [string, string, boolean][] = [
    ['2025-06-04T12:59:00Z', '21:59', false],
    ['2025-06-04T13:00:00Z', '22:00', true],
    ['2025-06-04T14:59:59Z', '23:59:59', true],
    ['2025-06-04T15:00:00Z', '00:00', true],
    ['2025-06-04T16:59:59Z', '01:59:59', true],
    ['2025-06-04T17:00:00Z', '02:00', false],
    ['2025-06-04T03:00:00Z', '12:00', false],
  ];
  for (const [at, local, applies] of cases) {
    t.strictSame(await discountOn(cashier.token, item, at), applies ? [promotion.id, 100] : [null, 0], `${local} in Tokyo: ${applies ? 'on' : 'off'}`);
  }
});

t.test('an inactive or deleted promotion never applies', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const item = { product_id: product.id, quantity: 1 };
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 30, product_ids: [product.id], active: false });
  t.strictSame(await discountOn(cashier.token, item), [null, 0], 'created inactive');
  t.equal((await putPromotion(api, owner.token, promotion.id, { active: true })).status, 200);
  t.strictSame(await discountOn(cashier.token, item), [promotion.id, 300], 'switched on');
  t.equal((await putPromotion(api, owner.token, promotion.id, { active: false })).status, 200);
  t.strictSame(await discountOn(cashier.token, item), [null, 0], 'switched off');
  t.equal((await putPromotion(api, owner.token, promotion.id, { active: true })).status, 200);
  t.equal((await deletePromotion(api, owner.token, promotion.id)).status, 204);
  t.strictSame(await discountOn(cashier.token, item), [null, 0], 'deleted');
});

t.test('another shop\'s promotions never apply', async (t) => {
  const { cashier, product } = await shopWith(1000);
  const theirs = await registerShop(api);
  await createPromotion(api, theirs.token, { kind: 'percent', value: 50 });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [null, 0]);
});

// Choosing among promotions

t.test('each line gets the single best promotion, never two stacked', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const other = await createProduct(api, owner.token, { price_xaf: 500 });
  await createPromotion(api, owner.token, { name: 'Dix', kind: 'percent', value: 10, product_ids: [product.id] });
  const amount = await createPromotion(api, owner.token, { name: 'Cent cinquante', kind: 'amount_xaf', value: 150, product_ids: [product.id] });
  const sale = await createPromotion(api, owner.token, { name: 'Cinq', kind: 'percent', value: 5 });
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 2 }, { product_id: other.id, quantity: 1 }], AT);
  t.strictSame(promotionsOf(data), [[amount.id, 300], [sale.id, 25]], '300 beats 200 and 100; the other line has only the 5%');
  t.equal(data.items[0].promotion_name, 'Cent cinquante');
  t.equal(data.items[0].total_xaf, 1700, 'one promotion taken off, not 600');
  const bigger = await priced(api, cashier.token, [{ product_id: product.id, quantity: 0.5 }], AT);
  t.strictSame(promotionsOf(bigger), [[amount.id, 75]], 'half a unit: 75 off still beats 50 and 25');
});

t.test('the best promotion depends on the line: a percent wins on a dearer price', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const percent = await createPromotion(api, owner.token, { kind: 'percent', value: 20, product_ids: [product.id] });
  const amount = await createPromotion(api, owner.token, { kind: 'amount_xaf', value: 150, product_ids: [product.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [percent.id, 200], 'at 1000');
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1, unit_price_xaf: 700 }), [amount.id, 150], 'at 700');
});

t.test('on a tie the oldest promotion wins, even after the younger one is edited or the older one renamed', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const older = await createPromotion(api, owner.token, { name: 'Older', kind: 'percent', value: 10, product_ids: [product.id] });
  const younger = await createPromotion(api, owner.token, { name: 'Younger', kind: 'amount_xaf', value: 100, product_ids: [product.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [older.id, 100]);
  t.equal((await putPromotion(api, owner.token, older.id, { name: 'Older renamed' })).status, 200);
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [older.id, 100], 'an edit does not make it younger');
  t.equal((await putPromotion(api, owner.token, younger.id, { value: 101 })).status, 200);
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [younger.id, 101], 'no longer a tie');
});

// Manual discounts and rounding

t.test('a manual discount comes off before the promotion, and a line total is never negative', async (t) => {
  const { owner, cashier, product } = await shopWith(1000);
  const percent = await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [product.id] });
  const data = await priced(api, cashier.token, [{ product_id: product.id, quantity: 1, discount_xaf: 200 }], AT);
  t.match(data.items[0], { gross_xaf: 1000, discount_xaf: 200, promotion_id: percent.id, promotion_discount_xaf: 80, total_xaf: 720 }, '10% of the 800 left');
  const over = await priced(api, cashier.token, [{ product_id: product.id, quantity: 1, discount_xaf: 5000 }], AT);
  t.match(over.items[0], { gross_xaf: 1000, discount_xaf: 1000, promotion_id: null, promotion_discount_xaf: 0, total_xaf: 0 }, 'a manual discount beyond the line');
  const other = await createProduct(api, owner.token, { price_xaf: 1000 });
  const amount = await createPromotion(api, owner.token, { kind: 'amount_xaf', value: 300, product_ids: [other.id] });
  const capped = await priced(api, cashier.token, [{ product_id: other.id, quantity: 1, discount_xaf: 900 }], AT);
  t.match(capped.items[0], { discount_xaf: 900, promotion_id: amount.id, promotion_discount_xaf: 100, total_xaf: 0 }, 'the promotion takes only what is left');
  t.equal(over.total_xaf + capped.total_xaf, 0);
});

t.test('amounts round half away from zero', async (t) => {
  const { owner, cashier, product } = await shopWith(1230);
  const promotion = await createPromotion(api, owner.token, { kind: 'percent', value: 15, product_ids: [product.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: product.id, quantity: 1 }), [promotion.id, 185], '15% of 1230 = 184.5 → 185');
  const gross = await priced(api, cashier.token, [{ product_id: product.id, quantity: 0.5, unit_price_xaf: 1001 }], AT);
  t.equal(gross.items[0].gross_xaf, 501, '0.5 x 1001 = 500.5 → 501');
  t.equal(gross.items[0].promotion_discount_xaf, 75, '15% of 501 = 75.15 → 75');
  const other = await createProduct(api, owner.token, { price_xaf: 1000 });
  const amount = await createPromotion(api, owner.token, { kind: 'amount_xaf', value: 5, product_ids: [other.id] });
  t.strictSame(await discountOn(cashier.token, { product_id: other.id, quantity: 0.1 }), [amount.id, 1], '0.1 x 5 = 0.5 → 1');
  t.strictSame(await discountOn(cashier.token, { product_id: other.id, quantity: 0.099 }), [null, 0], '0.099 x 5 = 0.495 → 0: no promotion');
});
