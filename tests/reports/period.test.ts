import t from 'tap';
import { addStaff, createCategory, createProduct, registerShop } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { openShift, refundSale, roundHalfAway, sell, vatOf, voidSale } from '../sales/sale-fixtures.ts';
import { backdate, journalByDay, seal, shopDay } from './report-fixtures.ts';

/**
 * The period reports: GET /reports/sales-summary, /reports/margin and /reports/analytics. Every
 * expected figure is worked out here from the inputs (prices, quantities, VAT rates, discounts, costs)
 * by the CONTRACT's rounding; days past are made by moving the shop's records back in time (backdate).
 */
const api = await startService(t);

const report = (token: string, kind: 'sales-summary' | 'margin' | 'analytics', query: Record<string, string> = {}) =>
  api.request('GET', `/reports/${kind}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`, { token });
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const rate2 = (margin: number, revenue: number) => (revenue === 0 ? null : roundHalfAway((10_000 * margin) / revenue) / 100);

type Spec = { name: string; price_xaf: number; vat_rate: number; cost_xaf: number; tracked: boolean; unit?: string; category_id?: string };
/** One line as the CONTRACT prices it: total = round(qty x price) - discount, VAT = round(total x rate / (100 + rate)). */
function line(p: Spec & { id: string }, quantity: number, discount = 0) {
  const gross = roundHalfAway(quantity * p.price_xaf);
  const total = gross - discount;
  return { p, quantity, gross, discount, total, vat: vatOf(total, p.vat_rate), cost: p.tracked ? roundHalfAway(quantity * p.cost_xaf) : 0 };
}
type Line = ReturnType<typeof line>;
const basket = (lines: Line[]) => ({ lines, gross: sum(lines.map((l) => l.gross)), discount: sum(lines.map((l) => l.discount)), total: sum(lines.map((l) => l.total)), vat: sum(lines.map((l) => l.vat)) });

/** A shop with an owner, a manager, a cashier, two categories and four products; four sales today, one voided, one partly refunded. */
async function tradingShop() {
  const owner = await registerShop(api, { shop_name: 'Quincaillerie Mbappe' });
  await openShift(api, owner.token);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  const materials = await createCategory(api, owner.token, { name: 'Matériaux' });
  const food = await createCategory(api, owner.token, { name: 'Alimentation' });
  const make = async (spec: Spec) => ({ ...spec, ...(await createProduct(api, owner.token, spec, spec.tracked ? 1_000 : 0)), ...spec });
  const ciment = await make({ name: 'Ciment', price_xaf: 5_000, vat_rate: 19.25, cost_xaf: 3_500, tracked: true, category_id: materials.id });
  const riz = await make({ name: 'Riz', price_xaf: 333, vat_rate: 0, cost_xaf: 200, tracked: true, unit: 'kg', category_id: food.id });
  const livraison = await make({ name: 'Livraison', price_xaf: 2_000, vat_rate: 19.25, cost_xaf: 800, tracked: false });
  const tuile = await make({ name: 'Tuile', price_xaf: 1_200, vat_rate: 19.25, cost_xaf: 700, tracked: true, category_id: materials.id });
  const items = (lines: Line[]) => lines.map((l) => ({ product_id: l.p.id, quantity: l.quantity, ...(l.discount ? { discount_xaf: l.discount } : {}) }));

  const b1 = basket([line(ciment, 3, 150), line(riz, 1.5), line(livraison, 1)]);
  const s1 = await sell(api, owner.token, { items: items(b1.lines), payments: [{ method: 'cash', amount_xaf: 50_000 }] });
  const b2 = basket([line(ciment, 1), line(riz, 5, 100)]);
  const s2 = await sell(api, cashier.token, { items: items(b2.lines), payments: [{ method: 'carrier1_momo', amount_xaf: b2.total }] });
  const b3 = basket([line(ciment, 2), line(tuile, 1)]);
  const s3 = await sell(api, cashier.token, { items: items(b3.lines), payments: [{ method: 'card', amount_xaf: b3.total }] });
  const b4 = basket([line(riz, 4), line(livraison, 1)]);
  const s4 = await sell(api, owner.token, { items: items(b4.lines), payments: [{ method: 'cash', amount_xaf: b4.total }] });
  const voided = await voidSale(api, owner.token, s3.id);
  const refunded = await refundSale(api, owner.token, s4.id, { method: 'cash', items: [{ sale_item_id: s4.items[0].id, quantity: 1 }] });
  if (voided.status !== 200 || refunded.status !== 201) throw new Error(`void or refund failed: ${JSON.stringify([voided.body, refunded.body])}`);
  // The refunded part of a line: its total and VAT in proportion, its cost at the line's unit cost.
  const rizLine = b4.lines[0]!;
  const refund = { p: riz, quantity: 1, total: roundHalfAway(rizLine.total / 4), vat: roundHalfAway(rizLine.vat / 4), cost: roundHalfAway(riz.cost_xaf) };

  const sales = [b1, b2, b3, b4];
  // Every movement of goods, signed: the sales' lines, less the voided sale's, less the refunded part.
  const moves = [...sales.flatMap((b) => b.lines), ...b3.lines.map((l) => ({ ...l, quantity: -l.quantity, total: -l.total, vat: -l.vat, cost: -l.cost })),
    { ...refund, quantity: -1, total: -refund.total, vat: -refund.vat, cost: -refund.cost }];
  const netBy = (key: (m: (typeof moves)[number]) => string | null) => {
    const out = new Map<string | null, { quantity: number; total: number; vat: number; cost: number }>();
    for (const m of moves) {
      const acc = out.get(key(m)) ?? { quantity: 0, total: 0, vat: 0, cost: 0 };
      out.set(key(m), { quantity: acc.quantity + m.quantity, total: acc.total + m.total, vat: acc.vat + m.vat, cost: acc.cost + m.cost });
    }
    return out;
  };
  return {
    owner, manager, cashier, products: [ciment, riz, livraison, tuile], categories: { [materials.id]: 'Matériaux', [food.id]: 'Alimentation' } as Record<string, string>,
    sales, s: [s1, s2, s3, s4], b: { b1, b2, b3, b4 }, refund, byProduct: netBy((m) => m.p.id), byCategory: netBy((m) => m.p.category_id ?? null),
  };
}
const shop = await tradingShop();
const today = await shopDay(api, shop.owner.shop.id);
const TODAY = { from: today, to: today };

t.test('sales summary: totals, every day up to today (zeros included), payments, categories and cashiers', async (t) => {
  const { b1, b2, b3, b4 } = shop.b;
  const reply = await report(shop.manager.token, 'sales-summary', { from: addDays(today, -3), to: addDays(today, 2) });
  t.equal(reply.status, 200);
  const data = reply.body.data;
  t.match(data, { from: addDays(today, -3), to: addDays(today, 2) });
  const salesTotal = sum(shop.sales.map((b) => b.total));
  const vat = sum(shop.sales.map((b) => b.vat)) - b3.vat - shop.refund.vat;
  const netTotal = salesTotal - b3.total - shop.refund.total;
  t.strictSame(data.totals, {
    sales_count: 4, gross_xaf: sum(shop.sales.map((b) => b.gross)), discounts_xaf: 250, sales_total_xaf: salesTotal,
    voids_count: 1, voids_total_xaf: b3.total, refunds_count: 1, refunds_total_xaf: shop.refund.total,
    net_total_xaf: netTotal, vat_xaf: vat, net_xaf: netTotal - vat, average_basket_xaf: roundHalfAway(salesTotal / 4),
  });
  const zero = { sales_count: 0, sales_total_xaf: 0, voids_total_xaf: 0, refunds_total_xaf: 0, net_total_xaf: 0, vat_xaf: 0, net_xaf: 0 };
  t.strictSame(data.days, [
    ...[-3, -2, -1].map((n) => ({ date: addDays(today, n), ...zero })),
    { date: today, sales_count: 4, sales_total_xaf: salesTotal, voids_total_xaf: b3.total, refunds_total_xaf: shop.refund.total, net_total_xaf: netTotal, vat_xaf: vat, net_xaf: netTotal - vat },
  ], 'from `from` to today, the days to come left out');
  t.strictSame(data.payments, [
    { method: 'card', amount_xaf: 0 },
    { method: 'carrier1_momo', amount_xaf: b2.total },
    { method: 'cash', amount_xaf: b1.total + b4.total - shop.refund.total },
  ], 'net of change, voids and refunds');
  const categories = [...shop.byCategory].map(([id, c]) => ({ category_id: id, name: id ? shop.categories[id]! : null, quantity: c.quantity, total_xaf: c.total, vat_xaf: c.vat, net_xaf: c.total - c.vat }))
    .sort((a, b) => b.total_xaf - a.total_xaf);
  t.strictSame(data.categories, categories, 'net of voids and refunds, largest first');
  t.strictSame(data.cashiers, [
    { user_id: shop.owner.user.id, name: shop.owner.user.name, sales_count: 2, total_xaf: b1.total + b4.total },
    { user_id: shop.cashier.user.id, name: shop.cashier.user.name, sales_count: 2, total_xaf: b2.total + b3.total },
  ].sort((a, b) => b.total_xaf - a.total_xaf), 'sales made per cashier, the voided one included');
});

t.test('sales summary equals the days\' Zs from GET /reports/z', async (t) => {
  const data = (await report(shop.owner.token, 'sales-summary', { from: addDays(today, -2), to: today })).body.data;
  const zs = [];
  for (const day of data.days) {
    const z = (await api.request('GET', `/reports/z?date=${day.date}`, { token: shop.owner.token })).body.data;
    zs.push(z);
    t.strictSame(day, { date: z.date, sales_count: z.sales.count, sales_total_xaf: z.sales.total_xaf, voids_total_xaf: z.voids.total_xaf,
      refunds_total_xaf: z.refunds.total_xaf, net_total_xaf: z.net_total_xaf, vat_xaf: z.vat_xaf, net_xaf: z.net_xaf }, day.date);
  }
  t.match(data.totals, { sales_count: sum(zs.map((z) => z.sales.count)), gross_xaf: sum(zs.map((z) => z.sales.gross_xaf)), discounts_xaf: sum(zs.map((z) => z.sales.discounts_xaf)),
    voids_count: sum(zs.map((z) => z.voids.count)), refunds_count: sum(zs.map((z) => z.refunds.count)), net_total_xaf: sum(zs.map((z) => z.net_total_xaf)),
    vat_xaf: sum(zs.map((z) => z.vat_xaf)), net_xaf: sum(zs.map((z) => z.net_xaf)) });
  t.strictSame(data.payments, zs.flatMap((z) => z.payments), 'one day with activity: its payments');
  t.strictSame(data.cashiers, zs.flatMap((z) => z.cashiers));
});

t.test('margin: revenue excluding VAT, cost of tracked goods at the recorded cost (untracked: 0), rate in percent, net of voids and refunds', async (t) => {
  const data = (await report(shop.manager.token, 'margin', TODAY)).body.data;
  const products = shop.products.map((p) => {
    const m = shop.byProduct.get(p.id)!;
    const revenue = m.total - m.vat;
    return { product_id: p.id, name: p.name, category_id: p.category_id ?? null, tracked: p.tracked, quantity: m.quantity, revenue_xaf: revenue, cost_xaf: m.cost, margin_xaf: revenue - m.cost, margin_rate: rate2(revenue - m.cost, revenue) };
  }).sort((a, b) => b.margin_xaf - a.margin_xaf);
  t.strictSame(data.products, products, 'largest margin first');
  const tuile = data.products.find((p: any) => p.name === 'Tuile');
  t.match(tuile, { quantity: 0, revenue_xaf: 0, margin_rate: null }, 'sold and voided: revenue 0, rate null');
  const livraison = data.products.find((p: any) => p.name === 'Livraison');
  t.match(livraison, { tracked: false, cost_xaf: 0 }, 'untracked: no cost although the product has one');
  const revenue = sum(products.map((p) => p.revenue_xaf));
  const cost = sum(products.map((p) => p.cost_xaf));
  t.strictSame(data.totals, { revenue_xaf: revenue, cost_xaf: cost, margin_xaf: revenue - cost, margin_rate: rate2(revenue - cost, revenue) });
  const categories = [...shop.byCategory].map(([id, c]) => ({ category_id: id, name: id ? shop.categories[id]! : null, quantity: c.quantity, revenue_xaf: c.total - c.vat, cost_xaf: c.cost,
    margin_xaf: c.total - c.vat - c.cost, margin_rate: rate2(c.total - c.vat - c.cost, c.total - c.vat) })).sort((a, b) => b.margin_xaf - a.margin_xaf);
  t.strictSame(data.categories, categories);
  const empty = await registerShop(api);
  t.match((await report(empty.token, 'margin', TODAY)).body.data, { totals: { revenue_xaf: 0, cost_xaf: 0, margin_xaf: 0, margin_rate: null }, products: [], categories: [] }, 'revenue 0: rate null');
});

t.test('margin cost equals what the sales, voids and refunds moved through 6031', async (t) => {
  const data = (await report(shop.owner.token, 'margin', TODAY)).body.data;
  const journal = await journalByDay(api, shop.owner.shop.id, '6031', ['sale', 'sale_void', 'sale_refund']);
  t.equal(data.totals.cost_xaf, -sum([...journal.values()]));
  t.equal(data.totals.cost_xaf, sum([...shop.byProduct.values()].map((m) => m.cost)), 'and the inputs');
});

t.test('a product\'s cost changed after the sale does not change the reported cost', async (t) => {
  const before = (await report(shop.owner.token, 'margin', TODAY)).body.data;
  const [ciment, riz] = shop.products;
  for (const [p, cost] of [[ciment!, 9_999], [riz!, 1]] as const) {
    t.equal((await api.request('PUT', `/products/${p.id}`, { token: shop.owner.token, body: { cost_xaf: cost } })).status, 200);
  }
  t.strictSame((await report(shop.owner.token, 'margin', TODAY)).body.data, before);
  for (const p of [ciment!, riz!]) await api.request('PUT', `/products/${p.id}`, { token: shop.owner.token, body: { cost_xaf: p.cost_xaf } });
});

t.test('analytics: count, total and average basket, best sellers, 24 hours and 7 weekdays, payment mix with shares', async (t) => {
  const data = (await report(shop.manager.token, 'analytics', TODAY)).body.data;
  const total = sum(shop.sales.map((b) => b.total));
  t.match(data, { from: today, to: today, sales_count: 4, sales_total_xaf: total, average_basket_xaf: roundHalfAway(total / 4) });
  const sold = shop.products.map((p) => ({ product_id: p.id, name: p.name, quantity: shop.byProduct.get(p.id)!.quantity, total_xaf: shop.byProduct.get(p.id)!.total }));
  const rank = (rows: typeof sold) => rows.map((row, i) => ({ rank: i + 1, ...row }));
  t.strictSame(data.best_sellers_by_quantity, rank(sold.filter((p) => p.quantity > 0).sort((a, b) => b.quantity - a.quantity)), 'the voided-only product left out');
  t.strictSame(data.best_sellers_by_revenue, rank(sold.filter((p) => p.total_xaf > 0).sort((a, b) => b.total_xaf - a.total_xaf)));
  const made: { id: string; hour: number; weekday: number }[] = [...(await api.ownerSql<{ id: string; hour: number; weekday: number }[]>`
    select x.id, extract(hour from x.created_at at time zone s.timezone)::int as hour, extract(isodow from x.created_at at time zone s.timezone)::int as weekday
      from sales x join shops s on s.id = x.shop_id where x.shop_id = ${shop.owner.shop.id}`)];
  const totalOf = (id: string) => shop.sales[shop.s.findIndex((s) => s.id === id)]!.total;
  const slot = (rows: typeof made) => ({ sales_count: rows.length, total_xaf: sum(rows.map((r) => totalOf(r.id))) });
  t.strictSame(data.hours, Array.from({ length: 24 }, (_, hour) => ({ hour, ...slot(made.filter((r) => r.hour === hour)) })));
  t.strictSame(data.weekdays, Array.from({ length: 7 }, (_, i) => ({ weekday: i + 1, ...slot(made.filter((r) => r.weekday === i + 1)) })));
  const money = [{ method: 'cash', amount_xaf: shop.b.b1.total + shop.b.b4.total - shop.refund.total }, { method: 'carrier1_momo', amount_xaf: shop.b.b2.total }];
  const taken = sum(money.map((m) => m.amount_xaf));
  t.strictSame(data.payment_mix, money.sort((a, b) => b.amount_xaf - a.amount_xaf).map((m) => ({ ...m, share: roundHalfAway((1_000 * m.amount_xaf) / taken) / 10 })), 'card netted to 0 by the void: left out');
});

t.test('analytics best sellers: the top 10 by quantity and by revenue', async (t) => {
  const owner = await registerShop(api);
  const products = [];
  for (let i = 1; i <= 12; i++) products.push({ i, ...(await createProduct(api, owner.token, { name: `Article ${i}`, price_xaf: 2_007 - 100 * i, vat_rate: 19.25, tracked: false })) });
  await sell(api, owner.token, { items: products.map((p) => ({ product_id: p.id, quantity: p.i })), payments: [{ method: 'cash', amount_xaf: 1_000_000 }] });
  const data = (await report(owner.token, 'analytics')).body.data;
  const rows = products.map((p) => ({ product_id: p.id, name: p.name, quantity: p.i, total_xaf: p.i * (2_007 - 100 * p.i) }));
  const top = (order: (a: (typeof rows)[number], b: (typeof rows)[number]) => number) => [...rows].sort(order).slice(0, 10).map((row, i) => ({ rank: i + 1, ...row }));
  t.strictSame(data.best_sellers_by_quantity, top((a, b) => b.quantity - a.quantity));
  t.strictSame(data.best_sellers_by_revenue, top((a, b) => b.total_xaf - a.total_xaf));
  t.equal(data.average_basket_xaf, sum(rows.map((r) => r.total_xaf)), 'one sale: the basket is its total');
});

const KINDS = ['sales-summary', 'margin', 'analytics'] as const;

t.test('bounds: to before from is a 422 on to', async (t) => {
  for (const kind of KINDS) expectInvalid(t, await report(shop.manager.token, kind, { from: today, to: addDays(today, -1) }), 'to', kind);
});

t.test('bounds: a malformed date (2026-02-30, abc) is a 422 on its key', async (t) => {
  for (const kind of KINDS) {
    for (const bad of ['2026-02-30', 'abc']) {
      expectInvalid(t, await report(shop.manager.token, kind, { from: bad, to: today }), 'from', `${kind} from=${bad}`);
      expectInvalid(t, await report(shop.manager.token, kind, { from: addDays(today, -1), to: bad }), 'to', `${kind} to=${bad}`);
    }
  }
});

t.test('bounds: from after today is a 422 on from; to after today is accepted', async (t) => {
  for (const kind of KINDS) {
    expectInvalid(t, await report(shop.manager.token, kind, { from: addDays(today, 1), to: addDays(today, 2) }), 'from', kind);
    const ahead = await report(shop.manager.token, kind, { from: today, to: addDays(today, 5) });
    t.match(ahead, { status: 200, body: { data: { from: today, to: addDays(today, 5) } } }, `${kind} to after today`);
  }
});

t.test('bounds: a period longer than 1,096 days is a 422 on to', async (t) => {
  for (const kind of KINDS) {
    expectInvalid(t, await report(shop.manager.token, kind, { from: addDays(today, -1096), to: today }), 'to', `${kind} 1,097 days`);
    t.equal((await report(shop.manager.token, kind, { from: addDays(today, -1095), to: today })).status, 200, `${kind} 1,096 days`);
  }
});

t.test('bounds: sales summary without from or to is a 422 on that key', async (t) => {
  expectInvalid(t, await report(shop.manager.token, 'sales-summary', { to: today }), 'from', 'without from');
  expectInvalid(t, await report(shop.manager.token, 'sales-summary', { from: today }), 'to', 'without to');
  expectInvalid(t, await report(shop.manager.token, 'sales-summary'), ['from', 'to'], 'without either');
});

t.test('voids and refunds net out', async (t) => {
  const owner = await registerShop(api);
  await openShift(api, owner.token);
  const p = await createProduct(api, owner.token, { name: 'Peinture', price_xaf: 7_500, vat_rate: 19.25, cost_xaf: 4_000 }, 10);
  const a = await sell(api, owner.token, { items: [{ product_id: p.id, quantity: 2 }], payments: [{ method: 'card', amount_xaf: 15_000 }] });
  const b = await sell(api, owner.token, { items: [{ product_id: p.id, quantity: 3, discount_xaf: 1 }], payments: [{ method: 'cash', amount_xaf: 22_499 }] });
  t.equal((await voidSale(api, owner.token, a.id)).status, 200);
  t.equal((await refundSale(api, owner.token, b.id, { method: 'cash', items: [{ sale_item_id: b.items[0].id, quantity: 3 }] })).status, 201);
  const summary = (await report(owner.token, 'sales-summary', TODAY)).body.data;
  t.match(summary.totals, { sales_count: 2, sales_total_xaf: 15_000 + 22_499, voids_total_xaf: 15_000, refunds_total_xaf: 22_499, net_total_xaf: 0, vat_xaf: 0, net_xaf: 0 });
  t.strictSame(summary.payments, [{ method: 'card', amount_xaf: 0 }, { method: 'cash', amount_xaf: 0 }]);
  t.strictSame(summary.categories, [{ category_id: null, name: null, quantity: 0, total_xaf: 0, vat_xaf: 0, net_xaf: 0 }]);
  t.match((await report(owner.token, 'margin', TODAY)).body.data.totals, { revenue_xaf: 0, cost_xaf: 0, margin_xaf: 0, margin_rate: null });
  t.match((await report(owner.token, 'analytics', TODAY)).body.data, { sales_count: 2, best_sellers_by_quantity: [], best_sellers_by_revenue: [], payment_mix: [] });
});

t.test('manager or owner only: a cashier gets 403', async (t) => {
  for (const kind of KINDS) {
    expectError(t, await report(shop.cashier.token, kind, TODAY), 403, FORBIDDEN, kind);
    t.equal((await report(shop.manager.token, kind, TODAY)).status, 200, `${kind} manager`);
    t.equal((await report(shop.owner.token, kind, TODAY)).status, 200, `${kind} owner`);
  }
});

t.test('margin and analytics defaults: the last 30 days; only from: to today; only to: the 30 days ending then', async (t) => {
  for (const kind of ['margin', 'analytics'] as const) {
    t.match((await report(shop.owner.token, kind)).body.data, { from: addDays(today, -29), to: today }, `${kind} neither`);
    t.match((await report(shop.owner.token, kind, { from: addDays(today, -5) })).body.data, { from: addDays(today, -5), to: today }, `${kind} only from`);
    t.match((await report(shop.owner.token, kind, { to: addDays(today, -10) })).body.data, { from: addDays(today, -39), to: addDays(today, -10) }, `${kind} only to`);
    t.match((await report(shop.owner.token, kind)).body.data, kind === 'margin' ? { totals: { revenue_xaf: (await report(shop.owner.token, kind, TODAY)).body.data.totals.revenue_xaf } } : { sales_count: 4 }, `${kind} default covers today`);
    t.match((await report(shop.owner.token, kind, { to: addDays(today, -1) })).body.data, kind === 'margin' ? { totals: { revenue_xaf: 0 }, products: [] } : { sales_count: 0 }, `${kind} ending yesterday: nothing`);
  }
});

t.test('another shop\'s sales never appear', async (t) => {
  const other = await registerShop(api);
  const product = await createProduct(api, other.token, { name: 'Autre', price_xaf: 3_000, vat_rate: 19.25 }, 10);
  await sell(api, other.token, { items: [{ product_id: product.id, quantity: 2 }], payments: [{ method: 'cash', amount_xaf: 6_000 }] });
  const mine = await registerShop(api);
  t.match((await report(mine.token, 'sales-summary', TODAY)).body.data, { totals: { sales_count: 0, sales_total_xaf: 0, net_total_xaf: 0 }, payments: [], categories: [], cashiers: [] });
  t.match((await report(mine.token, 'margin', TODAY)).body.data, { totals: { revenue_xaf: 0 }, products: [], categories: [] });
  t.match((await report(mine.token, 'analytics', TODAY)).body.data, { sales_count: 0, best_sellers_by_quantity: [], best_sellers_by_revenue: [], payment_mix: [] });
  const summary = (await report(shop.owner.token, 'sales-summary', TODAY)).body.data;
  t.equal(summary.totals.sales_count, 4, 'the trading shop still sees only its own four');
  t.notOk(JSON.stringify(await Promise.all((['sales-summary', 'margin', 'analytics'] as const).map(async (k) => (await report(shop.owner.token, k, TODAY)).body))).includes(product.id), 'nor the other shop\'s product');
});

t.test('days sealed by the nightly task give the same figures as before sealing', async (t) => {
  await startMailWorker(t, api, await startMailbox(t));
  const owner = await registerShop(api);
  await openShift(api, owner.token);
  const ciment = await createProduct(api, owner.token, { name: 'Ciment', price_xaf: 5_000, vat_rate: 19.25, cost_xaf: 3_500 }, 1_000);
  const service = await createProduct(api, owner.token, { name: 'Pose', price_xaf: 1_500, vat_rate: 0, tracked: false });
  const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
  const a = await sell(api, owner.token, { items: [{ product_id: ciment.id, quantity: 3, discount_xaf: 99 }, { product_id: service.id, quantity: 1 }], payments: cash(20_000) });
  await refundSale(api, owner.token, a.id, { method: 'cash', items: [{ sale_item_id: a.items[0].id, quantity: 1 }] });
  await backdate(api, owner.shop.id, 2);
  const b = await sell(api, owner.token, { items: [{ product_id: ciment.id, quantity: 2 }], payments: [{ method: 'card', amount_xaf: 10_000 }] });
  await sell(api, owner.token, { items: [{ product_id: service.id, quantity: 2 }], payments: cash(3_000) });
  await backdate(api, owner.shop.id, 1);
  // Three days ago: a sale partly refunded; two days ago nothing; yesterday two sales; today one, and yesterday's card sale voided.
  await sell(api, owner.token, { items: [{ product_id: ciment.id, quantity: 1 }, { product_id: service.id, quantity: 1 }], payments: cash(6_500) });
  t.equal((await voidSale(api, owner.token, b.id)).status, 200);
  const d0 = await shopDay(api, owner.shop.id);
  const period = { from: addDays(d0, -4), to: d0 };
  const reports = async () => Promise.all((['sales-summary', 'margin', 'analytics'] as const).map(async (k) => (await report(owner.token, k, period)).body.data));
  const before = await reports();
  t.match(before[0], { totals: { sales_count: 4, voids_count: 1, refunds_count: 1 } }, 'the history is there');
  await seal(api);
  const [row] = await api.ownerSql<{ through: string; facts: number }[]>`
    select z.sealed_through::text as through, (select count(*)::int from report_facts f where f.shop_id = z.shop_id) as facts from z_seals z where z.shop_id = ${owner.shop.id}`;
  t.match(row, { through: addDays(d0, -1) }, 'sealed through yesterday');
  t.ok(row!.facts > 0, 'roll-ups stored');
  const after = await reports();
  t.strictSame(after[0], before[0], 'sales summary');
  t.strictSame(after[1], before[1], 'margin');
  t.strictSame(after[2], before[2], 'analytics');
});
