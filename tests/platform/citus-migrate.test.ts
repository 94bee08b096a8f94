/**
 * `npm run migrate` on a Citus coordinator distributes the schema by shop (issue 33; db/citus.ts): on a real
 * cluster of a coordinator and two worker nodes (tests/support/citus-cluster.ts), the whole schema migrated as
 * the test template is, then checked against db/distribution.ts and against the template on plain PostgreSQL.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import postgres from 'postgres';
import { ANCHOR_TABLE } from '../../db/citus.ts';
import { COORDINATOR_TABLES, isShopTable, REFERENCE_TABLES } from '../../db/distribution.ts';
import { migrate } from '../../db/migrate.ts';
import { citusSkipReason, startCitusCluster, type CitusCluster } from '../support/citus-cluster.ts';
import { TEST_APP_KEY, TEST_ENV } from '../support/env.ts';
import { copyOfSchemaSources, scratchDatabase } from '../support/schema.ts';

const DATABASE = 'pos_citus_migrate';
const skipReason = citusSkipReason();
if (skipReason) {
  t.plan(0, `no Citus cluster here: ${skipReason}`);
} else {
  await specification(await startCitusCluster({ database: DATABASE }));
}

interface Placement {
  table: string;
  method: string;
  replication: string;
  column: string | null;
  colocation: number;
}

interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

async function specification(cluster: CitusCluster): Promise<void> {
  t.setTimeout(900_000);
  t.teardown(() => cluster.destroy());
  t.comment(`a coordinator and two worker nodes started in ${cluster.startedInMs} ms`);
  const quiet = { max: 1, onnotice: () => {} };

  const logged: { line: string; at: number }[] = [];
  const began = performance.now();
  const first = await migrate(cluster.coordinatorUrl, { appKey: TEST_APP_KEY, log: (line) => logged.push({ line, at: performance.now() }) });
  const ended = performance.now();
  const lastFunctionFile = logged.filter((entry) => entry.line.startsWith('applied functions/')).at(-1)!.at;
  t.comment(`migrate: ${Math.round(ended - began)} ms in all, of which the distribution ${Math.round(ended - lastFunctionFile)} ms`);

  const owner = postgres(cluster.coordinatorUrl, quiet);
  t.teardown(() => owner.end());
  const placements = () => owner<Placement[]>`
    select c.relname as table, p.partmethod as method, p.repmodel as replication,
           case when p.partmethod = 'h' then column_to_column_name(p.logicalrelid, p.partkey) end as column,
           p.colocationid as colocation
      from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
     where c.relnamespace = 'public'::regnamespace
     order by 1`;
  const foreignKeys = (sql: postgres.Sql) => sql<ForeignKey[]>`
    select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
      from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace
     order by 1, 2`;
  /** The coordinator's own keys: its placements of the reference and Citus local tables are tables of the schema too. */
  const coordinatorForeignKeys = async () => {
    const shards = new Set((await owner<{ name: string }[]>`select shard_name(logicalrelid, shardid) as name from pg_dist_shard`).map((row) => row.name));
    return (await foreignKeys(owner)).filter((key) => !shards.has(key.table));
  };
  const tablesWithShop = (
    await owner<{ name: string }[]>`
      select c.relname as name from pg_class c
       where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
         and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped)
       order by 1`
  ).map((row) => row.name);
  const shopTables = tablesWithShop.filter(isShopTable);

  t.test('every shop table is distributed by shop_id and co-located with sales, the reference tables are reference tables, the coordinator tables stay on the coordinator', async (t) => {
    t.ok(shopTables.length > 40, `${shopTables.length} shop tables`);
    const byTable = new Map((await placements()).map((placement) => [placement.table, placement]));
    const anchor = byTable.get(ANCHOR_TABLE)!;
    t.same(
      shopTables.filter((table) => {
        const placement = byTable.get(table);
        return !(placement?.method === 'h' && placement.column === 'shop_id' && placement.colocation === anchor.colocation);
      }),
      [],
      'no shop table left undistributed, distributed by another column, or in another co-location group',
    );
    t.same(
      REFERENCE_TABLES.map((table) => [table, byTable.get(table)?.method, byTable.get(table)?.replication]),
      REFERENCE_TABLES.map((table) => [table, 'n', 't']),
    );
    t.same(
      COORDINATOR_TABLES.filter((table) => ['h', 'r'].includes(byTable.get(table)?.method ?? '') || byTable.get(table)?.replication === 't'),
      [],
      'no coordinator table is distributed or a reference table',
    );
    const [outside] = await owner<{ ports: number[] }[]>`
      select coalesce(array_agg(distinct s.nodeport), '{}') as ports
        from citus_shards s where s.citus_table_type = 'local'`;
    t.same(outside!.ports, [cluster.coordinator.port], 'the Citus local tables (those referring to a reference table) have their one placement on the coordinator');
    const [worker] = await owner<{ count: number }[]>`select count(*)::int as count from pg_dist_partition where logicalrelid::text like 'graphile_worker.%'`;
    t.equal(worker!.count, 0, "graphile-worker's schema is left alone");
  });

  t.test('every foreign key of the schema is there after the distribution, as on plain PostgreSQL', async (t) => {
    const plain = await scratchDatabase(t, process.env[TEST_ENV.templateDb]!);
    const expected = await foreignKeys(plain.sql);
    const actual = await coordinatorForeignKeys();
    t.ok(expected.length > 100, `${expected.length} foreign keys on plain PostgreSQL`);
    t.same(actual, expected);
    const definitions = (table: string, parent: string) =>
      actual.filter((key) => key.table === table && key.definition.includes(`REFERENCES ${parent}(`)).map((key) => key.definition);
    t.same(definitions('sale_items', 'sales'), ['FOREIGN KEY (shop_id, sale_id) REFERENCES sales(shop_id, id) DEFERRABLE INITIALLY DEFERRED']);
    t.match(definitions('sale_payments', 'sales'), [/^FOREIGN KEY \(shop_id, sale_id\) REFERENCES sales\(shop_id, id\)/]);
    t.match(definitions('journal_lines', 'journal_entries'), [/^FOREIGN KEY \(shop_id, entry_id\) REFERENCES journal_entries\(shop_id, id\)/]);
    t.match(definitions('sessions', 'users'), [/^FOREIGN KEY \(user_id\) REFERENCES users\(id\)/], 'a coordinator table to a reference table');
  });

  t.test('a second migrate distributes nothing and applies nothing', async (t) => {
    t.same(first.distributed!.length, shopTables.length + REFERENCE_TABLES.length + 2, 'the first one distributed every table and the two procedures, one line each');
    const before = { placements: await placements(), foreignKeys: await coordinatorForeignKeys() };
    t.same(await migrate(cluster.coordinatorUrl, { appKey: TEST_APP_KEY }), { migrations: [], functions: [], distributed: [] });
    t.same({ placements: await placements(), foreignKeys: await coordinatorForeignKeys() }, before);
  });

  t.test('sale_submit and sale_read are distributed functions by p_shop_id, co-located with sales', async (t) => {
    const procedures = await owner<{ name: string; argument: string; colocated: boolean }[]>`
      select p.proname as name, p.proargnames[o.distribution_argument_index + 1] as argument,
             o.colocationid = (select colocationid from pg_dist_partition where logicalrelid = 'sales'::regclass) as colocated
        from pg_dist_object o join pg_proc p on p.oid = o.objid
       where o.classid = 'pg_proc'::regclass and o.distribution_argument_index is not null
       order by 1`;
    t.same(procedures, [
      { name: 'sale_read', argument: 'p_shop_id', colocated: true },
      { name: 'sale_submit', argument: 'p_shop_id', colocated: true },
    ]);
  });

  t.test("a shop's rows of co-located tables all live on one worker node", async (t) => {
    const shopId = crypto.randomUUID();
    await owner`insert into shops (id, name, trial_ends_at) values (${shopId}, 'Boutique Akwa', now() + interval '30 days')`;
    // Triggers off for the product alone: catalogue_positions_record's upsert sets txid with
    // pg_current_xact_id(), which Citus refuses in ON CONFLICT DO UPDATE on a distributed table (the trigger
    // functions are being made fit for the shards in db/functions/).
    await owner.begin(async (tx) => {
      await tx.unsafe(`set local citus.propagate_set_commands = 'local'`);
      await tx.unsafe(`set local session_replication_role = 'replica'`);
      await tx`insert into products (shop_id, name, price_xaf, vat_rate) values (${shopId}, 'Savon de Marseille', 500, 19.25)`;
    });
    await owner`insert into customers (shop_id, name) select ${shopId}, 'Client ' || n from generate_series(1, 3) n`;
    await owner`insert into suppliers (shop_id, name) select ${shopId}, 'Fournisseur ' || n from generate_series(1, 2) n`;

    const shards = await owner<{ table: string; shard: string; port: number }[]>`
      select s.table_name::text as table, shard_name(s.table_name, s.shardid) as shard, s.nodeport as port
        from citus_shards s
       where s.table_name in ('products'::regclass, 'customers'::regclass, 'suppliers'::regclass)
         and s.shardid = get_shard_id_for_distribution_column(s.table_name, ${shopId}::uuid)
       order by 1`;
    t.same(shards.map((shard) => shard.table), ['customers', 'products', 'suppliers']);
    const holder = shards[0]!.port;
    t.same(new Set(shards.map((shard) => shard.port)), new Set([holder]), 'one node holds the three shards');
    for (const worker of cluster.workers) {
      const direct = postgres(worker.url(DATABASE), quiet);
      const counts: Record<string, number> = {};
      for (const shard of shards) {
        const [found] = await direct<{ present: boolean }[]>`select to_regclass(${shard.shard}) is not null as present`;
        counts[shard.table] = found!.present
          ? (await direct.unsafe<{ count: number }[]>(`select count(*)::int as count from ${shard.shard} where shop_id = $1`, [shopId]))[0]!.count
          : 0;
      }
      await direct.end();
      t.same(counts, worker.port === holder ? { customers: 3, products: 1, suppliers: 2 } : { customers: 0, products: 0, suppliers: 0 }, `worker on port ${worker.port}`);
    }
  });

  // Last: it adds a table of its own to the cluster's schema.
  t.test('a shop table added by a later migration is distributed by the next migrate', async (t) => {
    const dir = copyOfSchemaSources(t);
    writeFileSync(
      path.join(dir, 'migrations', '9999_shop_notes.sql'),
      `create table shop_notes (
         shop_id uuid not null references shops (id),
         id uuid not null default gen_random_uuid(),
         note text not null,
         primary key (shop_id, id)
       );`,
    );
    const result = await migrate(cluster.coordinatorUrl, { dir });
    t.same(result, { migrations: ['9999_shop_notes'], functions: [], distributed: ['distributed shop_notes by shop_id'] });
    const notes = (await placements()).find((placement) => placement.table === 'shop_notes');
    const sales = (await placements()).find((placement) => placement.table === 'sales');
    t.same(notes && [notes.method, notes.column, notes.colocation], ['h', 'shop_id', sales!.colocation]);
    t.same((await coordinatorForeignKeys()).filter((key) => key.table === 'shop_notes').map((key) => key.definition), ['FOREIGN KEY (shop_id) REFERENCES shops(id)']);
  });
}
