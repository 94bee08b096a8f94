/**
 * Reports on a read replica (issue 33, item 5): a primary made by this file, migrated, a streaming hot standby
 * of it from pg_basebackup, and the web process (api/web.ts) started with REPLICA_DATABASE_URL on the
 * standby and a small REPLICA_MAX_LAG_MS. The standby's replay is paused and resumed (as its superuser) to
 * make it fall behind on purpose: a sale made meanwhile is on the primary only, so a report that does not
 * show it was read on the replica, and one that does, on the primary.
 */
import t from 'tap';
import postgres from 'postgres';
import { migrate } from '../../db/migrate.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { createProduct, registerShop, waitFor } from '../support/fixtures.ts';
import { clusterSkipReason, startCluster, startStandby } from '../support/pg-cluster.ts';
import { freePort, launch, type Launched } from '../support/processes.ts';
import { send, type RequestOptions, type Service } from '../support/service.ts';
import { openShift, readSale, sell } from '../sales/sale-fixtures.ts';

const skip = clusterSkipReason();
if (skip) throw new Error(`no PostgreSQL clusters here: ${skip}`);
t.setTimeout(300_000);

const MAX_LAG_MS = 4_000;
// Small clusters: the machine is shared. A standby needs max_connections at least the primary's.
const settings = { max_connections: '40', shared_buffers: '16MB' };
const primary = await startCluster({ settings });
t.teardown(() => primary.destroy());
const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
await admin`create database pos`;
await admin.end();
await migrate(primary.url('pos'), { appKey: TEST_APP_KEY });
const standby = await startStandby(primary, { settings });
t.teardown(() => standby.destroy());

const ownerSql = postgres(primary.url('pos'), { max: 2, onnotice: () => {} });
const standbySql = postgres(standby.url('pos'), { max: 1, onnotice: () => {} });
t.teardown(async () => {
  await standbySql.end({ timeout: 1 });
  await ownerSql.end({ timeout: 1 });
});

/** The web process on the primary, with the replica unless `replica` is false; LOG_LEVEL info, for its lines on the replica. */
async function startWeb(replica: boolean): Promise<{ api: Service; web: Launched }> {
  const port = await freePort();
  const web = launch(t, 'api/web.ts', {
    NODE_ENV: 'test',
    DATABASE_URL: primary.url('pos'),
    REPLICA_DATABASE_URL: replica ? standby.url('pos') : undefined,
    REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    APP_KEY: TEST_APP_KEY,
    BCRYPT_ROUNDS: '4',
    PORT: String(port),
    LOG_LEVEL: 'info',
    DB_POOL_MAX: '4',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => null))?.status === 200, 'the web process', 60_000);
  // The fixtures use a test service's requests and owner connection only.
  const api = { baseUrl, request: (method: string, path: string, options?: RequestOptions) => send(`${baseUrl}/api/v1${path}`, method, options), ownerSql } as Service;
  return { api, web };
}

const { api, web } = await startWeb(true);
const owner = await registerShop(api, { shop_name: 'Quincaillerie du Port' });
await openShift(api, owner.token);
const product = await createProduct(api, owner.token, { name: 'Ciment', price_xaf: 5_000, vat_rate: 0 }, 1_000);
const sellOne = () => sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 5_000 }] });
/** Today's sales as GET /reports/z counts them. */
const salesInZ = async (via = api) => {
  const reply = await via.request('GET', '/reports/z', { token: owner.token });
  if (reply.status !== 200) throw new Error(`Z: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.sales.count as number;
};
/** The entries GET /fiscal/archive holds (its last line is the signature). */
const entriesInArchive = async () => {
  const response = await fetch(`${api.baseUrl}/api/v1/fiscal/archive`, { headers: { authorization: `Bearer ${owner.token}` } });
  if (response.status !== 200) throw new Error(`archive: ${response.status}`);
  return (await response.text()).trim().split('\n').length - 1;
};
/** The web's log lines about the replica, by standing. */
const replicaLines = (standing: string) => web.output.stdout.split('\n').filter((line) => line.includes(`"replica":"${standing}"`)).length;

/**
 * Commits a transaction on the primary (an xid makes a commit record, whose time the standby's lag is
 * measured from), waits until the standby has replayed it, and pauses replay: the standby is fresh, and stays as it is while the primary moves on.
 */
async function pauseFresh(): Promise<number> {
  await ownerSql`select txid_current()`;
  const committedAt = Date.now();
  await replayed('the standby to replay');
  await standbySql`select pg_wal_replay_pause()`;
  await waitFor(async () => (await standbySql`select pg_get_wal_replay_pause_state() = 'paused' as paused`)[0]!.paused, 'replay to pause');
  return committedAt;
}

async function resumeAndCatchUp(): Promise<void> {
  await standbySql`select pg_wal_replay_resume()`;
  await replayed('the standby to catch up');
}

/**
 * Waits until the standby has replayed all the primary has logged so far: up to its insert position, since
 * the commit of a transaction that changed no row is flushed later, by the WAL writer.
 */
async function replayed(what: string): Promise<void> {
  const [written] = await ownerSql<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
  await waitFor(async () => (await standbySql<{ done: boolean }[]>`select pg_last_wal_replay_lsn() >= ${written!.lsn}::pg_lsn as done`)[0]!.done, what);
}

const before = { sales: await salesInZ(), entries: await entriesInArchive() };
let pausedAt = 0;
let sale: any;

t.test('a report within the bound is read on the replica, a sale\'s own GET on the primary', async (t) => {
  pausedAt = await pauseFresh();
  sale = await sellOne();
  t.equal(await salesInZ(), before.sales, 'the Z does not show the sale yet: the replica answered');
  t.equal(await entriesInArchive(), before.entries, 'nor does the archive, streamed from the replica');
  t.ok(Date.now() - pausedAt < MAX_LAG_MS, 'both answered within the bound');
  t.equal((await readSale(api, owner.token, sale.id)).id, sale.id, 'GET /sales/{id} shows it: the primary answered');
});

t.test('past the bound the primary answers', async (t) => {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, pausedAt + MAX_LAG_MS + 200 - Date.now())));
  t.equal(await salesInZ(), before.sales + 1, 'the Z shows the sale');
  t.equal(await entriesInArchive(), before.entries + 1, 'the archive shows its entry');
  t.equal(replicaLines('lagging'), 1, 'logged once, however many reports');
});

t.test('once replay resumes and the replica catches up, it answers again', async (t) => {
  await resumeAndCatchUp();
  pausedAt = await pauseFresh();
  await sellOne();
  t.equal(await salesInZ(), before.sales + 1, 'the first sale (caught up), not the second (the replica answered)');
  t.ok(Date.now() - pausedAt < MAX_LAG_MS, 'within the bound');
  t.equal(replicaLines('serving'), 1, 'its return logged once');
  await resumeAndCatchUp();
});

t.test('without REPLICA_DATABASE_URL every report is read on the primary', async (t) => {
  const plain = await startWeb(false);
  pausedAt = await pauseFresh();
  await sellOne();
  t.equal(await salesInZ(plain.api), before.sales + 3, 'the sale just made shows at once');
  t.equal(await salesInZ(), before.sales + 2, 'while the replica, read by the other process, does not have it');
  t.equal(plain.web.output.stdout.includes('"replica"'), false, 'nothing of a replica is logged');
  await resumeAndCatchUp();
});

t.test('a replica that is down never fails a report: the primary answers at once', async (t) => {
  await standby.stop();
  await sellOne();
  for (let i = 0; i < 3; i++) {
    const started = Date.now();
    t.equal(await salesInZ(), before.sales + 4, 'the Z, from the primary');
    t.ok(Date.now() - started < 3_000, `answered in ${Date.now() - started} ms`);
  }
  const started = Date.now();
  t.equal(await entriesInArchive(), before.entries + 4, 'the archive, from the primary');
  t.ok(Date.now() - started < 3_000, 'at once');
  t.equal(replicaLines('failing'), 1, 'logged once');
});
