/**
 * The period reports read the roll-ups of the sealed days and compute only the open ones: over days
 * already sealed they read no sale, line, refund, payment or journal row at all, and over a period
 * that includes today they read today's rows only. What is counted is what PostgreSQL did
 * (auto_explain with actual rows, tests/support/plans.ts, sequential scans priced out).
 */
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { planSession, type TableRead } from '../support/plans.ts';
import { startService } from '../support/service.ts';
import { backdate, shopDay } from './report-fixtures.ts';

const api = await startService(t);
const DAYS = 5;
const SALES_A_DAY = 30;
const TODAY_SALES = 4;

const owner = await registerShop(api);
const shopId: string = owner.shop.id;
await api.ownerSql`
  insert into products (shop_id, name, price_xaf, cost_xaf, vat_rate, on_hand)
  select ${shopId}, 'Article ' || i, 100 * i, 60 * i, case when i % 3 = 0 then 0 else 19.25 end, 1000000 from generate_series(1, 20) i`;
const productIds = (await api.ownerSql<{ id: string }[]>`select id from products where shop_id = ${shopId} order by name`).map((row) => row.id);

async function sales(count: number, from: number): Promise<void> {
  await api.appSql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${owner.user.id}, true)`;
    for (let i = from; i < from + count; i++) {
      const items = Array.from({ length: 3 }, (_, k) => ({ product_id: productIds[(i * 7 + k * 3) % productIds.length]!, quantity: 1 + (k % 2) }));
      await tx`select sale_record(${tx.json({ id: crypto.randomUUID(), request_hash: `plans-${i}`, created_at: null, items, payments: [{ method: 'cash', amount_xaf: 1_000_000 }] })}, false)`;
    }
  });
}

// DAYS days of sales, each moved a day back in turn, all sealed as the nightly task does; then today's.
for (let day = 0; day < DAYS; day++) {
  await sales(SALES_A_DAY, day * SALES_A_DAY);
  await backdate(api, shopId, 1);
}
while ((await api.ownerSql<{ day: string | null }[]>`select z_seal_next(${shopId})::text as day`)[0]!.day);
await sales(TODAY_SALES, DAYS * SALES_A_DAY);
await api.ownerSql`analyze`;

const session = await planSession(api.runtime.ownerUrl);
t.teardown(() => session.end());

/** The tables of the records themselves, which the reports of sealed days must leave alone. */
const RECORDS = new Set(['sales', 'sale_items', 'refunds', 'refund_items', 'sale_payments', 'journal_entries', 'journal_lines', 'stock_movements']);

const [first, yesterday, today] = [await shopDay(api, shopId, -DAYS), await shopDay(api, shopId, -1), await shopDay(api, shopId)];
const REPORTS = ['report_sales_summary', 'report_margin', 'report_analytics', 'report_vat_declaration'] as const;

async function readsOf(fn: string, from: string, to: string): Promise<TableRead[]> {
  // Six calls: PL/pgSQL's generic plans after the fifth as well as the first custom ones.
  return session.reads(shopId, owner.user.id, async (tx) => {
    for (let call = 0; call < 6; call++) await tx`select ${tx(fn)}(${from}::date, ${to}::date, ${to}::date)`;
  });
}

const describe = (reads: TableRead[]) => reads.map((read) => `${read.table} (${read.node}, ${read.rows} rows) in: ${read.statement.replace(/\s+/g, ' ').slice(0, 200)}`);

t.test('over sealed days, the period reports read no sale, line, payment or journal row: only the stored roll-ups', async (t) => {
  const [sealed] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from z_reports where shop_id = ${shopId}`;
  t.equal(sealed!.n, DAYS, `${DAYS} days sealed with a Z`);
  for (const fn of REPORTS) {
    const reads = await readsOf(fn, first, yesterday);
    t.ok(reads.some((read) => read.table === 'report_facts' || read.table === 'z_reports'), `${fn}: reads the roll-ups`);
    t.same(describe(reads.filter((read) => RECORDS.has(read.table) && read.rows > 0)), [], `${fn}: no record read`);
  }
});

t.test('over a period that includes today, the period reports read today\'s records only', async (t) => {
  // Today's sales are TODAY_SALES of 3 lines: a scan bounded by today reads a few dozen rows, one
  // that reads the sealed days reads hundreds.
  const bound = TODAY_SALES * 3 * 4;
  for (const fn of REPORTS) {
    const reads = await readsOf(fn, first, today);
    const over = reads.filter((read) => RECORDS.has(read.table) && read.rows > bound);
    t.same(describe(over), [], `${fn}: at most ${bound} rows of records per call`);
  }
});
