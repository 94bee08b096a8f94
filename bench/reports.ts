/**
 * `npm run bench:reports`: the reports on a shop with 1,000,000 sales over three years (issue 15).
 *
 * Creates a throw-away database on DATABASE_URL's server, migrates it, registers a shop through the
 * API, then seeds set-based, as the owner with triggers off (session_replication_role = replica):
 * 500 products in 10 categories, 4 cashiers, SALES sales of 5 lines each spread over the last
 * DAYS days at shop hours (08:00 to 20:59 local), today included, paid in cash, mobile money or
 * card, about 1% voided and 1% partly refunded, each with its payments and its journal entry (sales
 * 701 and VAT 4431 against the treasury), purchases with deductible VAT (4452) twice a month. Every
 * ended day is then sealed as the nightly task does (z_seal_next), which stores the Z and the report
 * facts. The real app then runs as a process of its own (pos_app, row-level security) and each
 * report is timed over HTTP: p50 and p99 of sequential requests. Then the plans of the main queries
 * (EXPLAIN ANALYZE as pos_app, with auto_explain showing the statements inside the functions), and
 * whether any of them scans sales or sale_items of the whole shop. BENCH_SALES and BENCH_DAYS scale
 * the history; BENCH_KEEP_DATABASE=1 keeps the database.
 */
import postgres from 'postgres';
import { APP_DB_ROLE } from '../api/db.ts';
import { BenchRun, count, login, ms, register, request, say, summarize } from './support.ts';

const SALES = Number(process.env.BENCH_SALES ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 3 * 365);
const PRODUCTS = 500;
const BATCH_DAYS = 60;
const TARGET_P99_MS = 300;

const bench = new BenchRun('bench:reports');

interface Measured {
  what: string;
  path: string;
  samples: number;
  status?: number;
  p50?: number;
  p99?: number;
}

async function seed(owner: postgres.Sql, shopId: string, ownerId: string, cashierIds: string[]): Promise<void> {
  await owner.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    await sql`
      insert into categories (id, shop_id, name)
      select md5('cat' || c)::uuid, ${shopId}::uuid, 'Rayon ' || c from generate_series(1, 10) c`;
    await sql`
      insert into products (id, shop_id, name, search_name, category_id, price_xaf, cost_xaf, vat_rate, tracked, on_hand)
      select md5('product' || p)::uuid, ${shopId}::uuid, 'Article ' || p, 'article ' || p, md5('cat' || (1 + p % 10))::uuid,
             100 * (5 + p % 120), 70 * (5 + p % 120), case when p % 4 = 0 then 0 else 19.25 end, true, 1000000
        from generate_series(1, ${PRODUCTS}) p`;
  });
  const perDay = SALES / DAYS;
  const users = [ownerId, ...cashierIds];
  for (let from = 0; from < DAYS; from += BATCH_DAYS) {
    const to = Math.min(DAYS, from + BATCH_DAYS);
    const first = Math.floor(from * perDay) + 1;
    const last = Math.floor(to * perDay);
    await owner.begin(async (sql) => {
      await sql`set local session_replication_role = replica`;
      // Sale i: day (DAYS - 1 - floor((i-1) / perDay)) days ago, a pseudo-random local time of shop hours.
      await sql`
        create temp table seed_lines on commit drop as
        select i, k, md5('sale' || i)::uuid as sale_id, md5('product' || (1 + (i * 7 + k * 131) % ${PRODUCTS}))::uuid as product_id,
               (1 + (i + k) % 3)::numeric as quantity, 100 * (5 + (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 120) as price,
               70 * (5 + (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 120) as cost,
               case when (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 4 = 0 then 0 else 19.25 end as rate
          from generate_series(${first}::int, ${last}::int) i, generate_series(1, 5) k`;
      await sql`
        create temp table seed_sales on commit drop as
        select l.i, l.sale_id, sum(round(l.quantity * l.price))::bigint as total,
               sum(vat_included(round(l.quantity * l.price)::bigint, l.rate))::bigint as vat,
               (((current_date - ${DAYS - 1}::int + floor((l.i - 1) / ${perDay}::float8)::int)::timestamp
                 + make_interval(hours => 8 + (l.i * 37) % 13, mins => (l.i * 17) % 60, secs => (l.i * 13) % 60))
                 at time zone 'Africa/Douala') as at,
               case (l.i % 20) when 0 then 'card' when 1 then 'card' when 2 then 'carrier1_momo' when 3 then 'carrier1_momo'
                               when 4 then 'carrier2_money' else 'cash' end as method,
               (${users}::uuid[])[1 + l.i % ${users.length}] as cashier
          from seed_lines l group by l.i, l.sale_id`;
      await sql`
        insert into sales (id, shop_id, receipt_no, status, cashier_id, subtotal_xaf, discount_xaf, vat_xaf, total_xaf, paid_xaf, change_xaf,
                           credit_xaf, request_hash, created_at, recorded_at, voided_at, void_reason)
        select sale_id, ${shopId}::uuid, i, case when i % 100 = 7 then 'voided' when i % 100 = 13 then 'partially_refunded' else 'completed' end,
               cashier, total, 0, vat, total, total, 0, 0, 'seed', at, at,
               case when i % 100 = 7 then at + interval '10 minutes' end, case when i % 100 = 7 then 'Erreur' end
          from seed_sales`;
      await sql`
        insert into sale_items (id, shop_id, sale_id, line_no, product_id, name, quantity, unit_price_xaf, vat_rate, vat_xaf, total_xaf, cost_xaf,
                                stock_cost_xaf, refunded_quantity)
        select md5('item' || i || '.' || k)::uuid, ${shopId}::uuid, sale_id, k, product_id, 'Article', quantity, price, rate,
               vat_included(round(quantity * price)::bigint, rate), round(quantity * price)::bigint, cost, round(quantity * cost)::bigint,
               case when i % 100 = 13 and k = 1 then 1 else 0 end
          from seed_lines`;
      await sql`
        insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, created_at)
        select ${shopId}::uuid, sale_id, 'payment', method, total, at from seed_sales
        union all
        select ${shopId}::uuid, sale_id, 'void', method, -total, at + interval '10 minutes' from seed_sales where i % 100 = 7`;
      // Refunds: one unit of the first line, an hour after the sale.
      await sql`
        insert into refunds (id, shop_id, sale_id, method, reason, total_xaf, vat_xaf, created_at)
        select md5('refund' || s.i)::uuid, ${shopId}::uuid, s.sale_id, s.method, 'Défaut', round(l.price)::bigint,
               round(vat_included(round(l.quantity * l.price)::bigint, l.rate) / l.quantity)::bigint, s.at + interval '1 hour'
          from seed_sales s join seed_lines l on l.i = s.i and l.k = 1 where s.i % 100 = 13`;
      await sql`
        insert into refund_items (shop_id, refund_id, sale_item_id, quantity, total_xaf, vat_xaf, cost_xaf, stock_cost_xaf)
        select ${shopId}::uuid, r.id, md5('item' || s.i || '.1')::uuid, 1, r.total_xaf, r.vat_xaf, l.cost, l.cost
          from seed_sales s join refunds r on r.id = md5('refund' || s.i)::uuid join seed_lines l on l.i = s.i and l.k = 1`;
      await sql`
        insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, created_at)
        select ${shopId}::uuid, r.sale_id, 'refund', r.method, -r.total_xaf, r.created_at
          from refunds r join seed_sales s on s.sale_id = r.sale_id`;
      // The journal: one entry per sale (treasury against 701 and 4431), its void's reversal, each refund.
      await sql`
        insert into journal_entries (id, shop_id, source_type, source_id, memo, posted_at)
        select md5('je' || i)::uuid, ${shopId}::uuid, 'sale', sale_id, 'Sale', at from seed_sales
        union all
        select md5('jv' || i)::uuid, ${shopId}::uuid, 'sale_void', sale_id, 'Void', at + interval '10 minutes' from seed_sales where i % 100 = 7
        union all
        select md5('jr' || s.i)::uuid, ${shopId}::uuid, 'sale_refund', r.id, 'Refund', r.created_at
          from seed_sales s join refunds r on r.sale_id = s.sale_id`;
      await sql`
        insert into journal_lines (shop_id, entry_id, account, debit_xaf, credit_xaf)
        select ${shopId}::uuid, md5('je' || i)::uuid, case method when 'cash' then '571' when 'card' then '521' else '585' end, total, 0 from seed_sales
        union all select ${shopId}::uuid, md5('je' || i)::uuid, '701', 0, total - vat from seed_sales
        union all select ${shopId}::uuid, md5('je' || i)::uuid, '4431', 0, vat from seed_sales where vat > 0
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, case method when 'cash' then '571' when 'card' then '521' else '585' end, 0, total
                    from seed_sales where i % 100 = 7
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, '701', total - vat, 0 from seed_sales where i % 100 = 7
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, '4431', vat, 0 from seed_sales where i % 100 = 7 and vat > 0
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, case s.method when 'cash' then '571' when 'card' then '521' else '585' end, 0, r.total_xaf
                    from seed_sales s join refunds r on r.sale_id = s.sale_id
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, '701', r.total_xaf - r.vat_xaf, 0 from seed_sales s join refunds r on r.sale_id = s.sale_id
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, '4431', r.vat_xaf, 0 from seed_sales s join refunds r on r.sale_id = s.sale_id where r.vat_xaf > 0`;
    });
    process.stdout.write(`\r  seeded       days ${to} of ${DAYS}, sales ${count(last)}   `);
  }
  process.stdout.write('\n');
  // Purchases with deductible VAT twice a month (the VAT declaration's 4452).
  await owner.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    await sql`
      insert into journal_entries (id, shop_id, source_type, source_id, memo, posted_at)
      select md5('jp' || d)::uuid, ${shopId}::uuid, 'purchase', md5('purchase' || d)::uuid, 'Purchase',
             (current_date - d)::timestamp at time zone 'Africa/Douala' + interval '10 hours'
        from generate_series(1, ${DAYS - 1}, 15) d`;
    await sql`
      insert into journal_lines (shop_id, entry_id, account, debit_xaf, credit_xaf)
      select ${shopId}::uuid, md5('jp' || d)::uuid, '601', 2000000, 0 from generate_series(1, ${DAYS - 1}, 15) d
      union all select ${shopId}::uuid, md5('jp' || d)::uuid, '4452', 385000, 0 from generate_series(1, ${DAYS - 1}, 15) d
      union all select ${shopId}::uuid, md5('jp' || d)::uuid, '401', 0, 2385000 from generate_series(1, ${DAYS - 1}, 15) d`;
    await sql`insert into receipt_counters (shop_id, last_no) values (${shopId}::uuid, ${SALES}) on conflict (shop_id) do update set last_no = excluded.last_no`;
    await sql`update shops set created_at = (current_date - ${DAYS}::int)::timestamp at time zone 'Africa/Douala' where id = ${shopId}`;
  });
}

async function timeRequests(baseUrl: string, token: string, what: string, path: string, samples: number): Promise<Measured> {
  const first = await request(baseUrl, 'GET', path, { token });
  if (first.status !== 200) return { what, path, samples: 0, status: first.status };
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const reply = await request(baseUrl, 'GET', path, { token });
    times.push(performance.now() - started);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const timing = summarize(times);
  return { what, path, samples, p50: timing.median, p99: timing.p99 };
}

/** EXPLAIN ANALYZE of `query` as pos_app with the shop set, and the plans of the statements inside the functions it calls. */
async function plans(ownerUrl: string, shopId: string, query: string): Promise<string[]> {
  const notices: string[] = [];
  const trace = postgres(ownerUrl, { max: 1, onnotice: (notice) => notices.push(String(notice.message)) });
  try {
    await trace.begin(async (tx) => {
      await tx.unsafe(`load 'auto_explain'`);
      for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on', "log_level = 'notice'"]) {
        await tx.unsafe(`set local auto_explain.${setting}`);
      }
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      await tx.unsafe(`set local role ${APP_DB_ROLE}`);
      await tx.unsafe(query);
    });
  } finally {
    await trace.end({ timeout: 1 });
  }
  return notices;
}

await bench.run(async () => {
  say(`Reports benchmark: ${count(SALES)} sales of 5 lines over ${count(DAYS)} days, then each report over HTTP`);
  await bench.createAndMigrate();
  const app = await bench.spawnApp({ poolMax: 5, logLevel: 'warn' });
  const email = `owner-${bench.database}@bench.example`;
  const { shopId, userId } = await register(app.baseUrl, 'Bench Reports', email);
  const { token } = await login(app.baseUrl, email);
  const owner = postgres(bench.ownerUrl, { max: 1, onnotice: () => {} });
  bench.closeAtEnd(() => owner.end({ timeout: 1 }));
  const cashierIds: string[] = [];
  for (let c = 1; c <= 3; c++) {
    const reply = await request(app.baseUrl, 'POST', '/users', { token, body: { name: `Caissière ${c}`, email: `c${c}-${bench.database}@bench.example`, password: 'bench-password-1234', role: 'cashier' } });
    if (reply.status !== 201) throw new Error(`cashier: ${reply.status} ${JSON.stringify(reply.body)}`);
    cashierIds.push(reply.body.data.id);
  }
  let started = performance.now();
  await seed(owner, shopId, userId, cashierIds);
  say(`  seeded       in ${ms(performance.now() - started)}; vacuum analyze...`);
  started = performance.now();
  await owner.unsafe('vacuum analyze');
  say(`  vacuumed     in ${ms(performance.now() - started)}`);
  const [sizes] = await owner<{ sales: string; items: string; lines: string }[]>`
    select (select count(*) from sales)::text as sales, (select count(*) from sale_items)::text as items, (select count(*) from journal_lines)::text as lines`;
  say(`  rows         ${count(Number(sizes!.sales))} sales, ${count(Number(sizes!.items))} sale lines, ${count(Number(sizes!.lines))} journal lines`);

  started = performance.now();
  let sealed = 0;
  for (;;) {
    const [row] = await owner<{ day: string | null }[]>`select z_seal_next(${shopId})::text as day`;
    if (!row?.day) break;
    sealed++;
    if (sealed % 100 === 0) process.stdout.write(`\r  sealing      ${sealed} days   `);
  }
  const sealMs = performance.now() - started;
  say(`\r  sealed       ${sealed} days in ${ms(sealMs)} (${ms(sealMs / Math.max(1, sealed))} per day), as report__seal_z does`);
  await owner.unsafe('vacuum analyze z_reports, report_facts');

  const [days] = await owner<{ today: string; sealed_day: string; month_from: string; year_from: string; month: string }[]>`
    select to_char(t, 'YYYY-MM-DD') as today, to_char(t - 10, 'YYYY-MM-DD') as sealed_day, to_char(t - 29, 'YYYY-MM-DD') as month_from,
           to_char(t - 364, 'YYYY-MM-DD') as year_from, to_char(t - interval '1 month', 'YYYY-MM') as month
      from (select (now() at time zone 'Africa/Douala')::date as t) d`;
  const d = days!;
  const cases: [string, string, number][] = [
    ['Z of a sealed day', `/reports/z?date=${d.sealed_day}`, 200],
    ['Z of today (live)', '/reports/z', 100],
    ['sales-summary, 30 days', `/reports/sales-summary?from=${d.month_from}&to=${d.today}`, 100],
    ['sales-summary, 365 days', `/reports/sales-summary?from=${d.year_from}&to=${d.today}`, 50],
    ['margin, 30 days', `/reports/margin?from=${d.month_from}&to=${d.today}`, 100],
    ['analytics, 30 days', `/reports/analytics?from=${d.month_from}&to=${d.today}`, 100],
    ['vat-declaration, last month', `/reports/vat-declaration?month=${d.month}`, 100],
    ['losses, 30 days', `/reports/losses?from=${d.month_from}&to=${d.today}`, 100],
  ];
  say('');
  say('Latency of sequential requests to the running app (p50 / p99), target p99 < 300 ms');
  const results: Measured[] = [];
  for (const [what, path, samples] of cases) {
    const result = await timeRequests(app.baseUrl, token, what, path, samples);
    results.push(result);
    say(result.p50 === undefined
      ? `  ${what.padEnd(30)} not available (${result.status})`
      : `  ${what.padEnd(30)} p50 ${ms(result.p50).padStart(9)}  p99 ${ms(result.p99!).padStart(9)}  (${result.samples} requests)`);
  }

  say('');
  say('Plans (EXPLAIN ANALYZE as pos_app, statements inside the functions by auto_explain)');
  const planned: [string, string][] = [
    ['Z of a sealed day', `select z_report_for('${d.sealed_day}')`],
    ['Z of today', `select z_report_for('${d.today}')`],
    ['facts of 365 days', `select count(*) from report_facts_between('${d.year_from}', '${d.today}', array['product', 'category', 'cashier', 'method', 'hour'])`],
    ['Z of 365 days', `select count(*) from z_reports_between('${d.year_from}', '${d.today}')`],
    ['sales summary, 365 days', `select length(report_sales_summary('${d.year_from}', '${d.today}', '${d.today}')::text)`],
    ['margin, 30 days', `select length(report_margin('${d.month_from}', '${d.today}', '${d.today}')::text)`],
    ['analytics, 30 days', `select length(report_analytics('${d.month_from}', '${d.today}', '${d.today}')::text)`],
    ['losses, 30 days', `select length(report_losses('${d.month_from}', '${d.today}', '${d.today}')::text)`],
    ['VAT declaration, last month', `select length(report_vat_declaration('${d.month}-01', ('${d.month}-01'::date + interval '1 month')::date - 1, '${d.today}')::text)`],
  ];
  const fullScans: string[] = [];
  for (const [what, query] of planned) {
    const notices = await plans(bench.ownerUrl, shopId, query);
    say(`  -- ${what}: ${query}`);
    for (const notice of notices) {
      const lines = notice.split('\n');
      const text = lines.find((line) => line.startsWith('Query Text: '))?.slice(12).replace(/\s+/g, ' ').slice(0, 160) ?? '';
      const duration = /duration: ([0-9.]+ ms)/.exec(lines[0] ?? '')?.[1] ?? '';
      say(`     ${duration.padStart(10)}  ${text}`);
      for (const line of lines.filter((l) => /Seq Scan on (sales|sale_items|journal_lines|journal_entries)\b/.test(l))) fullScans.push(`${what}: ${line.trim()}`);
    }
  }
  say('');
  say('Verdict');
  for (const result of results) {
    const verdict = result.p99 === undefined ? 'NOT BUILT' : result.p99 < TARGET_P99_MS ? 'met     ' : 'NOT met ';
    say(`  ${verdict} ${result.what}: p99 ${result.p99 === undefined ? '-' : ms(result.p99)} < ${TARGET_P99_MS} ms`);
  }
  say(`  ${fullScans.length ? 'NOT met ' : 'met     '} no sequential scan of the shop's sales, lines or journal in the plans above${fullScans.length ? `: ${fullScans.join('; ')}` : ''}`);
});
