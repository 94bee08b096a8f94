import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres, { type Sql } from 'postgres';
import type { Test } from 'tap';
import { SCHEMA_DIR } from '../../db/migrate.ts';
import { databaseUrl, TEST_ENV } from './env.ts';

/** What the database itself says of the public schema's code and privileges, keyed so two databases compare with t.same. */
export interface SchemaSnapshot {
  /** Signature (`sale_record(jsonb,boolean)`) to `pg_get_functiondef`. */
  functions: Record<string, string>;
  /** `table.trigger` to `pg_get_triggerdef` and its enabled state. */
  triggers: Record<string, string>;
  /** `table.policy` to its command, roles and expressions. */
  policies: Record<string, string>;
  /** Function signature, relation or default-privilege entry to its privileges, one `grantee:privilege` each, sorted. */
  grants: Record<string, string[]>;
}

// aclexplode over the effective ACL (the default one when none is stored), the grantee named, sorted:
// the same privileges compare equal whatever order they were granted in.
const privileges = (acl: string, kind: string, owner: string) => `
  (select coalesce(array_agg(case when a.grantee = 0 then 'PUBLIC' else pg_get_userbyid(a.grantee) end
                             || ':' || a.privilege_type || case when a.is_grantable then '*' else '' end
                             order by 1), '{}')
     from aclexplode(coalesce(${acl}, acldefault((${kind})::"char", ${owner}))) a)`;

export async function schemaSnapshot(sql: Sql): Promise<SchemaSnapshot> {
  const functions = await sql.unsafe<{ signature: string; definition: string | null; grants: string[] }[]>(`
    select p.oid::regprocedure::text as signature,
           case when p.prokind in ('f', 'p') then pg_get_functiondef(p.oid) end as definition,
           ${privileges('p.proacl', "'f'", 'p.proowner')} as grants
      from pg_proc p
     where p.pronamespace = 'public'::regnamespace`);
  const triggers = await sql.unsafe<{ name: string; definition: string }[]>(`
    select t.tgrelid::regclass::text || '.' || t.tgname as name, pg_get_triggerdef(t.oid) || ' [' || t.tgenabled::text || ']' as definition
      from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = 'public'::regnamespace and not t.tgisinternal`);
  const policies = await sql.unsafe<{ name: string; definition: string }[]>(`
    select tablename || '.' || policyname as name,
           concat_ws(' | ', permissive, cmd, roles::text, qual, with_check) as definition
      from pg_policies where schemaname = 'public'`);
  const relations = await sql.unsafe<{ name: string; grants: string[] }[]>(`
    select 'relation ' || c.relname as name,
           ${privileges('c.relacl', "case c.relkind when 'S' then 's' else 'r' end", 'c.relowner')} as grants
      from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')`);
  const defaults = await sql.unsafe<{ name: string; grants: string[] }[]>(`
    select 'default ' || pg_get_userbyid(d.defaclrole) || ' ' || coalesce(d.defaclnamespace::regnamespace::text, '(all schemas)')
           || ' ' || d.defaclobjtype::text as name,
           (select array_agg(case when a.grantee = 0 then 'PUBLIC' else pg_get_userbyid(a.grantee) end || ':' || a.privilege_type order by 1)
              from aclexplode(d.defaclacl) a) as grants
      from pg_default_acl d`);
  const byName = <T>(rows: { name: string }[], value: (row: any) => T) => Object.fromEntries(rows.map((row) => [row.name, value(row)]));
  return {
    functions: Object.fromEntries(functions.map((row) => [row.signature, row.definition ?? '(not a function)'])),
    triggers: byName(triggers, (row) => row.definition),
    policies: byName(policies, (row) => row.definition),
    grants: {
      ...Object.fromEntries(functions.map((row) => [`function ${row.signature}`, row.grants])),
      ...byName(relations, (row) => row.grants),
      ...byName(defaults, (row) => row.grants),
    },
  };
}

export interface ScratchDatabase {
  /** Owner (superuser) URL, for migrate(). */
  url: string;
  sql: Sql;
}

/** A database of its own on the test server, empty or cloned from `template`, dropped when the test ends. */
export async function scratchDatabase(t: Test, template?: string): Promise<ScratchDatabase> {
  const serverUrl = process.env[TEST_ENV.serverUrl];
  if (!serverUrl) throw new Error('run the tests with `npm test` (tests/run.ts prepares the database)');
  const name = `pos_scratch_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(async () => {
    await sql.end({ timeout: 1 });
    const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await dropper.unsafe(`drop database if exists "${name}" with (force)`);
    await dropper.end();
  });
  return { url, sql };
}

function temporaryFolder(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pos-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of db/migrations and db/functions to edit, for migrate({ dir }). */
export function copyOfSchemaSources(t: Test): string {
  const dir = temporaryFolder(t);
  for (const name of ['migrations', 'functions']) cpSync(path.join(SCHEMA_DIR, name), path.join(dir, name), { recursive: true });
  return dir;
}

/**
 * The migrations of an earlier commit, taken from the repository's history (a clone with its history,
 * as `git clone` makes, not `--depth 1`), with no function files: what that release's runner applied.
 */
export function migrationsOfCommit(t: Test, commit: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: path.dirname(SCHEMA_DIR), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const dir = temporaryFolder(t);
  mkdirSync(path.join(dir, 'migrations'));
  mkdirSync(path.join(dir, 'functions'));
  writeFileSync(path.join(dir, 'functions', 'order.txt'), '');
  const files = git('ls-tree', '--name-only', `${commit}:db/migrations`).split('\n').filter((file) => file.endsWith('.sql'));
  if (!files.length) throw new Error(`commit ${commit} has no db/migrations`);
  for (const file of files) writeFileSync(path.join(dir, 'migrations', file), git('show', `${commit}:db/migrations/${file}`));
  return dir;
}
