import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { codeMigrations } from '../../db/schema-check.ts';
import { waitFor } from '../support/fixtures.ts';
import { databaseUrl, TEST_APP_KEY, TEST_ENV } from '../support/env.ts';
import { freePort, launch as launchProcess, type Launched } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const env = { DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, LOG_LEVEL: 'info' };
const launch = (entry: string, extraEnv: Record<string, string> = {}) => launchProcess(t, entry, { ...env, ...extraEnv });
const migrations = await codeMigrations();
const last = migrations.at(-1)!;
/** Past the readiness probe's 5 s cache, with a margin. */
const CACHE_PERIOD_MS = 7_000;

/** The exit code, or 'still running' when the process has not exited within 15 s (then it is killed). */
async function exitOf(run: Launched): Promise<number | null | 'still running'> {
  return Promise.race([run.exited, new Promise<'still running'>((resolve) => setTimeout(resolve, 15_000, 'still running'))]);
}

/** Deletes the row of `version` from schema_migrations until the test ends, as on a database a release has not migrated yet. */
async function withoutMigration(t: Test, version: string) {
  const [row] = await api.ownerSql<{ applied_at: Date }[]>`delete from schema_migrations where version = ${version} returning applied_at`;
  const restore = async () => void (await api.ownerSql`insert into schema_migrations (version, applied_at) values (${version}, ${row!.applied_at}) on conflict do nothing`);
  t.teardown(restore);
  return restore;
}

t.test('web started against a database never migrated exits 1 with one line saying every migration is pending', async (t) => {
  const serverUrl = process.env[TEST_ENV.serverUrl]!;
  const name = `pos_test_empty_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  t.teardown(async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  });
  const web = launch('api/web.ts', { DATABASE_URL: databaseUrl(serverUrl, name), PORT: String(await freePort()) });
  t.equal(await exitOf(web), 1);
  const lines = web.output.stderr.trim().split('\n');
  t.equal(lines.length, 1, web.output.stderr);
  t.match(lines[0], new RegExp(`^Start-up failed: Database schema is behind the code: ${migrations.length} migrations pending \\(${migrations[0]}\\.sql, .*, and ${migrations.length - 3} more\\): run npm run migrate$`));
});

t.test('web and worker exit 1 naming the migration the database lacks', async (t) => {
  await withoutMigration(t, last);
  const web = launch('api/web.ts', { PORT: String(await freePort()) });
  const worker = launch('worker/main.ts');
  for (const [role, run] of [['web', web], ['worker', worker]] as const) {
    t.equal(await exitOf(run), 1, `${role} exits 1`);
    t.equal(run.output.stderr.trim(), `Start-up failed: Database schema is behind the code: 1 migration pending (${last}.sql): run npm run migrate`, `${role} says which`);
    t.notOk(run.output.stdout.includes('listening') || run.output.stdout.includes('worker running'), `${role} never served`);
  }
});

t.test('GET /readyz answers 503 while a migration the code has is missing from the database, and 200 once it is back', async (t) => {
  t.equal((await api.raw('GET', '/readyz')).status, 200);
  const restore = await withoutMigration(t, last);
  const notReady = await waitFor(async () => {
    const reply = await api.raw('GET', '/readyz');
    return reply.status === 503 && reply;
  }, 'a 503 from /readyz', CACHE_PERIOD_MS);
  t.same(notReady.body, { code: 'not_ready', message: `Database schema is behind the code: 1 migration pending (${last}.sql): run npm run migrate` });
  await restore();
  await waitFor(async () => (await api.raw('GET', '/readyz')).status === 200, 'a 200 from /readyz', CACHE_PERIOD_MS);
  t.pass('ready again within the cache period');
});

t.test('a migration recorded by a newer release does not stop web nor worker: they start, ready, with one warning line', async (t) => {
  const newer = '9999_from_a_newer_release';
  await api.ownerSql`insert into schema_migrations (version) values (${newer})`;
  t.teardown(async () => void (await api.ownerSql`delete from schema_migrations where version = ${newer}`));
  const warning = `Database schema is ahead of the code: 1 migration this release does not know (${newer}.sql), applied by a newer release; serving anyway`;
  const port = await freePort();
  const web = launch('api/web.ts', { PORT: String(port) });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200, 'the web role ready');
  t.match(web.output.stdout, `"msg":"${warning}"`);
  t.equal((await api.raw('GET', '/readyz')).status, 200, 'the in-process service is ready too');
  const worker = launch('worker/main.ts');
  await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker role');
  t.match(worker.output.stdout, `"msg":"${warning}"`);
  web.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  t.equal(await web.exited, 0);
  t.equal(await worker.exited, 0);
});
