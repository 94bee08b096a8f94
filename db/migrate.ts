import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';
import postgres from 'postgres';
import { APP_DB_ROLE } from '../api/db.ts';
import { ensureAppLogin } from './app-login.ts';
import { configureUpgrade, distribute, isCitus } from './citus.ts';

/** This folder: `migrations/` and `functions/` below it. */
export const SCHEMA_DIR = path.dirname(fileURLToPath(import.meta.url));
// Any constant will do: it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_140_301;

export interface MigrateOptions {
  /**
   * The APP_KEY whose login role (db/app-login.ts) this database's web processes use: created when
   * missing, never changed once there. Omitted when APP_DATABASE_URL names the login.
   */
  appKey?: string;
  log?: (line: string) => void;
  /** The folder holding `migrations/` and `functions/` (default: this one; tests migrate an edited copy). */
  dir?: string;
  /**
   * The longest wait for one table or row lock (`lock_timeout`, default 2000 ms). A statement waiting
   * for a lock blocks every later statement on that table, sales included: past this the whole
   * upgrade rolls back and is tried again after a pause, leaving the table to the others meanwhile.
   */
  lockTimeoutMs?: number;
  /** How many times the upgrade is tried when it cannot get its locks (default 10). */
  lockAttempts?: number;
  /** The pause after the first failed attempt; the n-th pause is n times it, at most 10 s (default 1000 ms). */
  lockRetryPauseMs?: number;
}

/** The upgrade could not take its locks in `lockAttempts` attempts: the message is one line for the operator. */
export class MigrationLockError extends Error {}

const LOCK_NOT_AVAILABLE = '55P03';

export interface MigrateResult {
  /** Versions of the migrations applied, in order (`0011_functions_in_files`). */
  migrations: string[];
  /** Function files applied, as listed in `functions/order.txt` (`sales/sale_record.sql`). */
  functions: string[];
  /** On a Citus coordinator only: what was distributed, one line each (db/citus.ts). */
  distributed?: string[];
}

interface Migration {
  version: string;
  sql: string;
}

interface FunctionFile {
  file: string;
  sql: string;
  checksum: string;
  /** The number of the migration this file must precede when that migration is pending (`0001`). */
  before?: string;
}

export class SchemaSourceError extends Error {}

/** The versions of the numbered migrations (`0033_settlements_in_the_z`), in file-name order. */
export async function migrationVersions(dir: string): Promise<string[]> {
  const files = (await readdir(path.join(dir, 'migrations'))).filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file)).sort();
  return files.map((file) => file.replace(/\.sql$/, ''));
}

/** The numbered migrations, in file-name order. */
async function readMigrations(dir: string): Promise<Migration[]> {
  const versions = await migrationVersions(dir);
  return Promise.all(versions.map(async (version) => ({ version, sql: await readFile(path.join(dir, 'migrations', `${version}.sql`), 'utf8') })));
}

/**
 * The function files in the order `functions/order.txt` states. Refuses a listed file that does not
 * exist, a file listed twice, a `.sql` file that is not listed, and a `before` naming no migration.
 */
async function readFunctionFiles(dir: string, migrations: Migration[]): Promise<FunctionFile[]> {
  const folder = path.join(dir, 'functions');
  const order = await readFile(path.join(folder, 'order.txt'), 'utf8');
  const onDisk = new Set((await readdir(folder, { recursive: true })).map(String).filter((file) => file.endsWith('.sql')).map((file) => file.split(path.sep).join('/')));
  const listed: FunctionFile[] = [];
  for (const [index, raw] of order.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const where = `db/functions/order.txt line ${index + 1}`;
    const match = /^(\S+\.sql)(?:\s+before\s+(\d{4}))?$/.exec(line);
    if (!match) throw new SchemaSourceError(`${where}: expected "path/file.sql" or "path/file.sql before NNNN", got "${line}"`);
    const [, file, before] = match as unknown as [string, string, string | undefined];
    if (!onDisk.has(file)) throw new SchemaSourceError(`${where}: ${file} does not exist`);
    if (listed.some((entry) => entry.file === file)) throw new SchemaSourceError(`${where}: ${file} is listed twice`);
    if (before && !migrations.some((migration) => migration.version.startsWith(`${before}_`))) {
      throw new SchemaSourceError(`${where}: no migration ${before} to apply ${file} before`);
    }
    const sql = await readFile(path.join(folder, file), 'utf8');
    listed.push({ file, sql, checksum: createHash('sha256').update(sql).digest('hex'), before });
  }
  const unlisted = [...onDisk].filter((file) => !listed.some((entry) => entry.file === file));
  if (unlisted.length) throw new SchemaSourceError(`db/functions/order.txt does not list ${unlisted.join(', ')}`);
  return listed;
}

/**
 * Applies graphile-worker's own schema, then, in one transaction: every `migrations/NNNN_*.sql` not
 * yet recorded in `schema_migrations`, in file-name order, and every function file of
 * `functions/order.txt` whose content differs from the one recorded in `schema_functions`, in that
 * order (a file marked `before NNNN` ahead of that migration when it is pending), then, on a Citus
 * coordinator, the distribution by shop of what is not distributed yet (db/citus.ts), then, given
 * `appKey`, that key's login role (created when missing) and the settings of every login role of
 * this database (db/app-login.ts). An upgrade is all or nothing; an advisory lock lets a release
 * phase and a starting process run this at once safely. A lock not granted within `lockTimeoutMs`
 * rolls the whole transaction back; it is tried again after a growing pause, `lockAttempts` times
 * in all.
 */
export async function migrate(ownerUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  const dir = options.dir ?? SCHEMA_DIR;
  const lockTimeoutMs = options.lockTimeoutMs ?? 2_000;
  const attempts = options.lockAttempts ?? 10;
  const pauseMs = options.lockRetryPauseMs ?? 1_000;
  const migrations = await readMigrations(dir);
  const functionFiles = await readFunctionFiles(dir, migrations);
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });

  /** One attempt; `step` names what it is applying, for the message when a lock is not granted. */
  const upgrade = (result: MigrateResult, step: { name: string }) =>
    sql.begin(async (tx) => {
      await tx.unsafe(`set local lock_timeout = ${Math.round(lockTimeoutMs)}`);
      const citus = await isCitus(tx);
      if (citus) await configureUpgrade(tx);
      step.name = 'schema_migrations';
      await tx`create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`;
      await tx`create table if not exists schema_functions (file text primary key, checksum text not null, applied_at timestamptz not null default now())`;
      // Bookkeeping is the owner's: the app role's default table privileges must not reach it.
      const [role] = await tx`select 1 from pg_roles where rolname = ${APP_DB_ROLE}`;
      if (role) await tx.unsafe(`revoke all on schema_migrations, schema_functions from ${APP_DB_ROLE}`);
      const done = new Set((await tx<{ version: string }[]>`select version from schema_migrations`).map((row) => row.version));
      const applied = new Map((await tx<{ file: string; checksum: string }[]>`select file, checksum from schema_functions`).map((row) => [row.file, row.checksum]));

      const applyFunctionFile = async (entry: FunctionFile) => {
        if (applied.get(entry.file) === entry.checksum) return;
        step.name = `functions/${entry.file}`;
        await tx.unsafe(entry.sql);
        await tx`insert into schema_functions (file, checksum) values (${entry.file}, ${entry.checksum})
                 on conflict (file) do update set checksum = excluded.checksum, applied_at = now()`;
        applied.set(entry.file, entry.checksum);
        result.functions.push(entry.file);
        log(`applied functions/${entry.file}`);
      };

      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        for (const entry of functionFiles) {
          if (entry.before && migration.version.startsWith(`${entry.before}_`)) await applyFunctionFile(entry);
        }
        step.name = `migrations/${migration.version}.sql`;
        await tx.unsafe(migration.sql);
        await tx`insert into schema_migrations (version) values (${migration.version})`;
        result.migrations.push(migration.version);
        log(`migrated ${migration.version}`);
      }
      for (const entry of functionFiles) await applyFunctionFile(entry);
      if (citus) {
        step.name = 'the distribution by shop';
        result.distributed = await distribute(tx, log);
      }
      if (options.appKey !== undefined) {
        step.name = 'the login roles';
        await ensureAppLogin(tx, options.appKey);
      }
    });

  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await runWorkerMigrations({ connectionString: ownerUrl, logger: undefined });
    for (let attempt = 1; ; attempt++) {
      const result: MigrateResult = { migrations: [], functions: [] };
      const step = { name: '' };
      try {
        await upgrade(result, step);
        return result;
      } catch (error) {
        if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
        if (attempt >= attempts) {
          throw new MigrationLockError(
            `Migration gave up: ${step.name} waited for a lock held by another session ${attempts} times (${lockTimeoutMs} ms each, MIGRATE_LOCK_TIMEOUT_MS); nothing was applied: run it again once that session ends`,
          );
        }
        log(`${step.name} waited ${lockTimeoutMs} ms for a lock: rolled back, attempt ${attempt + 1} of ${attempts} follows`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs * attempt, 10_000)));
      }
    }
  } finally {
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    await sql.end();
  }
}
