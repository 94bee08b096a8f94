import t from 'tap';
import { addStaff, createProduct, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { openShift, refundSale, roundHalfAway, sell, vatOf, voidSale } from '../sales/sale-fixtures.ts';
import { backdate, journalByDay, shopDay } from './report-fixtures.ts';

/**
 * GET /reports/losses (stock lost and found at cost, cash shortages) and GET /reports/vat-declaration
 * (the monthly VAT form, credit carried month after month). Expected figures are worked out from the
 * inputs, and checked against the journal (6031, 4431, 4452).
 */
const api = await startService(t);

const losses = (token: string, query = '') => api.request('GET', `/reports/losses${query}`, { token });
const vat = (token: string, query = '') => api.request('GET', `/reports/vat-declaration${query}`, { token });
const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

async function ok(reply: { status: number; body: any }): Promise<any> {
  if (reply.status !== 200) throw new Error(`report failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function adjust(token: string, productId: string, newQuantity: number, reason?: string): Promise<void> {
  const reply = await api.request('POST', `/products/${productId}/adjust`, { token, body: { new_quantity: newQuantity, ...(reason === undefined ? {} : { reason }) } });
  if (reply.status !== 200) throw new Error(`adjust failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** Opens a stocktake of the whole shop, counts the products given ({product id: counted}), commits it; answers its id. */
async function stocktake(token: string, note: string, counts: Record<string, number>): Promise<string> {
  const opened = await api.request('POST', '/stocktakes', { token, body: { note } });
  if (opened.status !== 201) throw new Error(`open stocktake failed: ${opened.status} ${JSON.stringify(opened.body)}`);
  const items = opened.body.data.items.filter((i: any) => i.product_id in counts).map((i: any) => ({ item_id: i.id, counted_quantity: counts[i.product_id] }));
  const counted = await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token, body: { counts: items } });
  if (counted.status !== 200) throw new Error(`counts failed: ${counted.status} ${JSON.stringify(counted.body)}`);
  const committed = await api.request('POST', `/stocktakes/${opened.body.data.id}/commit`, { token });
  if (committed.status !== 200) throw new Error(`commit failed: ${committed.status} ${JSON.stringify(committed.body)}`);
  return opened.body.data.id;
}

/** Opens then closes a shift of the user behind `token`, the drawer counted as given; answers the shift id. */
async function shift(token: string, float: number, counted: number): Promise<string> {
  const opened = await api.request('POST', '/shift/open', { token, body: { opening_float_xaf: float } });
  if (opened.status !== 201) throw new Error(`open shift failed: ${opened.status} ${JSON.stringify(opened.body)}`);
  const closed = await api.request('POST', '/shift/close', { token, body: { counted_cash_xaf: counted } });
  if (closed.status !== 200) throw new Error(`close shift failed: ${closed.status} ${JSON.stringify(closed.body)}`);
  return opened.body.data.id;
}

async function purchase(token: string, rate: number, items: { product_id: string; quantity: number; unit_cost_xaf: number }[]): Promise<any> {
  const reply = await api.request('POST', '/purchases', { token, body: { vat_rate: rate, items } });
  if (reply.status !== 201) throw new Error(`purchase failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The journal's net (credit - debit) over the days of [from, to]. */
const journalSum = (byDay: Map<string, number>, from: string, to: string) =>
  [...byDay].filter(([day]) => day >= from && day <= to).reduce((sum, [, net]) => sum + net, 0);

/** 19.25%: principal round(vat x 10 / 11), CAC the rest; another rate: all principal. */
const split = (rate: number, vatXaf: number) =>
  rate === 19.25 ? { principal_xaf: roundHalfAway((vatXaf * 10) / 11), cac_xaf: vatXaf - roundHalfAway((vatXaf * 10) / 11) } : { principal_xaf: vatXaf, cac_xaf: 0 };
const rateLine = (rate: number, base: number, vatXaf: number) => ({ rate, base_xaf: base, vat_xaf: vatXaf, ...split(rate, vatXaf) });

const nextMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number);
  return m === 12 ? `${String(y! + 1).padStart(4, '0')}-01` : `${String(y).padStart(4, '0')}-${String(m! + 1).padStart(2, '0')}`;
};

interface VatEvent { day: string; collected: number; deductible: number }

/** The monthly declarations as the rule says, from the first month given to the last: the credit carried month after month. */
function declarations(first: string, last: string, events: VatEvent[]) {
  let carried = 0;
  const out = [];
  for (let month = first; month <= last; month = nextMonth(month)) {
    const mine = events.filter((e) => e.day.startsWith(month));
    const collected = mine.reduce((s, e) => s + e.collected, 0);
    const deductible = mine.reduce((s, e) => s + e.deductible, 0);
    const brought = carried;
    const balance = collected - deductible - brought;
    carried = Math.max(-balance, 0);
    out.push({ month, collected, deductible, credit_brought_forward_xaf: brought, vat_due_xaf: Math.max(balance, 0), credit_carried_forward_xaf: carried, nil: collected === 0 && deductible === 0 });
  }
  return out;
}
const summary = (m: any) => ({
  month: m.month, collected: m.collected.vat_xaf, deductible: m.deductible.vat_xaf, credit_brought_forward_xaf: m.credit_brought_forward_xaf,
  vat_due_xaf: m.vat_due_xaf, credit_carried_forward_xaf: m.credit_carried_forward_xaf, nil: m.nil,
});

// Access and bounds

t.test('only a manager or the owner reads the losses and the VAT declaration: a cashier is refused', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  for (const read of [losses, vat]) {
    expectError(t, await read(cashier.token), 403, FORBIDDEN, 'cashier');
    t.equal((await read(manager.token)).status, 200, 'manager');
    t.equal((await read(owner.token)).status, 200, 'owner');
  }
});

t.test('the VAT declaration\'s period: month malformed, with from or to, from or to alone, to before from, after the current month are 422s', async (t) => {
  const { token, shop } = await registerShop(api);
  const today = await shopDay(api, shop.id);
  const tomorrow = await shopDay(api, shop.id, 1);
  const next = nextMonth(today.slice(0, 7));
  expectInvalid(t, await vat(token, '?month=2026-13'), 'month', 'month 13');
  expectInvalid(t, await vat(token, '?month=2026-1'), 'month', 'month of one digit');
  expectInvalid(t, await vat(token, '?month=2026-01&from=2026-01-01'), 'month', 'month with from');
  expectInvalid(t, await vat(token, '?month=2026-01&to=2026-01-31'), 'month', 'month with to');
  expectInvalid(t, await vat(token, '?month=2026-01&from=2026-01-01&to=2026-01-31'), 'month', 'month with from and to');
  expectInvalid(t, await vat(token, '?from=2026-01-01'), 'to', 'from without to');
  expectInvalid(t, await vat(token, '?to=2026-01-31'), 'from', 'to without from');
  expectInvalid(t, await vat(token, '?from=2026-01-10&to=2026-01-09'), 'to', 'to before from');
  expectInvalid(t, await vat(token, `?month=${next}`), 'month', 'the next month');
  expectInvalid(t, await vat(token, `?from=${tomorrow}&to=${tomorrow}`), 'from', 'from after today');
  expectInvalid(t, await vat(token, '?from=2020-01-01&to=2023-01-01'), 'to', 'longer than 1,096 days');
  const current = await ok(await vat(token, `?month=${today.slice(0, 7)}`));
  t.match(current, { from: `${today.slice(0, 7)}-01` }, 'the current month is accepted');
});

t.test('the losses\' period: to before from, a malformed date, from after today are 422s on their key; the default is the last 30 days', async (t) => {
  const { token, shop } = await registerShop(api);
  expectInvalid(t, await losses(token, '?from=2026-01-10&to=2026-01-09'), 'to', 'to before from');
  expectInvalid(t, await losses(token, '?from=2026-02-30'), 'from', 'no such day');
  expectInvalid(t, await losses(token, '?from=2026-1-01'), 'from', 'malformed from');
  expectInvalid(t, await losses(token, '?to=yesterday'), 'to', 'malformed to');
  expectInvalid(t, await losses(token, `?from=${await shopDay(api, shop.id, 1)}`), 'from', 'from after today');
  t.match(await ok(await losses(token)), { from: await shopDay(api, shop.id, -29), to: await shopDay(api, shop.id) }, 'the last 30 days, today included');
});

// Losses

t.test('adjustments are grouped by reason regardless of case, expired goods counted apart, at cost as the journal posted 6031', async (t) => {
  const { token, shop } = await registerShop(api);
  const rice = await createProduct(api, token, { cost_xaf: 600 }, 20); // Opening stock: +20 x 600
  const milk = await createProduct(api, token, { cost_xaf: 250 }, 8); // Opening stock: +8 x 250
  await adjust(token, rice.id, 17, 'Cassé'); // -3 x 600
  await adjust(token, rice.id, 15, 'cassé'); // -2 x 600
  await adjust(token, rice.id, 12, 'Produit périmé'); // -3 x 600, expired
  await adjust(token, milk.id, 6, 'EXPIRED'); // -2 x 250, expired
  await adjust(token, milk.id, 5, 'PÉRIMÉ'); // -1 x 250, expired
  await adjust(token, milk.id, 7, 'Retrouvé en réserve'); // +2 x 250
  await adjust(token, milk.id, 6); // -1 x 250, no reason
  const report = await ok(await losses(token));
  const byReason = Object.fromEntries(report.stock.adjustments.by_reason.map((r: any) => [r.reason?.toLowerCase() ?? null, r]));
  t.match(byReason['cassé'], { count: 2, quantity_lost: 5, quantity_gained: 0, lost_xaf: 3_000, gained_xaf: 0 }, 'Cassé and cassé are one reason');
  t.match(byReason['opening stock'], { count: 2, quantity_lost: 0, quantity_gained: 28, lost_xaf: 0, gained_xaf: 14_000 });
  t.match(byReason['produit périmé'], { count: 1, quantity_lost: 3, lost_xaf: 1_800 });
  t.match(byReason['expired'], { count: 1, quantity_lost: 2, lost_xaf: 500 });
  t.match(byReason['retrouvé en réserve'], { count: 1, quantity_gained: 2, gained_xaf: 500 });
  t.match(report.stock.adjustments.by_reason.find((r: any) => r.reason === null), { count: 1, quantity_lost: 1, lost_xaf: 250 }, 'no reason: null');
  const lostOrder = report.stock.adjustments.by_reason.map((r: any) => r.lost_xaf);
  t.strictSame(lostOrder, [...lostOrder].sort((a: number, b: number) => b - a), 'largest loss first');
  t.strictSame(report.stock.expired, { count: 3, quantity: 6, lost_xaf: 1_800 + 500 + 250 }, 'périmé, EXPIRED and PÉRIMÉ are expired goods');
  const lost = 1_800 + 1_200 + 1_800 + 500 + 250 + 250;
  const gained = 14_000 + 500;
  t.match(report.stock.adjustments, { count: 9, lost_xaf: lost, gained_xaf: gained });
  t.match(report.stock, { lost_xaf: lost, gained_xaf: gained, net_loss_xaf: lost - gained, stocktakes: [] });
  const journal = await journalByDay(api, shop.id, '6031', ['stock_adjustment', 'stocktake']);
  t.equal(report.stock.net_loss_xaf, -journalSum(journal, report.from, report.to), 'equals the journal\'s 6031');
});

t.test('each stocktake is listed with its net variance at cost; one whose losses and gains cancel out is not', async (t) => {
  const { token, shop } = await registerShop(api);
  const rice = await createProduct(api, token, { cost_xaf: 400 }, 10);
  const soap = await createProduct(api, token, { cost_xaf: 400 }, 5);
  const first = await stocktake(token, 'Inventaire janvier', { [rice.id]: 8, [soap.id]: 6 }); // -800 + 400
  await stocktake(token, 'Inventaire nul', { [rice.id]: 9, [soap.id]: 5 }); // +400 - 400
  const third = await stocktake(token, 'Inventaire mars', { [rice.id]: 12 }); // +1,200
  const report = await ok(await losses(token));
  t.match(report.stock.stocktakes, [
    { stocktake_id: first, note: 'Inventaire janvier', lost_xaf: 400, gained_xaf: 0 },
    { stocktake_id: third, note: 'Inventaire mars', lost_xaf: 0, gained_xaf: 1_200 },
  ]);
  t.equal(report.stock.stocktakes.length, 2, 'the stocktake netting to zero is not listed');
  t.match(report.stock, { lost_xaf: 400, gained_xaf: 6_000 + 1_200, net_loss_xaf: 400 - 7_200 }, 'stocktakes and the opening adjustments');
  const journal = await journalByDay(api, shop.id, '6031', ['stock_adjustment', 'stocktake']);
  t.equal(report.stock.net_loss_xaf, -journalSum(journal, report.from, report.to), 'equals the journal\'s 6031');
});

t.test('stock losses count only the period asked: an adjustment 40 days ago is outside the default 30 days', async (t) => {
  const { token, shop } = await registerShop(api);
  const rice = await createProduct(api, token, { cost_xaf: 100 }, 10);
  await adjust(token, rice.id, 4, 'Vol'); // -600
  await backdate(api, shop.id, 40);
  await adjust(token, rice.id, 3, 'Vol'); // -100, today
  const recent = await ok(await losses(token));
  t.match(recent.stock, { lost_xaf: 100, gained_xaf: 0, adjustments: { count: 1 } }, 'the last 30 days');
  const old = await shopDay(api, shop.id, -40);
  const all = await ok(await losses(token, `?from=${old}`));
  t.match(all.stock, { lost_xaf: 700, gained_xaf: 1_000, adjustments: { count: 3 } }, 'from 40 days ago to today');
  const then = await ok(await losses(token, `?from=${old}&to=${old}`));
  t.match(then.stock, { lost_xaf: 600, gained_xaf: 1_000 }, 'that day alone');
  const journal = await journalByDay(api, shop.id, '6031', ['stock_adjustment', 'stocktake']);
  for (const r of [recent, all, then]) t.equal(r.stock.net_loss_xaf, -journalSum(journal, r.from, r.to), `${r.from}..${r.to} equals the journal`);
});

t.test('cash shortages and overages of the shifts closed, per cashier and per shift (those with a difference)', async (t) => {
  const owner = await registerShop(api);
  const awa = await addStaff(api, owner, 'cashier');
  const paul = await addStaff(api, owner, 'cashier');
  const manager = await addStaff(api, owner, 'manager');
  const short1 = await shift(awa.token, 10_000, 9_500); // -500
  const over = await shift(paul.token, 5_000, 5_200); // +200
  await shift(manager.token, 0, 0); // exact
  const short2 = await shift(awa.token, 1_000, 700); // -300
  const open = await api.request('POST', '/shift/open', { token: owner.token, body: { opening_float_xaf: 3_000 } });
  t.equal(open.status, 201, 'a shift still open does not count');
  const report = await ok(await losses(manager.token));
  t.match(report.cash, { shortages_xaf: 800, overages_xaf: 200, shifts_closed: 4 });
  t.match(report.cash.cashiers, [
    { user_id: awa.user.id, name: awa.user.name, shifts: 2, shortages_xaf: 800, overages_xaf: 0 },
    ...[
      { user_id: paul.user.id, shifts: 1, shortages_xaf: 0, overages_xaf: 200 },
      { user_id: manager.user.id, shifts: 1, shortages_xaf: 0, overages_xaf: 0 },
    ].sort((a, b) => a.user_id.localeCompare(b.user_id)),
  ]);
  t.equal(report.cash.cashiers.length, 3);
  t.match(report.cash.shifts, [
    { shift_id: short1, user_id: awa.user.id, expected_cash_xaf: 10_000, counted_cash_xaf: 9_500, difference_xaf: -500 },
    { shift_id: over, user_id: paul.user.id, expected_cash_xaf: 5_000, counted_cash_xaf: 5_200, difference_xaf: 200 },
    { shift_id: short2, user_id: awa.user.id, expected_cash_xaf: 1_000, counted_cash_xaf: 700, difference_xaf: -300 },
  ], 'in the order closed, the exact one left out');
  t.equal(report.cash.shifts.length, 3);
});

// VAT declaration

t.test('collected (sales - voids - refunds) and deductible (purchases - returns) per rate, equal to the journal\'s 4431 and 4452; 19.25% split', async (t) => {
  const { token, shop } = await registerShop(api);
  await openShift(api, token);
  const cement = await createProduct(api, token, { price_xaf: 5_000, cost_xaf: 1_000, vat_rate: 19.25 }, 100);
  const sand = await createProduct(api, token, { price_xaf: 2_000, cost_xaf: 500, vat_rate: 0 }, 100);
  await sell(api, token, { items: [{ product_id: cement.id, quantity: 2 }], payments: cash(10_000) });
  const voided = await sell(api, token, { items: [{ product_id: cement.id, quantity: 1 }], payments: cash(5_000) });
  t.equal((await voidSale(api, token, voided.id)).status, 200);
  const refunded = await sell(api, token, { items: [{ product_id: cement.id, quantity: 3 }, { product_id: sand.id, quantity: 1 }], payments: cash(17_000) });
  const cementLine = refunded.items.find((i: any) => i.product_id === cement.id);
  t.equal((await refundSale(api, token, refunded.id, { method: 'cash', items: [{ sale_item_id: cementLine.id, quantity: 1 }] })).status, 201);
  const p1 = await purchase(token, 19.25, [{ product_id: cement.id, quantity: 10, unit_cost_xaf: 1_000 }]);
  const p2 = await purchase(token, 10, [{ product_id: sand.id, quantity: 4, unit_cost_xaf: 2_500 }]);
  t.ok(p2.id);
  const returned = await api.request('POST', `/purchases/${p1.id}/returns`, { token, body: { items: [{ purchase_item_id: p1.items[0].id, quantity: 3 }] } });
  t.equal(returned.status, 201, 'return');

  const collectedVat = vatOf(10_000, 19.25) + vatOf(15_000, 19.25) - vatOf(5_000, 19.25); // the void cancels its own sale
  const returnVat = roundHalfAway((roundHalfAway(10_000 * 0.1925) * 3_000) / 10_000); // the purchase's VAT in proportion
  const deductible192 = roundHalfAway(10_000 * 0.1925) - returnVat;
  const deductible10 = roundHalfAway((10_000 * 10) / 100);
  const today = await shopDay(api, shop.id);
  const month = today.slice(0, 7);
  const report = await ok(await vat(token, `?month=${month}`));
  t.equal(report.months.length, 1);
  const m = report.months[0];
  t.match(m, { month, from: `${month}-01`, nil: false, credit_brought_forward_xaf: 0 });
  t.strictSame(m.collected, {
    vat_xaf: collectedVat, ...split(19.25, collectedVat),
    per_rate: [rateLine(0, 2_000, 0), rateLine(19.25, 20_000 - collectedVat, collectedVat)],
  });
  t.strictSame(m.deductible, {
    vat_xaf: deductible192 + deductible10, principal_xaf: split(19.25, deductible192).principal_xaf + deductible10, cac_xaf: split(19.25, deductible192).cac_xaf,
    per_rate: [rateLine(10, 10_000, deductible10), rateLine(19.25, 7_000, deductible192)],
  });
  const due = collectedVat - deductible192 - deductible10;
  t.match(m, due >= 0 ? { vat_due_xaf: due, credit_carried_forward_xaf: 0 } : { vat_due_xaf: 0, credit_carried_forward_xaf: -due });
  t.match(report, { collected_xaf: collectedVat, deductible_xaf: deductible192 + deductible10, credit_brought_forward_xaf: 0 });
  const to = `${month}-31`;
  t.equal(m.collected.vat_xaf, journalSum(await journalByDay(api, shop.id, '4431'), m.from, to), 'collected equals the journal\'s 4431');
  t.equal(m.deductible.vat_xaf, -journalSum(await journalByDay(api, shop.id, '4452'), m.from, to), 'deductible equals the journal\'s 4452');
});

t.test('the credit is carried month after month from the shop\'s first day; nil months answer nil', async (t) => {
  const { token, shop } = await registerShop(api);
  const cement = await createProduct(api, token, { price_xaf: 5_000, cost_xaf: 1_000, vat_rate: 19.25 }, 100);
  await purchase(token, 19.25, [{ product_id: cement.id, quantity: 10, unit_cost_xaf: 1_000 }]); // 110 days ago
  await backdate(api, shop.id, 70); // 70 days apart: a whole calendar month without activity in between
  await sell(api, token, { items: [{ product_id: cement.id, quantity: 1 }], payments: cash(5_000) }); // 40 days ago
  await backdate(api, shop.id, 40);
  await purchase(token, 19.25, [{ product_id: cement.id, quantity: 2, unit_cost_xaf: 1_000 }]); // today
  await sell(api, token, { items: [{ product_id: cement.id, quantity: 3 }], payments: cash(15_000) }); // today
  const [d110, d40, today] = [await shopDay(api, shop.id, -110), await shopDay(api, shop.id, -40), await shopDay(api, shop.id)];
  const events: VatEvent[] = [
    { day: d110, collected: 0, deductible: roundHalfAway(10_000 * 0.1925) },
    { day: d40, collected: vatOf(5_000, 19.25), deductible: 0 },
    { day: today, collected: vatOf(15_000, 19.25), deductible: roundHalfAway(2_000 * 0.1925) },
  ];
  const first = d110.slice(0, 7);
  const current = today.slice(0, 7);
  const expected = declarations(first, current, events);

  const whole = await ok(await vat(token, `?from=${first}-01&to=${today}`));
  t.strictSame(whole.months.map(summary), expected, 'every month from the first, nil months included');
  t.match(whole, {
    from: `${first}-01`, to: today, credit_brought_forward_xaf: 0,
    collected_xaf: events.reduce((s, e) => s + e.collected, 0), deductible_xaf: events.reduce((s, e) => s + e.deductible, 0),
    vat_due_xaf: expected.reduce((s, m) => s + m.vat_due_xaf, 0), credit_carried_forward_xaf: expected.at(-1)!.credit_carried_forward_xaf,
  });
  t.equal(whole.months.at(-1).to, today, 'the last month cut to the period');
  const collectedByDay = await journalByDay(api, shop.id, '4431');
  const deductibleByDay = await journalByDay(api, shop.id, '4452');
  for (const m of whole.months) {
    t.equal(m.collected.vat_xaf, journalSum(collectedByDay, m.from, m.to), `${m.month}: collected equals 4431`);
    t.equal(m.deductible.vat_xaf, -journalSum(deductibleByDay, m.from, m.to), `${m.month}: deductible equals 4452`);
    if (m.nil) t.match(m, { collected: { vat_xaf: 0, per_rate: [] }, deductible: { vat_xaf: 0, per_rate: [] }, vat_due_xaf: 0 }, `${m.month}: nil`);
  }
  t.ok(expected.some((m) => m.nil) && whole.months.some((m: any) => m.nil), 'a nil month is listed');

  const cut = await ok(await vat(token, `?from=${d40}&to=${today}`));
  t.strictSame(cut.months.map(summary), expected.filter((m) => m.month >= d40.slice(0, 7)), 'from mid-month: the credit worked out from the first day');
  t.match(cut, { from: d40, credit_brought_forward_xaf: expected.find((m) => m.month === d40.slice(0, 7))!.credit_brought_forward_xaf });
  t.equal(cut.months[0].from, d40, 'the first month cut to the period');

  for (const m of expected) {
    const alone = await ok(await vat(token, `?month=${m.month}`));
    t.strictSame(alone.months.map(summary), [m], `${m.month} asked alone: the credit brought from the months before`);
    t.equal(alone.credit_brought_forward_xaf, m.credit_brought_forward_xaf);
  }
  const previous = await ok(await vat(token));
  const expectedPrevious = expected.find((m) => nextMonth(m.month) === current);
  t.strictSame(previous.months.map(summary), [expectedPrevious], 'the default: the previous month');
});

t.test('another shop\'s records never appear in the losses nor in the VAT declaration', async (t) => {
  const other = await registerShop(api);
  const cashier = await addStaff(api, other, 'cashier');
  const goods = await createProduct(api, other.token, { price_xaf: 5_000, cost_xaf: 1_000, vat_rate: 19.25 }, 50);
  await adjust(other.token, goods.id, 40, 'Périmé');
  await stocktake(other.token, 'Autre boutique', { [goods.id]: 35 });
  await shift(cashier.token, 1_000, 100);
  await sell(api, other.token, { items: [{ product_id: goods.id, quantity: 1 }], payments: cash(5_000) });
  await purchase(other.token, 19.25, [{ product_id: goods.id, quantity: 5, unit_cost_xaf: 1_000 }]);

  const { token, shop } = await registerShop(api);
  const mine = await ok(await losses(token));
  t.strictSame(mine.stock, {
    lost_xaf: 0, gained_xaf: 0, net_loss_xaf: 0, adjustments: { count: 0, lost_xaf: 0, gained_xaf: 0, by_reason: [] },
    expired: { count: 0, quantity: 0, lost_xaf: 0 }, stocktakes: [],
  });
  t.strictSame(mine.cash, { shortages_xaf: 0, overages_xaf: 0, shifts_closed: 0, cashiers: [], shifts: [] });
  const month = (await shopDay(api, shop.id)).slice(0, 7);
  const declared = await ok(await vat(token, `?month=${month}`));
  t.match(declared, { collected_xaf: 0, deductible_xaf: 0, credit_brought_forward_xaf: 0, vat_due_xaf: 0, credit_carried_forward_xaf: 0 });
  t.match(declared.months, [{ month, nil: true, collected: { vat_xaf: 0, per_rate: [] }, deductible: { vat_xaf: 0, per_rate: [] } }]);
  const theirs = await ok(await vat(other.token, `?month=${month}`));
  t.match(theirs, { collected_xaf: vatOf(5_000, 19.25), deductible_xaf: roundHalfAway(5_000 * 0.1925) }, 'the other shop sees its own');
});
