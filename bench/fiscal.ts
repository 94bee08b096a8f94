/**
 * `npm run bench:fiscal`: the fiscal chain's integrity check on a shop with 100,000 sales (issue 30,
 * item 3: it answers within 10 s).
 *
 * Creates a throw-away database on DATABASE_URL's server, migrates it, registers a shop through the
 * API (and three cashiers), then seeds BENCH_SALES sales of 5 lines over the last BENCH_DAYS days
 * set-based, as the owner with triggers off (bench/history.ts, as bench:reports does: payments, about
 * 1% voided and 1% partly refunded, the journal). That history is then chained as an upgrade chains
 * it (`select fiscal_backfill(shop)` as the owner, timed), every ended day sealed (z_seal_next, each
 * Z an entry) and every ended month and year closed (fiscal_close_next, each closing an entry), then
 * VACUUM ANALYZE. The real app runs as a process of its own (pos_app, row-level security) and
 * `GET /api/v1/fiscal/integrity` is timed over HTTP as the owner: the whole chain three times (each
 * must answer ok), with the CPU of the app's PostgreSQL session, then one day. Then EXPLAIN (ANALYZE,
 * BUFFERS) of `select fiscal_integrity(null, null)` as pos_app, with the statements inside it that
 * take over 100 ms (auto_explain). Last, a unit price of one sale line is changed as the owner and
 * the check must find that sale's entry, and only it, `content_changed`. A wrong answer of the check
 * ends the run with exit 1 after the report; the 10 s target is said PASS or NOT met. BENCH_SALES and
 * BENCH_DAYS scale the history; BENCH_FISCAL_PLANS=1 prints the whole plans; BENCH_KEEP_DATABASE=1
 * keeps the database.
 */
import postgres from 'postgres';
import { APP_DB_ROLE } from '../api/db.ts';
import { historyShop, sealEndedDays, seedHistory } from './history.ts';
import { BenchRun, count, ms, postgresCpuMs, processCpuMs, request, say } from './support.ts';

const SALES = Number(process.env.BENCH_SALES ?? 100_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const RUNS = 3;
const TARGET_MS = 10_000;
/** auto_explain shows the statements inside fiscal_integrity that take longer than this. */
const NESTED_MIN_MS = 100;

const bench = new BenchRun('bench:fiscal');

interface Broken {
  chain_no: number | null;
  kind: string;
  ref_id: string;
  reason: string;
}

interface Integrity {
  ok: boolean;
  checked: number;
  first: { chain_no: number; hash: string } | null;
  last: { chain_no: number; hash: string } | null;
  broken: Broken[];
  broken_count?: number;
}

interface Checked {
  status: number;
  ms: number;
  report: Integrity | null;
  body: unknown;
  /** CPU ms of the app's PostgreSQL session during the request (null when unknown). */
  backendCpuMs: number | null;
  /** CPU ms of every postgres process of the machine during the request (null when not on this machine). */
  postgresCpuMs: number | null;
}

const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;

/** The pids of the app's PostgreSQL sessions (its login role's client backends in the bench database). */
async function appBackends(owner: postgres.Sql, role: string): Promise<number[]> {
  const rows = await owner<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and usename = ${role} and backend_type = 'client backend' order by pid`;
  return rows.map((row) => row.pid);
}

/**
 * GET /fiscal/integrity with `query`, timed from request to parsed answer, with the CPU the app's
 * PostgreSQL session used meanwhile (the app has one connection; a request to /readyz first opens it
 * if it closed while idle).
 */
async function checkOverHttp(baseUrl: string, token: string, owner: postgres.Sql, role: string, query: string): Promise<Checked> {
  await fetch(`${baseUrl}/readyz`);
  const pids = await appBackends(owner, role);
  const cpu = () => {
    const times = pids.map(processCpuMs);
    return times.some((time) => time === null) ? null : times.reduce<number>((sum, time) => sum + time!, 0);
  };
  const backendBefore = cpu();
  const postgresBefore = postgresCpuMs();
  const started = performance.now();
  const reply = await request(baseUrl, 'GET', `/fiscal/integrity${query}`, { token });
  const elapsed = performance.now() - started;
  const backendAfter = cpu();
  const postgresAfter = postgresCpuMs();
  const samePids = (await appBackends(owner, role)).join() === pids.join();
  return {
    status: reply.status,
    ms: elapsed,
    report: reply.status === 200 ? (reply.body.data as Integrity) : null,
    body: reply.body,
    backendCpuMs: samePids && backendBefore !== null && backendAfter !== null ? backendAfter - backendBefore : null,
    postgresCpuMs: postgresBefore === null || postgresAfter === null ? null : postgresAfter - postgresBefore,
  };
}

const describe = (checked: Checked) => {
  if (!checked.report) return `${checked.status} ${JSON.stringify(checked.body).slice(0, 300)}`;
  const report = checked.report;
  const broken = report.broken_count ?? report.broken.length;
  return `ok ${report.ok}, checked ${count(report.checked)}, first ${report.first?.chain_no ?? '-'}, last ${report.last?.chain_no ?? '-'}, broken ${broken}` +
    (broken ? ` (${report.broken.slice(0, 3).map((b) => `#${b.chain_no} ${b.kind} ${b.reason}`).join(', ')}${broken > 3 ? ', ...' : ''})` : '');
};

const cpuText = (checked: Checked) =>
  `PostgreSQL CPU: the app's session ${checked.backendCpuMs === null ? 'n/a' : seconds(checked.backendCpuMs)}, ` +
  `every postgres process ${checked.postgresCpuMs === null ? 'n/a' : seconds(checked.postgresCpuMs)}`;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of `query` as pos_app with the shop set: the plan's lines, and the plans of
 * the statements run inside the functions it calls that took longer than NESTED_MIN_MS (auto_explain).
 */
async function explain(ownerUrl: string, shopId: string, query: string): Promise<{ plan: string[]; nested: string[] }> {
  const nested: string[] = [];
  const trace = postgres(ownerUrl, { max: 1, onnotice: (notice) => nested.push(String(notice.message)) });
  try {
    return await trace.begin(async (tx) => {
      await tx.unsafe(`load 'auto_explain'`);
      for (const setting of [`log_min_duration = ${NESTED_MIN_MS}`, 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on', "log_level = 'notice'"]) {
        await tx.unsafe(`set local auto_explain.${setting}`);
      }
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      await tx.unsafe(`set local role ${APP_DB_ROLE}`);
      await tx.unsafe(`set local statement_timeout = 0`);
      const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${query}`);
      return { plan: rows.map((row) => row['QUERY PLAN']), nested: nested.filter((notice) => !/Query Text: explain/i.test(notice)) };
    });
  } finally {
    await trace.end({ timeout: 1 });
  }
}

await bench.run(async () => {
  say(`Fiscal chain benchmark: ${count(SALES)} sales of 5 lines over ${count(DAYS)} days, chained, then GET /fiscal/integrity over HTTP`);
  await bench.createAndMigrate();
  const app = await bench.spawnApp({ poolMax: 1, logLevel: 'warn' });
  const appRole = decodeURIComponent(new URL(bench.appUrl).username);
  const { shopId, userId, token, owner, cashierIds } = await historyShop(bench, app.baseUrl, 'Bench Fiscal');
  let started = performance.now();
  await seedHistory(owner, { shopId, ownerId: userId, cashierIds, sales: SALES, days: DAYS });
  say(`  seeded       in ${ms(performance.now() - started)}; vacuum analyze...`);
  await owner.unsafe('vacuum analyze');

  // The history is chained as migration 0036 chains a shop's records at the upgrade.
  started = performance.now();
  const [backfill] = await owner<{ appended: string }[]>`select fiscal_backfill(${shopId}::uuid)::text as appended`;
  const backfillMs = performance.now() - started;
  const appended = Number(backfill!.appended);
  say(`  chained      ${count(appended)} records in ${seconds(backfillMs)} (${(backfillMs / Math.max(1, appended)).toFixed(3)} ms each): fiscal_backfill, the cost of chaining this history at the upgrade`);

  await sealEndedDays(owner, shopId, 'as report__seal_z does: each Z an entry');
  started = performance.now();
  const closings: string[] = [];
  for (;;) {
    const [row] = await owner<{ closing: string | null }[]>`select fiscal_close_next(${shopId}) as closing`;
    if (!row?.closing) break;
    closings.push(row.closing);
  }
  say(`  closed       ${closings.length} months and years in ${seconds(performance.now() - started)}, as fiscal__close_periods does: each closing an entry`);
  started = performance.now();
  await owner.unsafe('vacuum analyze');
  say(`  vacuumed     in ${seconds(performance.now() - started)}`);

  const kinds = await owner<{ kind: string; entries: string }[]>`
    select kind, count(*)::text as entries from fiscal_entries where shop_id = ${shopId} group by kind order by min(chain_no)`;
  const entries = kinds.reduce((sum, row) => sum + Number(row.entries), 0);
  const [sizes] = await owner<{ sales: string; items: string; payments: string; refunds: string; table_size: string }[]>`
    select (select count(*) from sales)::text as sales, (select count(*) from sale_items)::text as items,
           (select count(*) from sale_payments)::text as payments, (select count(*) from refunds)::text as refunds,
           pg_size_pretty(pg_total_relation_size('fiscal_entries')) as table_size`;
  say(`  rows         ${count(Number(sizes!.sales))} sales, ${count(Number(sizes!.items))} sale lines, ${count(Number(sizes!.payments))} payments, ${count(Number(sizes!.refunds))} refunds`);
  say(`  entries      ${count(entries)} (${kinds.map((row) => `${count(Number(row.entries))} ${row.kind}`).join(', ')}), fiscal_entries ${sizes!.table_size} with its index`);

  const failures: string[] = [];
  say('');
  say(`GET /api/v1/fiscal/integrity over HTTP as the owner, the whole chain, ${RUNS} runs (target: within ${seconds(TARGET_MS)})`);
  const runs: Checked[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const checked = await checkOverHttp(app.baseUrl, token, owner, appRole, '');
    runs.push(checked);
    say(`  run ${run}        ${seconds(checked.ms).padStart(9)}  ${describe(checked)}`);
    say(`               ${cpuText(checked)}`);
    if (!checked.report) failures.push(`the whole chain: ${checked.status}`);
    else if (!checked.report.ok || checked.report.checked !== entries) failures.push(`run ${run} of the untouched chain: ${describe(checked)} (expected ok with ${entries} checked)`);
  }

  const [day] = await owner<{ day: string; recorded: string }[]>`
    select to_char(d, 'YYYY-MM-DD') as day,
           (select count(*) from fiscal_entries e, shops s where e.shop_id = ${shopId} and s.id = e.shop_id
               and e.recorded_at >= d::timestamp at time zone s.timezone and e.recorded_at < (d + 1)::timestamp at time zone s.timezone)::text as recorded
      from (select (now() at time zone 'Africa/Douala')::date - 10 as d) today`;
  const oneDay = await checkOverHttp(app.baseUrl, token, owner, appRole, `?from=${day!.day}&to=${day!.day}`);
  say(`  one day      ${seconds(oneDay.ms).padStart(9)}  from=to=${day!.day}: ${describe(oneDay)}`);
  say(`               ${cpuText(oneDay)}`);
  if (!oneDay.report) failures.push(`one day: ${oneDay.status}`);
  else if (!oneDay.report.ok || oneDay.report.checked !== Number(day!.recorded)) failures.push(`one day: ${describe(oneDay)} (expected ok with ${day!.recorded} checked)`);

  say('');
  const query = 'select fiscal_integrity(null, null)';
  say(`EXPLAIN (ANALYZE, BUFFERS) ${query} as ${APP_DB_ROLE}, and the statements inside it over ${NESTED_MIN_MS} ms (auto_explain)`);
  const { plan, nested } = await explain(bench.ownerUrl, shopId, query);
  for (const line of plan) say(`  ${line}`);
  for (const notice of nested) {
    const lines = notice.split('\n');
    const text = lines.find((line) => line.startsWith('Query Text: '))?.slice(12).replace(/\s+/g, ' ').slice(0, 100) ?? '';
    const duration = /duration: ([0-9.]+ ms)/.exec(lines[0] ?? '')?.[1] ?? '';
    const plan = lines.slice(lines.findIndex((line) => /\(cost=.*\(actual time=/.test(line)));
    say(`  -- ${duration}: ${text}...`);
    // The root node, its buffers (the statement's) and its JIT; the whole plan with BENCH_FISCAL_PLANS=1.
    const shown = process.env.BENCH_FISCAL_PLANS === '1' ? plan : [plan[0]!, plan.find((line) => /^\s*Buffers:/.test(line)) ?? '', ...plan.filter((line) => /^\s*(JIT:|Timing:|Functions:)/.test(line))];
    for (const line of shown.filter(Boolean)) say(`     ${line}`);
  }

  // Tampering as the owner (the database password): one line's unit price of sale i (neither voided nor refunded).
  say('');
  const tampered = 100 * Math.floor(SALES / 200) + 50;
  const [target] = await owner<{ sale_id: string; chain_no: string; price: string }[]>`
    select s.id as sale_id, s.chain_no::text, i.unit_price_xaf::text as price
      from sales s join sale_items i on i.sale_id = s.id where i.id = md5('item' || ${tampered}::int || '.2')::uuid`;
  if (!target) throw new Error(`sale ${tampered} not found`);
  try {
    await owner`update sale_items set unit_price_xaf = unit_price_xaf + 100 where id = md5('item' || ${tampered}::int || '.2')::uuid`;
    say(`Tampered: sale_items line 2 of receipt ${tampered} (entry ${target.chain_no}), unit price ${target.price} -> ${Number(target.price) + 100} XAF, a plain UPDATE as the owner`);
  } catch (error) {
    say(`Tampering refused by a plain UPDATE as the owner (${error instanceof Error ? error.message : String(error)}); again with session_replication_role = replica`);
    await owner.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update sale_items set unit_price_xaf = unit_price_xaf + 100 where id = md5('item' || ${tampered}::int || '.2')::uuid`;
    });
  }
  const afterTamper = await checkOverHttp(app.baseUrl, token, owner, appRole, '');
  say(`  check        ${seconds(afterTamper.ms).padStart(9)}  ${describe(afterTamper)}`);
  const found = afterTamper.report;
  const caught = !!found && !found.ok && (found.broken_count ?? found.broken.length) === 1 && found.broken[0]?.reason === 'content_changed' &&
    found.broken[0]?.kind === 'sale' && found.broken[0]?.ref_id === target.sale_id && String(found.broken[0]?.chain_no) === target.chain_no;
  say(`  ${caught ? 'found' : 'NOT found as expected'}: ${caught ? `entry ${target.chain_no} (sale ${target.sale_id}) content_changed, and nothing else` : `expected one broken entry ${target.chain_no} content_changed`}`);
  if (!caught) failures.push(`the tampered price: ${describe(afterTamper)}`);
  await owner.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update sale_items set unit_price_xaf = ${target.price}::bigint where id = md5('item' || ${tampered}::int || '.2')::uuid`;
  });

  say('');
  say('Verdict');
  const slowest = Math.max(...runs.map((run) => run.ms));
  say(`  ${runs.every((run) => run.report) && slowest <= TARGET_MS ? 'PASS   ' : 'NOT met'}  the integrity check of ${count(entries)} entries (${count(SALES)} sales) over HTTP within ${seconds(TARGET_MS)}: ` +
    `slowest of ${RUNS} runs ${seconds(slowest)} (${runs.map((run) => seconds(run.ms)).join(', ')})`);
  say(`  ${failures.length ? 'WRONG  ' : 'correct'}  untouched chain ok (whole and one day), the changed unit price found as its sale's content_changed and nothing else`);
  if (failures.length) throw new Error(`the integrity check answered wrong:\n  ${failures.join('\n  ')}`);
});
