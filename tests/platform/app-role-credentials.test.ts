/**
 * The web processes' database logins (db/app-login.ts, migration 0034): one login role per database
 * and APP_KEY, made by `npm run migrate` and never changed after, so that neither a second deployment
 * on the same server nor a new APP_KEY locks a running process out.
 *
 * These tests run a PostgreSQL server of their own, which asks every client for its password
 * (scram-sha-256, as the embedded server does): the test server may trust local connections (CI's
 * does), and a password changed under a running process would go unnoticed there. Every migrate and
 * web process is a real process (db/cli.ts, api/web.ts); "new connections" are made by ending the
 * process's sessions on the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import t from 'tap';
import { findAppLogin } from '../../db/app-login.ts';
import { startEmbeddedPostgres } from '../../db/embedded.ts';
import { PASSWORD, uniqueEmail, waitFor } from '../support/fixtures.ts';
import { databaseUrl } from '../support/env.ts';
import { freePort, launch, type Launched } from '../support/processes.ts';

const KEY_A = 'deployment-a-key-0123456789abcdef0123456789abcdef';
const KEY_B = 'deployment-b-key-0123456789abcdef0123456789abcdef';
const KEY_A_NEXT = 'deployment-a-next-key-0123456789abcdef01234567';

const dataDir = mkdtempSync(path.join(tmpdir(), 'pos-app-logins-'));
const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
const admin = postgres(server.serverUrl, { max: 1, onnotice: () => {} });
const running = new Set<Launched>();
t.teardown(async () => {
  for (const web of running) web.child.kill('SIGKILL');
  await Promise.all([...running].map((web) => web.exited));
  await admin.end({ timeout: 1 });
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
await admin.unsafe('create database pos_a');
await admin.unsafe('create database pos_b');
const ownerUrl = (database: string) => databaseUrl(server.serverUrl, database);

const processEnv = (database: string, key: string) => ({
  DATABASE_URL: ownerUrl(database),
  APP_KEY: key,
  APP_DATABASE_URL: undefined,
  BCRYPT_ROUNDS: '4',
  LOG_LEVEL: 'silent',
  SHUTDOWN_READY_DELAY_MS: '0',
});

/** Runs `npm run migrate` (db/cli.ts) against `database` with `key`, to its end; answers what it printed. */
async function migrateWith(database: string, key: string): Promise<string> {
  const run = launch(t, 'db/cli.ts', processEnv(database, key));
  const code = await run.exited;
  if (code !== 0) throw new Error(`migrate of ${database} exited ${code}: ${run.output.stderr}`);
  return run.output.stdout;
}

/** Runs `npm run db:logins` (db/logins-cli.ts) against `database` with `key`. */
async function loginsCli(database: string, key: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = launch(t, 'db/logins-cli.ts', processEnv(database, key), args);
  const code = await run.exited;
  return { code, ...run.output };
}

interface Web {
  process: Launched;
  base: string;
}

/** The web role (api/web.ts) on `database` with `key`, once ready. */
async function startWeb(database: string, key: string): Promise<Web> {
  const port = await freePort();
  const web = launch(t, 'api/web.ts', { ...processEnv(database, key), PORT: String(port) });
  running.add(web);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (web.child.exitCode !== null) throw new Error(`web on ${database} exited: ${web.output.stderr}`);
    return (await fetch(`${base}/readyz`).catch(() => null))?.status === 200;
  }, `the web process on ${database}`);
  return { process: web, base };
}

async function stopWeb(web: Web): Promise<void> {
  web.process.child.kill('SIGTERM');
  await web.process.exited;
  running.delete(web.process);
}

/** A shop registered and read back through the process: answers the two statuses (201, 200 when it serves). */
async function register(web: Web): Promise<[number, number]> {
  const registered = await fetch(`${web.base}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ shop_name: 'Boutique Awa', owner_name: 'Awa Ndiaye', owner_email: uniqueEmail('owner'), password: PASSWORD }),
  });
  if (registered.status !== 201) return [registered.status, 0];
  const { data } = (await registered.json()) as { data: { token: string } };
  const me = await fetch(`${web.base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${data.token}` } });
  return [registered.status, me.status];
}

/**
 * Ends every session `role` has on the server, so the process's next queries log in again, and
 * waits until the process serves: it must within the wait, or its login was refused.
 */
async function servesOnNewConnections(web: Web, role: string): Promise<boolean> {
  await admin`select pg_terminate_backend(pid) from pg_stat_activity where usename = ${role}`;
  await waitFor(async () => (await admin`select 1 from pg_stat_activity where usename = ${role}`).length === 0, `the sessions of ${role} to end`);
  await waitFor(async () => (await register(web))[1] === 200, 'the process to serve on new connections', 15_000).catch(() => false);
  const [again] = await admin<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where usename = ${role}`;
  return (await register(web))[1] === 200 && again!.n > 0;
}

async function loginOf(database: string, key: string) {
  const sql = postgres(ownerUrl(database), { max: 1, onnotice: () => {} });
  try {
    return (await findAppLogin(sql, key))!;
  } finally {
    await sql.end();
  }
}

/** What a migrate could change about the login roles: their catalogue rows, xmin included (a rewrite changes it). */
async function loginState(database: string) {
  const sql = postgres(ownerUrl(database), { max: 1, onnotice: () => {} });
  try {
    return {
      roles: await sql`select xmin::text, * from pg_authid where rolname like 'pos\\_app%' order by rolname`,
      settings: await sql`select s.xmin::text, s.setrole::regrole::text as role, s.setdatabase, s.setconfig from pg_db_role_setting s order by 2, 3`,
      members: await sql`select m.xmin::text, m.roleid::regrole::text as role, m.member::regrole::text as member from pg_auth_members m order by 2, 3`,
      registry: await sql`select xmin::text, * from app_login_roles order by role_name`,
      identity: await sql`select xmin::text, * from database_identity`,
    };
  } finally {
    await sql.end();
  }
}

/** Deployment A's first web process, still running when its key is rotated. */
let webA: Web;

t.test('a second deployment on the same server: each database\'s processes keep working after the other\'s migrate, each with its own login', async (t) => {
  await migrateWith('pos_a', KEY_A);
  webA = await startWeb('pos_a', KEY_A);
  t.same(await register(webA), [201, 200], 'deployment A serves');

  await migrateWith('pos_b', KEY_B);
  const webB = await startWeb('pos_b', KEY_B);
  t.same(await register(webB), [201, 200], 'deployment B serves');
  const [loginA, loginB] = [await loginOf('pos_a', KEY_A), await loginOf('pos_b', KEY_B)];
  t.not(loginA.role, loginB.role, 'two databases, two login roles');
  t.ok(await servesOnNewConnections(webA, loginA.role), 'A logs in again after B\'s migrate');

  await migrateWith('pos_a', KEY_A);
  t.ok(await servesOnNewConnections(webB, loginB.role), 'B logs in again after A\'s migrate');
  const sessions = await admin<{ datname: string; usename: string }[]>`
    select distinct datname, usename from pg_stat_activity where datname in ('pos_a', 'pos_b') and usename <> 'postgres' order by 1`;
  t.same(sessions, [{ datname: 'pos_a', usename: loginA.role }, { datname: 'pos_b', usename: loginB.role }], 'no process logs in as pos_app');
  const [group] = await admin`select rolcanlogin from pg_roles where rolname = 'pos_app'`;
  t.same(group, { rolcanlogin: false }, 'pos_app itself, made by 0001 on a fresh server, never logs in');
});

t.test('migrate run again with the same key changes nothing of the logins', async (t) => {
  const before = await loginState('pos_b');
  t.match(await migrateWith('pos_b', KEY_B), 'database up to date');
  t.same(await loginState('pos_b'), before);
});

t.test('an APP_KEY rotation: the old key\'s processes keep working after migrate with the new key, the new key\'s work, and the old login goes only once unused', async (t) => {
  const old = await loginOf('pos_a', KEY_A);
  await migrateWith('pos_a', KEY_A_NEXT);
  const next = await loginOf('pos_a', KEY_A_NEXT);
  t.not(next.role, old.role, 'the new key has a login of its own');
  t.ok(await servesOnNewConnections(webA, old.role), 'a process of the old key logs in again after the new key\'s migrate');
  const restarted = await startWeb('pos_a', KEY_A);
  t.same(await register(restarted), [201, 200], 'and one of the old key started after it too');
  const webNext = await startWeb('pos_a', KEY_A_NEXT);
  t.same(await register(webNext), [201, 200], 'a process of the new key serves');

  await register(webA);
  await register(restarted);
  const refused = await loginsCli('pos_a', KEY_A_NEXT, ['--drop-old']);
  t.match(refused.stdout, new RegExp(`${old.role}  another APP_KEY's, [1-9]\\d* sessions?\\n${next.role}  this APP_KEY's, [1-9]`), 'db:logins lists both logins and their sessions');
  t.equal(refused.code, 1, `the old login is kept while a process uses it ${refused.stderr}`);
  t.match(refused.stdout, `${old.role}: kept`);
  t.equal((await admin`select 1 from pg_roles where rolname = ${old.role}`).length, 1);

  await stopWeb(webA);
  await stopWeb(restarted);
  await waitFor(async () => (await admin`select 1 from pg_stat_activity where usename = ${old.role}`).length === 0, 'the old key\'s sessions to end');
  const dropped = await loginsCli('pos_a', KEY_A_NEXT, ['--drop-old']);
  t.equal(dropped.code, 0, `once no process uses it, db:logins drops it ${dropped.stderr}`);
  t.match(dropped.stdout, `${old.role}: dropped`);
  t.equal((await admin`select 1 from pg_roles where rolname = ${old.role}`).length, 0, 'the old login is gone');
  t.ok(await servesOnNewConnections(webNext, next.role), 'the new key\'s process is untouched');

  const port = await freePort();
  const late = launch(t, 'api/web.ts', { ...processEnv('pos_a', KEY_A), PORT: String(port) });
  t.equal(await late.exited, 1, 'a process of the retired key does not start');
  t.equal(late.output.stderr.trim(), `Start-up failed: Database has no login role for this APP_KEY (${old.role}): run npm run migrate with this APP_KEY`);
});

t.test('the login role is no superuser, cannot bypass row-level security, and reads no bookkeeping', async (t) => {
  const login = await loginOf('pos_a', KEY_A_NEXT);
  const app = postgres(databaseUrl(server.serverUrl, 'pos_a', { name: login.role, password: login.password }), { max: 1, onnotice: () => {} });
  t.teardown(() => app.end({ timeout: 1 }));
  const [role] = await app`
    select rolsuper, rolbypassrls, rolcreaterole, rolcreatedb, rolreplication, pg_has_role(current_user, 'pos_app', 'usage') as app
      from pg_roles where rolname = current_user`;
  t.same(role, { rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false, rolreplication: false, app: true });
  t.same(await app`select tablename from pg_tables where schemaname = 'public' and tableowner = current_user`, [], 'it owns no table');

  const owner = postgres(ownerUrl('pos_a'), { max: 1, onnotice: () => {} });
  t.teardown(() => owner.end({ timeout: 1 }));
  const shops = await owner<{ id: string }[]>`select id from shops order by created_at`;
  t.ok(shops.length >= 2, 'the database has several shops');
  t.same(await app`select count(*)::int as n from shops`, [{ n: 0 }], 'with no shop set it sees none');
  const seen = await app.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${shops[0]!.id}, true)`;
    return tx<{ id: string }[]>`select id from shops`;
  });
  t.same(seen, [{ id: shops[0]!.id }], 'with a shop set, that shop alone');
  await t.rejects(app`set role postgres`, { code: '42501' }, 'it cannot become the owner');
  await t.rejects(app`select * from app_login_roles`, { code: '42501' });
  await t.rejects(app`select * from database_identity`, { code: '42501' });
});

t.test('the shared pos_app login of older releases is taken away only once no session of the server uses it', async (t) => {
  // As on a server an older release migrated: pos_app logs in with a password its key set.
  await admin.unsafe(`alter role pos_app login password 'older-release-password'`);
  const older = postgres(databaseUrl(server.serverUrl, 'pos_b', { name: 'pos_app', password: 'older-release-password' }), { max: 1, onnotice: () => {} });
  t.teardown(() => older.end({ timeout: 1 }));
  await older`select 1`;
  const refused = await loginsCli('pos_b', KEY_B, ['--retire-shared-login']);
  t.equal(refused.code, 1, 'refused while a process is logged in as pos_app');
  t.match(refused.stdout, 'pos_app: kept, 1 session still logged in as it');
  await older.end();
  await waitFor(async () => (await admin`select 1 from pg_stat_activity where usename = 'pos_app'`).length === 0, 'the pos_app session to end');
  const retired = await loginsCli('pos_b', KEY_B, ['--retire-shared-login']);
  t.equal(retired.code, 0, `taken away once unused ${retired.stderr}`);
  t.same(await admin`select rolcanlogin, rolpassword from pg_authid where rolname = 'pos_app'`, [{ rolcanlogin: false, rolpassword: null }]);
  const again = postgres(databaseUrl(server.serverUrl, 'pos_b', { name: 'pos_app', password: 'older-release-password' }), { max: 1, onnotice: () => {} });
  t.teardown(() => again.end({ timeout: 1 }));
  await t.rejects(again`select 1`, { code: '28P01' }, 'pos_app no longer logs in (it has no password left)');
});
