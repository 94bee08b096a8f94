import fc from 'fast-check';
import t from 'tap';
import { createProduct, ledgerInvariants, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { createCustomer, createPromotion, openShift, postSale, productWithVariants, refundSale, voidSale } from './sale-fixtures.ts';

const api = await startService(t);

/**
 * Random baskets, payments, voids and partial refunds, each run in a shop of its own, checked after
 * every step against a model and against the database's invariants. Fixed seed so CI is
 * reproducible; FC_SEED (and FC_PATH, from a failure report) replay another run, FC_RUNS changes
 * how many.
 */
const RUN = propertyRun(20_260_521, 25);
const PATH = RUN.path;

const VAT_RATES = [0, 5.5, 19.25, 20, 100] as const;
const REFUND_METHODS = ['cash', 'card', 'carrier2_money', 'bank', 'credit'] as const;
const PLANS = ['cash_exact', 'cash_over', 'card_exact', 'split', 'credit_part', 'credit_explicit', 'short', 'card_over'] as const;

// The generators

const quantityMilli = fc.oneof(fc.integer({ min: 1, max: 3 }).map((n) => n * 1000), fc.integer({ min: 1, max: 3000 }));
const discount = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 800 }) });

const productSpec = fc.record({
  price: fc.integer({ min: 0, max: 5000 }),
  cost: fc.integer({ min: 0, max: 3000 }),
  vat: fc.constantFrom(...VAT_RATES),
  stock: fc.integer({ min: 0, max: 12 }),
  variantPrices: fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 5000 })),
  variantStock: fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 })),
});
const promotionSpec = fc.oneof(
  fc.record({ kind: fc.constant('percent' as const), value: fc.integer({ min: 1, max: 50 }), target: fc.nat(3) }),
  fc.record({ kind: fc.constant('amount_xaf' as const), value: fc.integer({ min: 1, max: 300 }), target: fc.nat(3) }),
);
const setupSpec = fc.record({
  products: fc.array(productSpec, { minLength: 2, maxLength: 4 }),
  promotions: fc.array(promotionSpec, { minLength: 1, maxLength: 2 }),
  ceiling: fc.oneof({ weight: 1, arbitrary: fc.constantFrom(0, 3000) }, { weight: 3, arbitrary: fc.constantFrom(50_000, 1_000_000) }),
});

const lineSpec = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('product' as const),
      product: fc.nat(3),
      variant: fc.nat(1),
      quantity: quantityMilli,
      discount,
      price: fc.option(fc.integer({ min: 0, max: 5000 }), { freq: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('free' as const), quantity: quantityMilli, discount, price: fc.integer({ min: 0, max: 5000 }), vat: fc.constantFrom(...VAT_RATES) }),
  },
);
const saleStep = fc.record({
  kind: fc.constant('sale' as const),
  lines: fc.array(lineSpec, { minLength: 1, maxLength: 4 }),
  plan: fc.oneof(...PLANS.map((plan) => ({ weight: plan === 'short' || plan === 'card_over' ? 2 : plan.startsWith('credit') ? 4 : 3, arbitrary: fc.constant(plan) }))),
  customer: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  extra: fc.integer({ min: 1, max: 5000 }),
  share: fc.integer({ min: 0, max: 1000 }),
});
/** Which sale a void or a refund takes, counted back from the latest: most often the latest. */
const pick = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat() });
const voidStep = fc.record({ kind: fc.constant('void' as const), pick });
const refundStep = fc.record({
  kind: fc.constant('refund' as const),
  pick,
  method: fc.oneof(...REFUND_METHODS.map((method) => ({ weight: method === 'credit' ? 3 : 1, arbitrary: fc.constant(method) }))),
  parts: fc.array(fc.record({ item: fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(3) }), perMille: fc.oneof({ weight: 1, arbitrary: fc.constant(1000) }, { weight: 1, arbitrary: fc.constant(500) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 999 }) }), over: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) }), { minLength: 1, maxLength: 3 }),
});
type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;
type Setup = Generated<typeof setupSpec>;
type Step = Generated<typeof saleStep> | Generated<typeof voidStep> | Generated<typeof refundStep>;
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof({ weight: 3, arbitrary: saleStep as fc.Arbitrary<Step> }, { weight: 1, arbitrary: voidStep as fc.Arbitrary<Step> }, { weight: 3, arbitrary: refundStep as fc.Arbitrary<Step> }),
  { minLength: 6, maxLength: 24 },
);

// The model

/** round(num / den) half away from zero, for non-negative integers: exact, no floating point. */
const roundDiv = (num: number, den: number) => Math.floor((2 * num + den) / (2 * den));
const vatOf = (total: number, rate: number) => roundDiv(total * Math.round(rate * 100), 10_000 + Math.round(rate * 100));

interface Stocked {
  productId: string;
  variantId: string | null;
}
interface ModelItem {
  id: string;
  total: number;
  vat: number;
  quantity: number; // thousandths
  refunded: number; // thousandths
  refundedTotal: number;
  refundedVat: number;
  stock: Stocked | null;
}
interface ModelSale {
  id: string;
  status: 'completed' | 'voided' | 'partially_refunded' | 'refunded';
  customer: boolean;
  credit: number;
  /** What the sale still leaves on the customer's account. */
  owed: number;
  items: ModelItem[];
}
interface World {
  owner: ShopFixture;
  customerId: string;
  ceiling: number;
  balance: number;
  products: { id: string; price: number; vat: number; tracked: boolean; variants: { id: string; price: number }[] }[];
  promotions: { kind: 'percent' | 'amount_xaf'; value: number; productId: string }[];
  /** On-hand in thousandths, by variant id or product id. */
  stock: Map<string, number>;
  sales: ModelSale[];
}

const stockKey = (s: Stocked) => s.variantId ?? s.productId;

/** Coverage of the generated runs, so a generator that never reaches the interesting paths fails. */
const seen: Record<string, number> = {};
const saw = (what: string) => {
  seen[what] = (seen[what] ?? 0) + 1;
};

class Violation extends Error {}

function check(condition: boolean, message: string, reply?: Reply): asserts condition {
  if (!condition) throw new Violation(`${message}${reply ? ` (answered ${reply.status} ${JSON.stringify(reply.body)})` : ''}`);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The step was refused as the model says: status, code and (for a 422) the one input named. */
function refused(reply: Reply, status: number, code: string, keys: string[] | null, at: string): void {
  check(reply.status === status && reply.body?.code === code, `${at}: expected ${status} ${code}`, reply);
  if (keys) check(keys.some((key) => same(Object.keys(reply.body.errors ?? {}), [key])), `${at}: refused on one of ${keys.join(', ')}`, reply);
  saw(`refused: ${code}`);
}

async function buildWorld(setup: Setup): Promise<World> {
  const owner = await registerShop(api);
  // The owner works at an open till: what a void or a refund pays back leaves its drawer.
  await openShift(api, owner.token);
  const products: World['products'] = [];
  const stock = new Map<string, number>();
  for (const [index, spec] of setup.products.entries()) {
    const fields = { price_xaf: spec.price, cost_xaf: spec.cost, vat_rate: spec.vat, unit: 'kg' };
    if (index === 0) {
      const { product, variants } = await productWithVariants(api, owner.token, {
        M: { price_xaf: spec.variantPrices[0], on_hand: spec.variantStock[0] },
        L: { price_xaf: spec.variantPrices[1], on_hand: spec.variantStock[1] },
      }, fields);
      products.push({ id: product.id, price: spec.price, vat: spec.vat, tracked: true, variants: [variants.M, variants.L].map((v, i) => ({ id: v.id, price: spec.variantPrices[i]! })) });
      stock.set(variants.M.id, spec.variantStock[0] * 1000);
      stock.set(variants.L.id, spec.variantStock[1] * 1000);
    } else if (index === 1) {
      const product = await createProduct(api, owner.token, { ...fields, tracked: false });
      products.push({ id: product.id, price: spec.price, vat: spec.vat, tracked: false, variants: [] });
    } else {
      const product = await createProduct(api, owner.token, fields, spec.stock);
      products.push({ id: product.id, price: spec.price, vat: spec.vat, tracked: true, variants: [] });
      stock.set(product.id, spec.stock * 1000);
    }
  }
  const promotions: World['promotions'] = [];
  for (const spec of setup.promotions) {
    const productId = products[spec.target % products.length]!.id;
    await createPromotion(api, owner.token, { kind: spec.kind, value: spec.value, product_ids: [productId] });
    promotions.push({ kind: spec.kind, value: spec.value, productId });
  }
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: setup.ceiling });
  return { owner, customerId: customer.id, ceiling: setup.ceiling, balance: 0, products, promotions, stock, sales: [] };
}

async function sell(world: World, step: Extract<Step, { kind: 'sale' }>, at: string): Promise<void> {
  const body: Record<string, unknown>[] = [];
  const expected: { total: number; vat: number; stock: Stocked | null; quantity: number }[] = [];
  for (const line of step.lines) {
    let unit: number;
    let rate: number;
    let stocked: Stocked | null = null;
    let productId: string | null = null;
    if (line.kind === 'product') {
      const product = world.products[line.product % world.products.length]!;
      const variant = product.variants.length ? product.variants[line.variant % product.variants.length]! : null;
      productId = product.id;
      unit = line.price ?? variant?.price ?? product.price;
      rate = product.vat;
      if (product.tracked) stocked = { productId: product.id, variantId: variant?.id ?? null };
      body.push({
        product_id: product.id,
        ...(variant ? { variant_id: variant.id } : {}),
        quantity: line.quantity / 1000,
        ...(line.discount ? { discount_xaf: line.discount } : {}),
        ...(line.price !== null ? { unit_price_xaf: line.price } : {}),
      });
    } else {
      unit = line.price;
      rate = line.vat;
      body.push({ name: 'Article libre', quantity: line.quantity / 1000, unit_price_xaf: unit, vat_rate: rate, discount_xaf: line.discount });
    }
    const gross = roundDiv(line.quantity * unit, 1000);
    const net = gross - Math.min(line.discount, gross);
    const promotion = Math.max(
      0,
      ...world.promotions
        .filter((p) => p.productId === productId)
        .map((p) => Math.min(net, p.kind === 'percent' ? roundDiv(net * p.value, 100) : roundDiv(line.quantity * p.value, 1000))),
    );
    const total = net - promotion;
    expected.push({ total, vat: vatOf(total, rate), stock: stocked, quantity: line.quantity });
  }
  const total = expected.reduce((s, l) => s + l.total, 0);

  const part = Math.floor((total * step.share) / 1000);
  const payments: { method: string; amount_xaf: number }[] = {
    cash_exact: [{ method: 'cash', amount_xaf: total }],
    cash_over: [{ method: 'cash', amount_xaf: total + step.extra }],
    card_exact: [{ method: 'card', amount_xaf: total }],
    split: [
      { method: 'card', amount_xaf: Math.floor(total / 3) },
      { method: 'carrier1_momo', amount_xaf: Math.floor(total / 3) },
      { method: 'cash', amount_xaf: total - 2 * Math.floor(total / 3) + step.extra },
    ],
    credit_part: [{ method: 'cash', amount_xaf: part }],
    credit_explicit: [{ method: 'credit', amount_xaf: part }, { method: 'bank', amount_xaf: total - part }],
    short: [{ method: 'cash', amount_xaf: Math.max(0, total - 1) }],
    card_over: [{ method: 'card', amount_xaf: total + step.extra }],
  }[step.plan];
  const reply = await postSale(api, world.owner.token, { ...(step.customer ? { customer_id: world.customerId } : {}), items: body, payments });
  check(reply.status !== 500, `${at}: no server error`, reply);

  // What the sale procedure must decide, in its own order: payments, then credit, then stock.
  const paid = payments.filter((p) => p.method !== 'credit').reduce((s, p) => s + p.amount_xaf, 0);
  const cashPaid = payments.filter((p) => p.method === 'cash').reduce((s, p) => s + p.amount_xaf, 0);
  const creditGiven = payments.filter((p) => p.method === 'credit').reduce((s, p) => s + p.amount_xaf, 0);
  const excess = paid + creditGiven - total;
  const credit = excess > 0 ? 0 : creditGiven - excess;
  if (excess > 0 && creditGiven > 0) return refused(reply, 422, 'validation_failed', ['payments'], at);
  if (excess > cashPaid) return refused(reply, 422, 'change_without_cash', ['payments'], at);
  if (credit > 0 && !step.customer) return refused(reply, 422, 'payment_insufficient', ['payments'], at);
  if (credit > 0 && world.balance + credit > world.ceiling) return refused(reply, 422, 'credit_limit_exceeded', ['customer_id'], at);
  const wanted = new Map<string, { quantity: number; first: number }>();
  expected.forEach((line, index) => {
    if (!line.stock) return;
    const key = stockKey(line.stock);
    const entry = wanted.get(key) ?? { quantity: 0, first: index };
    entry.quantity += line.quantity;
    wanted.set(key, entry);
  });
  const short = [...wanted.entries()].filter(([key, w]) => (world.stock.get(key) ?? 0) < w.quantity).map(([, w]) => `items.${w.first}.quantity`);
  if (short.length) return refused(reply, 422, 'insufficient_stock', short, at);

  check(reply.status === 201, `${at}: recorded`, reply);
  const sale = reply.body.data;
  check(sale.total_xaf === total, `${at}: total ${sale.total_xaf}, the CONTRACT's rounding says ${total}`, reply);
  check(same(sale.items.map((i: any) => [i.total_xaf, i.vat_xaf]), expected.map((l) => [l.total, l.vat])), `${at}: line totals and VAT ${JSON.stringify(expected)}`, reply);
  check(sale.credit_xaf === credit && sale.change_xaf === Math.max(0, excess), `${at}: credit ${credit} and change ${Math.max(0, excess)}`, reply);
  for (const [key, w] of wanted) world.stock.set(key, world.stock.get(key)! - w.quantity);
  world.balance += credit;
  world.sales.push({
    id: sale.id,
    status: 'completed',
    customer: step.customer,
    credit,
    owed: credit,
    items: sale.items.map((item: any, index: number) => ({
      id: item.id,
      total: item.total_xaf,
      vat: item.vat_xaf,
      quantity: expected[index]!.quantity,
      refunded: 0,
      refundedTotal: 0,
      refundedVat: 0,
      stock: expected[index]!.stock,
    })),
  });
  saw('sales');
  if (credit > 0) saw('credit sales');
  if (excess > 0) saw('change given');
}

async function voidOne(world: World, step: Extract<Step, { kind: 'void' }>, at: string): Promise<void> {
  const sale = world.sales[world.sales.length - 1 - (step.pick % world.sales.length)];
  if (!sale) return;
  const reply = await voidSale(api, world.owner.token, sale.id, { reason: 'Annulation' });
  if (sale.status === 'voided') return refused(reply, 409, 'sale_already_voided', null, at);
  if (sale.status !== 'completed') return refused(reply, 409, 'sale_refunded', null, at);
  check(reply.status === 200 && reply.body.data.status === 'voided', `${at}: voided`, reply);
  if (sale.owed > 0) saw('voids of credit sales');
  for (const item of sale.items) if (item.stock) world.stock.set(stockKey(item.stock), world.stock.get(stockKey(item.stock))! + item.quantity);
  world.balance -= sale.owed;
  sale.owed = 0;
  sale.status = 'voided';
  saw('voids');
}

async function refundSome(world: World, step: Extract<Step, { kind: 'refund' }>, at: string): Promise<void> {
  const sale = world.sales[world.sales.length - 1 - (step.pick % world.sales.length)];
  if (!sale) return;
  const chosen = new Map<number, (typeof step.parts)[number]>();
  for (const part of step.parts) if (!chosen.has(part.item % sale.items.length)) chosen.set(part.item % sale.items.length, part);
  const parts = [...chosen.entries()].map(([index, part]) => {
    const item = sale.items[index]!;
    const left = item.quantity - item.refunded;
    return { item, quantity: part.over ? left + 1 + (part.perMille % 500) : Math.max(1, Math.floor((left * part.perMille) / 1000)) };
  });
  const reply = await refundSale(api, world.owner.token, sale.id, {
    method: step.method,
    items: parts.map((p) => ({ sale_item_id: p.item.id, quantity: p.quantity / 1000 })),
  });
  check(reply.status !== 500, `${at}: no server error`, reply);
  if (sale.status === 'voided') return refused(reply, 409, 'sale_voided', null, at);
  if (sale.status === 'refunded') return refused(reply, 409, 'sale_refunded', null, at);
  const beyond = parts.findIndex((p) => p.quantity > p.item.quantity - p.item.refunded);
  if (beyond >= 0) return refused(reply, 422, 'refund_exceeds_sold', [`items.${beyond}.quantity`], at);

  const shares = parts.map(({ item, quantity }) => {
    const last = quantity === item.quantity - item.refunded;
    return {
      total: last ? item.total - item.refundedTotal : roundDiv(item.total * quantity, item.quantity),
      vat: last ? item.vat - item.refundedVat : roundDiv(item.vat * quantity, item.quantity),
      last,
    };
  });
  const total = shares.reduce((s, share) => s + share.total, 0);
  // Paid back to the account: never more than this sale still owes on it.
  if (step.method === 'credit' && (!sale.customer || (total > 0 && sale.owed < total))) return refused(reply, 422, 'validation_failed', ['method'], at);

  check(reply.status === 201, `${at}: refunded`, reply);
  if (step.method === 'credit') {
    sale.owed -= total;
    world.balance -= total;
    saw('refunds to the account');
  }
  for (const [index, { item, quantity }] of parts.entries()) {
    const { total: partTotal, vat: partVat, last } = shares[index]!;
    if (last && item.refunded > 0) saw('lines refunded whole in several parts');
    item.refunded += quantity;
    item.refundedTotal += partTotal;
    item.refundedVat += partVat;
    if (item.stock) world.stock.set(stockKey(item.stock), world.stock.get(stockKey(item.stock))! + quantity);
  }
  sale.status = sale.items.every((i) => i.refunded === i.quantity) ? 'refunded' : 'partially_refunded';
  const refund = reply.body.data.refunds.at(-1);
  check(refund?.total_xaf === total, `${at}: the refund's total ${refund?.total_xaf}, pro rata ${total}`, reply);
  check(reply.body.data.status === sale.status, `${at}: status ${sale.status}`, reply);
  saw('refunds');
  if (sale.status === 'refunded') saw('full refunds');
}

/** Every invariant, straight from the database, after a step. */
async function checkInvariants(world: World, at: string): Promise<void> {
  const shopId = world.owner.shop.id;
  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, shopId);
  check(unbalancedEntries.length === 0, `${at}: every journal entry balances, but ${JSON.stringify(unbalancedEntries)}`);
  check(stockMismatches.length === 0, `${at}: on-hand equals the sum of movements, but ${JSON.stringify(stockMismatches)}`);

  const sales = await api.ownerSql<{ id: string; status: string; total_xaf: number; paid_xaf: number; change_xaf: number; credit_xaf: number }[]>`
    select id, status, total_xaf, paid_xaf, change_xaf, credit_xaf from sales where shop_id = ${shopId}`;
  check(sales.length === world.sales.length, `${at}: ${sales.length} sales recorded, the model ${world.sales.length}`);
  for (const sale of sales) {
    check(sale.total_xaf === sale.paid_xaf - sale.change_xaf + sale.credit_xaf, `${at}: sale ${sale.id}: total = paid - change + credit, but ${JSON.stringify(sale)}`);
    check(sale.status === world.sales.find((s) => s.id === sale.id)?.status, `${at}: sale ${sale.id} is ${sale.status}`);
  }

  const items = await api.ownerSql<{ id: string; quantity: number; refunded_quantity: number; total_xaf: number; vat_xaf: number; refunded: number; refunded_total: number; refunded_vat: number }[]>`
    select i.id, i.quantity, i.refunded_quantity, i.total_xaf, i.vat_xaf,
           coalesce(sum(r.quantity), 0) as refunded, coalesce(sum(r.total_xaf), 0)::bigint as refunded_total, coalesce(sum(r.vat_xaf), 0)::bigint as refunded_vat
      from sale_items i left join refund_items r on r.shop_id = i.shop_id and r.sale_item_id = i.id
     where i.shop_id = ${shopId}
     group by i.shop_id, i.id`;
  for (const item of items) {
    check(item.refunded_quantity <= item.quantity && item.refunded === item.refunded_quantity, `${at}: item ${item.id}: refunded ${item.refunded} (${item.refunded_quantity}) of ${item.quantity}, never more`);
    check(item.refunded_total <= item.total_xaf && item.refunded_vat <= item.vat_xaf, `${at}: item ${item.id}: refunds ${item.refunded_total} (VAT ${item.refunded_vat}) never exceed ${item.total_xaf} (VAT ${item.vat_xaf})`);
    if (item.refunded_quantity === item.quantity) {
      check(item.refunded_total === item.total_xaf && item.refunded_vat === item.vat_xaf, `${at}: item ${item.id} refunded whole: its refunds add up to its total and VAT`);
    }
  }

  for (const [key, expected] of world.stock) {
    const [row] = await api.ownerSql<{ on_hand: number }[]>`
      select on_hand from variants where id = ${key} union all select on_hand from products where id = ${key}`;
    check(Math.round(row!.on_hand * 1000) === expected, `${at}: on-hand of ${key} is ${row!.on_hand}, the model ${expected / 1000}`);
  }
  const [customer] = await api.ownerSql<{ balance_xaf: number }[]>`select balance_xaf from customers where id = ${world.customerId}`;
  check(customer!.balance_xaf === world.balance, `${at}: the customer owes ${customer!.balance_xaf}, the model ${world.balance}`);
}

async function run(setup: Setup, sequence: Step[]): Promise<void> {
  const world = await buildWorld(setup);
  await checkInvariants(world, 'set-up');
  for (const [index, step] of sequence.entries()) {
    const at = `step ${index} ${JSON.stringify(step)}`;
    if (step.kind === 'sale') await sell(world, step, at);
    else if (step.kind === 'void') await voidOne(world, step, at);
    else await refundSome(world, step, at);
    await checkInvariants(world, at);
  }
}

t.test('random baskets, payments, voids and refunds keep the journal balanced, the money and the stock accounted for', async (t) => {
  const property = fc.asyncProperty(setupSpec, steps, run);
  await checkProperty(t, property, RUN, 'random runs', 60_000);
  t.comment(`exercised: ${JSON.stringify(seen)}`);
  if (!PATH) {
    for (const what of ['sales', 'credit sales', 'change given', 'voids', 'voids of credit sales', 'refunds', 'refunds to the account', 'full refunds', 'lines refunded whole in several parts', 'refused: insufficient_stock', 'refused: refund_exceeds_sold', 'refused: change_without_cash', 'refused: payment_insufficient']) {
      t.ok((seen[what] ?? 0) > 0, `the runs reached ${what} (${seen[what] ?? 0})`);
    }
  }
});
