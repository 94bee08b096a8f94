/**
 * `npm run bench:certification`: what certified invoicing (issue 32, CONTRACT section 14) costs a sale,
 * how fast the outbox is delivered, and what the delivery's pick of the next record reads.
 *
 * Creates a throw-away database on DATABASE_URL's server and migrates it (bench/support.ts), registers
 * two shops through the API (the app in this process, stopped once they exist), seeds each with the
 * same catalogue and an opening stock, records BENCH_WARMUP_SALES earlier sales in each (uncertified),
 * then turns certification on for shop B only (its fiscal_certification_settings row with the
 * simulator from its next record, as the owner, as registration does with FISCAL_PROVIDER=simulator).
 *
 * 1. The same 5-line cash sale, `select sale_submit(shop, user, sale)` as the app's login role (a
 *    member of pos_app) on one connection, BENCH_SALES times (default 2,000) in each shop, sequential:
 *    A without certification, B with it, in alternating blocks of 100 so that the machine's drift (it is
 *    shared) falls on both alike. Prints mean, p50, p99 per sale and B - A, and the CPU per sale of the
 *    app's PostgreSQL session (from /proc) and of every postgres process of the machine. Then checks: A
 *    has no outbox row and no job; B has exactly BENCH_SALES pending rows and at most 2 fiscal__certify
 *    jobs (its job key: one), whose revision says how often it was woken (once per transaction).
 * 2. Delivers B's pending records with deliverPending (api/fiscal/certification.ts) as the worker does
 *    (a pg Pool as the owner, FISCAL_PROVIDER=simulator), run after run until none is pending: records/s,
 *    ms per record, the first and last runs apart (does the pick slow down as certified rows pile up?),
 *    and the CPU of the database session and of this process. Every record must end certified, in
 *    chain order (certified_at non-decreasing), each at its first attempt.
 * 3. One more sale in B (pending), then EXPLAIN (ANALYZE, BUFFERS) of deliverPending's pick of the next
 *    record as pos_app (the shop set), right after the delivery (the certified rows' entries still in the
 *    partial index until a vacuum) and after VACUUM of the outbox; and as the owner, as the worker runs it.
 *    Said for each, not failed: whether its scan reads the partial index fiscal_certifications_open for one row.
 * A wrong count or order ends the run with exit 1 after the report; BENCH_KEEP_DATABASE=1 keeps the database.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import postgres from 'postgres';
import { deliverPending, type Query } from '../api/fiscal/certification.ts';
import { loadConfig } from '../api/config.ts';
import { APP_DB_ROLE } from '../api/db.ts';
import { BENCH_APP_KEY, BenchRun, count, ms, percentile, postgresCpuMs, processCpuMs, register, say } from './support.ts';

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, not "${raw}"`);
  return value;
}

/** Timed sales per shop. */
const SALES = positiveNumber('BENCH_SALES', 2_000);
/** Earlier sales of each shop before certification is turned on: the session's plans and the planner's statistics warm. */
const WARMUP_SALES = positiveNumber('BENCH_WARMUP_SALES', 200);
const BLOCK = Math.min(100, SALES);
const PRODUCTS = 200;
const LINES = 5;
const QUANTITIES = [1, 2, 3, 1, 2];
const OPENING_STOCK = 100_000;
const CASH_ROUNDING = 500;
/** deliverPending's pick of the next record, word for word (api/fiscal/certification.ts). */
const PICK = `select chain_no, kind, ref_id, provider, state, attempts, next_attempt_at, error
         from fiscal_certifications where shop_id = $1 and status = 'pending' order by chain_no limit 1`;

const bench = new BenchRun('bench:certification');
let owner: postgres.Sql | undefined;
let app: postgres.Sql | undefined;
let pool: pg.Pool | undefined;
bench.closeAtEnd(() => pool?.end());
bench.closeAtEnd(() => app?.end({ timeout: 1 }));
bench.closeAtEnd(() => owner?.end({ timeout: 1 }));

interface Shop {
  label: string;
  shopId: string;
  userId: string;
  /** The sale's 5 lines (the same products and quantities in both shops) and its cash. */
  items: { product_id: string; quantity: number }[];
  cash: number;
}

interface Phase {
  samples: number[];
  sessionCpuMs: number | null;
  postgresCpuMs: number | null;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const perSale = (total: number | null, sales: number) => (total === null ? null : total / sales);
const cpuText = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(2)} ms`);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`;

/** A shop registered through the API, its catalogue seeded as the owner with an opening stock (stock_adjust: a real movement). */
async function seedShop(baseUrl: string, label: string, name: string): Promise<Shop> {
  const { shopId, userId } = await register(baseUrl, name, `owner-${randomUUID().slice(0, 8)}-${bench.database}@bench.example`);
  await owner!.begin(async (tx) => {
    await tx`select setseed(0.42)`;
    await tx`
      insert into products (shop_id, name, sku, price_xaf, cost_xaf, vat_rate, unit, tracked)
      select ${shopId}::uuid, 'Article bench ' || lpad(g::text, 4, '0'), 'BENCH-' || lpad(g::text, 4, '0'),
             price, (round(price * 0.7 / 25) * 25)::bigint, 19.25, 'piece', true
        from (select g, (round((100 + random() * 24900) / 25) * 25)::bigint as price from generate_series(1, ${PRODUCTS}::int) g) p`;
    await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${userId}, true)`;
    await tx`select count(stock_adjust(id, null, ${OPENING_STOCK}, 'Opening stock')) from products where shop_id = ${shopId}`;
  });
  const chosen = await owner!<{ id: string; price_xaf: string }[]>`
    select id, price_xaf::text from products where shop_id = ${shopId} order by sku limit ${LINES}`;
  const total = chosen.reduce((sum, product, k) => sum + Number(product.price_xaf) * QUANTITIES[k]!, 0);
  return {
    label,
    shopId,
    userId,
    items: chosen.map((product, k) => ({ product_id: product.id, quantity: QUANTITIES[k]! })),
    cash: Math.ceil(total / CASH_ROUNDING) * CASH_ROUNDING,
  };
}

/** One sale as the app sends it without an Idempotency-Key: one autocommit statement, as the app's login role. */
async function submit(shop: Shop): Promise<number> {
  const sale = {
    id: randomUUID(),
    request_hash: 'bench',
    created_at: null,
    items: shop.items,
    payments: [{ method: 'cash', amount_xaf: shop.cash }],
  };
  const started = performance.now();
  const [row] = await app!<{ answer: { id: string; replayed: boolean } }[]>`
    select sale_submit(${shop.shopId}::uuid, ${shop.userId}::uuid, ${app!.json(sale)}) as answer`;
  const elapsed = performance.now() - started;
  if (row?.answer?.id !== sale.id || row.answer.replayed) throw new Error(`sale_submit answered ${JSON.stringify(row?.answer)} for sale ${sale.id}`);
  return elapsed;
}

interface Outbox {
  rows: number;
  pending: number;
  jobs: number;
  revision: number | null;
}

async function outbox(shopId: string): Promise<Outbox> {
  const [row] = await owner!<{ rows: number; pending: number; jobs: number; revision: number | null }[]>`
    select (select count(*)::int from fiscal_certifications where shop_id = ${shopId}) as rows,
           (select count(*)::int from fiscal_certifications where shop_id = ${shopId} and status = 'pending') as pending,
           (select count(*)::int from graphile_worker.jobs where task_identifier = 'fiscal__certify' and key = ${`fiscal_certify:${shopId}`}) as jobs,
           (select max(revision)::int from graphile_worker.jobs where task_identifier = 'fiscal__certify' and key = ${`fiscal_certify:${shopId}`}) as revision`;
  return row!;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the pick for `shopId`, as pos_app with the shop set, or as the owner (the worker). */
async function explainPick(shopId: string, asApp: boolean): Promise<string[]> {
  const statement = `explain (analyze, buffers) ${PICK.replace('$1', `'${shopId}'::uuid`)}`;
  return owner!.begin(async (tx) => {
    if (asApp) {
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      await tx.unsafe(`set local role ${APP_DB_ROLE}`);
    }
    const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(statement);
    return rows.map((row) => row['QUERY PLAN']);
  });
}

/** Prints the plan; says which index the scan reads, the rows it returned and the buffers the statement touched. */
function showPlan(title: string, plan: string[]): { partialIndex: boolean; verdict: string } {
  say(`  ${title}`);
  for (const line of plan) say(`    ${line}`);
  const scan = plan.find((line) => /Scan/.test(line))?.trim().replace(/\s+\(cost=.*/, '') ?? '?';
  const rows = /actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+)/.exec(plan[0] ?? '')?.[1] ?? '?';
  const buffers = plan.find((line) => /^\s*Buffers:/.test(line))?.trim().replace('Buffers: ', '') ?? '?';
  const partialIndex = /fiscal_certifications_open/.test(scan) && Number(rows) === 1 && !plan.some((line) => /Seq Scan|Sort/.test(line));
  return { partialIndex, verdict: `${scan.replace(/^->\s*/, '')}, ${rows} row, buffers ${buffers}${plan.some((line) => /Sort/.test(line)) ? ', a sort' : ''}` };
}

await bench.run(async () => {
  const runStarted = performance.now();
  say(`Certification benchmark (issue 32): ${count(SALES)} sales of ${LINES} lines per shop by sale_submit as ${APP_DB_ROLE}, without and with certification; ` +
    'then their delivery through the simulator, then the plan of the outbox pick');
  say(`  machine      ${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`);
  say(`  database     ${bench.database} (dropped at the end)`);
  await bench.createAndMigrate();
  owner = postgres(bench.ownerUrl, { max: 1, onnotice: () => {} });
  const [server] = await owner<{ version: string }[]>`select current_setting('server_version') as version`;
  say(`  PostgreSQL   ${server!.version}; migrated in ${ms(performance.now() - runStarted)}`);

  const web = await bench.startApp({ poolMax: 1, applicationName: 'pos-bench-app' });
  const shopA = await seedShop(web.baseUrl, 'A, no certification', 'Boutique sans certification');
  const shopB = await seedShop(web.baseUrl, 'B, certification on', 'Boutique certifiée');
  await web.stop();
  // Whatever FISCAL_PROVIDER the registration ran with: A does not certify; B does from its next record.
  await owner`delete from fiscal_certification_settings where shop_id in (${shopA.shopId}, ${shopB.shopId})`;

  app = postgres(bench.appUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'pos-bench-sales' } });
  const [session] = await app<{ pid: number; user: string; member: boolean; bypass: boolean }[]>`
    select pg_backend_pid() as pid, current_user as user, pg_has_role(current_user, ${APP_DB_ROLE}, 'usage') as member,
           (select rolbypassrls or rolsuper from pg_roles where rolname = current_user) as bypass`;
  if (!session!.member || session!.bypass) throw new Error(`the sales must run as a member of ${APP_DB_ROLE} without BYPASSRLS, not ${session!.user}`);
  for (let i = 0; i < WARMUP_SALES; i++) {
    await submit(shopA);
    await submit(shopB);
  }
  await owner`vacuum (analyze)`;
  await owner`
    insert into fiscal_certification_settings (shop_id, provider, from_chain_no)
    select ${shopB.shopId}::uuid, 'simulator', coalesce((select chain_no from receipt_counters where shop_id = ${shopB.shopId}), 0) + 1`;
  say(`  seeded       2 shops registered through the API, ${PRODUCTS} products each (same prices), ${count(OPENING_STOCK)} in stock; ` +
    `${WARMUP_SALES} earlier sales each (uncertified), VACUUM ANALYZE; certification on for B (simulator) from its next record`);
  const sale = shopA.items.map((item) => `${item.quantity} x`).join(', ');
  say(`  the sale     5 lines (${sale} of the same 5 products), paid ${count(shopA.cash)} XAF cash; ` +
    `select sale_submit(shop, user, sale) as ${APP_DB_ROLE} (login ${session!.user}), one connection, autocommit`);

  // 1. The sale path: A and B in alternating blocks, each block's CPU counted to its shop.
  say('');
  say(`1. The sale path: ${count(SALES)} sales per shop, sequential, in alternating blocks of ${BLOCK} (A, B, A, B...)`);
  const phases = new Map<Shop, Phase>([[shopA, { samples: [], sessionCpuMs: 0, postgresCpuMs: 0 }], [shopB, { samples: [], sessionCpuMs: 0, postgresCpuMs: 0 }]]);
  const started = performance.now();
  for (let done = 0; done < SALES; done += BLOCK) {
    for (const shop of [shopA, shopB]) {
      const phase = phases.get(shop)!;
      const sessionBefore = processCpuMs(session!.pid);
      const postgresBefore = postgresCpuMs();
      for (let i = done; i < Math.min(SALES, done + BLOCK); i++) phase.samples.push(await submit(shop));
      const sessionAfter = processCpuMs(session!.pid);
      const postgresAfter = postgresCpuMs();
      phase.sessionCpuMs = phase.sessionCpuMs === null || sessionBefore === null || sessionAfter === null ? null : phase.sessionCpuMs + sessionAfter - sessionBefore;
      phase.postgresCpuMs = phase.postgresCpuMs === null || postgresBefore === null || postgresAfter === null ? null : phase.postgresCpuMs + postgresAfter - postgresBefore;
    }
  }
  const [sameSession] = await app<{ pid: number }[]>`select pg_backend_pid() as pid`;
  say(`  ${count(2 * SALES)} sales in ${ms(performance.now() - started)}${sameSession!.pid === session!.pid ? '' : ' (the session changed: its CPU is not meaningful)'}`);
  const figures = new Map<Shop, { mean: number; p50: number; p99: number; max: number; session: number | null; postgres: number | null }>();
  for (const [shop, phase] of phases) {
    const sorted = [...phase.samples].sort((a, b) => a - b);
    figures.set(shop, {
      mean: mean(sorted),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1]!,
      session: sameSession!.pid === session!.pid ? perSale(phase.sessionCpuMs, sorted.length) : null,
      postgres: perSale(phase.postgresCpuMs, sorted.length),
    });
  }
  const a = figures.get(shopA)!;
  const b = figures.get(shopB)!;
  const rows: string[][] = [
    ['per sale', 'mean', 'p50', 'p99', 'max', 'session CPU', 'all postgres CPU'],
    ...[shopA, shopB].map((shop) => {
      const f = figures.get(shop)!;
      return [shop.label, ms(f.mean), ms(f.p50), ms(f.p99), ms(f.max), cpuText(f.session), cpuText(f.postgres)];
    }),
    ['B - A', signed(b.mean - a.mean), signed(b.p50 - a.p50), signed(b.p99 - a.p99), '', b.session === null || a.session === null ? 'n/a' : signed(b.session - a.session),
      b.postgres === null || a.postgres === null ? 'n/a' : signed(b.postgres - a.postgres)],
    ['B / A', (b.mean / a.mean).toFixed(3), (b.p50 / a.p50).toFixed(3), (b.p99 / a.p99).toFixed(3), '', b.session && a.session ? (b.session / a.session).toFixed(3) : 'n/a', ''],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) say(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`);
  say('  (session CPU: the app\'s PostgreSQL backend, /proc; all postgres CPU: every postgres process of the machine, other work on it included)');

  const failures: string[] = [];
  const outboxA = await outbox(shopA.shopId);
  const outboxB = await outbox(shopB.shopId);
  const okA = outboxA.rows === 0 && outboxA.jobs === 0;
  const okB = outboxB.rows === SALES && outboxB.pending === SALES && outboxB.jobs >= 1 && outboxB.jobs <= 2;
  say(`  checked      A: ${outboxA.rows} outbox rows, ${outboxA.jobs} fiscal__certify jobs ${okA ? '(right)' : '(WRONG: expected none)'}`);
  say(`               B: ${count(outboxB.rows)} outbox rows, ${count(outboxB.pending)} pending, ${outboxB.jobs} fiscal__certify job(s) (key fiscal_certify:<shop>), ` +
    `revision ${outboxB.revision ?? '-'} (woken ${outboxB.revision === null ? '?' : count(outboxB.revision + 1)} times for ${count(SALES)} transactions) ` +
    `${okB ? '(right)' : `(WRONG: expected ${SALES} pending and 1 or 2 jobs)`}`);
  if (!okA) failures.push(`shop A: ${JSON.stringify(outboxA)}`);
  if (!okB) failures.push(`shop B: ${JSON.stringify(outboxB)}`);

  // 2. Delivery, as the worker's task runs it: the owner's pool, one statement per query, no transaction open.
  say('');
  say(`2. Delivery: deliverPending for B (owner pool, FISCAL_PROVIDER=simulator) run after run until nothing is pending`);
  const config = loadConfig({ ...process.env, DATABASE_URL: bench.ownerUrl, APP_KEY: BENCH_APP_KEY, FISCAL_PROVIDER: 'simulator', LOG_LEVEL: 'silent' });
  pool = new pg.Pool({ connectionString: bench.ownerUrl, max: 1, application_name: 'pos-bench-worker' });
  const query: Query = (text, values) => pool!.query(text, values as unknown[]);
  const warnings: object[] = [];
  const log = { warn: (detail: object) => warnings.push(detail), info: () => {} };
  const [{ pid: workerPid }] = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }];
  const runs: { delivered: number; ms: number }[] = [];
  const workerCpuBefore = processCpuMs(workerPid);
  const postgresBefore = postgresCpuMs();
  const nodeBefore = process.cpuUsage();
  const deliveryStarted = performance.now();
  for (;;) {
    const runStart = performance.now();
    const run = await deliverPending(query, config, BENCH_APP_KEY, shopB.shopId, log);
    runs.push({ delivered: run.delivered, ms: performance.now() - runStart });
    if (!run.nextRunAt) break;
    if (run.delivered === 0) throw new Error(`the delivery stalled: a record waits until ${run.nextRunAt.toISOString()} (${JSON.stringify(warnings.slice(-1))})`);
  }
  const deliveryMs = performance.now() - deliveryStarted;
  const node = process.cpuUsage(nodeBefore);
  const workerCpuAfter = processCpuMs(workerPid);
  const postgresAfter = postgresCpuMs();
  const delivered = runs.reduce((sum, run) => sum + run.delivered, 0);
  const perRecord = (total: number | null) => (total === null ? 'n/a' : `${(total / Math.max(1, delivered)).toFixed(2)} ms`);
  const firstRun = runs[0]!;
  const lastFull = [...runs].reverse().find((run) => run.delivered > 0) ?? firstRun;
  say(`  ${count(delivered)} records in ${ms(deliveryMs)} over ${runs.length} runs (100 records each at most): ` +
    `${(delivered / (deliveryMs / 1000)).toFixed(0)} records/s, ${(deliveryMs / Math.max(1, delivered)).toFixed(2)} ms per record`);
  say(`  per record   first run ${(firstRun.ms / Math.max(1, firstRun.delivered)).toFixed(2)} ms, last run ${(lastFull.ms / Math.max(1, lastFull.delivered)).toFixed(2)} ms ` +
    `(${count(lastFull.delivered)} records, after ${count(delivered - lastFull.delivered)} certified)`);
  say(`  CPU          the worker's PostgreSQL session ${perRecord(workerCpuAfter === null || workerCpuBefore === null ? null : workerCpuAfter - workerCpuBefore)} per record, ` +
    `every postgres process ${perRecord(postgresAfter === null || postgresBefore === null ? null : postgresAfter - postgresBefore)}, ` +
    `this process (connector, request building, pg) ${perRecord((node.user + node.system) / 1000)}`);
  const [done] = await owner<{ rows: number; certified: number; first_attempt: number; out_of_order: number; first: string; last: string; gaps: number }[]>`
    select count(*)::int as rows,
           count(*) filter (where status = 'certified' and authority_no is not null and certified_at is not null)::int as certified,
           count(*) filter (where attempts = 1)::int as first_attempt,
           count(*) filter (where certified_at < previous)::int as out_of_order,
           min(chain_no)::text as first, max(chain_no)::text as last,
           (max(chain_no) - min(chain_no) + 1 - count(*))::int as gaps
      from (select *, lag(certified_at) over (order by chain_no) as previous from fiscal_certifications where shop_id = ${shopB.shopId}) c`;
  const okDelivery = delivered === SALES && done!.rows === SALES && done!.certified === SALES && done!.first_attempt === SALES && done!.out_of_order === 0 && done!.gaps === 0 && warnings.length === 0;
  say(`  checked      ${count(done!.certified)} of ${count(done!.rows)} certified (chain ${done!.first}..${done!.last}, ${done!.gaps} gaps), ` +
    `${count(done!.first_attempt)} at their first attempt, ${done!.out_of_order} certified before the record ahead of them, ${warnings.length} warnings ` +
    `${okDelivery ? '(right)' : '(WRONG)'}`);
  if (!okDelivery) failures.push(`delivery: ${delivered} delivered, ${JSON.stringify(done)}, ${warnings.length} warnings`);

  // 3. The pick with the N certified and one more pending.
  await submit(shopB);
  say('');
  say(`3. deliverPending's pick with ${count(SALES)} certified and 1 pending in B: EXPLAIN (ANALYZE, BUFFERS)`);
  const plans: [string, ReturnType<typeof showPlan>][] = [];
  plans.push(['as pos_app, right after the delivery', showPlan(`as ${APP_DB_ROLE} (shop set), right after the delivery`, await explainPick(shopB.shopId, true))]);
  plans.push(['as the owner (the worker)', showPlan('as the owner, as the worker runs it', await explainPick(shopB.shopId, false))]);
  await owner`vacuum (analyze) fiscal_certifications`;
  plans.push(['as pos_app after VACUUM', showPlan(`as ${APP_DB_ROLE}, after VACUUM (ANALYZE) fiscal_certifications`, await explainPick(shopB.shopId, true))]);
  // A verdict, not a failure: on a small outbox (BENCH_SALES of a few hundred) a scan of its few pages is the right plan.
  for (const [title, plan] of plans) say(`  ${plan.partialIndex ? 'partial index' : 'NOT the partial index'}  ${title}: ${plan.verdict}`);
  say('');
  say(`Done in ${((performance.now() - runStarted) / 1000).toFixed(1)} s.`);
  if (failures.length) throw new Error(`wrong results:\n  ${failures.join('\n  ')}`);
});
