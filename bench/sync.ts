/**
 * `npm run bench:sync`: the initial pull of a catalogue of 50,000 products by a new device.
 *
 * Creates a throw-away database `pos_bench_<random>` on DATABASE_URL's server (default
 * postgres://postgres@127.0.0.1:5432/postgres; the role must be able to create databases and
 * extensions), migrates it, starts the real app as the pos_app role on a free port, registers two
 * shops through the API and seeds, with set-based SQL as the owner, 50,000 products, 300 categories,
 * 2,000 customers and 200 products with an option and 3 variants in the first, and 10,000 products,
 * 50 categories and 500 customers in the second (its batches interleaved with the first's, so the
 * (shop_id, txid, id) index must separate the shops). Pairs a device through the API as a till does,
 * then times full pulls from nothing (`GET /api/v1/device/sync/pull` until no `has_more`) with the
 * default page size (200) and with limit=1000, after one untimed warm-up pull. Each pull must bring
 * every live record of the shop exactly once and nothing else. Prints wall time, pages, bytes,
 * records per second and per-page p50/p99, then EXPLAIN (ANALYZE, BUFFERS) of the products page query
 * entityPage sends for a page in the middle of the catalogue, as pos_app with the shop set, custom
 * and generic plans: each must be an index range scan of catalogue_positions_sync_idx with the row comparison
 * as index condition (exit 1 otherwise). The database is dropped at the end, also on failure or
 * Ctrl-C. Independent of the test runner.
 */
import os from 'node:os';
import postgres from 'postgres';
import { APP_DB_ROLE, createSql, type Sql, type Tx } from '../api/db.ts';
import { enterTenant } from '../api/middleware/tenancy.ts';
import { entityPage, syncHorizon } from '../api/sync/queries.ts';
import { ENTITIES, PULL_DEFAULT_LIMIT, PULL_MAX_LIMIT, type EntityName } from '../api/sync/schemas.ts';
import { BenchRun, count, login, ms, percentile, register, request, say, SERVER_URL } from './support.ts';

const PRODUCTS = 50_000;
const CATEGORIES = 300;
const CUSTOMERS = 2_000;
/** Products given an option "Taille" (S, M, L) and its 3 variants. */
const VARIANT_PRODUCTS = 200;
const OTHER_SHOP = { products: 10_000, categories: 50, customers: 500 };
/** Products are inserted in this many transactions per shop, interleaved: 10 txids per shop. */
const BATCHES = 10;
const PAGE_SIZES = [PULL_DEFAULT_LIMIT, PULL_MAX_LIMIT];
/**
 * Where the explained page starts: after this many products in (txid, id) order, in the middle of
 * one seeding transaction's rows (the page continues within one txid, so the id half of the row
 * comparison does the work).
 */
const MIDDLE = PRODUCTS / 2 + PRODUCTS / BATCHES / 2;
/** A till that never catches up is a bug: stop there. */
const MAX_PAGES = 5_000;

const BASES = ['Café Arabica', 'Riz parfumé', 'Sucre en poudre', 'Farine de blé', 'Pâtes spaghetti', 'Huile d\'arachide', 'Eau minérale',
  'Jus d\'ananas', 'Bière blonde', 'Lait concentré sucré', 'Lait en poudre', 'Savon de Marseille', 'Lessive en poudre', 'Dentifrice menthe',
  'Sardines à l\'huile', 'Tomate concentrée', 'Cube bouillon', 'Chocolat noir', 'Sel iodé', 'Maïs doux', 'Papier hygiénique', 'Corned-beef'];
const BRANDS = ['Saveurs du Mungo', 'Le Palmier', 'Soleil d\'Afrique', 'Étoile', 'Kribi', 'Mont Cameroun', 'La Ménagère', 'Sanaga', 'Le Baobab'];
const SIZES = ['125g', '250g', '500g', '1kg', '5kg', '33cl', '50cl', '1L', '1,5L', 'x6', 'x12', 'à l\'unité'];
const FIRST_NAMES = ['Aïcha', 'Jean', 'Marie', 'Paul', 'Fatou', 'Emmanuel', 'Brigitte', 'Samuel', 'Ngono', 'Hervé', 'Chantal', 'Moussa'];
const LAST_NAMES = ['Mbarga', 'Nkoulou', 'Ewondo', 'Tchoumi', 'Fotso', 'Kamga', 'Njoya', 'Abena', 'Bello', 'Etoa', 'Manga', 'Onana'];

const bench = new BenchRun('bench:sync');
const { database, ownerUrl } = bench;

let ownerSql: Sql | undefined;
let explainSql: Sql | undefined;
bench.closeAtEnd(() => explainSql?.end({ timeout: 1 }));
bench.closeAtEnd(() => ownerSql?.end({ timeout: 1 }));

/** The entities a pull serves without include_sales; their tables have the same names. */
const PULLED = ENTITIES.filter((entity) => entity !== 'sales') as Exclude<EntityName, 'sales'>[];

async function seedCategories(sql: Sql, shopId: string, total: number): Promise<string[]> {
  return (
    await sql<{ id: string }[]>`
      insert into categories (shop_id, name, sort_order)
      select ${shopId}::uuid, 'Rayon ' || lpad(g::text, 3, '0'), g from generate_series(1, ${total}::int) g
      returning id`
  ).map((row) => row.id);
}

/**
 * Products `from`..`to` of the shop in one transaction (so they share one txid), through the
 * products table so its triggers fill search_name and catalogue_codes. Barcodes are in-store EAN-13
 * codes ('20' + the row number on 10 digits + check digit).
 */
async function seedProducts(sql: Sql, shopId: string, from: number, to: number, categoryIds: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select setseed(${(from / (to + 1)) % 1})`;
    await tx`
      with pick as (
        select g, '20' || lpad(g::text, 10, '0') as code12, random() as price_draw, random() as stock_draw,
               1 + floor(random() * cardinality(${BASES}::text[]))::int as b,
               1 + floor(random() * cardinality(${BRANDS}::text[]))::int as br,
               1 + floor(random() * cardinality(${SIZES}::text[]))::int as s
          from generate_series(${from}::int, ${to}::int) g
      )
      insert into products (shop_id, name, sku, barcode, category_id, price_xaf, cost_xaf, vat_rate, unit, tracked, reorder_level)
      select ${shopId}::uuid,
             concat_ws(' ', (${BASES}::text[])[b], (${BRANDS}::text[])[br], (${SIZES}::text[])[s]),
             'SKU-' || lpad(g::text, 6, '0'),
             code12 || ean13_check_digit(code12),
             (${categoryIds}::uuid[])[1 + g % cardinality(${categoryIds}::uuid[])],
             (round((150 + price_draw * 25000) / 25) * 25)::bigint,
             (round((150 + price_draw * 25000) * 0.75 / 25) * 25)::bigint,
             19.25, 'piece', stock_draw > 0.1, floor(stock_draw * 10)
        from pick`;
  });
}

/** An option "Taille" (S, M, L) and its three variants on the shop's first `total` products by SKU. */
async function seedVariants(sql: Sql, shopId: string, total: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      create temporary table bench_variant_products on commit drop as
      select id, sku, price_xaf from products where shop_id = ${shopId} order by sku limit ${total}`;
    await tx`
      insert into product_options (shop_id, product_id, name, "values", position)
      select ${shopId}::uuid, id, 'Taille', array['S', 'M', 'L'], 0 from bench_variant_products`;
    await tx`
      insert into variants (shop_id, product_id, options, sku, price_xaf)
      select ${shopId}::uuid, p.id, jsonb_build_object('Taille', size), p.sku || '-' || size, p.price_xaf + step * 100
        from bench_variant_products p, unnest(array['S', 'M', 'L']) with ordinality u(size, step)`;
  });
}

async function seedCustomers(sql: Sql, shopId: string, total: number, seed: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select setseed(${seed})`;
    await tx`
      insert into customers (shop_id, name, phone, card_no, credit_ceiling_xaf)
      select ${shopId}::uuid,
             (${FIRST_NAMES}::text[])[1 + floor(random() * cardinality(${FIRST_NAMES}::text[]))::int] || ' ' ||
               (${LAST_NAMES}::text[])[1 + floor(random() * cardinality(${LAST_NAMES}::text[]))::int],
             '+2376' || lpad(g::text, 8, '0'),
             case when g % 3 = 0 then 'CARTE-' || lpad(g::text, 6, '0') end,
             case when g % 5 = 0 then 50000 else 0 end
        from generate_series(1, ${total}::int) g`;
  });
}

/** Each pulled entity's live records in the shop, by id (what a new till must end up with). */
async function liveIds(sql: Sql, shopId: string): Promise<Record<string, Set<string>>> {
  const result: Record<string, Set<string>> = {};
  for (const entity of PULLED) {
    const rows = await sql<{ id: string }[]>`select id from ${sql(entity)} where shop_id = ${shopId} and deleted_at is null`;
    result[entity] = new Set(rows.map((row) => row.id));
  }
  return result;
}

/**
 * A pull serves only rows below the horizon (every transaction with a smaller id has ended), and
 * the horizon is the whole server's: a long transaction elsewhere on the server holds it back.
 * Waits (at most a minute) until every seeded row is below it.
 */
async function waitForHorizon(sql: Sql, shopId: string): Promise<void> {
  let newest = '0';
  for (const entity of PULLED) {
    const [row] = await sql<{ newer: boolean; txid: string | null }[]>`
      select max(txid)::text as txid, max(txid) > ${newest}::xid8 as newer from ${sql(entity)} where shop_id = ${shopId}`;
    if (row!.newer) newest = row!.txid!;
  }
  const deadline = performance.now() + 60_000;
  for (;;) {
    const [state] = await sql<{ below: boolean; horizon: string }[]>`
      select ${newest}::xid8 < pg_snapshot_xmin(pg_current_snapshot()) as below, pg_snapshot_xmin(pg_current_snapshot())::text as horizon`;
    if (state!.below) return;
    if (performance.now() > deadline) {
      throw new Error(`the sync horizon (${state!.horizon}) stays at or below the seeded rows' txid ${newest}: a transaction on the server has been open for a minute`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A device paired as a till does it: pairing request, claim by the owner, poll with the secret. */
async function pairDevice(baseUrl: string, ownerToken: string): Promise<{ id: string; token: string }> {
  const pairing = await request(baseUrl, 'POST', '/device-pairings', { body: { name: 'Caisse bench', platform: 'pwa' } });
  if (pairing.status !== 201) throw new Error(`pairing failed: ${pairing.status} ${JSON.stringify(pairing.body)}`);
  const { code, poll_secret } = pairing.body.data as { code: string; poll_secret: string };
  const claimed = await request(baseUrl, 'POST', `/device-pairings/${code}/claim`, { token: ownerToken });
  if (claimed.status !== 201) throw new Error(`claim failed: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const response = await fetch(`${baseUrl}/api/v1/device-pairings/${code}`, { headers: { 'x-pairing-secret': poll_secret } });
  const polled = (await response.json()) as any;
  if (response.status !== 200 || !polled.data?.device?.token) throw new Error(`poll failed: ${response.status} ${JSON.stringify(polled)}`);
  return polled.data.device as { id: string; token: string };
}

/** One full pull from nothing, as a new till does it. */
interface PullRun {
  limit: number;
  pages: number;
  bytes: number;
  seconds: number;
  /** Per-page latency: request sent to body read. */
  latencies: number[];
  records: Record<string, number>;
  received: Record<string, Set<string>>;
  deletions: number;
}

async function fullPull(baseUrl: string, deviceToken: string, limit: number): Promise<PullRun> {
  const run: PullRun = {
    limit,
    pages: 0,
    bytes: 0,
    seconds: 0,
    latencies: [],
    records: Object.fromEntries(ENTITIES.map((entity) => [entity, 0])),
    received: Object.fromEntries(ENTITIES.map((entity) => [entity, new Set<string>()])),
    deletions: 0,
  };
  let cursor: string | undefined;
  const started = performance.now();
  for (;;) {
    if (run.pages >= MAX_PAGES) throw new Error(`limit=${limit}: still has_more after ${MAX_PAGES} pages`);
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { since: cursor } : {}) });
    const sent = performance.now();
    const response = await fetch(`${baseUrl}/api/v1/device/sync/pull?${query}`, { headers: { authorization: `Device ${deviceToken}` } });
    const raw = new Uint8Array(await response.arrayBuffer());
    run.latencies.push(performance.now() - sent);
    run.pages++;
    run.bytes += raw.byteLength;
    const text = new TextDecoder().decode(raw);
    if (response.status !== 200) throw new Error(`limit=${limit}, page ${run.pages}: ${response.status} ${text.slice(0, 500)}`);
    const body = JSON.parse(text) as { data: Record<string, { id: string; deleted_at: string | null }[]>; has_more: Record<string, boolean>; cursor: string };
    for (const entity of ENTITIES) {
      for (const record of body.data[entity] ?? []) {
        run.records[entity]!++;
        if (record.deleted_at) run.deletions++;
        run.received[entity]!.add(record.id);
      }
    }
    cursor = body.cursor;
    if (!ENTITIES.some((entity) => body.has_more[entity])) break;
  }
  run.seconds = (performance.now() - started) / 1000;
  return run;
}

/** What is wrong with a pull: every live record of the shop exactly once, nothing else, no deletion. */
function problemsOf(run: PullRun, expected: Record<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const entity of ENTITIES) {
    const received = run.received[entity]!;
    const want = expected[entity] ?? new Set<string>();
    const duplicates = run.records[entity]! - received.size;
    if (duplicates > 0) problems.push(`${entity}: ${count(duplicates)} records received more than once`);
    const foreign = [...received].filter((id) => !want.has(id)).length;
    if (foreign > 0) problems.push(`${entity}: ${count(foreign)} records that are not live records of the shop`);
    const missing = [...want].filter((id) => !received.has(id)).length;
    if (missing > 0) problems.push(`${entity}: ${count(missing)} of ${count(want.size)} live records never received`);
  }
  if (run.deletions > 0) problems.push(`${run.deletions} deletions sent to a new device`);
  return problems;
}

/** A query as the driver sent it. */
type Captured = { text: string; parameters: unknown[] };
let captured: Captured | undefined;

/** pos_app, one connection, reporting the products page query it sends (its driver reports every query). */
function explainPool(): Sql {
  return (explainSql ??= postgres(bench.appUrl, {
    max: 1,
    onnotice: () => {},
    types: {
      int8: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
      numeric: { to: 1700, from: [1700], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
    },
    debug: (_connection, text, parameters) => {
      if (/\bjoin "products" p\b/.test(text) && /order by cp\.txid, cp\.item_id/.test(text)) captured = { text, parameters };
    },
  }) as unknown as Sql);
}

/**
 * The products page a new device asks for in the middle of its first pull: after the MIDDLE-th
 * product in (txid, id) order, below the current horizon, its floor the horizon of its first pull
 * (taken here as the same). The SQL is entityPage's own, captured from the driver.
 */
async function middlePageQuery(shopId: string, limit: number): Promise<{ query: Captured; horizon: string; from: { txid: string; id: string } }> {
  const [position] = await ownerSql!<{ txid: string; id: string }[]>`
    select txid::text as txid, id from products where shop_id = ${shopId} order by txid, id offset ${MIDDLE - 1} limit 1`;
  const from = position!;
  captured = undefined;
  let horizon = '';
  await explainPool().begin(async (tx: Tx) => {
    await enterTenant(tx, { shopId, userId: null });
    horizon = await syncHorizon(tx);
    await entityPage(tx, 'products', { ...from, floor: horizon }, horizon, limit, null);
  });
  if (!captured) throw new Error('could not capture the SQL of entityPage for products');
  return { query: captured, horizon, from };
}

/** EXPLAIN (ANALYZE, BUFFERS) as pos_app with the shop set, as the app's request transaction has it. */
async function explain(query: Captured, shopId: string): Promise<string[]> {
  return (await explainPool().begin(async (tx: Tx) => {
    await enterTenant(tx, { shopId, userId: null });
    const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${query.text}`, query.parameters as any[]);
    return rows.map((row) => row['QUERY PLAN']);
  })) as string[];
}

const literal = (value: unknown) => (value === null || value === undefined ? 'null' : `'${String(value).replace(/'/g, "''")}'`);

/**
 * The generic plan: the app's driver prepares its statements and every page sends the same text, so
 * PostgreSQL may switch to a generic plan after five executions. Forced here, analyzed, as pos_app.
 */
async function genericPlan(query: Captured, shopId: string): Promise<string[]> {
  return (await explainPool().begin(async (tx: Tx) => {
    await enterTenant(tx, { shopId, userId: null });
    await tx.unsafe('set local plan_cache_mode = force_generic_plan');
    await tx.unsafe(`prepare bench_sync_page as ${query.text}`);
    const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) execute bench_sync_page (${query.parameters.map(literal).join(', ')})`);
    await tx.unsafe('deallocate bench_sync_page');
    return rows.map((row) => row['QUERY PLAN']);
  })) as string[];
}

/** A plan line without its arrow and cost estimate. */
const tidy = (line: string) => line.trim().replace(/^->\s*/, '').replace(/\s*\(cost=[^)]*\)/, '');

/** What the products page plan does: its scan of catalogue_positions_sync_idx and index condition, and what it must not do. */
function checkPlan(plan: string[]): { scan: string | null; indexCond: string | null; problems: string[] } {
  const at = plan.findIndex((line) => /Index (Only )?Scan using catalogue_positions_sync_idx on catalogue_positions\b/.test(line));
  const scan = at < 0 ? null : tidy(plan[at]!);
  let indexCond: string | null = null;
  if (at >= 0) {
    for (const line of plan.slice(at + 1)) {
      if (line.includes('->')) break;
      if (line.trim().startsWith('Index Cond:')) indexCond = line.trim();
    }
  }
  const problems: string[] = [];
  if (!scan) problems.push('no Index Scan on catalogue_positions_sync_idx');
  else if (!indexCond || !/ROW\(.*txid.*id\) > ROW\(/.test(indexCond)) problems.push('the row comparison (txid, id) > (...) is not an index condition');
  const seq = plan.find((line) => /Seq Scan on products\b/.test(line));
  if (seq) problems.push(`a sequential scan of products: ${tidy(seq)}`);
  const sort = plan.find((line) => /^\s*(->\s*)?(Incremental )?Sort\s+\(/.test(line));
  if (sort) problems.push(`a sort: ${tidy(sort)}`);
  return { scan, indexCond, problems };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

async function main(): Promise<void> {
  const started = performance.now();
  const cpus = os.cpus();
  say(`Sync benchmark: initial pull of ${count(PRODUCTS)} products by a new device`);
  say(`  machine      ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `Node ${process.version}, ${os.platform()} ${os.release()}`);
  say(`  server       ${new URL(SERVER_URL).host}`);
  say(`  database     ${database} (dropped at the end)`);

  await bench.createAndMigrate();
  ownerSql = createSql(ownerUrl, { max: 1, applicationName: 'pos-bench-owner' });
  const [server] = await ownerSql<{ server_version: string; shared_buffers: string }[]>`
    select current_setting('server_version') as server_version, current_setting('shared_buffers') as shared_buffers`;
  say(`  PostgreSQL   ${server!.server_version} (shared_buffers ${server!.shared_buffers})`);
  say(`  migrated     in ${ms(performance.now() - started)}`);

  const app = await bench.startApp({ poolMax: 4, applicationName: 'pos-bench' });
  const { baseUrl } = app;
  say(`  app          ${baseUrl}, connected as ${APP_DB_ROLE}`);

  const shop = await register(baseUrl, 'Supermarché Bench', `owner-${database}@bench.example`);
  const other = await register(baseUrl, 'Boutique Voisine', `other-${database}@bench.example`);

  const seedStarted = performance.now();
  const categoryIds = await seedCategories(ownerSql, shop.shopId, CATEGORIES);
  const otherCategoryIds = await seedCategories(ownerSql, other.shopId, OTHER_SHOP.categories);
  const perBatch = PRODUCTS / BATCHES;
  const otherPerBatch = OTHER_SHOP.products / BATCHES;
  for (let batch = 0; batch < BATCHES; batch++) {
    await seedProducts(ownerSql, shop.shopId, batch * perBatch + 1, (batch + 1) * perBatch, categoryIds);
    await seedProducts(ownerSql, other.shopId, batch * otherPerBatch + 1, (batch + 1) * otherPerBatch, otherCategoryIds);
  }
  await seedVariants(ownerSql, shop.shopId, VARIANT_PRODUCTS);
  await seedCustomers(ownerSql, shop.shopId, CUSTOMERS, 0.23);
  await seedCustomers(ownerSql, other.shopId, OTHER_SHOP.customers, 0.61);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  for (const table of PULLED) await ownerSql`vacuum (analyze) ${ownerSql(table)}`;
  await ownerSql`vacuum (analyze) catalogue_codes`;
  const expected = await liveIds(ownerSql, shop.shopId);
  if (expected.products!.size !== PRODUCTS) throw new Error(`seeding went wrong: ${expected.products!.size} products instead of ${PRODUCTS}`);
  const [txids] = await ownerSql<{ txids: number }[]>`select count(distinct txid)::int as txids from products where shop_id = ${shop.shopId}`;
  say(`  seeded       ${PULLED.map((entity) => `${count(expected[entity]!.size)} ${entity}`).join(', ')} in the benched shop ` +
    `(products in ${txids!.txids} transactions); ${count(OTHER_SHOP.products)} products, ${OTHER_SHOP.categories} categories and ` +
    `${count(OTHER_SHOP.customers)} customers in a second shop, interleaved; in ${seedSeconds.toFixed(1)} s, then VACUUM ANALYZE`);

  const owner = await login(baseUrl, `owner-${database}@bench.example`);
  const device = await pairDevice(baseUrl, owner.token);
  say(`  device       ${device.id}, paired through /device-pairings (claimed by the owner)`);
  await waitForHorizon(ownerSql, shop.shopId);

  say();
  say('Full pulls from nothing: GET /api/v1/device/sync/pull?limit=<n>&since=<cursor> until no has_more, sequential');
  const warmup = await fullPull(baseUrl, device.token, PULL_MAX_LIMIT);
  const warmupProblems = problemsOf(warmup, expected);
  if (warmupProblems.length > 0) throw new Error(`warm-up pull, limit=${PULL_MAX_LIMIT}: ${warmupProblems.join('; ')}`);
  say(`  warm-up (untimed) limit=${PULL_MAX_LIMIT}: ${warmup.pages} pages in ${warmup.seconds.toFixed(2)} s`);

  const runs: PullRun[] = [];
  for (const limit of PAGE_SIZES) {
    const run = await fullPull(baseUrl, device.token, limit);
    const problems = problemsOf(run, expected);
    const sorted = [...run.latencies].sort((a, b) => a - b);
    const total = ENTITIES.reduce((sum, entity) => sum + run.records[entity]!, 0);
    say(`  limit=${String(limit).padEnd(5)} ${run.pages} pages, ${run.seconds.toFixed(2)} s, ${mb(run.bytes)} (${count(Math.round(run.bytes / run.records.products!))} bytes per product), ` +
      `${count(Math.round(total / run.seconds))} records/s; per page p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1]!)}`);
    say(`               received ${ENTITIES.map((entity) => `${count(run.records[entity]!)} ${entity}`).join(', ')}`);
    if (problems.length > 0) throw new Error(`pull with limit=${limit}: ${problems.join('; ')}`);
    say(`               every live record of the shop exactly once (${count(run.received.products!.size)} distinct products), none of the other shop's, no deletion: OK`);
    runs.push(run);
  }

  // The plan of a page in the middle of the catalogue, the very SQL entityPage sends, as pos_app.
  const middle = await middlePageQuery(shop.shopId, PULL_DEFAULT_LIMIT);
  const custom = await explain(middle.query, shop.shopId);
  const generic = await genericPlan(middle.query, shop.shopId);
  say();
  say(`The products page query of entityPage (api/sync/queries.ts), captured from the driver; parameters ${JSON.stringify(middle.query.parameters)}`);
  for (const line of middle.query.text.split('\n')) if (line.trim()) say(`  ${line.trimEnd()}`);
  say();
  say(`EXPLAIN (ANALYZE, BUFFERS), page after product ${count(MIDDLE)} of ${count(PRODUCTS)} (txid ${middle.from.txid}, id ${middle.from.id}), ` +
    `horizon ${middle.horizon}, limit ${PULL_DEFAULT_LIMIT}, as ${APP_DB_ROLE} with app.shop_id set`);
  for (const line of custom) say(`  ${line}`);
  say('  -- its generic plan (the driver prepares the statement; PostgreSQL may switch to it after 5 executions):');
  for (const line of generic) say(`  ${line}`);
  const customCheck = checkPlan(custom);
  const genericCheck = checkPlan(generic);

  say();
  say(`Results (${os.availableParallelism()} cores, PostgreSQL ${server!.server_version}, database ${database}, one run each)`);
  const rows: [string, ...string[]][] = [
    ['products in the shop (second shop)', ...runs.map(() => `${count(PRODUCTS)} (${count(OTHER_SHOP.products)})`)],
    ['page size (limit)', ...runs.map((run) => String(run.limit))],
    ['pages (requests)', ...runs.map((run) => count(run.pages))],
    ['total time', ...runs.map((run) => `${run.seconds.toFixed(2)} s`)],
    ['response bytes', ...runs.map((run) => mb(run.bytes))],
    ['records/s (all entities)', ...runs.map((run) => count(Math.round(ENTITIES.reduce((sum, entity) => sum + run.records[entity]!, 0) / run.seconds)))],
    ['products/s', ...runs.map((run) => count(Math.round(run.records.products! / run.seconds)))],
    ['per-page p50', ...runs.map((run) => ms(percentile([...run.latencies].sort((a, b) => a - b), 50)))],
    ['per-page p99', ...runs.map((run) => ms(percentile([...run.latencies].sort((a, b) => a - b), 99)))],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const columns = PAGE_SIZES.map((limit) => `limit=${limit}`);
  const columnWidth = Math.max(...rows.flatMap(([, ...values]) => values.map((value) => value.length)), ...columns.map((column) => column.length));
  say(`  ${'measure'.padEnd(width)}  ${columns.map((column) => column.padStart(columnWidth)).join('  ')}`);
  say(`  ${'-'.repeat(width)}  ${columns.map(() => '-'.repeat(columnWidth)).join('  ')}`);
  for (const [label, ...values] of rows) say(`  ${label.padEnd(width)}  ${values.map((value) => value.padStart(columnWidth)).join('  ')}`);
  say(`  products page, custom plan:  ${customCheck.scan ?? 'no scan of catalogue_positions_sync_idx'}`);
  say(`                               ${customCheck.indexCond ?? ''}`);
  say(`  products page, generic plan: ${genericCheck.scan ?? 'no scan of catalogue_positions_sync_idx'}`);
  say(`                               ${genericCheck.indexCond ?? ''}`);
  const problems = [...customCheck.problems.map((p) => `custom plan: ${p}`), ...genericCheck.problems.map((p) => `generic plan: ${p}`)];
  if (problems.length > 0) throw new Error(`the products page is not an index range scan of catalogue_positions_sync_idx: ${problems.join('; ')}`);
  say('  each page is an index range scan of catalogue_positions_sync_idx, the row comparison an index condition: YES');
  say(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

await bench.run(main);
