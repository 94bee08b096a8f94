/**
 * `npm test`: prepares PostgreSQL (DATABASE_URL's server when set, else an embedded one under
 * DATA_DIR/test-pg), builds a migrated template database once per version of the schema's sources, then
 * runs tap. Each test file clones its own database from the template and drops it at the end.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { migrate, SCHEMA_DIR } from '../db/migrate.ts';
import { databaseUrl, TEST_APP_KEY, TEST_ENV } from './support/env.ts';
import { startPgbouncer } from './support/pgbouncer.ts';

/** Changes with any migration, function file or dependency: a new template is built then. */
function schemaFingerprint(): string {
  const hash = createHash('sha256');
  for (const dir of ['migrations', 'functions'].map((name) => path.join(SCHEMA_DIR, name))) {
    for (const file of readdirSync(dir, { recursive: true }).map(String).sort()) {
      const full = path.join(dir, file);
      if (statSync(full).isFile()) hash.update(file).update(readFileSync(full));
    }
  }
  hash.update(readFileSync('package-lock.json'));
  return hash.digest('hex').slice(0, 12);
}

/** Templates kept besides the one just built: other checkouts on this server may still use them. */
const OLD_TEMPLATES_KEPT = 2;

/** The login roles migrate made for `database` (its clones share them); none before migration 0034. */
async function loginRolesOf(serverUrl: string, database: string): Promise<string[]> {
  const sql = postgres(databaseUrl(serverUrl, database), { max: 1, onnotice: () => {} });
  try {
    const [table] = await sql<{ exists: boolean }[]>`select to_regclass('app_login_roles') is not null as exists`;
    return table!.exists ? (await sql<{ role_name: string }[]>`select role_name from app_login_roles`).map((row) => row.role_name) : [];
  } finally {
    await sql.end();
  }
}

/**
 * A new template for every change of the schema's sources: the older ones would pile up on a server
 * that outlives the runs (10 MB each). All but the newest few are dropped (newest: highest OID), with
 * their login roles, which are the server's and would pile up too; one in use by another run's clone
 * is left for a later run.
 */
async function dropOldTemplates(admin: postgres.Sql, serverUrl: string, current: string): Promise<void> {
  const old = await admin<{ datname: string }[]>`
    select datname from pg_database
     where datname like 'pos\_test\_template\_%' and datname not like '%\_building' and datname <> ${current}
     order by oid desc offset ${OLD_TEMPLATES_KEPT}`;
  for (const { datname } of old) {
    try {
      await admin.unsafe(`alter database "${datname}" with is_template false allow_connections true`);
      const roles = await loginRolesOf(serverUrl, datname);
      await admin.unsafe(`drop database "${datname}"`);
      for (const role of roles) await admin.unsafe(`drop role if exists "${role}"`);
    } catch {
      // In use: a later run drops it.
    }
  }
}

async function ensureTemplate(serverUrl: string): Promise<string> {
  const template = `pos_test_template_${schemaFingerprint()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    // Two runs against one server (two checkouts, or CI beside a developer) build each template once.
    await admin`select pg_advisory_lock(hashtext(${template}))`;
    const [ready] = await admin`select 1 from pg_database where datname = ${template} and datistemplate`;
    if (!ready) {
      const building = `${template}_building`;
      await admin.unsafe(`drop database if exists "${building}" with (force)`);
      await admin.unsafe(`create database "${building}"`);
      await migrate(databaseUrl(serverUrl, building), { appKey: TEST_APP_KEY });
      await admin.unsafe(`drop database if exists "${template}" with (force)`);
      await admin.unsafe(`alter database "${building}" rename to "${template}"`);
      await admin.unsafe(`alter database "${template}" with is_template true allow_connections false`);
    }
    await dropOldTemplates(admin, serverUrl, template);
    return template;
  } finally {
    await admin.end();
  }
}

let embedded: EmbeddedDatabase | undefined;
let serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  const dataDir = process.env.DATA_DIR ?? '.data';
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329) + 1;
  embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'test-pg-root'), port, database: 'postgres' });
  serverUrl = embedded.serverUrl;
  process.stdout.write(`tests: embedded PostgreSQL on port ${port}\n`);
}

const template = await ensureTemplate(serverUrl);
// `TEST_PGBOUNCER=1`: every file's application pool goes through one PgBouncer in transaction mode,
// prepared statements off, as operators run it (tests/support/pgbouncer.ts; .ci/run runs a part so).
const pgbouncer = process.env.TEST_PGBOUNCER === '1' ? await startPgbouncer({ serverUrl }) : undefined;
if (pgbouncer) process.stdout.write(`tests: the application's connections through PgBouncer on port ${pgbouncer.port}\n`);
// `npm test -- tests/auth` runs one folder: tap itself wants files, so folders are expanded here.
const testFiles = (folder: string) =>
  readdirSync(folder, { recursive: true }).map(String).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(folder, f)).sort();
const targets = process.argv.slice(2).flatMap((arg) =>
  !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() ? testFiles(arg) : [arg],
);

/**
 * The whole suite runs in two phases: every file but tests/chaos two at a time (each file has its own
 * database; the tests wait on conditions, never on the clock), then tests/chaos one at a time, alone
 * on the machine, since they load it on purpose and measure what other clients see meanwhile. The
 * chaos files that only wait (a worker killed, then half a minute until its heartbeat is stale) load
 * nothing and measure nothing of other clients: they run beside the first phase instead, their output
 * held until they end, so that the wait costs no time of its own.
 * Files named on the command line run in one phase, one at a time (`TEST_JOBS=2`: two at a time).
 */
const CHAOS = path.join('tests', 'chaos');
const WAITING_CHAOS = ['worker-killed.test.ts', 'momo-worker-killed.test.ts'].map((name) => path.join(CHAOS, name));
type Run = { files: string[]; jobs: number; held?: boolean };
const phases: Run[][] = targets.length
  ? [[{ files: targets, jobs: Number(process.env.TEST_JOBS ?? 1) || 1 }]]
  : [
      [
        { files: testFiles('tests').filter((file) => !file.startsWith(`${CHAOS}${path.sep}`)), jobs: 2 },
        { files: testFiles(CHAOS).filter((file) => WAITING_CHAOS.includes(file)), jobs: 2, held: true },
      ],
      [{ files: testFiles(CHAOS).filter((file) => !WAITING_CHAOS.includes(file)), jobs: 1 }],
    ];

/** Runs tap over `files`; answers its exit code and its summary counts. */
async function runTap({ files, jobs, held }: Run): Promise<{ code: number; pass: number; fail: number; skipped: number; heldOutput: Buffer }> {
  const tap = spawn(process.execPath, [path.resolve('node_modules/tap/dist/esm/run.mjs'), `--jobs=${jobs}`, ...files], {
    stdio: ['inherit', 'pipe', 'inherit'],
    env: {
      ...process.env,
      [TEST_ENV.serverUrl]: serverUrl,
      [TEST_ENV.templateDb]: template,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      ...(pgbouncer ? { [TEST_ENV.pgbouncerPort]: String(pgbouncer.port), DB_PREPARED_STATEMENTS: 'false' } : {}),
    },
  });
  let tail = '';
  let partial = '';
  let file = '';
  const kept: Buffer[] = [];
  tap.stdout!.on('data', (chunk: Buffer) => {
    if (held) kept.push(chunk);
    else process.stdout.write(chunk);
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-4096);
    // Failures are restated at the end: CI keeps only the last lines of a long run.
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      file = /^# Subtest: (tests\/\S+)$/.exec(line)?.[1] ?? file;
      const failed = /^(\s*)not ok \d+ - (.*)$/.exec(line);
      if (failed) failures.push(`${file}: ${'  '.repeat(Math.floor(failed[1]!.length / 4))}${failed[2]}`);
    }
  });
  const code = await new Promise<number>((resolve) => tap.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
  // tap's own summary: `# { total: 3, pass: 3 }`.
  const summary = /# \{ total: (\d+)([^}]*)\}/.exec(tail)?.[2] ?? '';
  const count = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(summary)?.[1] ?? 0);
  return { code, pass: count('pass'), fail: count('fail'), skipped: count('skip') + count('todo'), heldOutput: Buffer.concat(kept) };
}

/**
 * tap builds its test class for this project's plugin list (package.json "tap".plugin) into .tap/plugins.
 * Until that build exists, as in a fresh clone, every test process tap starts in that run costs seconds
 * more (measured: 52 s against 31 s for tests/catalogue; 813 s against about 550 s for CI): build it
 * once first.
 */
if (!existsSync(path.join('.tap', 'plugins'))) {
  await new Promise<void>((resolve, reject) => {
    const build = spawn(process.execPath, [path.resolve('node_modules/tap/dist/esm/run.mjs'), 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
    build.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`tap build exited with ${status}`))));
  });
}

const failures: string[] = [];
let code = 0;
const totals = { pass: 0, fail: 0, skipped: 0 };
for (const phase of phases) {
  for (const result of await Promise.all(phase.filter((run) => run.files.length).map(runTap))) {
    // A held run's output, once every run of the phase has ended.
    process.stdout.write(result.heldOutput);
    code ||= result.code;
    totals.pass += result.pass;
    totals.fail += result.fail;
    totals.skipped += result.skipped;
  }
}
// Restated as plain closing lines CI can read.
if (failures.length) process.stdout.write(`\nFailed:\n${failures.map((line) => `  ${line}`).join('\n')}\n`);
process.stdout.write(`\n${totals.pass} passed, ${totals.fail} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
await pgbouncer?.stop();
await embedded?.stop();
process.exit(code);
