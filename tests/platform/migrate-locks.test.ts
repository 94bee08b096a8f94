import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { migrate, SCHEMA_DIR } from '../../db/migrate.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const LOCK_TIMEOUT_MS = 300;

/** A copy of db/ with one more migration that alters `products`: the only thing pending on this database. */
async function schemaWithAlter(t: Test, column: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pos-migrate-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(path.join(SCHEMA_DIR, 'migrations'), path.join(dir, 'migrations'), { recursive: true });
  await cp(path.join(SCHEMA_DIR, 'functions'), path.join(dir, 'functions'), { recursive: true });
  await writeFile(path.join(dir, 'migrations', `9999_${column}.sql`), `alter table products add column ${column} integer;\n`);
  return dir;
}

/** A transaction that reads `products` and stays open, so it holds ACCESS SHARE on it until `release`. */
async function holdReadLock() {
  const reserved = await api.ownerSql.reserve();
  await reserved`begin`;
  await reserved`select count(*) from products`;
  return {
    release: async () => {
      await reserved`commit`;
      reserved.release();
    },
  };
}

/** How long another session's read and write of `products` take; null when one is still blocked after 5 s. */
async function probeProducts(): Promise<number | null> {
  const started = Date.now();
  try {
    await api.ownerSql.begin(async (tx) => {
      await tx`set local statement_timeout = 5000`;
      await tx`select count(*) from products`;
      await tx`update products set updated_at = updated_at where false`;
    });
    return Date.now() - started;
  } catch (error) {
    if ((error as { code?: string }).code === '57014') return null;
    throw error;
  }
}

const columnExists = async (column: string) =>
  (await api.ownerSql`select 1 from information_schema.columns where table_name = 'products' and column_name = ${column}`).length === 1;

t.test('a migration waiting behind a long reader blocks reads and writes of its table no longer than its lock timeout, and completes once the reader ends', async (t) => {
  const dir = await schemaWithAlter(t, 'lock_probe_released');
  const reader = await holdReadLock();
  const lines: string[] = [];
  const migrating = migrate(api.runtime.ownerUrl, { dir, lockTimeoutMs: LOCK_TIMEOUT_MS, lockAttempts: 50, lockRetryPauseMs: 100, log: (line) => lines.push(line) });
  migrating.catch(() => {});
  const waits: (number | null)[] = [];
  const until = Date.now() + 2_500;
  while (Date.now() < until) waits.push(await probeProducts());
  t.ok(waits.length >= 3, `probed ${waits.length} times`);
  t.ok(waits.every((ms) => ms !== null && ms < LOCK_TIMEOUT_MS + 700), `every probe answered within the lock timeout: ${waits.join(', ')} ms`);
  t.ok(lines.some((line) => line.includes('9999_lock_probe_released.sql waited')), 'migrate says it rolled back and retries');
  await reader.release();
  const result = await migrating;
  t.same(result.migrations, ['9999_lock_probe_released']);
  t.ok(await columnExists('lock_probe_released'));
});

t.test('a migration whose lock is never granted gives up after its attempts with one line, applying nothing', async (t) => {
  const dir = await schemaWithAlter(t, 'lock_probe_held');
  const reader = await holdReadLock();
  const migrating = migrate(api.runtime.ownerUrl, { dir, lockTimeoutMs: LOCK_TIMEOUT_MS, lockAttempts: 3, lockRetryPauseMs: 100 });
  const outcome = await Promise.race([
    migrating.then(() => 'applied', (error: Error) => error.message),
    new Promise<string>((resolve) => setTimeout(resolve, 10_000, 'still waiting after 10 s')),
  ]);
  await reader.release();
  await migrating.catch(() => {});
  t.match(outcome, /^Migration gave up: migrations\/9999_lock_probe_held\.sql waited for a lock held by another session 3 times \(300 ms each, MIGRATE_LOCK_TIMEOUT_MS\); nothing was applied: run it again once that session ends$/);
  t.notOk(outcome.includes('\n'), 'one line');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from schema_migrations where version = '9999_lock_probe_held'`;
  t.equal(row!.n, 0);
  t.notOk(await columnExists('lock_probe_held'));
});
