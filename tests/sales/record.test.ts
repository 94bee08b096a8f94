import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { chars, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, MALFORMED_JSON, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import { pairDevice } from '../sync/sync-fixtures.ts';
import {
  createCustomer,
  createPromotion,
  expectLedgerInvariants,
  givePoints,
  METHODS,
  movements,
  onHand,
  openShift,
  postings,
  postSale,
  productWithVariants,
  readCustomer,
  readSale,
  receiptJobCount,
  receiptJobs,
  receiptNumbers,
  saleCount,
  saleJournal,
  sell,
  setShop,
  staffedShop,
  TREASURY,
  upTo,
  vatOf,
  voidSale,
} from './sale-fixtures.ts';

const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
/** A free-text line: no product, so no stock and no catalogue. */
const line = (unitPrice: number, fields: Record<string, unknown> = {}) => ({ name: 'Article libre', quantity: 1, unit_price_xaf: unitPrice, vat_rate: 0, ...fields });

const SALE_KEYS = [
  'cashier_id', 'cashier_name', 'certification', 'change_xaf', 'created_at', 'credit_xaf', 'customer_id', 'device_id', 'discount_xaf', 'id', 'items', 'note',
  'offline', 'paid_xaf', 'payments', 'points_earned', 'points_redeemed', 'quote_id', 'receipt_no', 'recorded_at', 'refunds', 'shift_id', 'status',
  'subtotal_xaf', 'till_created_at', 'total_xaf', 'updated_at', 'vat_breakdown', 'vat_xaf', 'void_certification', 'void_reason', 'voided_at',
].sort();
const ITEM_KEYS = [
  'discount_xaf', 'id', 'line_no', 'name', 'product_id', 'promotion_discount_xaf', 'promotion_id', 'points_discount_xaf', 'quantity',
  'refunded_quantity', 'total_xaf', 'unit_price_xaf', 'variant_id', 'vat_rate', 'vat_xaf',
].sort();

async function statement(token: string, customerId: string): Promise<any> {
  const reply = await api.request('GET', `/customers/${customerId}/statement`, { token });
  if (reply.status !== 200) throw new Error(`statement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function storedPoints(customerId: string): Promise<number> {
  const [row] = await api.ownerSql<{ points: number }[]>`select points from customers where id = ${customerId}`;
  return row!.points;
}

/** A refused sale: a 422 naming exactly `key`, with `code`. */
function expectRefused(t: Test, reply: Reply, key: string, code: string, what = ''): void {
  expectInvalid(t, reply, key, what, code);
}

// The catalogue

t.test('a sale answers 201 with the whole sale: items, payments, refunds and VAT breakdown', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1500 }, 5);
  const reply = await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(1500), note: 'Merci' });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.strictSame(Object.keys(reply.body).sort(), ['data']);
  const sale = reply.body.data;
  t.strictSame(Object.keys(sale).sort(), SALE_KEYS);
  t.strictSame(Object.keys(sale.items[0]).sort(), ITEM_KEYS);
  t.match(sale, { status: 'completed', receipt_no: 1, cashier_id: cashier.user.id, customer_id: null, note: 'Merci', offline: false, refunds: [] });
  t.ok(sale.created_at.endsWith('Z') && !Number.isNaN(Date.parse(sale.created_at)), 'created_at is ISO-8601 UTC');
  t.strictSame(await readSale(api, owner.token, sale.id), sale, 'GET /sales/{id} answers the same record');
});

t.test('a line that omits price and VAT rate takes the catalogue\'s; a variant line takes the variant\'s price', async (t) => {
  const owner = await registerShop(api);
  const plain = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1500, vat_rate: 5.5 }, 10);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 3 }, L: { price_xaf: 3000, on_hand: 3 } }, { name: 'Chemise', price_xaf: 1000, vat_rate: 19.25 });
  const given = await createProduct(api, owner.token, { name: 'Riz', price_xaf: 2000, vat_rate: 19.25 }, 10);
  const sale = await sell(api, owner.token, {
    items: [
      { product_id: plain.id, quantity: 2 },
      { product_id: shirt.id, variant_id: variants.L.id, quantity: 1 },
      { product_id: given.id, quantity: 1, unit_price_xaf: 1800, vat_rate: 0, name: 'Riz (sac abîmé)' },
    ],
    payments: cash(1500 * 2 + 3000 + 1800),
  });
  t.match(sale.items[0], { line_no: 1, product_id: plain.id, variant_id: null, name: 'Savon', unit_price_xaf: 1500, vat_rate: 5.5, total_xaf: 3000 });
  t.match(sale.items[1], { line_no: 2, product_id: shirt.id, variant_id: variants.L.id, name: 'Chemise (L)', unit_price_xaf: 3000, vat_rate: 19.25, total_xaf: 3000 });
  t.match(sale.items[2], { line_no: 3, product_id: given.id, name: 'Riz (sac abîmé)', unit_price_xaf: 1800, vat_rate: 0, vat_xaf: 0, total_xaf: 1800 });
  t.equal(sale.total_xaf, 7800);
});

t.test('a product with variants needs variant_id (422 variant_required), and the variant must be the product\'s', async (t) => {
  const owner = await registerShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 3 } });
  const other = await productWithVariants(api, owner.token, { S: { price_xaf: 900, on_hand: 3 } });
  const plain = await createProduct(api, owner.token, {}, 3);
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(2500) }), 'items.0.variant_id', 'variant_required', 'omitted');
  expectRefused(t, await postSale(api, owner.token, { items: [line(10), { product_id: product.id, variant_id: null, quantity: 1 }], payments: cash(3000) }), 'items.1.variant_id', 'variant_required', 'null, second line');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, variant_id: other.variants.S.id, quantity: 1 }], payments: cash(2500) }), 'items.0.variant_id', 'validation_failed', 'another product\'s variant');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: plain.id, variant_id: variants.M.id, quantity: 1 }], payments: cash(2500) }), 'items.0.variant_id', 'validation_failed', 'a product without variants');
  expectRefused(t, await postSale(api, owner.token, { items: [{ variant_id: variants.M.id, quantity: 1 }], payments: cash(2500) }), 'items.0.product_id', 'validation_failed', 'a variant without its product');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: randomUUID(), quantity: 1 }], payments: cash(2500) }), 'items.0.product_id', 'validation_failed', 'an unknown product');
  t.equal(await saleCount(api, owner.shop.id), 0, 'nothing was recorded');
  t.equal(await onHand(api, product.id, variants.M.id), 3);
});

t.test('a line without a product needs a name and a unit price; its VAT rate defaults to the shop\'s', async (t) => {
  const owner = await registerShop(api);
  expectRefused(t, await postSale(api, owner.token, { items: [{ quantity: 1, unit_price_xaf: 500 }], payments: cash(500) }), 'items.0.product_id', 'validation_failed', 'no name');
  expectRefused(t, await postSale(api, owner.token, { items: [{ name: 'Service', quantity: 1 }], payments: cash(500) }), 'items.0.product_id', 'validation_failed', 'no price');
  expectRefused(t, await postSale(api, owner.token, { items: [{ name: 'Service', quantity: 1, unit_price_xaf: null }], payments: cash(500) }), 'items.0.product_id', 'validation_failed', 'null price');
  const sale = await sell(api, owner.token, { items: [{ name: 'Réparation', quantity: 1, unit_price_xaf: 1000 }], payments: cash(1000) });
  t.match(sale.items[0], { product_id: null, variant_id: null, name: 'Réparation', unit_price_xaf: 1000, vat_rate: 19.25, vat_xaf: 161, total_xaf: 1000 });
  await setShop(api, owner, { default_vat_rate: 10 });
  const after = await sell(api, owner.token, { items: [{ name: 'Réparation', quantity: 1, unit_price_xaf: 1100 }], payments: cash(1100) });
  t.equal(after.items[0].vat_rate, 10, 'the shop\'s current default');
  t.equal(after.items[0].vat_xaf, 100);
});

// Totals and VAT

t.test('a line\'s total is round(quantity x unit price) - its discount, half away from zero', async (t) => {
  const owner = await registerShop(api);
  const sale = await sell(api, owner.token, {
    items: [
      line(101, { quantity: 2.5 }), // 252.5 -> 253 (half-even would say 252)
      line(4, { quantity: 0.125 }), // 0.5 -> 1
      line(100, { quantity: 1.005 }), // 100.5 -> 101
      line(333, { quantity: 1.5, discount_xaf: 99 }), // 499.5 -> 500, less 99
      line(1000, { quantity: 3, discount_xaf: 0 }),
    ],
    payments: cash(10_000),
  });
  t.strictSame(sale.items.map((i: any) => i.total_xaf), [253, 1, 101, 401, 3000]);
  t.strictSame(sale.items.map((i: any) => i.discount_xaf), [0, 0, 0, 99, 0]);
  t.strictSame(sale.items.map((i: any) => i.quantity), [2.5, 0.125, 1.005, 1.5, 3], 'quantities kept with their decimals');
  t.equal(sale.subtotal_xaf, 253 + 1 + 101 + 500 + 3000, 'subtotal: the rounded gross of each line');
  t.equal(sale.discount_xaf, 99);
  t.equal(sale.total_xaf, 253 + 1 + 101 + 401 + 3000);
  t.equal(sale.change_xaf, 10_000 - sale.total_xaf);
});

t.test('a line\'s VAT is round(total x rate / (100 + rate)) half away from zero, and the sale\'s VAT their sum', async (t) => {
  const owner = await registerShop(api);
  const sale = await sell(api, owner.token, {
    items: [
      line(1031, { discount_xaf: 20, vat_rate: 20 }), // 1011 x 20 / 120 = 168.5 -> 169 (half-even: 168)
      line(101, { quantity: 2.5, vat_rate: 100 }), // 253 x 100 / 200 = 126.5 -> 127
      line(1000, { vat_rate: 19.25 }), // 161.42 -> 161
      line(999, { vat_rate: 0 }),
      line(15, { vat_rate: 20 }), // 2.5 -> 3
    ],
    payments: cash(1011 + 253 + 1000 + 999 + 15),
  });
  t.strictSame(sale.items.map((i: any) => i.vat_xaf), [169, 127, 161, 0, 3]);
  t.strictSame(sale.items.map((i: any) => i.vat_rate), [20, 100, 19.25, 0, 20]);
  t.equal(sale.vat_xaf, 169 + 127 + 161 + 3);
  t.equal(sale.total_xaf, 1011 + 253 + 1000 + 999 + 15);
  t.equal(vatOf(1000, 19.25), 161, 'the expected figures follow the CONTRACT\'s rule');
});

t.test('the VAT breakdown has one row per rate: base, VAT and total, by rate', async (t) => {
  const owner = await registerShop(api);
  const sale = await sell(api, owner.token, {
    items: [line(1031, { discount_xaf: 20, vat_rate: 20 }), line(1000, { vat_rate: 19.25 }), line(15, { vat_rate: 20 }), line(999, { vat_rate: 0 }), line(500, { vat_rate: 19.25 })],
    payments: cash(1011 + 1000 + 15 + 999 + 500),
  });
  t.strictSame(sale.vat_breakdown, [
    { rate: 0, base_xaf: 999, vat_xaf: 0, total_xaf: 999 },
    { rate: 19.25, base_xaf: 1500 - 161 - 81, vat_xaf: 161 + 81, total_xaf: 1500 },
    { rate: 20, base_xaf: 1026 - 172, vat_xaf: 169 + 3, total_xaf: 1026 },
  ]);
  const sum = (key: string) => sale.vat_breakdown.reduce((s: number, v: any) => s + v[key], 0);
  t.equal(sum('vat_xaf'), sale.vat_xaf);
  t.equal(sum('total_xaf'), sale.total_xaf);
});

// Promotions

t.test('promotions come from the pricing rule: the best one per line, carried with its discount', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const promoted = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  const plain = await createProduct(api, owner.token, { price_xaf: 700, vat_rate: 19.25 }, 10);
  const tenPercent = await createPromotion(api, manager.token, { kind: 'percent', value: 10, product_ids: [promoted.id] });
  await createPromotion(api, manager.token, { kind: 'amount_xaf', value: 50, product_ids: [promoted.id] });
  const sale = await sell(api, owner.token, {
    items: [{ product_id: promoted.id, quantity: 3, discount_xaf: 100 }, { product_id: plain.id, quantity: 1 }],
    payments: cash(5000),
  });
  // 3000 - 100 = 2900; 10 % of it is 290 (the 3 x 50 = 150 off is smaller); never both.
  t.match(sale.items[0], { promotion_id: tenPercent.id, promotion_discount_xaf: 290, discount_xaf: 100, total_xaf: 2610, vat_xaf: vatOf(2610, 19.25) });
  t.match(sale.items[1], { promotion_id: null, promotion_discount_xaf: 0, total_xaf: 700 });
  t.equal(sale.discount_xaf, 390, 'the sale\'s discount: line discounts and promotions');
  t.equal(sale.subtotal_xaf, 3700);
  t.equal(sale.total_xaf, 3310);
  t.equal(sale.change_xaf, 5000 - 3310);
});

t.test('a whole-sale percent promotion with a minimum basket applies only from that basket', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const promo = await createPromotion(api, manager.token, { kind: 'percent', value: 5, min_total_xaf: 2000 });
  const small = await sell(api, owner.token, { items: [line(1999)], payments: cash(1999) });
  t.equal(small.items[0].promotion_id, null, 'under the minimum');
  t.equal(small.total_xaf, 1999);
  const big = await sell(api, owner.token, { items: [line(1500), line(510)], payments: cash(2010) });
  t.strictSame(big.items.map((i: any) => [i.promotion_id, i.promotion_discount_xaf]), [[promo.id, 75], [promo.id, 26]], '5 % of 1500 and of 510 (25.5 -> 26)');
  t.equal(big.total_xaf, 2010 - 101);
  t.equal(big.change_xaf, 101, 'overpaid in cash: change');
});

// Redeemed points

t.test('redeemed points are worth the shop\'s redeem rate and come off the lines pro rata, the last line taking the remainder', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 5 });
  const customer = await createCustomer(api, owner.token);
  await givePoints(api, owner.token, customer.id, 200);
  const sale = await sell(api, owner.token, {
    customer_id: customer.id,
    redeem_points: 101,
    items: [line(1000), line(2000), line(333)],
    payments: cash(2828),
  });
  // 505 XAF over 3333: floor(505 x 1000 / 3333) = 151, floor(505 x 2000 / 3333) = 303, the last 505 - 454 = 51.
  t.strictSame(sale.items.map((i: any) => i.points_discount_xaf), [151, 303, 51]);
  t.strictSame(sale.items.map((i: any) => i.total_xaf), [849, 1697, 282]);
  t.equal(sale.points_redeemed, 101);
  t.equal(sale.discount_xaf, 505);
  t.equal(sale.total_xaf, 3333 - 505);
  t.equal(sale.points_earned, 28, 'earned on what was paid: floor(2828 x 0.01)');
  t.equal(await storedPoints(customer.id), 200 - 101 + 28);
});

t.test('points worth exactly the sale pay for it whole', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 10 });
  const customer = await createCustomer(api, owner.token);
  await givePoints(api, owner.token, customer.id, 100);
  const sale = await sell(api, owner.token, { customer_id: customer.id, redeem_points: 100, items: [line(600), line(400)] });
  t.equal(sale.total_xaf, 0);
  t.equal(sale.paid_xaf, 0);
  t.strictSame(sale.items.map((i: any) => i.points_discount_xaf), [600, 400]);
  t.equal(await storedPoints(customer.id), 0);
});

t.test('redeeming points needs a customer, enough points, and a sale worth at least the points', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 5 });
  const customer = await createCustomer(api, owner.token);
  await givePoints(api, owner.token, customer.id, 100);
  expectRefused(t, await postSale(api, owner.token, { redeem_points: 10, items: [line(1000)], payments: cash(1000) }), 'redeem_points', 'validation_failed', 'no customer');
  expectRefused(t, await postSale(api, owner.token, { customer_id: customer.id, redeem_points: 101, items: [line(1000)], payments: cash(1000) }), 'redeem_points', 'insufficient_points', 'beyond the balance');
  expectRefused(t, await postSale(api, owner.token, { customer_id: customer.id, redeem_points: 100, items: [line(499)], payments: cash(0) }), 'redeem_points', 'redeem_exceeds_total', '500 XAF of points on a 499 XAF sale');
  t.equal(await storedPoints(customer.id), 100, 'no point was taken by a refused sale');
  t.equal(await saleCount(api, owner.shop.id), 0);
  const zero = await postSale(api, owner.token, { redeem_points: 0, items: [line(1000)], payments: cash(1000) });
  t.equal(zero.status, 201, 'redeem_points 0 needs no customer');
});

// Payments

t.test('change is given from cash only', async (t) => {
  const owner = await registerShop(api);
  const cashOver = await sell(api, owner.token, { items: [line(1000)], payments: cash(5000) });
  t.match(cashOver, { total_xaf: 1000, paid_xaf: 5000, change_xaf: 4000, credit_xaf: 0 });
  t.strictSame(cashOver.payments.map((p: any) => [p.kind, p.method, p.amount_xaf]).sort(), [['change', 'cash', -4000], ['payment', 'cash', 5000]]);
  const mixed = await sell(api, owner.token, { items: [line(1000)], payments: [{ method: 'card', amount_xaf: 600, reference: 'TPE-1' }, { method: 'cash', amount_xaf: 1000 }] });
  t.match(mixed, { paid_xaf: 1600, change_xaf: 600 });
  t.equal(mixed.payments.find((p: any) => p.method === 'card').reference, 'TPE-1');
  const exactCard = await sell(api, owner.token, { items: [line(1000)], payments: [{ method: 'card', amount_xaf: 1000 }] });
  t.match(exactCard, { paid_xaf: 1000, change_xaf: 0 });
  t.strictSame(exactCard.payments.map((p: any) => p.kind), ['payment'], 'no change row when none is given');
  expectRefused(t, await postSale(api, owner.token, { items: [line(1000)], payments: [{ method: 'card', amount_xaf: 1500 }] }), 'payments', 'change_without_cash', 'a card overpays');
  expectRefused(t, await postSale(api, owner.token, { items: [line(1000)], payments: [{ method: 'card', amount_xaf: 900 }, { method: 'cash', amount_xaf: 200 }, { method: 'carrier1_momo', amount_xaf: 200 }] }), 'payments', 'change_without_cash', 'more change than cash');
  t.equal(await saleCount(api, owner.shop.id), 3);
});

t.test('a payment of 0 XAF is accepted and not recorded as a payment', async (t) => {
  const owner = await registerShop(api);
  const sale = await sell(api, owner.token, { items: [line(1000)], payments: [{ method: 'card', amount_xaf: 0 }, { method: 'cash', amount_xaf: 1000 }] });
  t.strictSame(sale.payments.map((p: any) => [p.method, p.amount_xaf]), [['cash', 1000]]);
});

t.test('a shortfall without a customer is refused: 422 payment_insufficient on payments', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 5);
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(999) }), 'payments', 'payment_insufficient', '1 XAF short');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] }), 'payments', 'payment_insufficient', 'no payment at all');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [] }), 'payments', 'payment_insufficient', 'an empty list');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'credit', amount_xaf: 1000 }] }), 'payments', 'payment_insufficient', 'credit without a customer');
  t.equal(await saleCount(api, owner.shop.id), 0);
  t.equal(await onHand(api, product.id), 5, 'the stock did not move');
  const free = await sell(api, owner.token, { items: [line(0)] });
  t.match(free, { total_xaf: 0, paid_xaf: 0, credit_xaf: 0 }, 'a sale worth nothing needs no payment');
});

t.test('a shortfall for a customer within the ceiling goes on the account; beyond it 422 credit_limit_exceeded', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 5000 });
  const first = await sell(api, owner.token, { customer_id: customer.id, items: [line(3000)], payments: cash(1000) });
  t.match(first, { total_xaf: 3000, paid_xaf: 1000, change_xaf: 0, credit_xaf: 2000 });
  t.strictSame(first.payments.map((p: any) => [p.kind, p.method, p.amount_xaf]).sort(), [['payment', 'cash', 1000], ['payment', 'credit', 2000]]);
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 2000);
  const owed = await statement(owner.token, customer.id);
  t.match(owed, { balance_xaf: 2000, available_credit_xaf: 3000 });
  t.match(owed.unsettled, [{ source_type: 'sale', source_id: first.id, amount_xaf: 2000, settled_xaf: 0, remaining_xaf: 2000 }], 'the statement shows the sale unsettled');
  const toCeiling = await sell(api, owner.token, { customer_id: customer.id, items: [line(3000)] });
  t.equal(toCeiling.credit_xaf, 3000, 'nothing paid: all on the account, up to the ceiling exactly');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 5000);
  expectRefused(t, await postSale(api, owner.token, { customer_id: customer.id, items: [line(1)] }), 'customer_id', 'credit_limit_exceeded', '1 XAF over the ceiling');
  const noCredit = await createCustomer(api, owner.token);
  expectRefused(t, await postSale(api, owner.token, { customer_id: noCredit.id, items: [line(100)], payments: cash(50) }), 'customer_id', 'credit_limit_exceeded', 'a customer without credit');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 5000, 'unchanged');
  t.equal(await saleCount(api, owner.shop.id), 2);
});

t.test('method credit puts that part on the account explicitly, never more than is left to pay', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1500)], payments: [{ method: 'credit', amount_xaf: 1000 }, { method: 'cash', amount_xaf: 500 }] });
  t.match(sale, { total_xaf: 1500, paid_xaf: 500, credit_xaf: 1000, change_xaf: 0 });
  t.strictSame(sale.payments.map((p: any) => [p.method, p.amount_xaf]).sort(), [['cash', 500], ['credit', 1000]]);
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 1000);
  const all = await sell(api, owner.token, { customer_id: customer.id, items: [line(700)], payments: [{ method: 'credit', amount_xaf: 700 }] });
  t.match(all, { paid_xaf: 0, credit_xaf: 700 });
  expectRefused(t, await postSale(api, owner.token, { customer_id: customer.id, items: [line(700)], payments: [{ method: 'credit', amount_xaf: 701 }] }), 'payments', 'validation_failed', 'credit beyond the total');
  expectRefused(t, await postSale(api, owner.token, { customer_id: customer.id, items: [line(700)], payments: [{ method: 'credit', amount_xaf: 500 }, { method: 'cash', amount_xaf: 500 }] }), 'payments', 'validation_failed', 'credit and change together');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 1700);
});

// Points earned

t.test('points earned = floor((total - credit) x earn rate x the tier\'s multiplier)', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { loyalty_earn_rate: 0.03 });
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const first = await sell(api, owner.token, { customer_id: customer.id, items: [line(1234)], payments: cash(1234) });
  t.equal(first.points_earned, 37, 'floor(1234 x 0.03) = floor(37.02), Bronze x 1');
  const second = await sell(api, owner.token, { customer_id: customer.id, items: [line(33_334)], payments: cash(33_334) });
  t.equal(second.points_earned, 1000, 'floor(1000.02)');
  t.equal((await readCustomer(api, owner.token, customer.id)).tier.key, 'silver', '1037 points earned this year: Silver (x 1.25)');
  const onCredit = await sell(api, owner.token, { customer_id: customer.id, items: [line(2000)], payments: cash(766) });
  t.equal(onCredit.credit_xaf, 1234);
  t.equal(onCredit.points_earned, 28, 'floor(766 x 0.03 x 1.25) = floor(28.725): nothing on the part owed');
  t.equal(await storedPoints(customer.id), 37 + 1000 + 28);
  const anonymous = await sell(api, owner.token, { items: [line(5000)], payments: cash(5000) });
  t.equal(anonymous.points_earned, 0, 'no customer, no points');
});

// Receipt numbers

t.test('receipt numbers are 1, 2, 3... per shop, independent between shops, and a refused sale takes none', async (t) => {
  const first = await registerShop(api);
  const second = await registerShop(api);
  t.equal((await sell(api, first.token, { items: [line(100)], payments: cash(100) })).receipt_no, 1);
  expectRefused(t, await postSale(api, first.token, { items: [line(100)], payments: [{ method: 'card', amount_xaf: 200 }] }), 'payments', 'change_without_cash');
  expectRefused(t, await postSale(api, first.token, { items: [line(100)], payments: cash(99) }), 'payments', 'payment_insufficient');
  t.equal((await sell(api, first.token, { items: [line(100)], payments: cash(100) })).receipt_no, 2, 'no gap after refused sales');
  t.equal((await sell(api, second.token, { items: [line(100)], payments: cash(100) })).receipt_no, 1, 'the other shop counts from 1');
  t.equal((await sell(api, first.token, { items: [line(100)], payments: cash(100) })).receipt_no, 3);
  t.equal((await sell(api, second.token, { items: [line(100)], payments: cash(100) })).receipt_no, 2);
  t.strictSame(await receiptNumbers(api, first.shop.id), [1, 2, 3]);
  t.strictSame(await receiptNumbers(api, second.shop.id), [1, 2]);
});

// Stock

t.test('tracked lines write sale movements and decrement on-hand; untracked lines do not', async (t) => {
  const owner = await registerShop(api);
  const tracked = await createProduct(api, owner.token, { unit: 'kg' }, 10);
  const untracked = await createProduct(api, owner.token, { tracked: false, name: 'Recharge' });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2000, on_hand: 4 }, L: { price_xaf: 2000, on_hand: 2 } });
  const sale = await sell(api, owner.token, {
    items: [{ product_id: tracked.id, quantity: 2.5 }, { product_id: untracked.id, quantity: 3 }, { product_id: shirt.id, variant_id: variants.M.id, quantity: 1 }],
    payments: cash(100_000),
  });
  t.equal(await onHand(api, tracked.id), 7.5);
  t.match((await movements(api, tracked.id)).at(-1), { type: 'sale', quantity: -2.5, on_hand_after: 7.5, variant_id: null, source_type: 'sale', source_id: sale.id });
  t.equal(await onHand(api, shirt.id, variants.M.id), 3);
  t.equal(await onHand(api, shirt.id, variants.L.id), 2, 'the other variant is untouched');
  t.equal(await onHand(api, shirt.id), 5, 'the product is the sum of its variants');
  t.match((await movements(api, shirt.id)).at(-1), { type: 'sale', quantity: -1, on_hand_after: 3, variant_id: variants.M.id, source_id: sale.id });
  t.strictSame(await movements(api, untracked.id), [], 'no movement for an untracked product');
  t.equal(await onHand(api, untracked.id), 0);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('beyond on-hand is 422 insufficient_stock on that line\'s quantity, unless the shop allows negative stock', async (t) => {
  const owner = await registerShop(api);
  const tracked = await createProduct(api, owner.token, {}, 2);
  const untracked = await createProduct(api, owner.token, { tracked: false });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2000, on_hand: 4 } });
  expectRefused(t, await postSale(api, owner.token, { items: [line(5), { product_id: tracked.id, quantity: 2.001 }], payments: cash(100_000) }), 'items.1.quantity', 'insufficient_stock', 'one line');
  expectRefused(t, await postSale(api, owner.token, { items: [line(5), { product_id: tracked.id, quantity: 1.5 }, { product_id: tracked.id, quantity: 1 }], payments: cash(100_000) }), 'items.1.quantity', 'insufficient_stock', 'two lines of one product together');
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: shirt.id, variant_id: variants.M.id, quantity: 5 }], payments: cash(100_000) }), 'items.0.quantity', 'insufficient_stock', 'a variant');
  t.equal(await saleCount(api, owner.shop.id), 0);
  t.equal(await onHand(api, tracked.id), 2);
  t.equal(await onHand(api, shirt.id, variants.M.id), 4);
  const untrackedSale = await postSale(api, owner.token, { items: [{ product_id: untracked.id, quantity: 1000 }], payments: cash(1_000_000) });
  t.equal(untrackedSale.status, 201, 'an untracked product is never short');
  const exact = await postSale(api, owner.token, { items: [{ product_id: tracked.id, quantity: 2 }], payments: cash(2000) });
  t.equal(exact.status, 201, 'exactly the stock');
  t.equal(await onHand(api, tracked.id), 0);
  expectRefused(t, await postSale(api, owner.token, { items: [{ product_id: tracked.id, quantity: 1 }], payments: cash(1000) }), 'items.0.quantity', 'insufficient_stock', 'none left');

  await setShop(api, owner, { allow_negative_stock: true });
  const negative = await postSale(api, owner.token, { items: [{ product_id: tracked.id, quantity: 3 }], payments: cash(3000) });
  t.equal(negative.status, 201, 'allowed once the shop allows negative stock');
  t.equal(await onHand(api, tracked.id), -3);
  t.match((await movements(api, tracked.id)).at(-1), { type: 'sale', quantity: -3, on_hand_after: -3 });
  await expectLedgerInvariants(t, api, owner.shop.id);
});

// The journal

t.test('a cash sale posts one entry: 571 against 701 and 4431, and its goods at cost 6031 against 31', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, cost_xaf: 600, vat_rate: 19.25 }, 10);
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }], payments: cash(5000) });
  const lines = await saleJournal(api, sale.id);
  t.equal(new Set(lines.map((l) => l.entry_id)).size, 1, 'one entry, the goods at cost included (CONTRACT section 5: a money event posts an entry)');
  t.strictSame(postings(lines, 'sale'), { '31': [0, 1200], '4431': [0, 323], '571': [2000, 0], '6031': [1200, 0], '701': [0, 1677] }, 'cash net of change');
  t.equal(sale.vat_xaf, 323);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('each method debits its own account: credit 411, card and bank 521, mobile money 585', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 100_000 });
  for (const method of METHODS) {
    const sale = await sell(api, owner.token, { items: [line(1000, { vat_rate: 19.25 })], payments: [{ method, amount_xaf: 1000 }] });
    t.strictSame(postings(await saleJournal(api, sale.id), 'sale'), { '4431': [0, 161], [TREASURY[method]]: [1000, 0], '701': [0, 839] }, method);
  }
  const onCredit = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000, { vat_rate: 19.25 })] });
  t.strictSame(postings(await saleJournal(api, onCredit.id), 'sale'), { '411': [1000, 0], '4431': [0, 161], '701': [0, 839] }, 'credit');
  const mixed = await sell(api, owner.token, {
    customer_id: customer.id,
    items: [line(2000, { vat_rate: 0 })],
    payments: [{ method: 'cash', amount_xaf: 600 }, { method: 'card', amount_xaf: 500 }, { method: 'carrier2_money', amount_xaf: 500 }],
  });
  t.strictSame(postings(await saleJournal(api, mixed.id), 'sale'), { '411': [400, 0], '521': [500, 0], '571': [600, 0], '585': [500, 0], '701': [0, 2000] }, 'mixed');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a sale of untracked goods posts no cost entry', async (t) => {
  const owner = await registerShop(api);
  const service = await createProduct(api, owner.token, { tracked: false, price_xaf: 500, cost_xaf: 300, vat_rate: 0 });
  const sale = await sell(api, owner.token, { items: [{ product_id: service.id, quantity: 2 }], payments: cash(1000) });
  t.strictSame(postings(await saleJournal(api, sale.id), 'sale'), { '571': [1000, 0], '701': [0, 1000] });
});

// Shifts

t.test('a sale is attached to the cashier\'s open shift, and to none when the cashier has none open', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const before = await sell(api, cashier.token, { items: [line(100)], payments: cash(100) });
  t.equal(before.shift_id, null, 'no shift open');
  const shiftId = await openShift(api, cashier.token);
  const during = await sell(api, cashier.token, { items: [line(100)], payments: cash(500) });
  t.equal(during.shift_id, shiftId, 'attached');
  const payments = await api.ownerSql<{ shift_id: string | null }[]>`select shift_id from sale_payments where sale_id = ${during.id}`;
  t.strictSame(payments.map((p) => p.shift_id), [shiftId, shiftId], 'its payment and its change too');
  const byManager = await sell(api, manager.token, { items: [line(100)], payments: cash(100) });
  t.equal(byManager.shift_id, null, 'another user\'s sale is not attached to the cashier\'s shift');
  const listed = await api.request('GET', `/sales?shift_id=${shiftId}`, { token: owner.token });
  t.strictSame(listed.body.data.map((s: any) => s.id), [during.id], 'listed by shift');
});

// Jobs

t.test('an e-mailed receipt is queued when the customer has an e-mail, and never for a refused sale', async (t) => {
  const owner = await registerShop(api);
  const withEmail = await createCustomer(api, owner.token, { email: 'awa@example.cm', credit_ceiling_xaf: 0 });
  const without = await createCustomer(api, owner.token);
  const emailed = await sell(api, owner.token, { customer_id: withEmail.id, items: [line(100)], payments: cash(100) });
  const jobs = await receiptJobs(api, emailed.id);
  t.equal(jobs.length, 1, 'one job');
  t.match(jobs[0]!.payload, { sale_id: emailed.id, shop_id: owner.shop.id, email: 'awa@example.cm' });
  t.equal((await receiptJobs(api, (await sell(api, owner.token, { customer_id: without.id, items: [line(100)], payments: cash(100) })).id)).length, 0, 'a customer without e-mail');
  t.equal((await receiptJobs(api, (await sell(api, owner.token, { items: [line(100)], payments: cash(100) })).id)).length, 0, 'no customer');
  const queued = await receiptJobCount(api);
  expectRefused(t, await postSale(api, owner.token, { customer_id: withEmail.id, items: [line(100)], payments: cash(50) }), 'customer_id', 'credit_limit_exceeded');
  expectRefused(t, await postSale(api, owner.token, { customer_id: withEmail.id, items: [line(100)], payments: [{ method: 'card', amount_xaf: 150 }] }), 'payments', 'change_without_cash');
  t.equal(await receiptJobCount(api), queued, 'a refused sale queues nothing');
});

// Bounds of POST /sales

t.test('items: at least one', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postSale(api, owner.token, { items: [] }), 'items', 'empty');
  expectInvalid(t, await postSale(api, owner.token, { payments: cash(100) }), 'items', 'missing');
  expectInvalid(t, await postSale(api, owner.token, { items: null }), 'items', 'null');
  t.equal((await postSale(api, owner.token, { items: [line(100)], payments: cash(100) })).status, 201, 'one item');
});

t.test('note: at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postSale(api, owner.token, { note: chars(256), items: [line(1)], payments: cash(1) }), 'note', '256');
  expectInvalid(t, await postSale(api, owner.token, { note: 5, items: [line(1)], payments: cash(1) }), 'note', 'a number');
  t.equal((await sell(api, owner.token, { note: chars(255), items: [line(1)], payments: cash(1) })).note, chars(255), '255');
  t.equal((await sell(api, owner.token, { note: null, items: [line(1)], payments: cash(1) })).note, null, 'null');
});

t.test('an item\'s name: at most 200 characters', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postSale(api, owner.token, { items: [line(1, { name: chars(201) })], payments: cash(1) }), 'items.0.name', '201');
  t.equal((await sell(api, owner.token, { items: [line(1, { name: chars(200) })], payments: cash(1) })).items[0].name, chars(200), '200');
});

t.test('an item\'s vat_rate: 0 to 100, at most 2 decimals', async (t) => {
  const owner = await registerShop(api);
  for (const [rate, what] of [[-0.01, '-0.01'], [100.01, '100.01'], [19.255, '3 decimals'], ['19', 'a string']] as const) {
    expectInvalid(t, await postSale(api, owner.token, { items: [line(1000, { vat_rate: rate })], payments: cash(1000) }), 'items.0.vat_rate', what);
  }
  t.equal((await sell(api, owner.token, { items: [line(1000, { vat_rate: 0 })], payments: cash(1000) })).items[0].vat_xaf, 0, '0');
  t.equal((await sell(api, owner.token, { items: [line(1000, { vat_rate: 100 })], payments: cash(1000) })).items[0].vat_xaf, 500, '100');
  t.equal((await sell(api, owner.token, { items: [line(1000, { vat_rate: null })], payments: cash(1000) })).items[0].vat_rate, 19.25, 'null: the default');
});

t.test('an item\'s quantity: required, more than 0, at most 3 decimals', async (t) => {
  const owner = await registerShop(api);
  for (const [quantity, what] of [[0, '0'], [-1, '-1'], [1.0005, '4 decimals'], ['1', 'a string'], [null, 'null']] as const) {
    expectInvalid(t, await postSale(api, owner.token, { items: [line(1000, { quantity })], payments: cash(100_000) }), 'items.0.quantity', what);
  }
  expectInvalid(t, await postSale(api, owner.token, { items: [{ name: 'X', unit_price_xaf: 10 }], payments: cash(10) }), 'items.0.quantity', 'missing');
  const smallest = await sell(api, owner.token, { items: [line(1000, { quantity: 0.001 })], payments: cash(1) });
  t.equal(smallest.items[0].quantity, 0.001, '0.001');
  t.equal(smallest.total_xaf, 1);
});

t.test('an item\'s unit_price_xaf and discount_xaf: integers, at least 0', async (t) => {
  const owner = await registerShop(api);
  for (const field of ['unit_price_xaf', 'discount_xaf']) {
    for (const [value, what] of [[-1, '-1'], [1.5, '1.5'], ['10', 'a string']] as const) {
      expectInvalid(t, await postSale(api, owner.token, { items: [line(100, { [field]: value })], payments: cash(1000) }), `items.0.${field}`, `${field} ${what}`);
    }
  }
  t.equal((await sell(api, owner.token, { items: [line(0)] })).total_xaf, 0, 'unit_price_xaf 0');
  t.equal((await sell(api, owner.token, { items: [line(100, { discount_xaf: 0 })], payments: cash(100) })).total_xaf, 100, 'discount_xaf 0');
});

t.test('redeem_points: an integer, at least 0', async (t) => {
  const owner = await registerShop(api);
  for (const [value, what] of [[-1, '-1'], [1.5, '1.5'], ['2', 'a string']] as const) {
    expectInvalid(t, await postSale(api, owner.token, { redeem_points: value, items: [line(100)], payments: cash(100) }), 'redeem_points', what);
  }
  t.equal((await sell(api, owner.token, { redeem_points: null, items: [line(100)], payments: cash(100) })).points_redeemed, 0, 'null');
});

t.test('payments: a method of the list, an integer amount of at least 0, a reference of at most 120 characters', async (t) => {
  const owner = await registerShop(api);
  const pay = (payment: Record<string, unknown>) => postSale(api, owner.token, { items: [line(100)], payments: [payment] });
  expectInvalid(t, await pay({ method: 'cheque', amount_xaf: 100 }), 'payments.0.method', 'an unknown method');
  expectInvalid(t, await pay({ amount_xaf: 100 }), 'payments.0.method', 'no method');
  expectInvalid(t, await pay({ method: 'cash' }), 'payments.0.amount_xaf', 'no amount');
  expectInvalid(t, await pay({ method: 'cash', amount_xaf: -1 }), 'payments.0.amount_xaf', '-1');
  expectInvalid(t, await pay({ method: 'cash', amount_xaf: 100.5 }), 'payments.0.amount_xaf', '100.5');
  expectInvalid(t, await pay({ method: 'cash', amount_xaf: 100, reference: chars(121) }), 'payments.0.reference', 'a reference of 121');
  expectInvalid(t, await postSale(api, owner.token, { items: [line(100)], payments: { method: 'cash', amount_xaf: 100 } }), 'payments', 'not a list');
  t.equal((await pay({ method: 'card', amount_xaf: 100, reference: chars(120) })).status, 201, 'a reference of 120');
  t.equal((await pay({ method: 'cash', amount_xaf: 100, reference: null })).status, 201, 'a null reference');
  for (const method of ['carrier1_momo', 'carrier2_money', 'card', 'bank', 'cash']) {
    t.equal((await pay({ method, amount_xaf: 100 })).status, 201, method);
  }
});

t.test('id, customer_id, device_id and product_id are UUIDs', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await postSale(api, owner.token, { id: 'sale-1', items: [line(100)], payments: cash(100) }), 'id');
  expectInvalid(t, await postSale(api, owner.token, { customer_id: 'abc', items: [line(100)], payments: cash(100) }), 'customer_id');
  expectInvalid(t, await postSale(api, owner.token, { device_id: 'till-1', items: [line(100)], payments: cash(100) }), 'device_id');
  expectInvalid(t, await postSale(api, owner.token, { items: [{ product_id: 'abc', quantity: 1 }], payments: cash(100) }), 'items.0.product_id');
  expectInvalid(t, await postSale(api, owner.token, { items: [{ product_id: randomUUID(), variant_id: 'abc', quantity: 1 }], payments: cash(100) }), 'items.0.variant_id');
  expectRefused(t, await postSale(api, owner.token, { customer_id: randomUUID(), items: [line(100)], payments: cash(100) }), 'customer_id', 'validation_failed', 'an unknown customer');
  t.equal((await postSale(api, owner.token, { id: randomUUID(), items: [line(100)], payments: cash(100) })).status, 201);
  t.equal(await saleCount(api, owner.shop.id), 1, 'only the valid sale was recorded');
});

t.test('device_id must be one of the shop\'s live devices: another shop\'s, an unknown or a revoked one is 422 on device_id; its own is stored', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const theirs = await registerShop(api);
  const mine = await pairDevice(api, owner.token, 'Caisse 1');
  const revoked = await pairDevice(api, owner.token, 'Caisse volée');
  t.equal((await api.request('DELETE', `/devices/${revoked.id}`, { token: owner.token })).status, 204);
  const their = await pairDevice(api, theirs.token);
  expectRefused(t, await postSale(api, cashier.token, { device_id: their.id, items: [line(100)], payments: cash(100) }), 'device_id', 'validation_failed', 'another shop\'s device');
  expectRefused(t, await postSale(api, cashier.token, { device_id: randomUUID(), items: [line(100)], payments: cash(100) }), 'device_id', 'validation_failed', 'an unknown device');
  expectRefused(t, await postSale(api, cashier.token, { device_id: revoked.id, items: [line(100)], payments: cash(100) }), 'device_id', 'validation_failed', 'a revoked device');
  t.equal(await saleCount(api, owner.shop.id), 0, 'nothing recorded');
  const sale = await sell(api, cashier.token, { device_id: mine.id, items: [line(100)], payments: cash(100) });
  t.equal(sale.device_id, mine.id, 'the shop\'s own device is stored');
  t.equal((await sell(api, cashier.token, { device_id: null, items: [line(100)], payments: cash(100) })).device_id, null, 'no device');
});

t.test('a basket whose total does not fit the ledger is refused (422), never a server error', async (t) => {
  const owner = await registerShop(api);
  // Every input is within its bounds (quantity and unit price up to 10^9 each), but ten such lines add up to 10^19 XAF.
  const items = Array.from({ length: 10 }, () => line(1_000_000_000, { quantity: 1_000_000_000 }));
  const reply = await postSale(api, owner.token, { items, payments: cash(1_000_000_000_000) });
  expectInvalid(t, reply, 'items', 'refused as too large, not a server error');
  t.equal(await saleCount(api, owner.shop.id), 0);
});

t.test('a malformed body is 400 malformed_json', async (t) => {
  const owner = await registerShop(api);
  const reply = await api.request('POST', '/sales', { token: owner.token, rawBody: '{"items": [' });
  expectError(t, reply, 400, MALFORMED_JSON);
});

// Tenancy and roles

t.test('another shop\'s product, variant or customer is a 422 on its key, and its stock is untouched', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const product = await createProduct(api, theirs.token, {}, 5);
  const { product: shirt, variants } = await productWithVariants(api, theirs.token, { M: { price_xaf: 2000, on_hand: 2 } });
  const myShirt = await productWithVariants(api, mine.token, { M: { price_xaf: 2000, on_hand: 2 } });
  const customer = await createCustomer(api, theirs.token, { credit_ceiling_xaf: 100_000 });
  expectRefused(t, await postSale(api, mine.token, { items: [line(10), { product_id: product.id, quantity: 1 }], payments: cash(5000) }), 'items.1.product_id', 'validation_failed', 'product');
  expectRefused(t, await postSale(api, mine.token, { items: [{ product_id: shirt.id, variant_id: variants.M.id, quantity: 1 }], payments: cash(5000) }), 'items.0.product_id', 'validation_failed', 'their product and variant');
  expectRefused(t, await postSale(api, mine.token, { items: [{ product_id: myShirt.product.id, variant_id: variants.M.id, quantity: 1 }], payments: cash(5000) }), 'items.0.variant_id', 'validation_failed', 'their variant on my product');
  expectRefused(t, await postSale(api, mine.token, { customer_id: customer.id, items: [line(100)] }), 'customer_id', 'validation_failed', 'customer');
  t.equal(await onHand(api, product.id), 5);
  t.equal(await onHand(api, shirt.id, variants.M.id), 2);
  t.equal((await readCustomer(api, theirs.token, customer.id)).balance_xaf, 0);
  t.equal(await saleCount(api, mine.shop.id), 0);
});

t.test('a cashier sells (201); no token is 401; after the subscription ended 402, reads still answer', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const sale = await postSale(api, cashier.token, { items: [line(100)], payments: cash(100) });
  t.equal(sale.status, 201);
  t.equal(sale.body.data.cashier_id, cashier.user.id);
  t.equal(sale.body.data.cashier_name, cashier.user.name);
  expectError(t, await api.request('POST', '/sales', { body: { items: [line(100)], payments: cash(100) } }), 401, UNAUTHENTICATED, 'no token');
  expectError(t, await api.request('GET', '/sales'), 401, UNAUTHENTICATED, 'list without token');
  await expireSubscription(api, owner.shop.id);
  expectError(t, await postSale(api, cashier.token, { items: [line(100)], payments: cash(100) }), 402, SUBSCRIPTION_REQUIRED, 'cashier');
  expectError(t, await postSale(api, owner.token, { items: [line(100)], payments: cash(100) }), 402, SUBSCRIPTION_REQUIRED, 'owner');
  t.equal(await saleCount(api, owner.shop.id), 1);
  t.equal((await api.request('GET', '/sales', { token: cashier.token })).status, 200, 'the list still reads');
  t.equal((await api.request('GET', `/sales/${sale.body.data.id}`, { token: cashier.token })).status, 200, 'the sale still reads');
});

// Reading sales

t.test('GET /sales/{id}: another shop\'s sale or an unknown id is 404; a malformed id 422', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = await sell(api, theirs.token, { items: [line(100)], payments: cash(100) });
  expectError(t, await api.request('GET', `/sales/${their.id}`, { token: mine.token }), 404, NOT_FOUND, 'another shop\'s');
  expectError(t, await api.request('GET', `/sales/${randomUUID()}`, { token: mine.token }), 404, NOT_FOUND, 'unknown');
  expectInvalid(t, await api.request('GET', '/sales/abc', { token: mine.token }), 'sale_id', 'malformed');
  t.strictSame((await api.request('GET', '/sales', { token: mine.token })).body.data, [], 'the list holds only the caller\'s sales');
});

t.test('GET /sales lists newest first, paginated with a cursor', async (t) => {
  const owner = await registerShop(api);
  const sales = [];
  for (const n of upTo(5)) sales.push(await sell(api, owner.token, { items: [line(n * 100)], payments: cash(n * 100) }));
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: Reply = await api.request('GET', `/sales?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: owner.token });
    t.equal(reply.status, 200);
    t.ok(reply.body.data.length <= 2);
    seen.push(...reply.body.data.map((s: any) => s.id));
    cursor = reply.body.meta.next_cursor;
    pages += 1;
  } while (cursor && pages < 10);
  t.equal(pages, 3, 'pages of 2, 2 and 1');
  t.strictSame(seen, sales.map((s) => s.id).reverse(), 'every sale once, newest first');
  const all = await api.request('GET', '/sales', { token: owner.token });
  t.strictSame(all.body.meta, { next_cursor: null });
  t.strictSame(all.body.data[0], await readSale(api, owner.token, sales[4].id), 'listed sales are whole records');
  expectInvalid(t, await api.request('GET', '/sales?limit=0', { token: owner.token }), 'limit', 'limit 0');
  expectInvalid(t, await api.request('GET', '/sales?limit=201', { token: owner.token }), 'limit', 'limit 201');
  t.equal((await api.request('GET', '/sales?limit=200', { token: owner.token })).status, 200, 'limit 200');
  expectInvalid(t, await api.request('GET', '/sales?cursor=garbage', { token: owner.token }), 'cursor', 'a tampered cursor');
});

t.test('GET /sales filters by days of the shop\'s calendar (from, to)', async (t) => {
  const owner = await registerShop(api);
  const at = ['2024-01-10T12:00:00Z', '2024-01-11T12:00:00Z', '2024-01-11T23:30:00Z', '2024-01-12T12:00:00Z'];
  const ids: string[] = [];
  for (const when of at) {
    const sale = await sell(api, owner.token, { items: [line(100)], payments: cash(100) });
    await api.ownerSql`update sales set created_at = ${when}::timestamptz where id = ${sale.id}`;
    ids.push(sale.id);
  }
  const list = async (query: string) => {
    const reply = await api.request('GET', `/sales?${query}`, { token: owner.token });
    t.equal(reply.status, 200, query);
    return reply.body.data.map((s: any) => s.id);
  };
  // 23:30 UTC on the 11th is 00:30 on the 12th in Douala (UTC+1).
  t.strictSame(await list('from=2024-01-11&to=2024-01-11'), [ids[1]], 'one day');
  t.strictSame(await list('from=2024-01-12'), [ids[3], ids[2]], 'from');
  t.strictSame(await list('to=2024-01-11'), [ids[1], ids[0]], 'to');
  t.strictSame(await list('from=2024-01-10&to=2024-01-12'), [...ids].reverse(), 'all, newest first');
  expectInvalid(t, await api.request('GET', '/sales?from=2024-01-12&to=2024-01-11', { token: owner.token }), 'to', 'to before from');
  expectInvalid(t, await api.request('GET', '/sales?from=11/01/2024', { token: owner.token }), 'from', 'not a date');
});

t.test('GET /sales filters by customer, status, shift and cashier', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const forCustomer = await sell(api, cashier.token, { customer_id: customer.id, items: [line(100)], payments: cash(100) });
  const byManager = await sell(api, manager.token, { items: [line(100)], payments: cash(100) });
  const voided = await sell(api, cashier.token, { items: [line(100)], payments: cash(100) });
  await openShift(api, manager.token);
  t.equal((await voidSale(api, manager.token, voided.id)).status, 200);
  const list = async (query: string) => (await api.request('GET', `/sales?${query}`, { token: cashier.token })).body.data.map((s: any) => s.id);
  t.strictSame(await list(`customer_id=${customer.id}`), [forCustomer.id], 'customer_id');
  t.strictSame(await list('status=voided'), [voided.id], 'status voided');
  t.strictSame(await list('status=completed'), [byManager.id, forCustomer.id], 'status completed');
  t.strictSame(await list(`cashier=${manager.user.id}`), [byManager.id], 'cashier');
  t.strictSame(await list(`cashier=${cashier.user.id}`), [voided.id, forCustomer.id], 'the cashier\'s own');
  t.strictSame(await list(`shift_id=${randomUUID()}`), [], 'an unknown shift');
  expectInvalid(t, await api.request('GET', '/sales?status=lost', { token: owner.token }), 'status');
  expectInvalid(t, await api.request('GET', '/sales?customer_id=abc', { token: owner.token }), 'customer_id');
  expectInvalid(t, await api.request('GET', '/sales?cashier=abc', { token: owner.token }), 'cashier');
  expectInvalid(t, await api.request('GET', '/sales?shift_id=abc', { token: owner.token }), 'shift_id');
});
