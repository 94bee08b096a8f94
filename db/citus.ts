/**
 * The schema distributed by shop on Citus (issue 33; db/CONVENTIONS.md, "Distribution by shop"). `migrate()`
 * runs `distribute()` after the migrations and function files, in the same transaction, when the database has
 * the citus extension; on plain PostgreSQL nothing here runs. Only what is not distributed yet is touched, so a
 * second run does nothing and a shop's table added by a later migration is distributed by the next one.
 */
import type postgres from 'postgres';
import { REFERENCE_TABLES, isShopTable } from './distribution.ts';

type Sql = postgres.Sql | postgres.TransactionSql;

/** Every shop's table is co-located with this one, and so are the procedures that take `p_shop_id`. */
export const ANCHOR_TABLE = 'sales';

/**
 * The procedures called alone, once per request, with the shop as `p_shop_id`: Citus runs such a call on the
 * worker node holding the shop. Only these: a procedure called inside another statement or a transaction block
 * runs on the coordinator whatever is declared.
 */
const SHOP_PROCEDURES = ['sale_submit', 'sale_read'] as const;

/** Whether this database has the citus extension, that is whether it is a Citus coordinator. */
export async function isCitus(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ citus: boolean }[]>`select exists (select from pg_extension where extname = 'citus') as citus`;
  return row!.citus;
}

/**
 * The settings of an upgrade on Citus, for the transaction. Triggers: Citus refuses to distribute a table that
 * has any, and to create one on a distributed table, unless told the trigger functions are safe to run on a
 * shard (they are reviewed for it: they reach their own shop's rows only). Sequential: a transaction that has
 * run DDL on a distributed table over parallel connections may not touch a reference table afterwards (a grant
 * on sales and shops at once), nor add foreign keys to it; one connection per node avoids both, at the cost of
 * DDL that visits the shards one after the other.
 */
export async function configureUpgrade(tx: postgres.TransactionSql): Promise<void> {
  await tx.unsafe('set local citus.enable_unsafe_triggers = on');
  await tx.unsafe(`set local citus.multi_shard_modify_mode = 'sequential'`);
}

interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

/**
 * Makes the reference tables reference tables and every shop's table a table distributed by `shop_id`, co-located
 * with `sales`, then distributes the shop procedures by `p_shop_id`; answers one line per thing distributed,
 * also given to `log`. Runs inside the caller's transaction (migrate's).
 *
 * The foreign keys that touch a table about to change are dropped first and added again at the end. Citus
 * otherwise deadlocks: once the reference tables exist, every local table referring to them becomes a Citus
 * local table, and then neither end of a key between two shop tables can be distributed first ("foreign keys
 * from ... local tables to distributed tables are not supported"). The tables with an identity column
 * (journal_lines, customer_payment_allocations) must be plain when distributed too: Citus refuses to move one out
 * of a Citus local table, so a later migration's table with an identity column and a key to a reference table
 * (Citus local from its creation) cannot be distributed. Adding the keys again checks every row, within the
 * shop's node for a key between shop tables.
 *
 * The coordinator tables stay on the coordinator. Those that refer to a reference table (a session to its user,
 * a commission to its shop) become Citus local tables when their key is added again: Citus requires it for a
 * key to a reference table, and it changes nothing for the queries of the web and the worker on the coordinator.
 * graphile-worker's schema is not looked at.
 */
export async function distribute(tx: postgres.TransactionSql, log: (line: string) => void = () => {}): Promise<string[]> {
  await configureUpgrade(tx);
  const done: string[] = [];
  const note = (line: string) => {
    done.push(line);
    log(line);
  };

  const tables = await tx<{ name: string; shopId: boolean; kind: 'distributed' | 'reference' | 'local' | null }[]>`
    select c.relname as name,
           exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped) as "shopId",
           case when p.partmethod = 'h' then 'distributed'
                when p.partmethod = 'n' and p.repmodel = 't' then 'reference'
                when p.logicalrelid is not null then 'local' end as kind
      from pg_class c
      left join pg_dist_partition p on p.logicalrelid = c.oid
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
     order by c.relname`;
  const present = new Set(tables.map((table) => table.name));
  const references = REFERENCE_TABLES.filter((name) => present.has(name) && tables.find((table) => table.name === name)!.kind !== 'reference');
  const shopTables = tables.filter((table) => table.shopId && isShopTable(table.name) && table.kind !== 'distributed').map((table) => table.name);
  // The anchor first: the others name it in colocate_with, which Citus accepts only once it is distributed.
  shopTables.sort((a, b) => Number(b === ANCHOR_TABLE) - Number(a === ANCHOR_TABLE));

  const changing = [...references, ...shopTables];
  if (changing.length) {
    const foreignKeys = await tx<ForeignKey[]>`
      select format('%I', conrelid::regclass) as table, conname as name, pg_get_constraintdef(oid) as definition
        from pg_constraint
       where contype = 'f' and connamespace = 'public'::regnamespace
         and (conrelid::regclass::text = any(${changing}) or confrelid::regclass::text = any(${changing}))
       order by conrelid::regclass::text, conname`;
    for (const key of foreignKeys) await tx.unsafe(`alter table ${key.table} drop constraint "${key.name}"`);

    for (const name of references) {
      await tx`select create_reference_table(${name}::regclass)`;
      note(`reference table ${name}`);
    }
    for (const name of shopTables) {
      const colocateWith = name === ANCHOR_TABLE ? 'none' : ANCHOR_TABLE;
      await tx`select create_distributed_table(${name}::regclass, 'shop_id', colocate_with => ${colocateWith})`;
      note(`distributed ${name} by shop_id`);
    }
    for (const key of foreignKeys) await tx.unsafe(`alter table ${key.table} add constraint "${key.name}" ${key.definition}`);
    if (foreignKeys.length) log(`foreign keys dropped and added again around them: ${foreignKeys.length}`);
  }

  const procedures = await tx<{ signature: string }[]>`
    select p.oid::regprocedure::text as signature
      from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.proname = any(${[...SHOP_PROCEDURES]})
       and not exists (select from pg_dist_object o
                        where o.classid = 'pg_proc'::regclass and o.objid = p.oid and o.distribution_argument_index is not null)
     order by 1`;
  for (const { signature } of procedures) {
    await tx`select create_distributed_function(${signature}::regprocedure, distribution_arg_name := 'p_shop_id', colocate_with := ${ANCHOR_TABLE})`;
    note(`distributed function ${signature} by p_shop_id`);
  }
  return done;
}
