import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  createCustomer,
  expectLedgerInvariants,
  givePoints,
  movements,
  netByAccount,
  onHand,
  openShift,
  postings,
  readCustomer,
  readSale,
  refundSale,
  saleJournal,
  sell,
  setShop,
  staffedShop,
  voidSale,
} from './sale-fixtures.ts';

const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
const line = (unitPrice: number, fields: Record<string, unknown> = {}) => ({ name: 'Article libre', quantity: 1, unit_price_xaf: unitPrice, vat_rate: 0, ...fields });
const refundOf = (items: [item: any, quantity: number][], method = 'cash', reason: string | null = null) => ({
  method,
  reason,
  items: items.map(([item, quantity]) => ({ sale_item_id: item.id, quantity })),
});

async function statement(token: string, customerId: string): Promise<any> {
  const reply = await api.request('GET', `/customers/${customerId}/statement`, { token });
  if (reply.status !== 200) throw new Error(`statement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A refund that must succeed (201); answers the sale. */
async function refund(token: string, saleId: string, body: Record<string, unknown>): Promise<any> {
  const reply = await refundSale(api, token, saleId, body);
  if (reply.status !== 201) throw new Error(`refund failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/**
 * A shop whose manager, who voids and refunds, has an open shift: the money a void or a refund gives
 * back leaves a drawer (CONTRACT section 12; tests/shifts/reversals.test.ts has the rule itself).
 */
async function shopAtWork() {
  const shop = await staffedShop(api);
  await openShift(api, shop.manager.token);
  return shop;
}

async function paymentRows(saleId: string): Promise<[string, string, number][]> {
  const rows = await api.ownerSql<{ kind: string; method: string; amount_xaf: number }[]>`
    select kind, method, amount_xaf from sale_payments where sale_id = ${saleId} order by kind, method, amount_xaf`;
  return rows.map((row) => [row.kind, row.method, row.amount_xaf]);
}

// Void

t.test('a void gives the stock back with void movements, reverses the payments and keeps the receipt number', async (t) => {
  const { owner, manager, cashier } = await shopAtWork();
  const tracked = await createProduct(api, owner.token, { price_xaf: 1000, cost_xaf: 600 }, 10);
  const untracked = await createProduct(api, owner.token, { price_xaf: 1000, tracked: false });
  await sell(api, cashier.token, { items: [line(100)], payments: cash(100) });
  const sale = await sell(api, cashier.token, {
    items: [{ product_id: tracked.id, quantity: 2.5 }, { product_id: untracked.id, quantity: 1 }],
    payments: [{ method: 'card', amount_xaf: 2000 }, { method: 'cash', amount_xaf: 5000 }],
  });
  t.equal(sale.change_xaf, 3500);
  const reply = await voidSale(api, manager.token, sale.id, { reason: 'Erreur de saisie' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  const voided = reply.body.data;
  t.match(voided, { id: sale.id, status: 'voided', receipt_no: 2, void_reason: 'Erreur de saisie', total_xaf: 3500, paid_xaf: 7000, change_xaf: 3500 });
  t.ok(typeof voided.voided_at === 'string' && !Number.isNaN(Date.parse(voided.voided_at)), 'voided_at set');
  t.strictSame(voided.items, sale.items, 'the lines are kept as sold');
  t.strictSame(await readSale(api, owner.token, sale.id), voided);

  t.equal(await onHand(api, tracked.id), 10, 'the stock is back');
  t.match((await movements(api, tracked.id)).at(-1), { type: 'void', quantity: 2.5, on_hand_after: 10, source_type: 'sale', source_id: sale.id });
  t.strictSame(await movements(api, untracked.id), [], 'nothing for an untracked product');

  t.strictSame(await paymentRows(sale.id), [
    ['change', 'cash', -3500],
    ['payment', 'card', 2000],
    ['payment', 'cash', 5000],
    ['void', 'card', -2000],
    ['void', 'cash', -1500],
  ], 'the payments stay; void rows pay back each method\'s net');
  t.strictSame(voided.payments.filter((p: any) => p.kind === 'void').map((p: any) => [p.method, p.amount_xaf]).sort(), [['card', -2000], ['cash', -1500]]);

  const lines = await saleJournal(api, sale.id);
  t.equal(new Set(lines.filter((l) => l.source_type === 'sale_void').map((l) => l.entry_id)).size, 1, 'one reversing entry per entry of the sale');
  t.strictSame(netByAccount(lines), {}, 'every account nets to zero for the voided sale');
  // VAT: 2500 -> 403.56 -> 404 and 1000 -> 161; goods at cost 2.5 x 600.
  t.strictSame(postings(lines, 'sale_void'), { '31': [1500, 0], '4431': [565, 0], '521': [0, 2000], '571': [0, 1500], '6031': [0, 1500], '701': [2935, 0] });
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a void gives a variant\'s stock back to that variant', async (t) => {
  const { owner, manager } = await shopAtWork();
  const shirt = await createProduct(api, owner.token, { price_xaf: 2000 });
  await api.request('POST', `/products/${shirt.id}/options`, { token: owner.token, body: { options: [{ name: 'Taille', values: ['M', 'L'] }] } });
  const m = (await api.request('POST', `/products/${shirt.id}/variants`, { token: owner.token, body: { options: { Taille: 'M' } } })).body.data;
  const l = (await api.request('POST', `/products/${shirt.id}/variants`, { token: owner.token, body: { options: { Taille: 'L' } } })).body.data;
  for (const variant of [m, l]) await api.request('POST', `/products/${shirt.id}/adjust`, { token: owner.token, body: { new_quantity: 5, variant_id: variant.id } });
  const sale = await sell(api, owner.token, { items: [{ product_id: shirt.id, variant_id: m.id, quantity: 2 }, { product_id: shirt.id, variant_id: l.id, quantity: 1 }], payments: cash(6000) });
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  t.equal(await onHand(api, shirt.id, m.id), 5);
  t.equal(await onHand(api, shirt.id, l.id), 5);
  t.strictSame((await movements(api, shirt.id)).filter((mv) => mv.type === 'void').map((mv) => [mv.variant_id, mv.quantity]).sort(), [[m.id, 2], [l.id, 1]].sort());
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a void reverses the points a sale earned and gives back the points it redeemed', async (t) => {
  const { owner, manager } = await shopAtWork();
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 5 });
  const customer = await createCustomer(api, owner.token);
  await givePoints(api, owner.token, customer.id, 100);
  const sale = await sell(api, owner.token, { customer_id: customer.id, redeem_points: 20, items: [line(3100)], payments: cash(3000) });
  t.match(sale, { total_xaf: 3000, points_redeemed: 20, points_earned: 30 });
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 110);
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 100, 'as before the sale');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a void takes the credit of the sale off the customer\'s balance', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const other = await sell(api, owner.token, { customer_id: customer.id, items: [line(500)] });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(3000)], payments: cash(1000) });
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 2500);
  const reply = await voidSale(api, manager.token, sale.id);
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 500, 'only the other sale is still owed');
  t.strictSame((await statement(owner.token, customer.id)).unsettled.map((d: any) => d.source_id), [other.id]);
  t.strictSame((await paymentRows(sale.id)).filter(([kind]) => kind === 'void'), [['void', 'cash', -1000], ['void', 'credit', -2000]]);
  t.strictSame(netByAccount(await saleJournal(api, sale.id)), {}, '411 nets to zero too');
});

t.test('a credit sale already partly paid cannot be voided: 409 sale_credit_settled', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(3000)] });
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: owner.token, body: { amount_xaf: 1000, method: 'cash' } })).status, 201);
  expectConflict(t, await voidSale(api, manager.token, sale.id), 'sale_credit_settled');
  t.equal((await readSale(api, owner.token, sale.id)).status, 'completed');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 2000);
});

t.test('only a completed sale without refunds is voided: 409 sale_already_voided, 409 sale_refunded', async (t) => {
  const { owner, manager } = await shopAtWork();
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }], payments: cash(2000) });
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  expectConflict(t, await voidSale(api, owner.token, sale.id), 'sale_already_voided', 'a second void');
  t.equal(await onHand(api, product.id), 10, 'the stock came back once');

  const partly = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }], payments: cash(2000) });
  await refund(manager.token, partly.id, refundOf([[partly.items[0], 1]]));
  expectConflict(t, await voidSale(api, manager.token, partly.id), 'sale_refunded', 'partly refunded');
  const whole = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }], payments: cash(2000) });
  await refund(manager.token, whole.id, refundOf([[whole.items[0], 2]]));
  expectConflict(t, await voidSale(api, manager.token, whole.id), 'sale_refunded', 'fully refunded');
  t.equal(await onHand(api, product.id), 10 - 2 + 1, 'no stock came back for the refused voids');
  t.equal((await readSale(api, owner.token, partly.id)).status, 'partially_refunded');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a void needs a reason of 1 to 255 characters', async (t) => {
  const { owner, manager } = await shopAtWork();
  const sale = await sell(api, owner.token, { items: [line(100)], payments: cash(100) });
  expectInvalid(t, await voidSale(api, manager.token, sale.id, {}), 'reason', 'missing');
  expectInvalid(t, await voidSale(api, manager.token, sale.id, { reason: null }), 'reason', 'null');
  expectInvalid(t, await voidSale(api, manager.token, sale.id, { reason: '' }), 'reason', 'empty');
  expectInvalid(t, await voidSale(api, manager.token, sale.id, { reason: '   ' }), 'reason', 'blank');
  expectInvalid(t, await voidSale(api, manager.token, sale.id, { reason: chars(256) }), 'reason', '256');
  t.equal((await readSale(api, owner.token, sale.id)).status, 'completed');
  const reply = await voidSale(api, manager.token, sale.id, { reason: chars(255) });
  t.equal(reply.status, 200, '255');
  t.equal(reply.body.data.void_reason, chars(255));
});

t.test('a cashier may not void or refund (403); another shop\'s sale is 404; 402 once the subscription ended', async (t) => {
  const { owner, manager, cashier } = await shopAtWork();
  const theirs = await registerShop(api);
  const sale = await sell(api, cashier.token, { items: [line(100, { quantity: 2 })], payments: cash(200) });
  expectError(t, await voidSale(api, cashier.token, sale.id), 403, FORBIDDEN, 'cashier void');
  expectError(t, await refundSale(api, cashier.token, sale.id, refundOf([[sale.items[0], 1]])), 403, FORBIDDEN, 'cashier refund');
  expectError(t, await voidSale(api, theirs.token, sale.id), 404, NOT_FOUND, 'another shop voids');
  expectError(t, await refundSale(api, theirs.token, sale.id, refundOf([[sale.items[0], 1]])), 404, NOT_FOUND, 'another shop refunds');
  expectError(t, await voidSale(api, manager.token, randomUUID()), 404, NOT_FOUND, 'unknown sale');
  expectError(t, await refundSale(api, manager.token, randomUUID(), refundOf([[sale.items[0], 1]])), 404, NOT_FOUND, 'unknown sale refunded');
  expectInvalid(t, await voidSale(api, manager.token, 'abc'), 'sale_id', 'malformed id');
  await expireSubscription(api, owner.shop.id);
  expectError(t, await voidSale(api, manager.token, sale.id), 402, SUBSCRIPTION_REQUIRED, 'void');
  expectError(t, await refundSale(api, manager.token, sale.id, refundOf([[sale.items[0], 1]])), 402, SUBSCRIPTION_REQUIRED, 'refund');
  const after = await readSale(api, owner.token, sale.id);
  t.equal(after.status, 'completed');
  t.equal(after.items[0].refunded_quantity, 0);
});

// Refund

t.test('a refund returns the selected quantities: stock back for tracked goods, money by the method, 201 with the sale', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const tracked = await createProduct(api, owner.token, { price_xaf: 1000, cost_xaf: 600, vat_rate: 19.25 }, 10);
  const untracked = await createProduct(api, owner.token, { price_xaf: 500, vat_rate: 19.25, tracked: false });
  const sale = await sell(api, owner.token, { items: [{ product_id: tracked.id, quantity: 3 }, { product_id: untracked.id, quantity: 2 }], payments: cash(4000) });
  t.strictSame(sale.items.map((i: any) => i.vat_xaf), [484, 161]);
  const shiftId = await openShift(api, manager.token);
  const reply = await refundSale(api, manager.token, sale.id, refundOf([[sale.items[0], 1], [sale.items[1], 1]], 'cash', 'Défaut'));
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  const refunded = reply.body.data;
  t.equal(refunded.status, 'partially_refunded');
  t.strictSame(refunded.items.map((i: any) => i.refunded_quantity), [1, 1]);
  t.equal(refunded.refunds.length, 1);
  // 3000 / 3 = 1000 with 484 / 3 = 161.33 -> 161 of VAT; 1000 / 2 = 500 with 161 / 2 = 80.5 -> 81 (half away from zero).
  t.match(refunded.refunds[0], { method: 'cash', reason: 'Défaut', total_xaf: 1500, vat_xaf: 242 });
  t.strictSame(
    refunded.refunds[0].items.map((i: any) => [i.sale_item_id, i.quantity, i.total_xaf, i.vat_xaf]).sort(),
    [[sale.items[0].id, 1, 1000, 161], [sale.items[1].id, 1, 500, 81]].sort(),
  );
  t.equal(await onHand(api, tracked.id), 8, 'the tracked unit is back in stock');
  t.match((await movements(api, tracked.id)).at(-1), { type: 'refund', quantity: 1, on_hand_after: 8, source_type: 'sale', source_id: sale.id });
  t.strictSame(await movements(api, untracked.id), [], 'no stock for an untracked product');
  const [row] = await api.ownerSql<{ kind: string; method: string; amount_xaf: number; shift_id: string | null }[]>`
    select kind, method, amount_xaf, shift_id from sale_payments where sale_id = ${sale.id} and kind = 'refund'`;
  t.strictSame({ ...row }, { kind: 'refund', method: 'cash', amount_xaf: -1500, shift_id: shiftId }, 'paid back in cash from the refunder\'s open shift');
  t.strictSame(postings(await saleJournal(api, sale.id), 'sale_refund'), { '31': [600, 0], '4431': [242, 0], '571': [0, 1500], '6031': [0, 600], '701': [1258, 0] });
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('the refunds of one line add up exactly to its total and VAT: the last unit takes the remainder', async (t) => {
  const { owner, manager } = await shopAtWork();
  const sale = await sell(api, owner.token, {
    items: [line(400, { quantity: 3, discount_xaf: 200, vat_rate: 19.25 }), line(1001, { quantity: 2.5, vat_rate: 100, unit_price_xaf: 401 })],
    payments: cash(2003),
  });
  const [thirds, weighed] = sale.items;
  t.match(thirds, { total_xaf: 1000, vat_xaf: 161 });
  t.match(weighed, { total_xaf: 1003, vat_xaf: 502 }); // 2.5 x 401 = 1002.5 -> 1003; 501.5 -> 502
  for (const quantity of [1, 1, 1]) await refund(manager.token, sale.id, refundOf([[thirds, quantity]]));
  for (const quantity of [0.7, 0.8, 1]) await refund(manager.token, sale.id, refundOf([[weighed, quantity]]));
  const after = await readSale(api, owner.token, sale.id);
  const parts = (item: any) => after.refunds.flatMap((r: any) => r.items).filter((i: any) => i.sale_item_id === item.id);
  // 1000 / 3 = 333.33 -> 333, 333, then 334; 161 / 3 = 53.67 -> 54, 54, then 53.
  t.strictSame(parts(thirds).map((i: any) => [i.total_xaf, i.vat_xaf]), [[333, 54], [333, 54], [334, 53]]);
  // 1003 x 0.7 / 2.5 = 280.84 -> 281, x 0.8 / 2.5 = 320.96 -> 321, the rest 401; 502: 140.56 -> 141, 160.64 -> 161, the rest 200.
  t.strictSame(parts(weighed).map((i: any) => [i.quantity, i.total_xaf, i.vat_xaf]), [[0.7, 281, 141], [0.8, 321, 161], [1, 401, 200]]);
  for (const item of [thirds, weighed]) {
    t.equal(parts(item).reduce((s: number, i: any) => s + i.total_xaf, 0), item.total_xaf, 'totals add up to the line\'s');
    t.equal(parts(item).reduce((s: number, i: any) => s + i.vat_xaf, 0), item.vat_xaf, 'VAT adds up to the line\'s');
  }
  t.equal(after.status, 'refunded');
  t.equal(after.refunds.reduce((s: number, r: any) => s + r.total_xaf, 0), sale.total_xaf);
  t.equal(after.refunds.reduce((s: number, r: any) => s + r.vat_xaf, 0), sale.vat_xaf);
});

t.test('a refund never returns more than was sold less what was refunded: 422 refund_exceeds_sold on items.N.quantity', async (t) => {
  const { owner, manager } = await shopAtWork();
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 3 }, line(500, { quantity: 2 })], payments: cash(4000) });
  const [goods, other] = sale.items;
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[goods, 3.001]])), 'items.0.quantity', 'beyond what was sold', 'refund_exceeds_sold');
  await refund(manager.token, sale.id, refundOf([[goods, 2]]));
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[other, 1], [goods, 1.5]])), 'items.1.quantity', 'beyond what is left', 'refund_exceeds_sold');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[goods, 0.5], [goods, 0.6]])), 'items.1.quantity', 'one item twice, beyond what is left together', 'refund_exceeds_sold');
  const after = await readSale(api, owner.token, sale.id);
  t.strictSame(after.items.map((i: any) => i.refunded_quantity), [2, 0], 'the refused refunds changed nothing');
  t.equal(after.refunds.length, 1);
  t.equal(await onHand(api, product.id), 9);
  const rest = await refund(manager.token, sale.id, refundOf([[goods, 0.5], [goods, 0.5], [other, 2]]));
  t.equal(rest.status, 'refunded', 'exactly what is left is accepted, in parts of one request too');
  t.equal(await onHand(api, product.id), 10);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('an item of another sale is 422 on items.N.sale_item_id', async (t) => {
  const { owner, manager } = await shopAtWork();
  const theirs = await registerShop(api);
  const sale = await sell(api, owner.token, { items: [line(500, { quantity: 2 })], payments: cash(1000) });
  const another = await sell(api, owner.token, { items: [line(500, { quantity: 2 })], payments: cash(1000) });
  const foreign = await sell(api, theirs.token, { items: [line(500, { quantity: 2 })], payments: cash(1000) });
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[sale.items[0], 1], [another.items[0], 1]])), 'items.1.sale_item_id', 'another sale\'s item');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[foreign.items[0], 1]])), 'items.0.sale_item_id', 'another shop\'s item');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[{ id: randomUUID() }, 1]])), 'items.0.sale_item_id', 'unknown');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[{ id: 'abc' }, 1]])), 'items.0.sale_item_id', 'malformed');
  t.equal((await readSale(api, owner.token, sale.id)).items[0].refunded_quantity, 0);
  t.equal((await readSale(api, owner.token, another.id)).items[0].refunded_quantity, 0);
});

t.test('refund inputs: method of the list, reason at most 255, at least one item, quantities over 0 with 3 decimals', async (t) => {
  const { owner, manager } = await shopAtWork();
  const sale = await sell(api, owner.token, { items: [line(1000, { quantity: 5 })], payments: cash(5000) });
  const item = sale.items[0];
  expectInvalid(t, await refundSale(api, manager.token, sale.id, { items: [{ sale_item_id: item.id, quantity: 1 }] }), 'method', 'no method');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[item, 1]], 'cheque')), 'method', 'unknown method');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[item, 1]], 'cash', chars(256))), 'reason', 'reason 256');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, { method: 'cash', items: [] }), 'items', 'no item');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, { method: 'cash' }), 'items', 'items missing');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[item, 0]])), 'items.0.quantity', 'quantity 0');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[item, -1]])), 'items.0.quantity', 'quantity -1');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[item, 0.0005]])), 'items.0.quantity', '4 decimals');
  expectInvalid(t, await refundSale(api, manager.token, sale.id, { method: 'cash', items: [{ sale_item_id: item.id }] }), 'items.0.quantity', 'quantity missing');
  t.equal((await readSale(api, owner.token, sale.id)).refunds.length, 0);
  const longest = await refund(manager.token, sale.id, refundOf([[item, 0.001]], 'card', chars(255)));
  t.match(longest.refunds[0], { method: 'card', reason: chars(255), total_xaf: 1 });
  const noReason = await refund(manager.token, sale.id, { method: 'cash', items: [{ sale_item_id: item.id, quantity: 1 }] });
  t.equal(noReason.refunds[1].reason, null, 'reason is optional');
  for (const method of ['carrier1_momo', 'carrier2_money', 'bank']) {
    t.equal((await refundSale(api, manager.token, sale.id, refundOf([[item, 1]], method))).status, 201, method);
  }
});

t.test('a refund by method credit comes off what the sale still owes on the customer\'s account', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000, { quantity: 4, vat_rate: 19.25 })], payments: cash(1000) });
  t.equal(sale.credit_xaf, 3000);
  const after = await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]], 'credit'));
  t.equal(after.refunds[0].method, 'credit');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 2000, 'the balance went down by the refund');
  t.strictSame((await statement(owner.token, customer.id)).unsettled.map((d: any) => [d.source_id, d.remaining_xaf]), [[sale.id, 2000]]);
  t.strictSame((await paymentRows(sale.id)).filter(([kind]) => kind === 'refund'), [['refund', 'credit', -1000]]);
  // The line's VAT is 4000 x 19.25 / 119.25 = 645.7 -> 646; a quarter of it 161.5 -> 162.
  t.strictSame(postings(await saleJournal(api, sale.id), 'sale_refund'), { '411': [0, 1000], '4431': [162, 0], '701': [838, 0] });
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: owner.token, body: { amount_xaf: 500, method: 'cash' } })).status, 201);
  expectInvalid(t, await refundSale(api, manager.token, sale.id, refundOf([[sale.items[0], 2]], 'credit')), 'method', 'more than the sale still owes (1500)');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 1500, 'unchanged by the refused refund');
  t.equal((await readSale(api, owner.token, sale.id)).items[0].refunded_quantity, 1);
  const cashSale = await sell(api, owner.token, { items: [line(1000)], payments: cash(1000) });
  expectInvalid(t, await refundSale(api, manager.token, cashSale.id, refundOf([[cashSale.items[0], 1]], 'credit')), 'method', 'a sale without customer');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a refund by credit of all the sale still owes clears its debt', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000, { quantity: 2 })] });
  const reply = await refundSale(api, manager.token, sale.id, refundOf([[sale.items[0], 2]], 'credit'));
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 0);
  t.strictSame((await statement(owner.token, customer.id)).unsettled, []);
});

t.test('statuses: partially_refunded, then refunded; then 409 sale_refunded; a voided sale is 409 sale_voided', async (t) => {
  const { owner, manager } = await shopAtWork();
  const sale = await sell(api, owner.token, { items: [line(1000, { quantity: 2 }), line(300)], payments: cash(2300) });
  t.equal((await refund(manager.token, sale.id, refundOf([[sale.items[0], 2]]))).status, 'partially_refunded', 'one line of two');
  t.equal((await refund(manager.token, sale.id, refundOf([[sale.items[1], 1]]))).status, 'refunded', 'all of it');
  expectConflict(t, await refundSale(api, manager.token, sale.id, refundOf([[sale.items[1], 1]])), 'sale_refunded', 'after the full refund');
  const voided = await sell(api, owner.token, { items: [line(1000)], payments: cash(1000) });
  t.equal((await voidSale(api, manager.token, voided.id)).status, 200);
  expectConflict(t, await refundSale(api, manager.token, voided.id, refundOf([[voided.items[0], 1]])), 'sale_voided');
  t.equal((await readSale(api, owner.token, voided.id)).items[0].refunded_quantity, 0);
  t.strictSame((await api.request('GET', '/sales?status=refunded', { token: owner.token })).body.data.map((s: any) => s.id), [sale.id]);
});

t.test('a refund reverses points pro rata: earned points taken back, redeemed points given back', async (t) => {
  const { owner, manager } = await shopAtWork();
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 10 });
  const customer = await createCustomer(api, owner.token);
  await givePoints(api, owner.token, customer.id, 50);
  const sale = await sell(api, owner.token, { customer_id: customer.id, redeem_points: 10, items: [line(1050, { quantity: 2 })], payments: cash(2000) });
  t.match(sale, { total_xaf: 2000, points_redeemed: 10, points_earned: 20 });
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 60);
  await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]]));
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 60 - 10 + 5, 'half the sale: 10 earned points taken back, 5 redeemed given back');
  await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]]));
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 50, 'all of it: as before the sale');
});

t.test('a sale refunded in thirds takes back all the points it earned', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token);
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000, { quantity: 3 })], payments: cash(3000) });
  t.equal(sale.points_earned, 30);
  await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]]));
  // 30 x 1000 / 3000 as a numeric is 9.999...: it must count as 10, and the thirds must add up to all 30.
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 20, 'a third of the sale: a third of its points');
  await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]]));
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 10, 'two thirds');
  await refund(manager.token, sale.id, refundOf([[sale.items[0], 1]]));
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 0, 'fully refunded: none of its points are left');
});

t.test('a sale refunded in full, in parts, leaves every account of its journal at zero', async (t) => {
  const { owner, manager } = await shopAtWork();
  const product = await createProduct(api, owner.token, { price_xaf: 1000, cost_xaf: 333, unit: 'kg', vat_rate: 19.25 }, 10);
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1.5 }, line(700, { quantity: 3, vat_rate: 19.25 })], payments: [{ method: 'carrier1_momo', amount_xaf: 3600 }] });
  for (const quantity of [0.5, 0.5, 0.5]) await refund(manager.token, sale.id, refundOf([[sale.items[0], quantity]], 'carrier1_momo'));
  for (const quantity of [1, 2]) await refund(manager.token, sale.id, refundOf([[sale.items[1], quantity]], 'carrier1_momo'));
  const net = netByAccount(await saleJournal(api, sale.id), true);
  t.strictSame([net['701'], net['4431'], net['585']], [0, 0, 0], 'sales, VAT and the money net to zero');
  // The sale posted round(1.5 x 333) = 500 at cost; the refunds 167, 167, then the remainder 166.
  t.strictSame([net['31'], net['6031']], [0, 0], `the goods at cost net to zero: ${JSON.stringify(net)}`);
  t.equal(await onHand(api, product.id), 10);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

// Loyalty shown after paying

t.test('a card shown after a sale without customer credits the sale\'s points once', async (t) => {
  const { owner, cashier } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { card_no: 'CARTE-0001' });
  const sale = await sell(api, cashier.token, { items: [line(2550)], payments: cash(3000) });
  t.equal(sale.points_earned, 0);
  const reply = await api.request('POST', `/sales/${sale.id}/attribute-loyalty`, { token: cashier.token, body: { card_no: 'CARTE-0001' } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.equal(reply.body.data.points_earned, 25, 'floor(2550 x 0.01)');
  t.match(reply.body.data.customer, { id: customer.id, points: 25 });
  const read = await readSale(api, owner.token, sale.id);
  t.equal(read.customer_id, null, 'the sale is not rewritten');
  t.equal(read.points_earned, 25, 'it shows the points credited');
  expectConflict(t, await api.request('POST', `/sales/${sale.id}/attribute-loyalty`, { token: cashier.token, body: { card_no: 'CARTE-0001' } }), 'loyalty_already_attributed', 'a second time');
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 25, 'credited once');
});

t.test('attribute-loyalty: an unknown card is 422 on card_no, a sale made for another customer 409 sale_has_customer', async (t) => {
  const { owner, manager, cashier } = await shopAtWork();
  const holder = await createCustomer(api, owner.token, { card_no: 'CARTE-0002' });
  const someone = await createCustomer(api, owner.token);
  const attribute = (saleId: string, body: Record<string, unknown>) => api.request('POST', `/sales/${saleId}/attribute-loyalty`, { token: cashier.token, body });
  const anonymous = await sell(api, cashier.token, { items: [line(1000)], payments: cash(1000) });
  expectInvalid(t, await attribute(anonymous.id, { card_no: 'CARTE-9999' }), 'card_no', 'unknown card');
  expectInvalid(t, await attribute(anonymous.id, {}), 'card_no', 'missing');
  expectInvalid(t, await attribute(anonymous.id, { card_no: chars(61) }), 'card_no', '61 characters');
  const forSomeone = await sell(api, cashier.token, { customer_id: someone.id, items: [line(1000)], payments: cash(1000) });
  expectConflict(t, await attribute(forSomeone.id, { card_no: 'CARTE-0002' }), 'sale_has_customer');
  const forHolder = await sell(api, cashier.token, { customer_id: holder.id, items: [line(1000)], payments: cash(1000) });
  expectConflict(t, await attribute(forHolder.id, { card_no: 'CARTE-0002' }), 'loyalty_already_attributed', 'the holder\'s own sale already earned');
  const voided = await sell(api, cashier.token, { items: [line(1000)], payments: cash(1000) });
  t.equal((await voidSale(api, manager.token, voided.id)).status, 200);
  expectConflict(t, await attribute(voided.id, { card_no: 'CARTE-0002' }), 'sale_already_voided');
  expectError(t, await attribute(randomUUID(), { card_no: 'CARTE-0002' }), 404, NOT_FOUND, 'unknown sale');
  t.equal((await readCustomer(api, owner.token, holder.id)).points, 10, 'only the holder\'s own sale earned');
});

t.test('a card shown after a sale that was refunded in full credits no points', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { card_no: 'CARTE-0004' });
  const sale = await sell(api, owner.token, { items: [line(1000, { quantity: 2 })], payments: cash(2000) });
  t.equal((await refund(manager.token, sale.id, refundOf([[sale.items[0], 2]]))).status, 'refunded');
  const reply = await api.request('POST', `/sales/${sale.id}/attribute-loyalty`, { token: owner.token, body: { card_no: 'CARTE-0004' } });
  expectConflict(t, reply, 'sale_refunded', 'a fully refunded sale');
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 0, 'nothing was bought in the end');
});

t.test('points credited to a card shown afterwards are taken back when the sale is voided', async (t) => {
  const { owner, manager } = await shopAtWork();
  const customer = await createCustomer(api, owner.token, { card_no: 'CARTE-0003' });
  const sale = await sell(api, owner.token, { items: [line(5000)], payments: cash(5000) });
  t.equal((await api.request('POST', `/sales/${sale.id}/attribute-loyalty`, { token: owner.token, body: { card_no: 'CARTE-0003' } })).status, 200);
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 50);
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 0);
});
