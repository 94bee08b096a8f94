/**
 * Database functions and triggers live in db/functions/, one current definition per file, applied by
 * db/migrate.ts after the pending migrations whenever a file changes (db/CONVENTIONS.md).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { APP_DB_ROLE } from '../../api/db.ts';
import { migrate, SCHEMA_DIR, SchemaSourceError } from '../../db/migrate.ts';
import { TEST_ENV } from '../support/env.ts';
import { copyOfSchemaSources, migrationsOfCommit, schemaSnapshot, scratchDatabase } from '../support/schema.ts';

// The last release whose migrations defined every function inline (before 0011_functions_in_files).
const RELEASE_BEFORE_THE_SWITCH = 'a1b49edca141d8f4777ec5a0f4e88fec14126b17';
const template = process.env[TEST_ENV.templateDb]!;

const functionFiles = readdirSync(path.join(SCHEMA_DIR, 'functions'), { recursive: true }).map(String).filter((file) => file.endsWith('.sql'));
const migrationFiles = readdirSync(path.join(SCHEMA_DIR, 'migrations')).filter((file) => file.endsWith('.sql'));

/** Replaces `from` (which must be there) in a copied source file. */
function edit(dir: string, file: string, from: string, to: string): void {
  const full = path.join(dir, file);
  const text = readFileSync(full, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no "${from}"`);
  writeFileSync(full, text.replace(from, to));
}

t.test('a fresh database applies the files a migration needs ahead of it, and every other file after the migrations', async (t) => {
  const fresh = await scratchDatabase(t);
  const lines: string[] = [];
  const result = await migrate(fresh.url, { log: (line) => lines.push(line) });
  t.same(lines.slice(0, 2), ['applied functions/platform/tenancy.sql', 'migrated 0001_foundation'],
    'the tenancy functions come before 0001, whose column defaults and policies call them');
  const lastMigration = lines.findLastIndex((line) => line.startsWith('migrated '));
  t.ok(lines.slice(lastMigration + 1).every((line) => line.startsWith('applied functions/')), 'the other files follow the last migration');
  t.equal(result.functions.length, functionFiles.length, 'each file applied once');
  t.same([...result.functions].sort(), [...functionFiles].map((file) => file.split(path.sep).join('/')).sort());
  t.same(await migrate(fresh.url), { migrations: [], functions: [] }, 'and nothing is applied again');
});

t.test('a database migrated by the release before the switch, once upgraded, has the same functions, triggers, policies and grants as a fresh one', async (t) => {
  const upgraded = await scratchDatabase(t);
  const fresh = await scratchDatabase(t);
  const before = await migrate(upgraded.url, { dir: migrationsOfCommit(t, RELEASE_BEFORE_THE_SWITCH) });
  t.same(before.functions, [], 'that release defined its functions in its migrations');
  await migrate(fresh.url);

  const upgrade = await migrate(upgraded.url);
  t.same(upgrade.migrations, migrationFiles.map((file) => file.replace(/\.sql$/, '')).filter((version) => !before.migrations.includes(version)));
  t.equal(upgrade.functions.length, functionFiles.length, 'every function file applied to it');
  const [expected, actual] = await Promise.all([schemaSnapshot(fresh.sql), schemaSnapshot(upgraded.sql)]);
  t.ok(Object.keys(expected.functions).length > 90 && Object.keys(expected.triggers).length > 30, 'the snapshot sees the functions and triggers');
  t.same(actual.functions, expected.functions, 'pg_get_functiondef of every function');
  t.same(actual.triggers, expected.triggers, 'pg_get_triggerdef of every trigger');
  t.same(actual.policies, expected.policies, 'row-level security policies');
  t.same(actual.grants, expected.grants, 'privileges on functions and relations, and default privileges');
});

t.test('a one-line change to a function file re-applies that file alone, and the database takes the new line', async (t) => {
  const dir = copyOfSchemaSources(t);
  const db = await scratchDatabase(t, template);
  t.same(await migrate(db.url, { dir }), { migrations: [], functions: [] }, 'an unchanged copy applies nothing');
  const before = await schemaSnapshot(db.sql);

  edit(dir, 'functions/journal/accounts.sql', "when 'bank' then '521'", "when 'bank' then '512'");
  t.same(await migrate(db.url, { dir }), { migrations: [], functions: ['journal/accounts.sql'] });
  const [row] = await db.sql<{ account: string }[]>`select treasury_account('bank') as account`;
  t.equal(row!.account, '512');

  const after = await schemaSnapshot(db.sql);
  const changed = Object.keys(after.functions).filter((signature) => after.functions[signature] !== before.functions[signature]);
  t.same(changed, ['treasury_account(text)'], 'no other function changed');
  const oldLines = before.functions['treasury_account(text)']!.split('\n');
  const newLines = after.functions['treasury_account(text)']!.split('\n');
  t.equal(newLines.length, oldLines.length);
  t.equal(newLines.filter((line, i) => line !== oldLines[i]).length, 1, 'one line of the definition differs');
  t.same(await migrate(db.url, { dir }), { migrations: [], functions: [] }, 'applied once');
});

t.test('a file that changes a function\'s signature drops the old one itself, and the new one keeps the app role\'s grant', async (t) => {
  const dir = copyOfSchemaSources(t);
  const db = await scratchDatabase(t, template);
  edit(dir, 'functions/catalogue/item_name.sql', 'create or replace function item_name(p_product_name text, p_options jsonb) returns text',
    'drop function if exists item_name(text, jsonb);\ncreate or replace function item_name(p_product_name text, p_options jsonb, p_separator text default \', \') returns text');
  t.same(await migrate(db.url, { dir }), { migrations: [], functions: ['catalogue/item_name.sql'] });
  const rows = await db.sql<{ signature: string; app: boolean; acl: string }[]>`
    select p.oid::regprocedure::text as signature, has_function_privilege(${APP_DB_ROLE}, p.oid, 'execute') as app, p.proacl::text as acl
      from pg_proc p where p.proname = 'item_name' and p.pronamespace = 'public'::regnamespace`;
  t.same(rows.map((row) => [row.signature, row.app]), [['item_name(text,jsonb,text)', true]]);
  t.notMatch(rows[0]!.acl, /(^|[{,])=X/, 'PUBLIC may not execute it');
  const [named] = await db.sql<{ name: string }[]>`select item_name('Chemise', '{"Taille": "M"}') as name`;
  t.equal(named!.name, 'Chemise (M)', 'callers of the old signature still resolve');
});

t.test('the app role may execute every function of the schema but those whose file revokes it, PUBLIC none, and the bookkeeping tables are the owner\'s alone', async (t) => {
  const db = await scratchDatabase(t, template);
  const revokedInFiles = functionFiles.flatMap((file) =>
    [...readFileSync(path.join(SCHEMA_DIR, 'functions', file), 'utf8').matchAll(/^revoke execute on function (\w+)\(/gim)].map((match) => match[1]!),
  );
  t.ok(revokedInFiles.includes('worker_heartbeat'), 'the worker\'s own function is withheld in its file');
  const denied = await db.sql<{ name: string }[]>`
    select p.proname as name from pg_proc p
     where p.pronamespace = 'public'::regnamespace and not has_function_privilege(${APP_DB_ROLE}, p.oid, 'execute')
     order by 1`;
  t.same(denied.map((row) => row.name), [...revokedInFiles].sort());
  const open = await db.sql<{ signature: string }[]>`
    select p.oid::regprocedure::text as signature from pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
     where p.pronamespace = 'public'::regnamespace and a.grantee = 0`;
  t.same(open, [], 'no function is executable by PUBLIC');
  const bookkeeping = await db.sql<{ readable: boolean }[]>`
    select has_table_privilege(${APP_DB_ROLE}, t, 'select,insert,update,delete') as readable
      from unnest(array['schema_migrations', 'schema_functions']) t`;
  t.same(bookkeeping, [{ readable: false }, { readable: false }]);
});

t.test('a function file that fails rolls the pending migrations back with it: an upgrade is all or nothing', async (t) => {
  const dir = copyOfSchemaSources(t);
  const db = await scratchDatabase(t, template);
  writeFileSync(path.join(dir, 'migrations', '9999_extra.sql'), 'create table extra_things (id int);\n');
  edit(dir, 'functions/journal/accounts.sql', "when 'bank' then '521'", "when 'bank' then 521 +");
  await t.rejects(migrate(db.url, { dir }), { code: '42601' }, 'the syntax error is reported');
  const [state] = await db.sql<{ migrated: boolean; table: string | null; account: string }[]>`
    select exists (select 1 from schema_migrations where version = '9999_extra') as migrated,
           to_regclass('extra_things')::text as table, treasury_account('bank') as account`;
  t.same(state, { migrated: false, table: null, account: '521' });
});

t.test('order.txt lists every function file once, and only files that exist; anything else is refused before the database is touched', async (t) => {
  const cases: [string, (dir: string) => void, RegExp][] = [
    ['a file left out', (dir) => writeFileSync(path.join(dir, 'functions', 'sales', 'sale_extra.sql'), 'select 1;\n'), /does not list sales\/sale_extra\.sql/],
    ['a listed file missing', (dir) => edit(dir, 'functions/order.txt', 'sales/sale_json.sql', 'sales/sale_json.sql\nsales/sale_gone.sql'), /line \d+: sales\/sale_gone\.sql does not exist/],
    ['a file listed twice', (dir) => edit(dir, 'functions/order.txt', 'sales/sale_json.sql', 'sales/sale_json.sql\nsales/sale_json.sql'), /sales\/sale_json\.sql is listed twice/],
    ['a before naming no migration', (dir) => edit(dir, 'functions/order.txt', 'sales/sale_json.sql', 'sales/sale_json.sql  before 9998'), /no migration 9998/],
    ['a line of another shape', (dir) => edit(dir, 'functions/order.txt', 'sales/sale_json.sql', 'sales/sale_json.sql after 0001'), /expected "path\/file\.sql"/],
  ];
  const db = await scratchDatabase(t, template);
  for (const [what, change, message] of cases) {
    const dir = copyOfSchemaSources(t);
    edit(dir, 'functions/journal/accounts.sql', "when 'bank' then '521'", "when 'bank' then '512'");
    change(dir);
    const error = await migrate(db.url, { dir }).then(() => null, (reason: unknown) => reason);
    t.ok(error instanceof SchemaSourceError, `${what}: refused`);
    t.match((error as Error | null)?.message, message, `${what}: said`);
  }
  const [row] = await db.sql<{ account: string }[]>`select treasury_account('bank') as account`;
  t.equal(row!.account, '521', 'no file was applied');
});

t.test('no migration defines a function or a trigger, and no function is defined in two files', async (t) => {
  const definition = /create\s+(?:or\s+replace\s+)?(?:function|procedure|(?:constraint\s+)?trigger)\s+([\w.]+)/gi;
  for (const file of migrationFiles) {
    const text = readFileSync(path.join(SCHEMA_DIR, 'migrations', file), 'utf8').replace(/--.*$/gm, '');
    t.same([...text.matchAll(definition)].map((match) => match[1]), [], file);
  }
  const owners = new Map<string, Set<string>>();
  for (const file of functionFiles) {
    const text = readFileSync(path.join(SCHEMA_DIR, 'functions', file), 'utf8').replace(/--.*$/gm, '');
    for (const [, name] of text.matchAll(definition)) owners.set(name!, (owners.get(name!) ?? new Set()).add(file));
  }
  t.ok(owners.size > 90, 'the definitions are found');
  t.same([...owners].filter(([, files]) => files.size > 1).map(([name, files]) => `${name}: ${[...files].join(', ')}`), []);
});
