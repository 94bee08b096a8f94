/**
 * Every statement of the sale, void, refund and stock procedures (and the pricing, loyalty, journal
 * and shift lookups they call) reads rows bounded by the basket, never by the size of the shop: in a
 * shop of 3,000 products, 1,000 customers and 150 earlier sales, no scan of any table reads more than
 * BOUND rows. What is counted is what PostgreSQL did (auto_explain with actual rows, tests/support/
 * plans.ts), on the generic plans PL/pgSQL settles on after five calls as well as the first ones.
 */
import t, { type Test } from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { planSession, type TableRead } from '../support/plans.ts';
import { startService } from '../support/service.ts';
import { createCustomer, createPromotion, openShift, productWithVariants, staffedShop } from './sale-fixtures.ts';

const api = await startService(t);
/** Rows a scan may read for a 6-line basket: its lines, their payments and journal lines, a few tiers and promotions. */
const BOUND = 40;
const PRODUCTS = 3000;

const { owner, manager } = await staffedShop(api);
// The manager voids and refunds at an open till: the money paid back leaves a drawer (reversal_shift_id).
await openShift(api, manager.token);
const shopId: string = owner.shop.id;
const { product: sized, variants } = await productWithVariants(api, owner.token, { S: { price_xaf: 400, on_hand: 1000 }, L: { price_xaf: 450, on_hand: 1000 } });
const customer = await createCustomer(api, owner.token, { email: 'awa@example.cm', credit_ceiling_xaf: 1_000_000 });
await createPromotion(api, owner.token, { kind: 'percent', value: 10, product_ids: [sized.id] }).catch(() => undefined);
// The shop's size, written straight in as the owner: the catalogue and the customers.
await api.ownerSql`
  insert into products (shop_id, name, price_xaf, vat_rate, on_hand)
  select ${shopId}, 'Article du plan ' || i, 100 + i, 19.25, 1000000 from generate_series(1, ${PRODUCTS}) i`;
await api.ownerSql`
  insert into customers (shop_id, name, phone) select ${shopId}, 'Client ' || i, '+237 6' || lpad(i::text, 8, '0') from generate_series(1, 1000) i`;
// Other shops of the same size: the shop's own rows are then a small part of each table, as on a
// server of many shops, and a plan that reads the whole shop to narrow a probe (a bitmap AND with a
// shop_id index) shows.
for (let other = 0; other < 4; other++) {
  const { shop } = await registerShop(api);
  await api.ownerSql`
    insert into products (shop_id, name, price_xaf, vat_rate, on_hand)
    select ${shop.id}, 'Article ' || i, 100 + i, 19.25, 1000000 from generate_series(1, ${PRODUCTS}) i`;
}
const productIds = (await api.ownerSql<{ id: string }[]>`select id from products where shop_id = ${shopId} and name ~ '^Article du plan [0-9]+$'`).map((row) => row.id);

function basket(i: number, withCustomer: boolean) {
  const items = Array.from({ length: 5 }, (_, k) => ({ product_id: productIds[(i * 7 + k * 613) % productIds.length]!, quantity: 1 + (k % 2) }));
  return {
    id: crypto.randomUUID(),
    request_hash: `plans-${i}`,
    created_at: null,
    customer_id: withCustomer ? customer.id : null,
    items: [...items, { product_id: sized.id, variant_id: variants.S.id, quantity: 1 }],
    payments: withCustomer ? [{ method: 'cash', amount_xaf: 1000 }] : [{ method: 'cash', amount_xaf: 1_000_000 }],
  };
}

// Earlier sales (their lines, movements, journal and payments), then fresh statistics.
await api.appSql.begin(async (tx) => {
  await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${manager.user.id}, true)`;
  for (let i = 0; i < 150; i++) await tx`select sale_record(${tx.json(basket(i, i % 3 === 0))}, false)`;
});
// Batches with stock for every product of the shop (two for each), so that a statement reading the
// shop's batches rather than the basket's shows.
await api.ownerSql`
  insert into batches (shop_id, product_id, batch_number, expiry_date, quantity, cost_xaf)
  select ${shopId}, p.id, 'L' || n, current_date + (n * 30), 10, 50
    from products p, generate_series(1, 2) n
   where p.shop_id = ${shopId} and not exists (select 1 from variants v where v.product_id = p.id)`;
await api.ownerSql`analyze`;

const session = await planSession(api.runtime.ownerUrl);
t.teardown(() => session.end());

/**
 * Reads bounded by something other than the basket, each with its reason. customer_tier sums the
 * customer's points of the last 12 months: bounded by that customer's year (here 50 sales), not by
 * the shop; a monthly running total would make it 12 rows.
 */
const KNOWN: { table: string; statement: RegExp }[] = [
  { table: 'loyalty_points', statement: /from loyalty_tiers t/ },
  // graphile-worker's own add_jobs (an e-mailed receipt queued under its job key) clears the key of a
  // locked job of the same key by a scan of the jobs waiting: bounded by the worker's backlog (here
  // nothing runs them), not by the shop.
  { table: '_private_jobs', statement: /update\s+"graphile_worker"\._private_jobs\s+as\s+jobs\s+set\s+key\s*=\s*null/ },
];

function expectBounded(t: Test, all: TableRead[], what: string): void {
  t.ok(all.length > 0, `${what}: plans were collected`);
  const reads = all.filter((read) => !KNOWN.some((known) => known.table === read.table && known.statement.test(read.statement)));
  const worst = reads.reduce((max, read) => (read.rows > max.rows ? read : max), reads[0]!);
  const over = reads.filter((read) => read.rows > BOUND);
  t.same(over.map((read) => `${read.table} (${read.node}, ${read.rows} rows) in: ${read.statement.replace(/\s+/g, " ").slice(0, 400)}`), [], `${what}: at most ${BOUND} rows per scan (most: ${worst.rows} of ${worst.table})`);
}

t.test('a sale, its answer, a void, a refund and an adjustment read rows bounded by the basket, not the shop', async (t) => {
  const sales: string[] = [];
  for (let i = 0; i < 7; i++) {
    const sale = basket(1000 + i, i % 2 === 0);
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select sale_submit(${shopId}, ${manager.user.id}, ${tx.json(sale)})`), `sale ${i + 1}`);
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select sale_read(${shopId}, ${manager.user.id}, ${sale.id})`), `answer ${i + 1}`);
    sales.push(sale.id);
  }
  for (const [i, id] of sales.slice(0, 3).entries()) {
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select sale_void(${shopId}, ${manager.user.id}, ${id}, 'erreur')`), `void ${i + 1}`);
  }
  for (const [i, id] of sales.slice(3).entries()) {
    const [item] = await api.ownerSql<{ id: string }[]>`select id from sale_items where sale_id = ${id} order by line_no limit 1`;
    const items = [{ sale_item_id: item!.id, quantity: 1 }];
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select sale_refund(${shopId}, ${manager.user.id}, ${id}, 'cash', 'abîmé', ${tx.json(items)})`), `refund ${i + 1}`);
  }
  for (let i = 0; i < 7; i++) {
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select stock_adjust(${productIds[i]!}, null, ${500 + i}, 'recount')`), `adjustment ${i + 1}`);
  }
});

t.test('a purchase, its payment and its return read rows bounded by their lines, not the shop', async (t) => {
  const [supplier] = await api.ownerSql<{ id: string }[]>`insert into suppliers (shop_id, name) values (${shopId}, 'Grossiste') returning id`;
  for (let i = 0; i < 7; i++) {
    const items = Array.from({ length: 5 }, (_, k) => ({
      product_id: productIds[(i * 11 + k * 577) % productIds.length]!, quantity: 2 + k, unit_cost_xaf: 60 + k,
      ...(k % 2 === 0 ? { batch_number: `P${i}`, expiry_date: '2031-06-30' } : {}),
    }));
    const purchase = { supplier_id: supplier!.id, vat_rate: 19.25, reference: `F-${i}`, items };
    const reads = await session.reads(shopId, manager.user.id, (tx) => tx`select purchase_record(${tx.json(purchase)})`);
    expectBounded(t, reads, `purchase ${i + 1}`);
    const [made] = await api.ownerSql<{ id: string }[]>`select id from purchases where shop_id = ${shopId} and reference = ${`F-${i}`}`;
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select purchase_pay(${made!.id}, 100, 'cash', null)`), `payment ${i + 1}`);
    const lines = await api.ownerSql<{ id: string }[]>`select id from purchase_items where purchase_id = ${made!.id} order by line_no limit 2`;
    const returned = lines.map((line) => ({ purchase_item_id: line.id, quantity: 1 }));
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select purchase_return(${made!.id}, ${tx.json(returned)})`), `return ${i + 1}`);
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select purchase_json(${made!.id})`), `answer ${i + 1}`);
  }
});

t.test('a quote, its change, its answer and its conversion into a sale read rows bounded by its lines, not the shop', async (t) => {
  // Earlier quotes of the shop, so that a statement reading the shop's quotes shows.
  await api.appSql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${manager.user.id}, true)`;
    for (let i = 0; i < 60; i++) await tx`select quote_record(${tx.json({ customer_id: customer.id, items: basket(3000 + i, true).items })})`;
  });
  await api.ownerSql`analyze quotes, quote_items`;
  for (let i = 0; i < 7; i++) {
    const quote = { customer_id: customer.id, note: `Chantier ${i}`, items: basket(2000 + i, true).items };
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select quote_record(${tx.json(quote)})`), `quote ${i + 1}`);
    const [made] = await api.ownerSql<{ id: string }[]>`select id from quotes where shop_id = ${shopId} and note = ${`Chantier ${i}`}`;
    const changes = { valid_until: '2099-12-31', items: basket(2100 + i, true).items };
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select quote_update(${made!.id}, ${tx.json(changes)})`), `change ${i + 1}`);
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select quote_json(${made!.id})`), `answer ${i + 1}`);
    const payments = [{ method: 'cash', amount_xaf: 1_000_000 }];
    expectBounded(t, await session.reads(shopId, manager.user.id, (tx) => tx`select quote_convert(${made!.id}, ${crypto.randomUUID()}, ${tx.json(payments)})`), `conversion ${i + 1}`);
  }
});

t.test('a sale, its answer, a void and a refund call no SQL function that is parsed and planned on every call', async (t) => {
  // A SQL function PostgreSQL cannot inline (a subquery in a scalar one, a body less immutable than
  // declared) is parsed and planned again by each statement that calls it; the sale named every line
  // with one, 6% of its database time. Calls of those show in track_functions; inlined ones do not.
  const sale = basket(2000, true);
  const voided = basket(2001, false);
  const sqlCalls = (calls: { name: string; language: string }[]) => calls.filter((call) => call.language === 'sql').map((call) => call.name);
  t.same(sqlCalls(await session.calls(shopId, manager.user.id, (tx) => tx`select sale_submit(${shopId}, ${manager.user.id}, ${tx.json(sale)})`)), [], 'the sale');
  t.same(sqlCalls(await session.calls(shopId, manager.user.id, (tx) => tx`select sale_read(${shopId}, ${manager.user.id}, ${sale.id})`)), [], 'its answer');
  const [item] = await api.ownerSql<{ id: string }[]>`select id from sale_items where sale_id = ${sale.id} order by line_no limit 1`;
  t.same(sqlCalls(await session.calls(shopId, manager.user.id, (tx) => tx`select sale_refund(${shopId}, ${manager.user.id}, ${sale.id}, 'cash', 'abîmé', ${tx.json([{ sale_item_id: item!.id, quantity: 1 }])})`)), [], 'a refund');
  await session.calls(shopId, manager.user.id, (tx) => tx`select sale_submit(${shopId}, ${manager.user.id}, ${tx.json(voided)})`);
  t.same(sqlCalls(await session.calls(shopId, manager.user.id, (tx) => tx`select sale_void(${shopId}, ${manager.user.id}, ${voided.id}, 'erreur')`)), [], 'a void');
});
