/**
 * The ground the distributed schema of issue 33 stands on, proven on a real Citus cluster (a coordinator and two
 * worker nodes of this machine's PostgreSQL 15, tests/support/citus-cluster.ts) with scratch tables shaped like
 * ours: shops as a reference table, a sale and its lines distributed by shop and co-located. What it settles:
 * where a shop's rows live, which calls of a procedure are delegated to the worker node holding the shop, and how
 * the shop setting that row-level security reads reaches a worker node.
 */
import t from 'tap';
import postgres from 'postgres';
import { citusSkipReason, startCitusCluster, type CitusCluster } from '../support/citus-cluster.ts';

const skipReason = citusSkipReason();
if (skipReason) {
  t.plan(0, `no Citus cluster here: ${skipReason}`);
} else {
  await specification(await startCitusCluster({ database: 'pos_citus_scratch' }));
}

async function specification(cluster: CitusCluster): Promise<void> {
  t.setTimeout(300_000);
  t.teardown(() => cluster.destroy());
  t.comment(`a coordinator and two worker nodes started in ${cluster.startedInMs} ms`);
  const quiet = { max: 1, onnotice: () => {} };
  const owner = postgres(cluster.coordinatorUrl, quiet);
  t.teardown(() => owner.end());
  const clerkUrl = new URL(cluster.coordinatorUrl);
  clerkUrl.username = 'clerk';
  const clerk = postgres(clerkUrl.toString(), quiet);
  t.teardown(() => clerk.end());

  // One statement at a time: Citus refuses DDL on a reference table after parallel DDL on a distributed one in the same transaction.
  for (const statement of [
    'create role pos_app_scratch nologin',
    'create role clerk login in role pos_app_scratch',
    'create table shops (id uuid primary key, name text not null)',
    `select create_reference_table('shops')`,
    `create table sales (shop_id uuid not null references shops, id uuid not null default gen_random_uuid(),
       total_xaf bigint not null, primary key (shop_id, id))`,
    `select create_distributed_table('sales', 'shop_id')`,
    `create table sale_items (shop_id uuid not null, sale_id uuid not null, line_no int not null, quantity numeric(14,3) not null,
       primary key (shop_id, sale_id, line_no), foreign key (shop_id, sale_id) references sales)`,
    `select create_distributed_table('sale_items', 'shop_id', colocate_with => 'sales')`,
    'grant select on shops to pos_app_scratch',
    'grant select, insert on sales, sale_items to pos_app_scratch',
    'alter table sales enable row level security',
    `create policy sales_of_the_shop on sales to pos_app_scratch
       using (shop_id = nullif(current_setting('app.shop_id', true), '')::uuid)`,
    // The port of the node that runs the body, read before any query of a table: such a query may itself run on a worker.
    `create function sales_where(p_shop_id uuid, out port int, out sale_count bigint) language plpgsql stable as $$
     begin
       port := inet_server_port();
       sale_count := (select count(*) from sales where shop_id = p_shop_id);
     end $$`,
    `select create_distributed_function('sales_where(uuid)', distribution_arg_name := 'p_shop_id', colocate_with := 'sales')`,
    `create function sales_where_forced(p_shop_id uuid, out port int) language plpgsql stable as $$
     begin port := inet_server_port(); end $$`,
    `select create_distributed_function('sales_where_forced(uuid)', distribution_arg_name := 'p_shop_id',
       colocate_with := 'sales', force_delegation := true)`,
    `create function sales_of_shop_count(p_shop_id uuid) returns bigint language plpgsql volatile as $$
     begin
       perform set_config('app.shop_id', p_shop_id::text, true);
       return (select count(*) from sales where shop_id = p_shop_id);
     end $$`,
    `select create_distributed_function('sales_of_shop_count(uuid)', distribution_arg_name := 'p_shop_id', colocate_with := 'sales')`,
  ]) {
    await owner.unsafe(statement);
  }

  const [first, second] = cluster.workers;
  const holderOf = async (shopId: string) => {
    const [row] = await owner<{ nodeport: number }[]>`
      select nodeport from citus_shards
       where table_name = 'sales'::regclass and shardid = get_shard_id_for_distribution_column('sales', ${shopId}::uuid)`;
    return row!.nodeport;
  };
  /** A shop whose rows the given worker node holds (shops land where their id hashes). */
  const shopOn = async (port: number) => {
    for (;;) {
      const shopId = crypto.randomUUID();
      if ((await holderOf(shopId)) === port) return shopId;
    }
  };
  const shops = [await shopOn(first.port), await shopOn(second.port)] as const;
  const SALES_PER_SHOP = 5;
  for (const [i, shopId] of shops.entries()) {
    await owner`insert into shops values (${shopId}, ${`shop ${i}`})`;
    await owner`insert into sales (shop_id, total_xaf) select ${shopId}, 1000 from generate_series(1, ${SALES_PER_SHOP})`;
    await owner`insert into sale_items select shop_id, id, 1, 2 from sales where shop_id = ${shopId}`;
  }

  t.test('a coordinator and two worker nodes start, the workers registered with the coordinator', async (t) => {
    const nodes = await owner<{ groupid: number; nodeport: number; shouldhaveshards: boolean; isactive: boolean }[]>`
      select groupid, nodeport, shouldhaveshards, isactive from pg_dist_node order by groupid`;
    t.same(
      nodes.map((node) => [node.groupid === 0, node.nodeport, node.shouldhaveshards, node.isactive]),
      [
        [true, cluster.coordinator.port, false, true],
        [false, first.port, true, true],
        [false, second.port, true, true],
      ],
    );
  });

  t.test('a reference table has a copy on every node', async (t) => {
    const [placements] = await owner<{ ports: number[] }[]>`
      select array_agg(nodeport order by nodeport) as ports from citus_shards where table_name = 'shops'::regclass`;
    t.same(placements!.ports, [cluster.coordinator.port, first.port, second.port].sort((a, b) => a - b));
    for (const worker of cluster.workers) {
      const direct = postgres(worker.url('pos_citus_scratch'), quiet);
      const [row] = await direct`select count(*)::int as count from shops`;
      await direct.end();
      t.equal(row!.count, shops.length, `worker on port ${worker.port}`);
    }
  });

  t.test("a shop's rows of co-located tables lie together on one worker node", async (t) => {
    for (const shopId of shops) {
      const holder = await holderOf(shopId);
      const shards = await owner<{ table_name: string; shard: string; nodeport: number }[]>`
        select table_name::text, shard_name(table_name, shardid) as shard, nodeport from citus_shards
         where table_name in ('sales'::regclass, 'sale_items'::regclass)
           and shardid in (get_shard_id_for_distribution_column('sales', ${shopId}::uuid),
                           get_shard_id_for_distribution_column('sale_items', ${shopId}::uuid))
         order by 1`;
      t.same(shards.map((shard) => [shard.table_name, shard.nodeport]), [['sale_items', holder], ['sales', holder]]);
      for (const worker of cluster.workers) {
        const direct = postgres(worker.url('pos_citus_scratch'), quiet);
        const counts = await Promise.all(
          shards.map(async (shard) => {
            const [found] = await direct<{ present: boolean }[]>`select to_regclass(${shard.shard}) is not null as present`;
            if (!found!.present) return 0;
            const [row] = await direct.unsafe<{ count: number }[]>(`select count(*)::int as count from ${shard.shard} where shop_id = $1`, [shopId]);
            return row!.count;
          }),
        );
        await direct.end();
        t.same(counts, worker.port === holder ? [SALES_PER_SHOP, SALES_PER_SHOP] : [0, 0], `shop ${shopId} on port ${worker.port}`);
      }
    }
  });

  t.test('a function distributed by p_shop_id, called alone, runs on the worker node that holds the shop', async (t) => {
    for (const shopId of shops) {
      const holder = await holderOf(shopId);
      const [ran] = await owner<{ port: number; sale_count: number }[]>`select port, sale_count::int from sales_where(${shopId})`;
      t.same(ran, { port: holder, sale_count: SALES_PER_SHOP });
      const plan = (await owner.unsafe<{ 'QUERY PLAN': string }[]>(`explain (verbose, costs off) select sales_where('${shopId}')`))
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      t.match(plan, /Task Count: 1\b/);
      t.match(plan, new RegExp(`Node: host=127\\.0\\.0\\.1 port=${holder} `));
      t.match(plan, /Query: SELECT public\.sales_where\(/);
    }
  });

  t.test('inside a transaction block a distributed function runs on the coordinator unless it is force-delegated', async (t) => {
    const shopId = shops[0];
    const holder = await holderOf(shopId);
    const ports = await owner.begin(async (tx) => {
      const [plain] = await tx<{ port: number }[]>`select port from sales_where(${shopId})`;
      const [forced] = await tx<{ port: number }[]>`select port from sales_where_forced(${shopId})`;
      return [plain!.port, forced!.port];
    });
    t.same(ports, [cluster.coordinator.port, holder]);
  });

  t.test('row-level security on a distributed table binds a login member of the app role on the worker nodes', async (t) => {
    const [unset] = await clerk<{ count: number }[]>`select count(*)::int as count from sales`;
    t.equal(unset!.count, 0, 'no shop set: no row of any worker node');
    const refused = await clerk
      .begin(async (tx) => {
        await tx.unsafe(`set local citus.propagate_set_commands = 'local'`);
        await tx.unsafe(`set local app.shop_id = '${shops[0]}'`);
        await tx`insert into sales (shop_id, total_xaf) values (${shops[1]}, 1)`;
      })
      .then(
        () => undefined,
        (error: postgres.PostgresError) => error,
      );
    t.match(refused, { code: '42501', message: /new row violates row-level security policy for table "sales_\d+"/ }, 'refused on the shard');
  });

  t.test("SET LOCAL reaches the worker nodes when citus.propagate_set_commands is 'local'", async (t) => {
    for (const shopId of shops) {
      const counts = await clerk.begin(async (tx) => {
        await tx.unsafe(`set local citus.propagate_set_commands = 'local'`);
        await tx.unsafe(`set local app.shop_id = '${shopId}'`);
        const [all] = await tx<{ count: number }[]>`select count(*)::int as count from sales`;
        const [own] = await tx<{ count: number }[]>`select count(*)::int as count from sales where shop_id = ${shopId}`;
        return [all!.count, own!.count];
      });
      t.same(counts, [SALES_PER_SHOP, SALES_PER_SHOP], `shop on port ${await holderOf(shopId)}`);
    }
    const withoutPropagation = await clerk.begin(async (tx) => {
      await tx.unsafe(`set local app.shop_id = '${shops[0]}'`);
      const [row] = await tx<{ count: number }[]>`select count(*)::int as count from sales`;
      return row!.count;
    });
    t.equal(withoutPropagation, 0, 'not propagated by default');
  });

  t.test('set_config(..., true) does not reach the worker nodes: their policy sees no shop', async (t) => {
    const seen = await clerk.begin(async (tx) => {
      await tx.unsafe(`set local citus.propagate_set_commands = 'local'`);
      await tx`select set_config('app.shop_id', ${shops[0]}, true)`;
      const [coordinator] = await tx<{ shop: string }[]>`select current_setting('app.shop_id') as shop`;
      const [row] = await tx<{ count: number }[]>`select count(*)::int as count from sales where shop_id = ${shops[0]}`;
      return { coordinator: coordinator!.shop, count: row!.count };
    });
    t.same(seen, { coordinator: shops[0], count: 0 });
  });

  t.test('a delegated function that sets the shop itself is bound by row-level security on the worker node', async (t) => {
    // The call alone in its select list: wrapped in anything else (a cast) it is not delegated.
    for (const shopId of shops) {
      const [row] = await clerk<{ count: string }[]>`select sales_of_shop_count(${shopId}) as count`;
      t.equal(Number(row!.count), SALES_PER_SHOP);
    }
    const [cast] = await clerk<{ count: number }[]>`select sales_of_shop_count(${shops[0]})::int as count`;
    t.equal(cast!.count, 0, 'cast, it runs on the coordinator, and its setting stays there');
    const [inBlock] = await clerk.begin((tx) => tx<{ count: string }[]>`select sales_of_shop_count(${shops[0]}) as count`);
    t.equal(Number(inBlock!.count), 0, 'in a transaction block it runs on the coordinator, and its setting stays there');
  });
}
