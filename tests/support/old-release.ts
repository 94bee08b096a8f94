import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sql } from 'postgres';
import type { Test } from 'tap';
import { APP_DB_ROLE } from '../../api/db.ts';
import { SCHEMA_DIR } from '../../db/migrate.ts';

/**
 * An earlier release's database, for the tests of an upgrade: its whole schema (db/migrations and
 * db/functions as they were at a commit, from the repository's history, so a clone with its history),
 * and requests made as that release's app made them, one transaction each, as the app role, with the shop and the user set.
 */

/** db/migrations and db/functions as they were at `commit`, for migrate({ dir }). */
export function schemaOfCommit(t: Test, commit: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pos-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const archive = execFileSync('git', ['archive', '--format=tar', commit, 'db/migrations', 'db/functions'], {
    cwd: path.dirname(SCHEMA_DIR),
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return path.join(dir, 'db');
}

/** The migrations `commit` holds (`0038_certification.sql`). */
export function migrationFilesOfCommit(commit: string): string[] {
  return execFileSync('git', ['ls-tree', '--name-only', `${commit}:db/migrations`], { cwd: path.dirname(SCHEMA_DIR), encoding: 'utf8' })
    .split('\n')
    .filter((file) => file.endsWith('.sql'));
}

/**
 * One request of a shop's user: one transaction as the app role with `app.shop_id` and `app.user_id` set.
 * As the owner role row-level security would not bind, and a procedure that leaves the shop to it (a
 * stocktake lists "every tracked item") would reach every shop's rows.
 */
export function asShop<T>(sql: Sql, shop: { id: string; userId: string }, work: (tx: Sql) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx.unsafe(`set local role ${APP_DB_ROLE}`);
    await tx`select set_config('app.shop_id', ${shop.id}, true), set_config('app.user_id', ${shop.userId}, true)`;
    return work(tx as unknown as Sql);
  }) as Promise<T>;
}

export interface TableFingerprint {
  rows: number;
  /** md5 of the rows' text, sorted: any row lost, added or altered changes it. */
  md5: string;
}

/** Every table of the public schema, by name. */
export async function tableFingerprints(sql: Sql): Promise<Record<string, TableFingerprint>> {
  const tables = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`;
  const result: Record<string, TableFingerprint> = {};
  for (const { name } of tables) {
    const [row] = await sql<TableFingerprint[]>`
      select count(*)::int as rows, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as md5 from ${sql(name)} t`;
    result[name] = row!;
  }
  return result;
}
