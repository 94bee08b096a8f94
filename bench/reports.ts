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
import { historyShop, sealEndedDays, seedHistory } from './history.ts';
import { BenchRun, count, ms, request, say, summarize } from './support.ts';

const SALES = Number(process.env.BENCH_SALES ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 3 * 365);
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
  const { shopId, userId, token, owner, cashierIds } = await historyShop(bench, app.baseUrl, 'Bench Reports');
  let started = performance.now();
  await seedHistory(owner, { shopId, ownerId: userId, cashierIds, sales: SALES, days: DAYS });
  say(`  seeded       in ${ms(performance.now() - started)}; vacuum analyze...`);
  started = performance.now();
  await owner.unsafe('vacuum analyze');
  say(`  vacuumed     in ${ms(performance.now() - started)}`);
  const [sizes] = await owner<{ sales: string; items: string; lines: string }[]>`
    select (select count(*) from sales)::text as sales, (select count(*) from sale_items)::text as items, (select count(*) from journal_lines)::text as lines`;
  say(`  rows         ${count(Number(sizes!.sales))} sales, ${count(Number(sizes!.items))} sale lines, ${count(Number(sizes!.lines))} journal lines`);

  await sealEndedDays(owner, shopId, 'as report__seal_z does');
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
