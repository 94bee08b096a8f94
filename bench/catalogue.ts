/**
 * `npm run bench:catalogue`: product search on a shop of 100,000 products.
 *
 * Creates a throw-away database `pos_bench_<random>` on DATABASE_URL's server (default
 * postgres://postgres@127.0.0.1:5432/postgres; the role must be able to create databases and
 * extensions), migrates it, registers two shops through the API, seeds 100,000 products in the
 * first (and 10,000 in the second, so row-level security has rows to filter) with set-based SQL
 * through the products table (its triggers fill search_name and catalogue_codes), then starts the
 * real app as the pos_app role on a free port, as a process of its own (api/web.ts), and times sequential `GET /api/v1/products?q=` by name
 * prefix and by barcode. Prints the median and p99, the EXPLAIN (ANALYZE, BUFFERS) plans of both
 * searches as the app runs them, and whether each uses an index. The database is dropped at the end,
 * also on failure or Ctrl-C. Independent of the test runner.
 */
import http from 'node:http';
import postgres from 'postgres';
import { APP_DB_ROLE, createSql, type Sql, type Tx } from '../api/db.ts';
import { inTenant } from '../api/middleware/tenancy.ts';
import { listProducts } from '../api/products/queries.ts';
import { BenchRun, count, login, ms, register, say, send, SERVER_URL, summarize, type Timing } from './support.ts';

const PRODUCTS = 100_000;
const OTHER_SHOP_PRODUCTS = 10_000;
/** Products are inserted in batches, each its own transaction. */
const BATCH = 20_000;
const WARMUP = 30;
/** A p99 of 1,000 samples is their 10th slowest, not their 3rd. */
const SAMPLES = 1000;
/** The API's default page size, as a till asks for it. */
const PAGE_LIMIT = 50;

const CATEGORIES = ['Épicerie', 'Boissons', 'Produits laitiers', 'Hygiène et entretien', 'Conserves', 'Céréales et féculents'];

const SOLID = '125g|250g|500g|1kg|2kg|5kg|25kg';
const LIQUID = '33cl|50cl|65cl|1L|1,5L|5L';
const PIECE = 'à l\'unité|lot de 3|x6|x12|x24';
/** Base name, category (index in CATEGORIES), sizes it comes in. */
const BASES: [string, number, string][] = [
  ['Café Arabica', 0, SOLID], ['Café Robusta moulu', 0, SOLID], ['Riz parfumé', 5, SOLID], ['Riz brisé', 5, SOLID],
  ['Sucre en poudre', 0, SOLID], ['Sucre en morceaux', 0, SOLID], ['Farine de blé', 5, SOLID], ['Farine de manioc', 5, SOLID],
  ['Pâtes spaghetti', 5, SOLID], ['Macaronis', 5, SOLID], ['Semoule de maïs', 5, SOLID], ['Flocons d\'avoine', 5, SOLID],
  ['Thé vert à la menthe', 0, SOLID], ['Chocolat noir', 0, SOLID], ['Cacao en poudre', 0, SOLID], ['Sel iodé', 0, SOLID],
  ['Piment écrasé', 0, SOLID], ['Poivre de Penja', 0, SOLID], ['Cube bouillon', 0, PIECE], ['Arachides grillées', 0, SOLID],
  ['Huile d\'arachide', 0, LIQUID], ['Huile de palme raffinée', 0, LIQUID], ['Vinaigre de vin', 0, LIQUID], ['Miel d\'acacia', 0, SOLID],
  ['Eau minérale', 1, LIQUID], ['Jus d\'ananas', 1, LIQUID], ['Jus de goyave', 1, LIQUID], ['Bière blonde', 1, LIQUID],
  ['Limonade citron', 1, LIQUID], ['Boisson gazeuse orange', 1, LIQUID], ['Vin rouge de table', 1, LIQUID], ['Sirop de grenadine', 1, LIQUID],
  ['Lait concentré sucré', 2, SOLID], ['Lait en poudre entier', 2, SOLID], ['Yaourt nature', 2, PIECE], ['Crème fraîche épaisse', 2, SOLID],
  ['Beurre doux', 2, SOLID], ['Fromage fondu', 2, PIECE], ['Lait UHT demi-écrémé', 2, LIQUID], ['Œufs frais', 2, PIECE],
  ['Savon de Marseille', 3, PIECE], ['Savon noir', 3, PIECE], ['Lessive en poudre', 3, SOLID], ['Eau de Javel', 3, LIQUID],
  ['Dentifrice menthe fraîche', 3, PIECE], ['Shampooing doux', 3, LIQUID], ['Papier hygiénique', 3, PIECE], ['Liquide vaisselle', 3, LIQUID],
  ['Sardines à l\'huile', 4, PIECE], ['Tomate concentrée', 4, PIECE], ['Maquereaux à la tomate', 4, PIECE], ['Petits pois extra-fins', 4, PIECE],
  ['Haricots verts', 4, PIECE], ['Maïs doux', 4, PIECE], ['Corned-beef', 4, PIECE], ['Lait de coco', 4, LIQUID],
];
const QUALIFIERS = ['', '', '', 'bio', 'extra', 'premium', 'classique', 'du terroir', 'épicé', 'doux', 'allégé', 'familial', 'économique', 'sélection'];
const BRANDS = ['Saveurs du Mungo', 'Le Palmier', 'Soleil d\'Afrique', 'Étoile', 'Kribi', 'Bonamoussadi', 'Mont Cameroun',
  'La Ménagère', 'Dja', 'Sanaga', 'Maison Ngono', 'Bakery Élite', 'Le Baobab', 'Côte Sauvage', 'Délices d\'Adamaoua'];

const bench = new BenchRun('bench:catalogue');
const { database, ownerUrl } = bench;

let ownerSql: Sql | undefined;
let explainSql: Sql | undefined;
bench.closeAtEnd(() => explainSql?.end({ timeout: 1 }));
bench.closeAtEnd(() => ownerSql?.end({ timeout: 1 }));

/**
 * Seeds `total` products for the shop with set-based SQL as the owner, through the products table so
 * its triggers fill search_name and catalogue_codes. Barcodes are in-store EAN-13 codes
 * ('20' + the row number on 10 digits + check digit), so two shops seeded alike share codes.
 */
async function seedProducts(sql: Sql, shopId: string, total: number, seed: number): Promise<void> {
  const categoryIds = (
    await sql<{ id: string; sort_order: number }[]>`
      insert into categories (shop_id, name, sort_order)
      select ${shopId}, name, ord::int from unnest(${CATEGORIES}::text[]) with ordinality u(name, ord)
      returning id, sort_order`
  )
    .sort((a, b) => a.sort_order - b.sort_order)
    .map((row) => row.id);
  const bases = BASES.map(([name]) => name);
  const baseCategories = BASES.map(([, category]) => category + 1);
  const baseSizes = BASES.map(([, , sizes]) => sizes);
  for (let from = 1; from <= total; from += BATCH) {
    const to = Math.min(total, from + BATCH - 1);
    await sql.begin(async (tx) => {
      await tx`select setseed(${(seed + from / total) % 1})`;
      await tx`
        with pick as (
          select g,
                 1 + floor(random() * cardinality(${bases}::text[]))::int as b,
                 1 + floor(random() * cardinality(${QUALIFIERS}::text[]))::int as q,
                 1 + floor(random() * cardinality(${BRANDS}::text[]))::int as br,
                 random() as size_draw,
                 random() as price_draw,
                 random() as stock_draw
            from generate_series(${from}::int, ${to}::int) g
        ), sized as (
          select pick.*, string_to_array((${baseSizes}::text[])[b], '|') as sizes from pick
        ), coded as (
          select sized.*, '20' || lpad(g::text, 10, '0') as code12 from sized
        )
        insert into products (shop_id, name, sku, barcode, category_id, price_xaf, cost_xaf, vat_rate, unit, tracked, reorder_level)
        select ${shopId}::uuid,
               concat_ws(' ', (${bases}::text[])[b], nullif((${QUALIFIERS}::text[])[q], ''), (${BRANDS}::text[])[br],
                         sizes[1 + floor(size_draw * cardinality(sizes))::int]),
               'SKU-' || lpad(g::text, 6, '0'),
               code12 || ean13_check_digit(code12),
               (${categoryIds}::uuid[])[(${baseCategories}::int[])[b]],
               (round((150 + price_draw * 25000) / 25) * 25)::bigint,
               (round((150 + price_draw * 25000) * 0.75 / 25) * 25)::bigint,
               19.25,
               'piece',
               stock_draw > 0.1,
               floor(stock_draw * 10)
          from coded`;
    });
  }
}

/** What the seeding produced, checked against what the triggers must have done. */
async function checkSeed(sql: Sql, shopId: string, expected: number): Promise<{ products: number; codes: number }> {
  const [row] = await sql<{ products: number; bad_search: number; codes: number; barcodes: number; skus: number }[]>`
    select (select count(*)::int from products where shop_id = ${shopId} and deleted_at is null) as products,
           (select count(*)::int from products where shop_id = ${shopId} and (search_name = '' or search_name <> search_text(name))) as bad_search,
           (select count(*)::int from catalogue_codes where shop_id = ${shopId}) as codes,
           (select count(distinct barcode)::int from products where shop_id = ${shopId}) as barcodes,
           (select count(distinct sku)::int from products where shop_id = ${shopId}) as skus`;
  const problems: string[] = [];
  if (row!.products !== expected) problems.push(`${row!.products} products instead of ${expected}`);
  if (row!.bad_search !== 0) problems.push(`${row!.bad_search} products without the right search_name`);
  if (row!.codes !== 2 * expected) problems.push(`${row!.codes} catalogue codes instead of ${2 * expected}`);
  if (row!.barcodes !== expected || row!.skus !== expected) problems.push('SKUs or barcodes are not unique');
  if (problems.length > 0) throw new Error(`seeding went wrong: ${problems.join('; ')}`);
  return { products: row!.products, codes: row!.codes };
}

/** Sequential requests: `WARMUP` untimed, then `SAMPLES` timed, each checked by `check`. */
async function measure(
  baseUrl: string,
  token: string,
  values: string[],
  check: (value: string, data: any[]) => string | null,
): Promise<{ timing: Timing; rows: number; slowest: string }> {
  return timeEach(values, async (value, agent) => {
    const { status, text } = await send(agent, 'GET', new URL(`${baseUrl}/api/v1/products?q=${encodeURIComponent(value)}`), { authorization: `Bearer ${token}` });
    if (status !== 200) throw new Error(`GET /products?q=${value}: ${status} ${text}`);
    const data = (JSON.parse(text) as { data: any[] }).data;
    const problem = check(value, data);
    if (problem) throw new Error(`GET /products?q=${value}: ${problem}`);
    return data.length;
  });
}

/**
 * `run` for each value in turn, `WARMUP` untimed then the rest timed, on one keep-alive connection;
 * `run` answers how many rows it got.
 */
async function timeEach(
  values: string[],
  run: (value: string, agent: http.Agent) => Promise<number>,
): Promise<{ timing: Timing; rows: number; slowest: string }> {
  const samples: number[] = [];
  const timed: { value: string; elapsed: number; index: number }[] = [];
  let rows = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (const [index, value] of values.entries()) {
    const started = performance.now();
    const got = await run(value, agent);
    const elapsed = performance.now() - started;
    if (index >= WARMUP) {
      samples.push(elapsed);
      timed.push({ value, elapsed, index: index - WARMUP });
      rows += got;
    }
  }
  // The slowest requests, with what they asked and when (the n-th timed one): a tail of rare words
  // differs from one of passing stalls.
  const slowest = timed
    .sort((a, b) => b.elapsed - a.elapsed)
    .slice(0, 4)
    .map((sample) => `"${sample.value}" ${ms(sample.elapsed)} (#${sample.index + 1})`)
    .join(', ');
  return { timing: summarize(samples), rows: rows / samples.length, slowest };
}

/** The shop and user a request works in, as the app sets them for row-level security. */
type Scope = { shopId: string; userId: string };
/** A query as the driver sent it. */
type Captured = { text: string; parameters: unknown[] };

const setScope = (tx: Tx, scope: Scope) =>
  tx`select set_config('app.shop_id', ${scope.shopId}, true), set_config('app.user_id', ${scope.userId}, true)`;

/** The last products query the explain pool sent (its driver reports every query it sends). */
let captured: Captured | undefined;

/** The SQL text and parameters listProducts sends for this search, captured from the driver. */
async function listProductsQuery(q: string, scope: Scope): Promise<Captured> {
  explainSql ??= postgres(bench.appUrl, {
    max: 1,
    onnotice: () => {},
    debug: (_connection, text, parameters) => {
      if (/\bwith page as\b/.test(text)) captured = { text, parameters };
    },
  });
  captured = undefined;
  await explainSql.begin(async (tx) => {
    await setScope(tx, scope);
    await listProducts(tx, { q }, PAGE_LIMIT, null);
  });
  if (!captured) throw new Error('could not capture the SQL of listProducts');
  return captured;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the query, in a transaction of `sql`'s role with the shop and user set. */
async function explain(sql: Sql, query: Captured, scope: Scope): Promise<string[]> {
  return (await sql.begin(async (tx: Tx) => {
    await setScope(tx, scope);
    const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${query.text}`, query.parameters as any[]);
    return rows.map((row) => row['QUERY PLAN']);
  })) as string[];
}

/**
 * The plans of the statements run inside the functions the query calls (EXPLAIN shows a SECURITY
 * DEFINER function such as products_search as one "Function Scan"): the query is run as
 * pos_app (SET ROLE from the owner's session) with auto_explain reporting every nested statement's
 * plan, analyzed, as a notice. Loading auto_explain takes a superuser; a string says why it failed.
 */
async function nestedPlans(query: Captured, scope: Scope): Promise<string[][] | string> {
  const notices: string[] = [];
  const trace = postgres(ownerUrl, { max: 1, onnotice: (notice) => notices.push(String(notice.message)) });
  try {
    await trace.begin(async (tx) => {
      await tx.unsafe(`load 'auto_explain'`);
      for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on', "log_level = 'notice'"]) {
        await tx.unsafe(`set local auto_explain.${setting}`);
      }
      await setScope(tx, scope);
      await tx.unsafe(`set local role ${APP_DB_ROLE}`);
      notices.length = 0;
      await tx.unsafe(query.text, query.parameters as any[]);
    });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await trace.end({ timeout: 1 });
  }
  // Each notice is "duration: ... plan:", "Query Text: <statement>" (maybe several lines), then the
  // plan, whose first line carries the estimate. The query's own plan (reported when its portal
  // closes) is left out, and so are statements that touch neither products nor catalogue_codes.
  const plans: string[][] = [];
  for (const notice of notices) {
    const lines = notice.split('\n');
    const planStart = lines.findIndex((line, index) => index > 1 && /\((cost=|actual time=)|never executed/.test(line));
    if (!lines[1]?.startsWith('Query Text: ') || planStart < 0) continue;
    const statement = [lines[1].slice('Query Text: '.length), ...lines.slice(2, planStart)].join('\n').trim();
    const plan = lines.slice(planStart);
    if (statement === query.text.trim() || !plan.some((line) => /\b(products|catalogue_codes)\b/.test(line))) continue;
    plans.push([`-- ${statement.replace(/\s+/g, ' ')}`, ...plan]);
  }
  return plans;
}

const literal = (value: unknown) => (value === null || value === undefined ? 'null' : `'${String(value).replace(/'/g, "''")}'`);
let prepared = 0;

/**
 * The generic plan of the query: the app's driver prepares its statements, and PostgreSQL may switch
 * a prepared statement to a generic plan after five executions. Forced here, analyzed, as pos_app.
 */
async function genericPlan(query: Captured, scope: Scope): Promise<string[] | string> {
  const name = `bench_generic_${++prepared}`;
  try {
    return (await explainSql!.begin(async (tx: Tx) => {
      await setScope(tx, scope);
      await tx.unsafe('set local plan_cache_mode = force_generic_plan');
      await tx.unsafe(`prepare ${name} as ${query.text}`);
      const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(
        `explain (analyze, buffers) execute ${name} (${query.parameters.map(literal).join(', ')})`,
      );
      await tx.unsafe(`deallocate ${name}`);
      return rows.map((row) => row['QUERY PLAN']);
    })) as string[];
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function indexNames(sql: Sql, table: string): Promise<string[]> {
  return (await sql<{ indexname: string }[]>`select indexname from pg_indexes where schemaname = 'public' and tablename = ${table}`).map((row) => row.indexname);
}

/** A plan line without its arrow and cost estimate. */
const tidy = (line: string) => line.trim().replace(/^->\s*/, '').replace(/\s*\(cost=[^)]*\)/, '');

/** The plan lines that scan one of `indexes` (any kind of index scan), and those that read `table` sequentially. */
function scans(plan: string[], indexes: string[], table: string): { indexLines: string[]; seqLines: string[] } {
  const indexLines = plan.filter((line) => {
    const match = /(Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\S+)/.exec(line);
    return match !== null && indexes.includes(match[2]!);
  });
  // Sequential scans of the table, those that filter with LIKE (~~) first.
  const seqLines = plan
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => new RegExp(`Seq Scan on ${table}\\b`).test(line))
    .map(({ line, index }) => {
      const node = plan.slice(index + 1).findIndex((next) => next.includes('->'));
      const details = plan.slice(index + 1, node < 0 ? undefined : index + 1 + node);
      return { line, like: details.some((detail) => /Filter:.*~~/.test(detail)) };
    })
    .sort((a, b) => Number(b.like) - Number(a.like))
    .map(({ line }) => line);
  return { indexLines: indexLines.map(tidy), seqLines: seqLines.map(tidy) };
}

/** The plans of one search: the query as pos_app, the statements nested in its functions, and its generic plan. */
interface Plans {
  top: string[];
  nested: string[][] | string;
  generic: string[] | string;
}

async function plansOf(q: string, scope: Scope): Promise<Plans> {
  const query = await listProductsQuery(q, scope);
  return { top: await explain(explainSql!, query, scope), nested: await nestedPlans(query, scope), generic: await genericPlan(query, scope) };
}

function printPlans(title: string, plans: Plans): void {
  say();
  say(`EXPLAIN (ANALYZE, BUFFERS) of listProducts, ${title}, as ${APP_DB_ROLE} with app.shop_id and app.user_id set`);
  for (const line of plans.top) say(`  ${line}`);
  if (typeof plans.nested === 'string') {
    say(`  (the plans inside the functions it calls could not be traced: ${plans.nested})`);
  } else {
    for (const plan of plans.nested) {
      say('  -- a statement run inside a function the query calls (auto_explain, log_nested_statements):');
      for (const line of plan) say(`  ${line}`);
    }
  }
  if (typeof plans.generic === 'string') {
    say(`  (generic plan not available: ${plans.generic})`);
  } else {
    say('  -- its generic plan (a prepared statement may switch to it after 5 executions), scans only:');
    for (const line of plans.generic.filter((line) => /Scan|Execution Time/.test(line))) say(`    ${tidy(line)}`);
  }
}

/** Every plan line of a search: its own, its generic plan's and its functions'. */
const allLines = (plans: Plans) => [
  ...plans.top,
  ...(typeof plans.generic === 'string' ? [] : plans.generic),
  ...(typeof plans.nested === 'string' ? [] : plans.nested.flat()),
];

async function main(): Promise<void> {
  const started = performance.now();
  say('Catalogue search benchmark');
  say(`  server       ${new URL(SERVER_URL).host}`);
  say(`  database     ${database} (dropped at the end)`);

  await bench.createAndMigrate();
  say(`  migrated     in ${ms(performance.now() - started)}`);

  const app = await bench.spawnApp({ poolMax: 5, logLevel: process.env.BENCH_LOG_LEVEL || 'info' });
  const { baseUrl } = app;
  ownerSql = createSql(ownerUrl, { max: 1, applicationName: 'pos-bench-owner' });
  say(`  app          ${baseUrl}: api/web.ts in a process of its own, connected as ${APP_DB_ROLE}; requests from this process (node:http, keep-alive)`);

  const shop = await register(baseUrl, 'Supermarché Bench', `owner-${database}@bench.example`);
  const other = await register(baseUrl, 'Boutique Voisine', `other-${database}@bench.example`);

  const seedStarted = performance.now();
  await seedProducts(ownerSql, shop.shopId, PRODUCTS, 0.17);
  await seedProducts(ownerSql, other.shopId, OTHER_SHOP_PRODUCTS, 0.71);
  const seeded = await checkSeed(ownerSql, shop.shopId, PRODUCTS);
  await checkSeed(ownerSql, other.shopId, OTHER_SHOP_PRODUCTS);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  // As autovacuum would leave it: statistics, and the GIN index's pending list merged.
  await ownerSql`vacuum (analyze) products`;
  await ownerSql`vacuum (analyze) catalogue_codes`;
  await ownerSql`analyze categories`;
  await ownerSql`analyze variants`;
  // The seeding's writes flushed now rather than by a checkpoint during the timed requests.
  await ownerSql`checkpoint`;
  say(`  seeded       ${count(seeded.products)} products and ${count(seeded.codes)} catalogue codes in the benched shop, ` +
    `${count(OTHER_SHOP_PRODUCTS)} products in a second shop (same barcodes for its first ${count(OTHER_SHOP_PRODUCTS)}), ` +
    `in ${seedSeconds.toFixed(1)} s, then VACUUM ANALYZE`);
  const [sample] = await ownerSql<{ name: string }[]>`select name from products where shop_id = ${shop.shopId} order by random() limit 1`;
  say(`  e.g.         "${sample!.name}"`);

  const { token, userId } = await login(baseUrl, `owner-${database}@bench.example`);

  // Values to search: prefixes of 3 to 5 characters of real names, and real barcodes, all different.
  const total = WARMUP + SAMPLES;
  await ownerSql`select setseed(0.5)`;
  const names = await ownerSql<{ name: string }[]>`select name from products where shop_id = ${shop.shopId} order by random() limit ${total}`;
  const prefixes = names.map(({ name }, index) => name.slice(0, 3 + (index % 3)).trim());
  const barcodes = (
    await ownerSql<{ barcode: string }[]>`select barcode from products where shop_id = ${shop.shopId} order by random() limit ${total}`
  ).map((row) => row.barcode);

  say();
  say(`Latency of sequential requests to the running app (${WARMUP} warm-up, then ${SAMPLES} timed; page limit ${PAGE_LIMIT})`);
  const byName = await measure(baseUrl, token, prefixes, (_q, data) => (data.length === 0 ? 'no product found for a prefix of a real name' : null));
  say(`  GET /api/v1/products?q=<name prefix, 3-5 chars>  median ${ms(byName.timing.median)}  p99 ${ms(byName.timing.p99)}` +
    `  (min ${ms(byName.timing.min)}, max ${ms(byName.timing.max)}, ${byName.rows.toFixed(1)} products per answer)`);
  say(`    slowest: ${byName.slowest}`);
  const byBarcode = await measure(baseUrl, token, barcodes, (code, data) =>
    data.length === 1 && data[0].barcode === code ? null : `expected exactly the one product of this shop, got ${data.length}`,
  );
  say(`  GET /api/v1/products?q=<barcode, 13 digits>      median ${ms(byBarcode.timing.median)}  p99 ${ms(byBarcode.timing.p99)}` +
    `  (min ${ms(byBarcode.timing.min)}, max ${ms(byBarcode.timing.max)}, ${byBarcode.rows.toFixed(1)} product per answer)`);
  say(`    slowest: ${byBarcode.slowest}`);

  // What the same searches cost without HTTP: listProducts in the app's transaction (BEGIN, the
  // tenant pipelined with the query, COMMIT) from this process, as pos_app.
  const scope = { shopId: shop.shopId, userId };
  const dbSql = createSql(bench.appUrl, { max: 1, applicationName: 'pos-bench-direct' });
  bench.closeAtEnd(() => dbSql.end({ timeout: 1 }));
  const direct = (values: string[]) =>
    timeEach(values, async (value) => (await inTenant(dbSql, scope, (tx) => listProducts(tx, { q: value }, PAGE_LIMIT, null))).length);
  const byNameDirect = await direct(prefixes);
  const byBarcodeDirect = await direct(barcodes);
  say(`  the same in the database (listProducts in the app's transaction, no HTTP, no session check)`);
  say(`    name prefix  median ${ms(byNameDirect.timing.median)}  p99 ${ms(byNameDirect.timing.p99)}  (max ${ms(byNameDirect.timing.max)}; slowest ${byNameDirect.slowest})`);
  say(`    barcode      median ${ms(byBarcodeDirect.timing.median)}  p99 ${ms(byBarcodeDirect.timing.p99)}  (max ${ms(byBarcodeDirect.timing.max)}; slowest ${byBarcodeDirect.slowest})`);
  // The machine's floor: the same client and app, a request that does one `select 1` and nothing else.
  const floor = await timeEach(prefixes, async (_value, agent) => {
    const { status, text } = await send(agent, 'GET', new URL(`${baseUrl}/readyz`), {});
    if (status !== 200) throw new Error(`GET /readyz: ${status} ${text}`);
    return 0;
  });
  say(`  floor: GET /readyz (the same app and client, one select 1)  median ${ms(floor.timing.median)}  p99 ${ms(floor.timing.p99)}  (max ${ms(floor.timing.max)})`);

  // The second shop's searches: its candidates only are read, whatever the size of the first shop.
  const otherOwner = await login(baseUrl, `other-${database}@bench.example`);
  const otherNames = await ownerSql<{ name: string }[]>`select name from products where shop_id = ${other.shopId} order by random() limit ${total}`;
  const otherPrefixes = otherNames.map(({ name }, index) => name.slice(0, 3 + (index % 3)).trim());
  const byNameSmall = await measure(baseUrl, otherOwner.token, otherPrefixes, (_q, data) => (data.length === 0 ? 'no product found for a prefix of a real name' : null));
  say(`  the same, second shop (${count(OTHER_SHOP_PRODUCTS)} products)    median ${ms(byNameSmall.timing.median)}  p99 ${ms(byNameSmall.timing.p99)}` +
    `  (min ${ms(byNameSmall.timing.min)}, max ${ms(byNameSmall.timing.max)})`);
  say(`    slowest: ${byNameSmall.slowest}`);

  // The plans, of the very SQL listProducts sends, as pos_app with the shop and user set.
  const nameQ = prefixes[0]!;
  const barcodeQ = barcodes[0]!;
  const namePlans = await plansOf(nameQ, scope);
  const barcodePlans = await plansOf(barcodeQ, scope);
  printPlans(`name search q='${nameQ}'`, namePlans);
  printPlans(`barcode scan q='${barcodeQ}'`, barcodePlans);

  const codeIndexes = await indexNames(ownerSql, 'catalogue_codes');
  const barcodeTop = scans(barcodePlans.top, codeIndexes, 'catalogue_codes');
  const barcodeGeneric = typeof barcodePlans.generic === 'string' ? null : scans(barcodePlans.generic, codeIndexes, 'catalogue_codes');
  const barcodeProducts = scans(allLines(barcodePlans), ['products_name_keys_idx'], 'products');
  // A name's start is read from products_search_name_idx in order; a word inside it, from the shop's trigram keys.
  const NAME_INDEXES = ['products_search_name_idx', 'products_name_keys_idx'];
  const nameAll = scans(allLines(namePlans), NAME_INDEXES, 'products');
  const nameGeneric = typeof namePlans.generic === 'string' ? null : scans(namePlans.generic, NAME_INDEXES, 'products');
  const nameTraced = typeof namePlans.nested !== 'string' || nameAll.indexLines.length > 0;

  say();
  say('Verdict');
  say(`  products seeded: ${count(seeded.products)} (benched shop), ${count(OTHER_SHOP_PRODUCTS)} (second shop)`);
  say(`  GET /products?q=<name prefix>  median ${ms(byName.timing.median)}  p99 ${ms(byName.timing.p99)}`);
  say(`  GET /products?q=<name prefix>, second shop  median ${ms(byNameSmall.timing.median)}  p99 ${ms(byNameSmall.timing.p99)}`);
  say(`  GET /products?q=<barcode>      median ${ms(byBarcode.timing.median)}  p99 ${ms(byBarcode.timing.p99)}`);
  say(`  in the database: name ${ms(byNameDirect.timing.median)} / p99 ${ms(byNameDirect.timing.p99)}, barcode ${ms(byBarcodeDirect.timing.median)} / p99 ${ms(byBarcodeDirect.timing.p99)};` +
    ` floor (GET /readyz) ${ms(floor.timing.median)} / p99 ${ms(floor.timing.p99)}`);
  say(`  barcode lookup uses an index on catalogue_codes: ${barcodeTop.indexLines.length > 0 ? 'YES' : 'NO'}` +
    ` (${barcodeTop.indexLines[0] ?? barcodeTop.seqLines[0] ?? 'no scan of catalogue_codes found'})` +
    (barcodeGeneric ? `; generic plan: ${barcodeGeneric.indexLines.length > 0 ? 'YES' : 'NO'}` : ''));
  if (barcodeProducts.seqLines.length > 0) {
    say(`    but its name branch reads products sequentially: ${barcodeProducts.seqLines[0]}`);
  } else if (barcodeProducts.indexLines.length > 0) {
    say(`    and its name branch (the 13 digits as a name) uses the trigram index: ${barcodeProducts.indexLines[0]}`);
  }
  say(`  name search uses an index of the shop's names (${NAME_INDEXES.join(' or ')}): ${nameAll.indexLines.length > 0 ? 'YES' : nameTraced ? 'NO' : 'UNKNOWN'}` +
    ` (${nameAll.indexLines[0] ?? nameAll.seqLines[0] ?? (nameTraced ? 'no scan of those indexes found' : 'inside a function that could not be traced')})` +
    (nameGeneric && nameGeneric.indexLines.length + nameGeneric.seqLines.length > 0 ? `; generic plan: ${nameGeneric.indexLines.length > 0 ? 'YES' : 'NO'}` : ''));
  if (nameAll.indexLines.length === 0 && nameAll.seqLines.length > 0) {
    // Control: the same search as the table owner, whom row-level security does not bind.
    const nameQuery = await listProductsQuery(nameQ, scope);
    const owner = scans(await explain(ownerSql, nameQuery, scope), NAME_INDEXES, 'products');
    if (owner.indexLines.length > 0) {
      say(`    the table owner's identical query does use it (${owner.indexLines[0]}): under row-level security a condition`);
      say('    that is not leakproof, such as LIKE, is never an index condition. Run the search in a SECURITY DEFINER');
      say('    function that filters on app_shop_id() itself (see db/CONVENTIONS.md).');
    }
  }
  say(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

await bench.run(main);
