import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import t, { type Test } from 'tap';
import { isShopTable } from '../../db/distribution.ts';
import { migrate, migrationVersions, SCHEMA_DIR } from '../../db/migrate.ts';
import { asShop, migrationFilesOfCommit, schemaOfCommit, tableFingerprints } from '../support/old-release.ts';
import { scratchDatabase } from '../support/schema.ts';

/**
 * Migration 0039 rebuilds every key of a shop's table around its rows (shop_id in front, foreign keys
 * pairing the shops: db/CONVENTIONS.md, "Distribution by shop"). A database made by the release before
 * it, holding the history of two shops written by that release's own SQL, comes out of the upgrade with
 * every row of every table as it was, the new keys in place, and the shops selling and refunding on; a
 * database where a row already names another shop's row is refused whole.
 */

/** The last commit before the keys by shop: its db/migrations end at 0038. */
const RELEASE_BEFORE_THE_KEYS = '72f5de2';

/** The upgrade's own bookkeeping: its rows are the upgrade (the new migration, the files applied again). */
const UPGRADE_BOOKKEEPING = new Set(['schema_migrations', 'schema_functions']);

interface OldShop {
  id: string;
  name: string;
  userId: string;
  soap: string;
  wax: { product: string; variants: string[] };
  milk: string;
  customer: string;
  supplier: string;
  device: string;
  sales: string[];
}

async function oldReleaseDatabase(t: Test) {
  const db = await scratchDatabase(t);
  const old = await migrate(db.url, { dir: schemaOfCommit(t, RELEASE_BEFORE_THE_KEYS) });
  t.equal(old.migrations.at(-1), '0038_certification', `migrated with ${RELEASE_BEFORE_THE_KEYS}'s migrations, up to 0038`);
  return db;
}

/** A shop opened three days ago (so that the worker has ended days to seal), with its owner, as that release registered it. */
async function registerShop(sql: Sql, name: string): Promise<{ id: string; name: string; userId: string }> {
  const shop = { id: randomUUID(), name, userId: randomUUID() };
  await sql`insert into shops (id, name, trial_ends_at, created_at) values (${shop.id}, ${name}, now() + interval '30 days', now() - interval '3 days')`;
  await sql`insert into users (id, shop_id, kind, role, name, email, password_hash)
            values (${shop.userId}, ${shop.id}, 'shop', 'owner', ${`Gérant ${name}`}, ${`owner-${shop.id}@example.com`}, 'not-a-real-hash')`;
  return shop;
}

/** A sale through that release's sale_record; an offline one happened `daysAgo` days back and is pushed now. */
async function sell(
  sql: Sql,
  shop: { id: string; userId: string },
  sale: { items: Record<string, unknown>[]; payments: { method: string; amount_xaf: number }[]; customer_id?: string; device_id?: string; redeem_points?: number },
  daysAgo?: number,
): Promise<string> {
  const id = randomUUID();
  const body = {
    id,
    request_hash: `hash-${id}`,
    ...sale,
    ...(daysAgo === undefined ? {} : { created_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString() }),
  };
  await asShop(sql, shop, (tx) => tx`select sale_record(${tx.json(body as never)}::jsonb, ${daysAgo !== undefined})`);
  return id;
}

/**
 * Gives back one unit of the sale's first line through sale_refund; returns the refund's id. The old
 * release's sale_refund takes the shop from the transaction, the current one (`current`) as its first
 * arguments.
 */
async function refundOne(sql: Sql, shop: { id: string; userId: string }, saleId: string, method: string, current = false): Promise<string> {
  return asShop(sql, shop, async (tx) => {
    const [line] = await tx<{ id: string }[]>`select id from sale_items where sale_id = ${saleId} order by line_no limit 1`;
    const lines = tx.json([{ sale_item_id: line!.id, quantity: 1 }] as never);
    const [row] = current
      ? await tx<{ id: string }[]>`select sale_refund(${shop.id}, ${shop.userId}, ${saleId}, ${method}, 'Produit abîmé', ${lines}::jsonb) as id`
      : await tx<{ id: string }[]>`select sale_refund(${saleId}, ${method}, 'Produit abîmé', ${lines}::jsonb) as id`;
    return row!.id;
  });
}

/** The catalogue, the people and the set-up of a shop at work, each through that release's SQL or its app's inserts. */
async function openShop(sql: Sql, name: string): Promise<OldShop> {
  const registered = await registerShop(sql, name);
  const as = <T>(work: (tx: Sql) => Promise<T>) => asShop(sql, registered, work);
  return as(async (tx) => {
    const id = registered.id;
    await tx`insert into fiscal_certification_settings (shop_id, provider) values (${id}, 'simulator')`;
    await tx`insert into shop_logos (shop_id, media_type, content, width, height, sha256)
             values (${id}, 'image/png', '\\x89504e470d0a1a0a'::bytea, 1, 1, md5(${id}))`;
    const [hygiene] = await tx<{ id: string }[]>`insert into categories (name) values ('Hygiène') returning id`;
    const [soaps] = await tx<{ id: string }[]>`insert into categories (name, parent_id, sort_order) values ('Savons', ${hygiene!.id}, 1) returning id`;
    const [soap] = await tx<{ id: string }[]>`
      insert into products (name, sku, barcode, category_id, price_xaf, cost_xaf, vat_rate)
      values ('Savon Azur — 200 g', ${`AZUR-${id.slice(0, 8)}`}, null, ${soaps!.id}, 450, 270, 19.25) returning id`;
    const [wax] = await tx<{ id: string }[]>`
      insert into products (name, category_id, price_xaf, cost_xaf, vat_rate) values ('Pagne wax « Vlisco »', null, 6500, 4000, 19.25) returning id`;
    await tx`insert into product_options (product_id, name, "values", position) values (${wax!.id}, 'Taille', '{6 yards,12 yards}', 0)`;
    const variants = await tx<{ id: string }[]>`
      insert into variants (product_id, options, sku, price_xaf)
      values (${wax!.id}, '{"Taille": "6 yards"}', ${`WAX6-${id.slice(0, 8)}`}, 6500),
             (${wax!.id}, '{"Taille": "12 yards"}', ${`WAX12-${id.slice(0, 8)}`}, 12000)
      returning id`;
    const [milk] = await tx<{ id: string }[]>`
      insert into products (name, price_xaf, cost_xaf, vat_rate, reorder_level) values ('Lait en poudre Nido 400 g', 2500, 1800, 0, 5) returning id`;
    await tx`select catalogue_generate_barcodes(${[soap!.id]}::uuid[], null, false)`;
    await tx`select stock_move(${soap!.id}, null, 'adjustment', 100, 'Stock initial', 'adjustment', null)`;
    for (const variant of variants) await tx`select stock_move(${wax!.id}, ${variant.id}, 'adjustment', 10, 'Stock initial', 'adjustment', null)`;
    await tx`insert into promotions (name, kind, value, product_ids) values ('Savon -10 %', 'percent', 10, ${[soap!.id]}::uuid[])`;
    const [customer] = await tx<{ id: string }[]>`
      insert into customers (name, phone, email, credit_ceiling_xaf, card_no)
      values ('Mme Ngo Biyong', '+237 699 00 00 01', ${`client-${id}@example.com`}, 500000, ${`C-${id.slice(0, 6)}`}) returning id`;
    const [supplier] = await tx<{ id: string }[]>`insert into suppliers (name, phone) values ('Nestlé Cameroun', '233 42 00 00') returning id`;
    const [device] = await tx<{ id: string }[]>`insert into devices (name, platform, token_hash) values ('Caisse 1', 'pwa', md5(${`device-${id}`})) returning id`;
    await tx`insert into sessions (user_id, shop_id, device_name, expires_at) values (${registered.userId}, ${id}, 'Caisse 1', now() + interval '30 days')`;
    await tx`select shift_open(20000)`;
    return {
      ...registered,
      soap: soap!.id,
      wax: { product: wax!.id, variants: variants.map((variant) => variant.id) },
      milk: milk!.id,
      customer: customer!.id,
      supplier: supplier!.id,
      device: device!.id,
      sales: [],
    };
  });
}

/** What a shop did over its three days, each request its own transaction, in that release's SQL. */
async function work(sql: Sql, shop: OldShop): Promise<void> {
  const as = <T>(work: (tx: Sql) => Promise<T>) => asShop(sql, shop, work);

  // Goods received from the supplier: the milk into a batch with its expiry, paid in part, some sent back.
  const purchase = await as(async (tx) => {
    const [row] = await tx<{ id: string }[]>`select purchase_record(${tx.json({
      supplier_id: shop.supplier,
      reference: 'BL-2207',
      vat_rate: 19.25,
      items: [
        { product_id: shop.milk, name: 'Lait en poudre Nido 400 g', quantity: 24, unit_cost_xaf: 1800, batch_number: 'L2407', expiry_date: '2030-07-31' },
        { name: 'Transport', quantity: 1, unit_cost_xaf: 3000 },
      ],
    } as never)}::jsonb) as id`;
    return row!.id;
  });
  await as((tx) => tx`select purchase_pay(${purchase}, 20000, 'cash', 'Acompte')`);
  await as(async (tx) => {
    const [line] = await tx<{ id: string }[]>`select id from purchase_items where purchase_id = ${purchase} and product_id is not null`;
    await tx`select purchase_return(${purchase}, ${tx.json([{ purchase_item_id: line!.id, quantity: 2, reason: 'Boîtes cabossées' }] as never)}::jsonb)`;
  });

  // Two days ago, offline: the tills pushed those sales today, before the nights were sealed.
  shop.sales.push(await sell(sql, shop, { items: [{ product_id: shop.soap, quantity: 3 }], payments: [{ method: 'carrier1_momo', amount_xaf: 1215 }] }, 2));
  await as((tx) => tx`select expense_record('transport', 2500, 'cash', 'Taxi pour le marché', (now() - interval '2 days')::date)`);
  for (;;) {
    const [row] = await sql<{ day: string | null }[]>`select z_seal_next(${shop.id})::text as day`;
    if (!row!.day) break;
  }

  // Today: a basket of several lines and payments, from the till, the milk taken from its batch.
  shop.sales.push(
    await sell(sql, shop, {
      device_id: shop.device,
      items: [
        { product_id: shop.soap, quantity: 2 },
        { product_id: shop.wax.product, variant_id: shop.wax.variants[0], quantity: 1 },
        { product_id: shop.milk, quantity: 3 },
      ],
      payments: [
        { method: 'card', amount_xaf: 5000 },
        { method: 'cash', amount_xaf: 20000 },
      ],
    }),
  );
  // On credit for a named customer, who earns points and is sent the receipt.
  shop.sales.push(
    await sell(sql, shop, {
      customer_id: shop.customer,
      items: [{ product_id: shop.wax.product, variant_id: shop.wax.variants[1], quantity: 1 }, { product_id: shop.milk, quantity: 1 }],
      payments: [{ method: 'cash', amount_xaf: 4000 }, { method: 'credit', amount_xaf: 1 }],
    }),
  );
  await as((tx) => tx`select customer_settle(${shop.customer}, 6000, 'carrier2_money', 'Premier versement')`);
  // Points redeemed on the next one.
  shop.sales.push(
    await sell(sql, shop, { customer_id: shop.customer, redeem_points: 20, items: [{ product_id: shop.soap, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1000 }] }),
  );
  const voided = await sell(sql, shop, { items: [{ product_id: shop.soap, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 500 }] });
  shop.sales.push(voided);
  await as((tx) => tx`select sale_void(${voided}, 'Erreur de caisse')`);
  await refundOne(sql, shop, shop.sales[1]!, 'cash');
  await refundOne(sql, shop, shop.sales[0]!, 'carrier1_momo');

  // A quote accepted and converted into a sale.
  const quote = await as(async (tx) => {
    const [row] = await tx<{ id: string }[]>`select quote_record(${tx.json({
      customer_id: shop.customer,
      note: 'Devis mariage',
      items: [{ product_id: shop.wax.product, variant_id: shop.wax.variants[0], quantity: 2 }],
    } as never)}::jsonb) as id`;
    return row!.id;
  });
  const converted = randomUUID();
  await as((tx) => tx`select quote_convert(${quote}, ${converted}, ${tx.json([{ method: 'cash', amount_xaf: 20000 }] as never)}::jsonb)`);
  shop.sales.push(converted);

  // A count of the soaps: two missing.
  await as(async (tx) => {
    const [stocktake] = await tx<{ id: string }[]>`select (stocktake_open('Inventaire savons', null)).id`;
    const [item] = await tx<{ id: string; expected_quantity: number }[]>`
      select id, expected_quantity from stocktake_items where stocktake_id = ${stocktake!.id} and product_id = ${shop.soap}`;
    await tx`select stocktake_record_counts(${stocktake!.id}, ${tx.json([{ item_id: item!.id, counted_quantity: Number(item!.expected_quantity) - 2 }] as never)}::jsonb)`;
    await tx`select stocktake_commit(${stocktake!.id})`;
  });

  await as((tx) => tx`select cash_movement_record('out', 15000, 'Versement à la banque')`);
  await as((tx) => tx`select expense_record('supplies', 1200, 'cash', 'Sachets', null)`);
  await as((tx) => tx`select stock_adjust(${shop.milk}, null, 10, 'Casse')`);
  await as((tx) => tx`select shift_close(40000, 'Fin de journée', ${tx.json({ card: 5000 } as never)}::jsonb)`);
  await as((tx) => tx`select shift_open(10000)`);

  // What the app and the worker wrote themselves.
  await as(async (tx) => {
    await tx`insert into idempotency_keys (key, request_hash, status, response) values (${`sale-${converted}`}, 'hash', 201, '{"id": "x"}')`;
    await tx`insert into clock_corrections (entity, record_id, device_id, user_id, till_created_at)
             values ('sales', ${shop.sales[0]!}, ${shop.device}, ${shop.userId}, '1970-01-01T00:00:00Z')`;
    await tx`insert into shared_links (token, shop_id, sale_id, expires_at) values (${`link-${shop.id}`}, ${shop.id}, ${converted}, now() + interval '7 days')`;
  });
  await sql`insert into alert_digests (shop_id, day) values (${shop.id}, current_date)`;
  // The month closed, as the hourly task will close it after the month ends.
  for (;;) {
    const [row] = await sql<{ closing: string | null }[]>`select fiscal_close_next(${shop.id}, now() + interval '1 month') as closing`;
    if (!row!.closing) break;
  }
}

async function primaryKeyOf(sql: Sql, table: string): Promise<string> {
  const [row] = await sql<{ definition: string }[]>`select pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = ${table}::regclass and contype = 'p'`;
  return row!.definition;
}

async function foreignKeysOf(sql: Sql, table: string, parent: string): Promise<string[]> {
  const rows = await sql<{ definition: string }[]>`
    select pg_get_constraintdef(oid) as definition from pg_constraint
     where conrelid = ${table}::regclass and confrelid = ${parent}::regclass and contype = 'f'`;
  return rows.map((row) => row.definition);
}

t.test('the upgrade to keys by shop keeps every row of every table, and the shops go on selling', async (t) => {
  t.notOk(migrationFilesOfCommit(RELEASE_BEFORE_THE_KEYS).some((file) => file.startsWith('0039_')), `${RELEASE_BEFORE_THE_KEYS} is a release without 0039`);
  const db = await oldReleaseDatabase(t);
  const { sql } = db;
  t.equal(await primaryKeyOf(sql, 'sales'), 'PRIMARY KEY (id)', 'the old release keys sales by id alone');

  const shops = [await openShop(sql, 'Boutique Akwa'), await openShop(sql, 'Épicerie Bonanjo')];
  for (const shop of shops) await work(sql, shop);

  const before = await tableFingerprints(sql);
  const withShopId = await sql<{ table: string }[]>`
    select c.relname as table from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' order by 1`;
  const shopTables = withShopId.map((row) => row.table).filter((table) => isShopTable(table));
  const filled = shopTables.filter((table) => before[table]!.rows > 0);
  t.comment(`${filled.length} of ${shopTables.length} shop tables hold rows before the upgrade; empty: ${shopTables.filter((table) => !filled.includes(table)).join(', ') || 'none'}`);
  t.ok(filled.length >= 40, 'the history fills at least 40 of the shop tables');
  const versionsBefore = (await sql<{ version: string }[]>`select version from schema_migrations order by version`).map((row) => row.version);

  const upgrade = await migrate(db.url);
  const pending = (await migrationVersions(SCHEMA_DIR)).filter((version) => !versionsBefore.includes(version));
  t.equal(pending[0], '0039_keys_by_shop', 'the first migration the old release lacks is 0039');
  t.same(upgrade.migrations, pending, 'the upgrade applies 0039 and the migrations after it');

  const after = await tableFingerprints(sql);
  t.same(Object.keys(after), Object.keys(before), 'the same tables');
  const changed = Object.keys(before).filter((table) => !UPGRADE_BOOKKEEPING.has(table) && (after[table]!.rows !== before[table]!.rows || after[table]!.md5 !== before[table]!.md5));
  t.same(changed, [], `every row of the ${Object.keys(before).length - UPGRADE_BOOKKEEPING.size} other tables is there, unaltered (row counts and md5 of their text)`);
  const versionsAfter = (await sql<{ version: string }[]>`select version from schema_migrations order by version`).map((row) => row.version);
  t.same(versionsAfter, [...versionsBefore, ...pending], 'schema_migrations keeps the versions it had, and adds 0039 and those after it');

  t.equal(await primaryKeyOf(sql, 'sales'), 'PRIMARY KEY (shop_id, id)', 'the primary key of sales is (shop_id, id)');
  t.match(await foreignKeysOf(sql, 'sale_items', 'sales'), [/^FOREIGN KEY \(shop_id, sale_id\) REFERENCES sales\(shop_id, id\)/], 'sale_items refers to its sale by (shop_id, sale_id)');

  for (const shop of shops) {
    const next = await sell(sql, shop, {
      items: [{ product_id: shop.soap, quantity: 1 }, { product_id: shop.wax.product, variant_id: shop.wax.variants[0], quantity: 1 }],
      payments: [{ method: 'cash', amount_xaf: 10000 }],
    });
    const refund = await refundOne(sql, shop, next, 'cash', true);
    const [sale] = await sql<{ status: string; lines: number; refunded: number }[]>`
      select s.status, (select count(*)::int from sale_items i where i.shop_id = s.shop_id and i.sale_id = s.id) as lines,
             (select count(*)::int from refunds r where r.shop_id = s.shop_id and r.sale_id = s.id and r.id = ${refund}) as refunded
        from sales s where s.shop_id = ${shop.id} and s.id = ${next}`;
    t.same(sale, { status: 'partially_refunded', lines: 2, refunded: 1 }, `${shop.name} sells and refunds after the upgrade`);
  }

  const [akwa, bonanjo] = shops as [OldShop, OldShop];
  await t.rejects(
    sql`insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf) values (${akwa.id}, ${bonanjo.sales[1]!}, 'payment', 'cash', 100)`,
    { code: '23503' },
    'a payment of one shop naming another shop\'s sale is refused by the foreign key, even to the owner role',
  );
});

t.test('a row that names another shop\'s row makes the upgrade fail and roll back whole', async (t) => {
  const db = await oldReleaseDatabase(t);
  const { sql } = db;
  const [akwa, bonanjo] = [await registerShop(sql, 'Boutique Akwa'), await registerShop(sql, 'Épicerie Bonanjo')];
  const [product] = await asShop(sql, bonanjo, (tx) => tx<{ id: string }[]>`
    insert into products (name, price_xaf, vat_rate, tracked) values ('Savon Azur — 200 g', 450, 19.25, false) returning id`);
  const sale = await sell(sql, bonanjo, { items: [{ product_id: product!.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 500 }] });
  // The old keys let the owner role write it: the sale exists, whoever's it is.
  await sql`insert into sale_items (shop_id, sale_id, line_no, name, quantity, unit_price_xaf, vat_rate, vat_xaf, total_xaf, stock_cost_xaf)
            values (${akwa.id}, ${sale}, 99, 'Ligne égarée', 1, 450, 19.25, 73, 450, 0)`;
  const before = await tableFingerprints(sql);

  await t.rejects(migrate(db.url), { code: '23503', table_name: 'sale_items' }, 'the upgrade fails on the foreign key of sale_items');

  const [applied] = await sql<{ n: number }[]>`select count(*)::int as n from schema_migrations where version = '0039_keys_by_shop'`;
  t.equal(applied!.n, 0, 'schema_migrations has no 0039');
  t.equal(await primaryKeyOf(sql, 'sales'), 'PRIMARY KEY (id)', 'sales keeps its old primary key');
  t.match(await foreignKeysOf(sql, 'sale_items', 'sales'), [/^FOREIGN KEY \(sale_id\) REFERENCES sales\(id\)/], 'sale_items keeps its old foreign key');
  t.same(await tableFingerprints(sql), before, 'and every table is as it was, bookkeeping included');
});
