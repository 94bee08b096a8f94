/**
 * Production as operators run it (issue 28): the web and worker processes behind PgBouncer in
 * TRANSACTION pooling mode, a few server connections shared by all their clients, prepared
 * statements off (DB_PREPARED_STATEMENTS=false). The web's requests and the worker's jobs go through
 * the pooler; the worker's LISTEN alone goes straight to PostgreSQL (WORKER_LISTEN_DATABASE_URL).
 * Before: `prepared statement does not exist`, RangeErrors, 500s, requests never answered, and a
 * worker failing on `prepared statement "complete_job/graphile_worker" already exists`.
 */
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import { startWorker } from '../../worker/worker.ts';
import { TEST_APP_KEY, TEST_ENV } from '../support/env.ts';
import { createProduct, ledgerInvariants, staffedShop, uniqueEmail, waitFor } from '../support/fixtures.ts';
import { startMailbox } from '../support/mailbox.ts';
import { pgbouncerVersion, startPgbouncer } from '../support/pgbouncer.ts';
import { freePort, launch, type Launched } from '../support/processes.ts';
import { send, startService, type Reply, type RequestOptions, type Service } from '../support/service.ts';
import { createCustomer, refundSale, voidSale } from '../sales/sale-fixtures.ts';
import { openShift } from '../shifts/shift-fixtures.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';

if (!pgbouncerVersion()) throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer');

t.setTimeout(600_000);
const api = await startService(t);
const owner = new URL(api.runtime.ownerUrl);
const app = new URL(api.appUrl);
// Four server connections per database and user: the web's ten and the worker's pools really share them.
const bouncer = await startPgbouncer({
  serverUrl: process.env[TEST_ENV.serverUrl]!,
  users: [{ name: decodeURIComponent(app.username), password: decodeURIComponent(app.password) }],
  poolSize: 4,
});
t.teardown(() => bouncer.stop());
const mailbox = await startMailbox(t);

const pooled = { DB_PREPARED_STATEMENTS: 'false', APP_KEY: TEST_APP_KEY, BCRYPT_ROUNDS: '4', LOG_LEVEL: 'info' };
const port = await freePort();
const web = launch(t, 'api/web.ts', {
  ...pooled,
  // Migrations and the schema check connect directly; every request goes through the pooler.
  DATABASE_URL: api.runtime.ownerUrl,
  APP_DATABASE_URL: bouncer.through(api.appUrl),
  DB_POOL_MAX: '10',
  PORT: String(port),
});
const worker = launch(t, 'worker/main.ts', {
  ...pooled,
  DATABASE_URL: bouncer.through(api.runtime.ownerUrl),
  WORKER_LISTEN_DATABASE_URL: api.runtime.ownerUrl,
  SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
});
const baseUrl = `http://127.0.0.1:${port}`;
await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => null))?.status === 200, 'the web process', 60_000);
await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker process', 60_000);

/** Every request the test sends, by outcome: its status, or what went wrong on the way. */
const outcomes = { sent: 0, statuses: new Map<number, number>(), failures: [] as string[], unanswered: [] as string[] };
/** A request taking longer than this is one never answered (the web answers within 45 s whatever the database does). */
const UNANSWERED_MS = 50_000;
/** The load stops at the first request that failed or went unanswered: the test then fails with what went wrong. */
const broken = () => outcomes.failures.length > 0 || outcomes.unanswered.length > 0;

async function counted<T>(url: string, method: string, options?: RequestOptions): Promise<Reply<T>> {
  outcomes.sent++;
  const what = `${method} ${new URL(url).pathname}`;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), UNANSWERED_MS)));
  const outcome = await Promise.race([send<T>(url, method, options).catch((error: Error) => error), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    outcomes.unanswered.push(what);
    throw new Error(`${what}: no answer within ${UNANSWERED_MS} ms`);
  }
  if (outcome instanceof Error) {
    outcomes.failures.push(`${what}: ${outcome.message}`);
    throw outcome;
  }
  outcomes.statuses.set(outcome.status, (outcomes.statuses.get(outcome.status) ?? 0) + 1);
  if (outcome.status >= 500) outcomes.failures.push(`${what}: ${outcome.status} ${JSON.stringify(outcome.body).slice(0, 300)}`);
  return outcome;
}

/** The fixtures' Service, its requests sent to the web process behind the pooler. */
const pos: Service = {
  ...api,
  baseUrl,
  request: (method, path, options) => counted(`${baseUrl}/api/v1${path}`, method, options),
  raw: (method, path, options) => counted(`${baseUrl}${path}`, method, options),
};

const errorLines = (process: Launched) => process.output.stdout.split('\n').filter((line) => /"level":(50|60)/.test(line));

const CLIENTS = 16;
const SALES_PER_CLIENT = 40;

t.test('behind PgBouncer in transaction mode, a day of a shop works: every request answered, none fails', async (t) => {
  t.teardown(() => {
    if (broken()) t.comment(`failed: ${JSON.stringify(outcomes.failures.slice(0, 5))}; unanswered: ${JSON.stringify(outcomes.unanswered.slice(0, 5))}`);
  });
  const { owner: boss, manager, cashier } = await staffedShop(pos);
  const products: any[] = [];
  for (let i = 0; i < 6; i++) products.push(await createProduct(pos, boss.token, { price_xaf: 500 + 100 * i, vat_rate: i % 2 ? 19.25 : 0 }, 100_000));
  await openShift(pos, cashier.token, 10_000);
  await openShift(pos, manager.token);

  // A load balancer's probe meanwhile: statements outside any transaction, on the pool itself.
  let loading = true;
  const probes = (async () => {
    const statuses: number[] = [];
    while (loading) {
      statuses.push((await pos.raw('GET', '/readyz')).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return statuses;
  })();

  const started = performance.now();
  const sold = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const replies: Reply[] = [];
      for (let n = 0; n < SALES_PER_CLIENT && !broken(); n++) {
        const lines = [products[(client + n) % 6], products[(client + 2 * n + 1) % 6]].map((product, i) => ({ product_id: product.id, quantity: 1 + ((n + i) % 3) }));
        replies.push(await pos.request('POST', '/sales', { token: cashier.token, body: { items: lines, payments: [{ method: 'cash', amount_xaf: 20_000 }] } }));
        if (n % 10 === 0) await pos.request('GET', `/products/${products[client % 6].id}`, { token: cashier.token });
      }
      return replies;
    }),
  );
  loading = false;
  const seconds = (performance.now() - started) / 1000;
  const sales = sold.flat();
  t.strictSame([...new Set(sales.map((reply) => reply.status))], [201], `${CLIENTS} clients x ${SALES_PER_CLIENT} sales, each 201`);
  const probed = await probes;
  t.strictSame([...new Set(probed)], [200], 'ready throughout');
  t.comment(`${sales.length} sales in ${seconds.toFixed(1)} s through PgBouncer (${(sales.length / seconds).toFixed(0)}/s), ${probed.length} readiness probes meanwhile`);
  const receipts = sales.map((reply) => reply.body.data.receipt_no).sort((a, b) => a - b);
  t.strictSame(receipts, Array.from({ length: sales.length }, (_, i) => i + 1), 'receipt numbers without gap or repeat');

  const voided = await voidSale(pos, manager.token, sales[0]!.body.data.id);
  t.equal(voided.status, 200, 'a void');
  const refunded = await refundSale(pos, manager.token, sales[1]!.body.data.id, { method: 'cash', reason: 'Retour', items: [{ sale_item_id: sales[1]!.body.data.items[0].id, quantity: 1 }] });
  t.equal(refunded.status, 201, 'a refund');

  const device = await pairDevice(pos, boss.token);
  const offline = Array.from({ length: 5 }, (_, i) => offlineSale(randomUUID(), products[i]!.id, 1, { created_at: new Date(Date.now() - 60_000).toISOString() }));
  const pushed = await push(pos, { device: device.token }, { sales: offline });
  t.equal(pushed.status, 200, 'a sync push');
  t.strictSame(pushed.body.data.results.map((result: { status: string }) => result.status), offline.map(() => 'applied'), 'its offline sales applied');

  const z = await pos.request('GET', '/reports/z', { token: boss.token });
  t.equal(z.status, 200, 'the Z');
  const [today] = await api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from sales s join shops sh on sh.id = s.shop_id
     where s.shop_id = ${boss.shop.id} and (s.created_at at time zone sh.timezone)::date = ${z.body.data.date}::date`;
  t.match(z.body.data, { sales: { count: today!.n }, voids: { count: 1 }, refunds: { count: 1 } }, 'counts every sale, the void and the refund');

  const email = uniqueEmail('client');
  const customer = await createCustomer(pos, boss.token, { name: 'Jean Mbarga', email });
  const queuedAt = performance.now();
  const receipt = await pos.request('POST', '/sales', { token: cashier.token, body: { customer_id: customer.id, items: [{ product_id: products[0]!.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1_000 }] } });
  t.equal(receipt.status, 201, 'a sale to a customer with an e-mail');
  const mail = await mailbox.next(email, 30_000);
  t.match(mail.subject, `Reçu n° ${receipt.body.data.receipt_no}`, 'the worker sent the receipt');
  t.comment(`receipt e-mail received ${((performance.now() - queuedAt) / 1000).toFixed(2)} s after the sale`);

  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, boss.shop.id);
  t.strictSame(stockMismatches, [], 'on-hand equals the movements');
  t.strictSame(unbalancedEntries, [], 'every journal entry balances');

  t.strictSame(outcomes.failures, [], 'no request failed, none answered 5xx');
  t.strictSame(outcomes.unanswered, [], 'every request answered');
  t.notOk(outcomes.statuses.has(500), 'no 500');
  t.comment(`${outcomes.sent} requests: ${JSON.stringify(Object.fromEntries(outcomes.statuses))}`);
});

t.test('the worker listens on a direct connection and runs its jobs through the pooler', async (t) => {
  const servers = await bouncer.admin<{ database: string; user: string; remote_pid: string }>('SHOW SERVERS');
  const pooledPids = new Set(servers.map((server) => Number(server.remote_pid)));
  t.ok(servers.some((server) => server.database === owner.pathname.slice(1) && server.user === decodeURIComponent(owner.username)), 'the worker\'s jobs use the pooler\'s server connections');
  const listeners = await api.ownerSql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and query like 'LISTEN "jobs:insert"%'`;
  t.equal(listeners.length, 3, 'one LISTEN per runner (main, mail and authority)');
  t.strictSame(listeners.filter((listener) => pooledPids.has(listener.pid)), [], 'none through the pooler');
});

t.test('both processes log no error and stop gracefully', async (t) => {
  t.strictSame(errorLines(web), [], 'web');
  t.strictSame(errorLines(worker), [], 'worker');
  web.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  t.equal(await web.exited, 0, 'web exits 0');
  t.equal(await worker.exited, 0, 'worker exits 0');
});

/** A worker in this process, its jobs through the pooler and its LISTEN on `listenUrl`; stopped when the test ends. */
async function pooledWorker(t: Test, listenUrl: string) {
  const runtime = { ...api.runtime, ownerUrl: bouncer.through(api.runtime.ownerUrl), config: { ...api.config, DB_PREPARED_STATEMENTS: false, WORKER_LISTEN_DATABASE_URL: listenUrl } };
  const started = await startWorker(runtime, createLogger('silent'));
  t.teardown(() => started.stop());
  return started;
}

/** Queues a job with nothing to do and waits until a worker has run it. */
async function jobRuns(what: string): Promise<void> {
  const [job] = await api.ownerSql<{ id: string }[]>`select id::text from graphile_worker.add_job('auth__prune_expired', '{}'::json)`;
  await waitFor(async () => (await api.ownerSql`select 1 from graphile_worker.jobs where id = ${job!.id}`).length === 0, what, 15_000);
}

t.test('a job queued is announced at once to a worker whose jobs go through the pooler', async (t) => {
  const pooled = await pooledWorker(t, api.runtime.ownerUrl);
  await waitFor(async () => (await api.ownerSql`select 1 from pg_stat_activity where datname = current_database() and query like 'LISTEN "jobs:insert"%'`).length === 3, 'every runner listening');
  let announced = 0;
  pooled.events.on('pool:listen:notification', ({ message }) => {
    if (message.channel === 'jobs:insert') announced++;
  });
  await jobRuns('the job');
  t.ok(announced > 0, `the worker heard of it by NOTIFY (${announced} notification(s))`);
});

t.test('without its LISTEN connection, a worker still starts the jobs it polls for', async (t) => {
  const nowhere = new URL(api.runtime.ownerUrl);
  nowhere.port = String(await freePort());
  const pooled = await pooledWorker(t, nowhere.toString());
  let refused = 0;
  let announced = 0;
  pooled.events.on('pool:listen:error', () => refused++);
  pooled.events.on('pool:listen:notification', () => announced++);
  await waitFor(() => refused >= 2, 'both runners failing to listen');
  await jobRuns('the job, polled');
  t.equal(announced, 0, 'no notification: the job was found by polling');
});
