import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';
import postgres from 'postgres';
import { APP_DB_ROLE } from '../api/db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant will do: it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_140_301;

export interface MigrateOptions {
  /** Password to give the application role; omitted when the role's login is managed elsewhere. */
  appRolePassword?: string;
  log?: (line: string) => void;
}

/**
 * Applies graphile-worker's own schema, then every `db/migrations/NNNN_*.sql` not yet recorded in
 * `schema_migrations`, each once and inside its own transaction, in file-name order. An advisory
 * lock lets a release phase and a starting process run this at the same time safely.
 */
export async function migrate(ownerUrl: string, options: MigrateOptions = {}): Promise<string[]> {
  const log = options.log ?? (() => {});
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  const applied: string[] = [];
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await runWorkerMigrations({ connectionString: ownerUrl, logger: undefined });
    await sql`create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await sql<{ version: string }[]>`select version from schema_migrations`).map((row) => row.version));
    const files = (await readdir(MIGRATIONS_DIR)).filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file)).sort();
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const text = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      await sql.begin(async (tx) => {
        await tx.unsafe(text);
        await tx`insert into schema_migrations (version) values (${version})`;
      });
      applied.push(version);
      log(`migrated ${version}`);
    }
    if (options.appRolePassword !== undefined) {
      await sql.unsafe(`alter role ${APP_DB_ROLE} login password '${options.appRolePassword.replace(/'/g, "''")}'`);
    }
  } finally {
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    await sql.end();
  }
  return applied;
}
