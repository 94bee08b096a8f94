/**
 * The schema can be distributed by shop (issue 33, db/CONVENTIONS.md "Distribution by shop"): every key
 * of a shop's table leads with shop_id, every table is classified, and the platform's tables are few
 * and named (db/distribution.ts).
 */
import type { Sql } from 'postgres';
import t from 'tap';
import { COORDINATOR_TABLES, isShopTable, REFERENCE_TABLES } from '../../db/distribution.ts';
import { TEST_ENV } from '../support/env.ts';
import { scratchDatabase } from '../support/schema.ts';

const template = process.env[TEST_ENV.templateDb]!;

/** The public schema's tables, each with whether it has a shop_id column. */
function tablesOf(sql: Sql): Promise<{ name: string; has_shop: boolean }[]> {
  return sql<{ name: string; has_shop: boolean }[]>`
    select c.relname as name,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped) as has_shop
      from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`;
}

interface Key {
  table: string;
  name: string;
  kind: 'primary key' | 'unique' | 'unique index' | 'foreign key';
  columns: string[];
  parent: string | null;
  parentColumns: string[] | null;
}

t.test('every key of a shop\'s table leads with shop_id, and each foreign key between shop tables pairs the two shops', async (t) => {
  const { sql } = await scratchDatabase(t, template);
  const tables = await tablesOf(sql);
  const keys = await sql<Key[]>`
    select c.relname as table, con.conname as name,
           case con.contype when 'p' then 'primary key' when 'u' then 'unique' else 'foreign key' end as kind,
           array(select a.attname::text from unnest(con.conkey) with ordinality k (attnum, n)
                   join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.n) as columns,
           con.confrelid::regclass::text as parent,
           case when con.contype = 'f' then
             array(select a.attname::text from unnest(con.confkey) with ordinality k (attnum, n)
                     join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.n) end as "parentColumns"
      from pg_constraint con join pg_class c on c.oid = con.conrelid
     where c.relnamespace = 'public'::regnamespace and con.contype in ('p', 'u', 'f')
    union all
    select c.relname, i.indexrelid::regclass::text, 'unique index',
           array(select coalesce(a.attname::text, '(expression)') from unnest(i.indkey) with ordinality k (attnum, n)
                   left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum order by k.n),
           null, null
      from pg_index i join pg_class c on c.oid = i.indrelid
     where c.relnamespace = 'public'::regnamespace and i.indisunique
       and not exists (select 1 from pg_constraint con where con.conindid = i.indexrelid)`;

  const shopTables = new Set(tables.filter((table) => table.has_shop && isShopTable(table.name)).map((table) => table.name));
  t.ok(shopTables.size > 45, `${shopTables.size} shop tables`);
  for (const table of shopTables) {
    t.ok(keys.some((key) => key.table === table && key.kind === 'primary key'), `${table} has a primary key`);
  }
  const offending = keys
    .filter((key) => shopTables.has(key.table))
    .filter((key) => {
      if (key.kind !== 'foreign key') return key.columns[0] !== 'shop_id';
      if (!shopTables.has(key.parent!)) return false; // to shops, users or plans: a reference table
      const at = key.columns.indexOf('shop_id');
      return at < 0 || key.parentColumns![at] !== 'shop_id';
    })
    .map((key) => `${key.table}.${key.name} (${key.kind} on ${key.columns.join(', ')})`);
  t.same(offending, [], 'no primary key, unique constraint or unique index without shop_id in front; no foreign key between shop tables without shop_id on both sides');

  const toCoordinator = keys
    .filter((key) => key.kind === 'foreign key' && shopTables.has(key.table) && (COORDINATOR_TABLES as readonly string[]).includes(key.parent!))
    .map((key) => `${key.table}.${key.name} -> ${key.parent}`);
  t.same(toCoordinator, [], 'no shop table refers to a coordinator table (a distributed table may refer to reference tables only)');
});

t.test('every table is classified: a shop\'s table has shop_id, and the platform\'s tables are the ones listed', async (t) => {
  const { sql } = await scratchDatabase(t, template);
  const tables = await tablesOf(sql);
  const names = new Set(tables.map((table) => table.name));
  const listed = [...REFERENCE_TABLES, ...COORDINATOR_TABLES];
  t.same(listed.filter((name) => !names.has(name)), [], 'every listed platform table exists');
  t.same(
    tables.filter((table) => !table.has_shop && isShopTable(table.name)).map((table) => table.name),
    [],
    'a table without shop_id is listed as the platform\'s, never distributed by default',
  );
  t.equal(new Set(listed).size, listed.length, 'no table listed twice');
});

t.test('sequences are bigint', async (t) => {
  const { sql } = await scratchDatabase(t, template);
  const sequences = await sql<{ name: string; type: string }[]>`select sequencename as name, data_type::text as type from pg_sequences where schemaname = 'public'`;
  t.ok(sequences.length > 0, `${sequences.length} sequences`);
  t.same(sequences.filter((sequence) => sequence.type !== 'bigint'), []);
});
