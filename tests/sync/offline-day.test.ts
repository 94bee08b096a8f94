import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, createCategory, createProduct, ledgerInvariants, postVariant, staffedShop, waitFor, type StaffFixture } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { catchUp, emptyReplica, ENTITIES, pairDevice, push, type Entity, type PairedDevice, type Replica, type SyncAuth } from './sync-fixtures.ts';

const api = await startService(t);

/**
 * A simulated offline day: two tills pull the catalogue, lose the network, each record 100 sales and
 * 5 new customers while the owner changes the catalogue on the server, then push with retries,
 * re-sent batches and overlapping concurrent requests, and pull again. Afterwards every sale exists
 * once, the stock and the journal add up, and both tills hold what the server holds. The day is
 * drawn from a seeded generator: OFFLINE_DAY_SEED replays another one.
 */
const SEED = Number(process.env.OFFLINE_DAY_SEED ?? 20_260_611);

/** mulberry32: a small seeded generator, so a failing day can be replayed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof generator>;

const HOUR = 60 * 60 * 1000;
const SALES_PER_TILL = 100;
const CUSTOMERS_PER_TILL = 5;

/** The shop's catalogue: name, price (VAT included), opening stock, category. Some stocks are small, so the day drives them negative. */
const CATALOGUE: { name: string; price: number; stock: number; category: number; unit?: 'kg' }[] = [
  { name: 'Riz parfumé 5 kg', price: 4500, stock: 40, category: 0 },
  { name: 'Huile Mayor 1 L', price: 1350, stock: 3, category: 0 },
  { name: 'Sucre en morceaux', price: 900, stock: 60, category: 0 },
  { name: 'Lait Nido 400 g', price: 2750, stock: 2, category: 0 },
  { name: 'Tomate concentrée', price: 250, stock: 80, category: 0 },
  { name: 'Sardines à l\'huile', price: 600, stock: 4, category: 0 },
  { name: 'Spaghetti 500 g', price: 450, stock: 70, category: 0 },
  { name: 'Cube Maggi (boîte)', price: 1200, stock: 30, category: 0 },
  { name: 'Farine de blé 1 kg', price: 700, stock: 3, category: 0 },
  { name: 'Sucre en vrac', price: 800, stock: 12, category: 0, unit: 'kg' },
  { name: 'Eau minérale 1,5 L', price: 400, stock: 90, category: 1 },
  { name: 'Bière Export 65 cl', price: 650, stock: 75, category: 1 },
  { name: 'Soda 50 cl', price: 500, stock: 2, category: 1 },
  { name: 'Café moulu 250 g', price: 2100, stock: 25, category: 1 },
  { name: 'Thé vert (boîte)', price: 1500, stock: 35, category: 1 },
  { name: 'Savon de ménage', price: 300, stock: 60, category: 2 },
  { name: 'Dentifrice 75 ml', price: 950, stock: 3, category: 2 },
  { name: 'Papier hygiénique x4', price: 1100, stock: 45, category: 2 },
  { name: 'Lessive 1 kg', price: 1800, stock: 28, category: 2 },
  { name: 'Bougies (paquet)', price: 350, stock: 50, category: 2 },
];
const T_SHIRTS = { S: { price: 3000, stock: 5 }, M: { price: 3000, stock: 8 }, L: { price: 3500, stock: 2 } };

// ---------------------------------------------------------------------------------------------
// The tills

type Kind = 'customers' | 'sales';

/** A record a till made offline, waiting in its outbox. */
interface Outgoing {
  entity: Kind;
  id: string;
  at: number;
  body: Record<string, any>;
}

/** What the till charged for one line, in thousandths of a unit for the stock. */
interface Line {
  key: string;
  milli: number;
}

/** The model of a sale: what the till charged, who owes what, and the stock it takes. */
interface ModelSale {
  id: string;
  till: string;
  total: number;
  credit: number;
  customerId: string | null;
  lines: Line[];
  body: Record<string, any>;
}

interface Till {
  name: string;
  device: PairedDevice;
  auth: SyncAuth;
  replica: Replica;
  user: StaffFixture;
  outbox: Outgoing[];
}

/** Each answer a record got, in the order answered. */
interface Answer {
  status: 'applied' | 'duplicate' | 'rejected';
  code?: string;
  receipt_no?: number;
  request: string;
}

const answers = new Map<string, Answer[]>();
const protocolProblems: string[] = [];
const requestFailures: string[] = [];

/** A record refused by one request. */
interface Rejection {
  till: string;
  request: string;
  entity: Kind;
  id: string;
  code?: string;
  errors?: Record<string, string[]>;
}
const rejections: Rejection[] = [];

/** Requests a till sends while another of its requests with some of the same records may be in flight. */
const CONCURRENT = new Set(['batch 1', 'batch 1 retried while in flight', 'batches 2 and 3a', 'batches 2b and 3']);

const stockKey = (productId: string, variantId: string | null) => variantId ?? productId;

/**
 * One push of a till, as a request: the records go in the body grouped as the API wants them, and
 * each answer is filed under its record. Checks the protocol on the way: 200, one result per record,
 * customers first, then sales, each in the order sent.
 */
async function send(till: Till, records: Outgoing[], request: string): Promise<any[]> {
  const customers = records.filter((r) => r.entity === 'customers');
  const sales = records.filter((r) => r.entity === 'sales');
  const reply: Reply = await push(api, till.auth, {
    ...(customers.length ? { customers: customers.map((r) => r.body) } : {}),
    ...(sales.length ? { sales: sales.map((r) => r.body) } : {}),
  });
  if (reply.status !== 200) {
    requestFailures.push(`${till.name} ${request}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return [];
  }
  const results: any[] = reply.body?.data?.results ?? [];
  const expected = [...customers, ...sales];
  if (results.length !== expected.length) protocolProblems.push(`${till.name} ${request}: ${results.length} results for ${expected.length} records`);
  expected.forEach((record, index) => {
    const result = results[index];
    if (!result || result.id !== record.id || result.entity !== record.entity) {
      protocolProblems.push(`${till.name} ${request}: result ${index} is ${JSON.stringify(result)}, expected ${record.entity} ${record.id}`);
      return;
    }
    const list = answers.get(record.id) ?? [];
    list.push({ status: result.status, ...(result.code ? { code: result.code } : {}), ...(result.receipt_no !== undefined ? { receipt_no: result.receipt_no } : {}), request: `${till.name} ${request}` });
    answers.set(record.id, list);
    if (result.status === 'rejected') {
      rejections.push({ till: till.name, request, entity: record.entity, id: record.id, ...(result.code ? { code: result.code } : {}), ...(result.errors ? { errors: result.errors } : {}) });
    }
  });
  return results;
}

const statuses = (results: any[]) => results.map((r) => r.status);
const synced = (id: string) => (answers.get(id) ?? []).some((a) => a.status === 'applied' || a.status === 'duplicate');

/** A batch of the outbox, by position. */
const slice = (till: Till, from: number, to: number) => till.outbox.slice(from, to);

interface Checks {
  /** Answers to records re-sent after the server confirmed them (every one must be duplicate). */
  resent: { request: string; statuses: string[]; receipts: [string, number | undefined][] }[];
}

/** Sends records again and files the answers to those the server had already confirmed. */
async function resend(till: Till, records: Outgoing[], request: string, checks: Checks): Promise<void> {
  const confirmed = new Set(records.filter((record) => synced(record.id)).map((record) => record.id));
  const results = (await send(till, records, request)).filter((result) => confirmed.has(result.id));
  checks.resent.push({ request: `${till.name} ${request}`, statuses: statuses(results), receipts: results.map((r) => [r.id, r.receipt_no]) });
}

/**
 * How a till with a flaky connection pushes its outbox: a batch, the same batch again after a lost
 * response, a retry fired while the first request still runs, two overlapping batches at once, a
 * re-send of everything, and finally whatever is still not confirmed, until it is.
 */
async function pushDay(till: Till, checks: Checks): Promise<void> {
  const size = Math.ceil(till.outbox.length / 7);
  const batch = (n: number) => slice(till, n * size, (n + 1) * size);

  // Batch 0, then its response is lost: the till sends it again.
  await send(till, batch(0), 'batch 0');
  await resend(till, batch(0), 'batch 0 re-sent after a lost response', checks);

  // Batch 1: the till times out and retries while the first request is still running.
  await Promise.all([send(till, batch(1), 'batch 1'), send(till, batch(1), 'batch 1 retried while in flight')]);

  // Batches 2 and 3 at once, overlapping: the first carries all of 2 and half of 3, the second the rest of 2 and all of 3.
  const half2 = Math.floor(batch(2).length / 2);
  const half3 = Math.floor(batch(3).length / 2);
  await Promise.all([
    send(till, [...batch(2), ...batch(3).slice(0, half3)], 'batches 2 and 3a'),
    send(till, [...batch(2).slice(half2), ...batch(3)], 'batches 2b and 3'),
  ]);

  // Batch 4, then 4 and 5 together (the response to 4 was lost before 5 was due).
  await send(till, batch(4), 'batch 4');
  await resend(till, [...batch(4), ...batch(5)], 'batches 4 and 5', checks);

  // Batch 6, then everything again: a till that lost track of what went through.
  await send(till, batch(6), 'batch 6');
  await resend(till, till.outbox, 'the whole outbox re-sent', checks);

  // Whatever is still not confirmed (a record refused while a concurrent request held what it needs) goes again.
  for (let round = 0; round < 5; round++) {
    const pending = till.outbox.filter((record) => !synced(record.id));
    if (pending.length === 0) return;
    await send(till, pending, `catch-up round ${round}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The day

/**
 * What a till records offline, from what its replica holds: customers now and then, sales all day.
 * `withdrawn`: a product the server deletes meanwhile; its lines will be recorded as free lines at the
 * till's price, moving no stock.
 */
function recordOffline(till: Till, random: Random, withdrawn: string, loyal: string, from: number, to: number, model: ModelSale[]): void {
  // In a fixed order (the replica's follows the server's ids), so that the seed alone decides the day.
  const products = [...till.replica.records.products.values()].filter((p) => p.active).sort((a, b) => a.name.localeCompare(b.name));
  const variantsOf = (productId: string) =>
    [...till.replica.records.variants.values()].filter((v) => v.product_id === productId).sort((a, b) => JSON.stringify(a.options).localeCompare(JSON.stringify(b.options)));
  const events = SALES_PER_TILL + CUSTOMERS_PER_TILL;
  // One customer falls in batch 1 (events 15..29), the batch a till retries while its first request is still running.
  const customerSlots = new Set<number>([random.int(15, 27)]);
  while (customerSlots.size < CUSTOMERS_PER_TILL) customerSlots.add(random.int(0, Math.floor(events * 0.7)));
  const mine: string[] = [];
  const step = (to - from) / events;

  for (let event = 0; event < events; event++) {
    const at = Math.round(from + step * (event + random.next() * 0.9));
    const createdAt = new Date(at).toISOString();
    if (customerSlots.has(event)) {
      const id = randomUUID();
      const n = mine.length + 1;
      till.outbox.push({
        entity: 'customers',
        id,
        at,
        body: {
          id,
          name: `${till.name} client ${n} ${id.slice(0, 4)}`,
          phone: `+2376${random.int(10_000_000, 99_999_999)}`,
          ...(random.chance(0.4) ? { email: `client.${id.slice(0, 8)}@example.cm` } : {}),
          ...(random.chance(0.5) ? { note: 'Créé hors ligne' } : {}),
          created_at: createdAt,
        },
      });
      mine.push(id);
      continue;
    }

    const id = randomUUID();
    const items: Record<string, unknown>[] = [];
    const lines: Line[] = [];
    let total = 0;
    const taken = new Set<string>();
    for (let n = random.int(1, 4); n > 0; n--) {
      const product = random.pick(products);
      const variants = variantsOf(product.id);
      const variant = variants.length ? random.pick(variants) : null;
      const key = stockKey(product.id, variant?.id ?? null);
      if (taken.has(key)) continue;
      taken.add(key);
      const price: number = variant?.price_xaf ?? product.price_xaf;
      const milli = product.unit === 'kg' ? random.int(1, 8) * 250 : random.chance(0.1) ? random.int(4, 6) * 1000 : random.int(1, 3) * 1000;
      const gross = (milli * price) / 1000; // exact: kg prices are multiples of 4
      const discount = random.chance(0.1) ? Math.min(gross - 1, 50 * random.int(1, 4)) : 0;
      total += gross - discount;
      items.push({
        product_id: product.id,
        ...(variant ? { variant_id: variant.id } : {}),
        quantity: milli / 1000,
        unit_price_xaf: price, // what the till charged, whatever the server's price is by now
        ...(discount ? { discount_xaf: discount } : {}),
      });
      if (product.tracked && product.id !== withdrawn) lines.push({ key, milli });
    }

    // Who pays how: cash (exact or with change), mobile money, card, split, or on a customer's account.
    let customerId: string | null = null;
    let credit = 0;
    let payments: { method: string; amount_xaf: number }[];
    const plan = random.next();
    if (plan < 0.3) payments = [{ method: 'cash', amount_xaf: total }];
    else if (plan < 0.45) payments = [{ method: 'cash', amount_xaf: Math.ceil((total + 1) / 500) * 500 }];
    else if (plan < 0.6) payments = [{ method: 'carrier1_momo', amount_xaf: total }];
    else if (plan < 0.7) payments = [{ method: 'card', amount_xaf: total }];
    else if (plan < 0.8) {
      const part = Math.floor(total / 2);
      payments = [{ method: 'carrier2_money', amount_xaf: part }, { method: 'cash', amount_xaf: total - part }];
    } else if (plan < 0.9 && mine.length > 0) {
      // On the account of a customer made offline today (no ceiling offline): part paid, the rest owed.
      customerId = random.pick(mine);
      const part = Math.floor((total * random.int(0, 3)) / 4);
      credit = total - part;
      payments = random.chance(0.5)
        ? [{ method: 'cash', amount_xaf: part }]
        : [{ method: 'credit', amount_xaf: credit }, ...(part ? [{ method: 'cash', amount_xaf: part }] : [])];
    } else if (plan < 0.95) {
      // The regular with a credit ceiling: offline, the ceiling is not checked.
      customerId = loyal;
      credit = total;
      payments = [{ method: 'credit', amount_xaf: total }];
    } else {
      customerId = mine.length && random.chance(0.5) ? random.pick(mine) : loyal;
      payments = [{ method: 'cash', amount_xaf: total }];
    }

    const body = {
      id,
      created_at: createdAt,
      user_id: till.user.user.id,
      ...(customerId ? { customer_id: customerId } : {}),
      ...(random.chance(0.1) ? { note: 'Vente hors ligne' } : {}),
      items,
      payments,
    };
    till.outbox.push({ entity: 'sales', id, at, body });
    model.push({ id, till: till.name, total, credit, customerId, lines, body });
  }
}

/** A till's view of the shop, minus sales: each entity's records sorted by id. */
function view(replica: Replica) {
  return Object.fromEntries(
    ENTITIES.filter((e) => e !== 'sales').map((entity) => [entity, [...replica.records[entity].values()].sort((a, b) => (a.id < b.id ? -1 : 1))]),
  ) as Record<Exclude<Entity, 'sales'>, any[]>;
}

const byId = <T extends { id: string }>(rows: readonly T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));

/** The server's live records, key fields only, straight from the database. */
async function serverState(shopId: string) {
  const sql = api.ownerSql;
  return {
    categories: byId((await sql<{ id: string; name: string }[]>`select id, name from categories where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r }))),
    products: byId(
      (await sql<{ id: string; name: string; price_xaf: number; on_hand: number; category_id: string | null }[]>`
        select id, name, price_xaf, on_hand, category_id from products where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r })),
    ),
    product_options: byId((await sql<{ id: string }[]>`select id from product_options where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r }))),
    variants: byId(
      (await sql<{ id: string; price_xaf: number; on_hand: number }[]>`
        select id, price_xaf, on_hand from variants where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r })),
    ),
    customers: byId(
      (await sql<{ id: string; name: string; balance_xaf: number }[]>`
        select id, name, balance_xaf from customers where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r })),
    ),
    promotions: byId((await sql<{ id: string }[]>`select id from promotions where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r }))),
    loyalty_tiers: byId((await sql<{ id: string }[]>`select id from loyalty_tiers where shop_id = ${shopId} and deleted_at is null`).map((r) => ({ ...r }))),
  };
}
type ServerState = Awaited<ReturnType<typeof serverState>>;

/** A replica reduced to the key fields serverState reads. */
function keyFields(replica: Replica): ServerState {
  const v = view(replica);
  return {
    categories: v.categories.map((c) => ({ id: c.id, name: c.name })),
    products: v.products.map((p) => ({ id: p.id, name: p.name, price_xaf: p.price_xaf, on_hand: p.on_hand, category_id: p.category_id })),
    product_options: v.product_options.map((o) => ({ id: o.id })),
    variants: v.variants.map((x) => ({ id: x.id, price_xaf: x.price_xaf, on_hand: x.on_hand })),
    customers: v.customers.map((c) => ({ id: c.id, name: c.name, balance_xaf: c.balance_xaf })),
    promotions: v.promotions.map((p) => ({ id: p.id })),
    loyalty_tiers: v.loyalty_tiers.map((l) => ({ id: l.id })),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A map as an object with its keys in order, to compare whatever order it was filled in. */
const sorted = <V>(map: Map<string, V>) => Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));

t.test('a simulated offline day: two tills sell offline, push with retries and overlaps, and end up with the server\'s state', async (t) => {
  const random = generator(SEED);
  t.comment(`offline day seed ${SEED}`);
  const { owner, manager, cashier } = await staffedShop(api);
  const shopId: string = owner.shop.id;
  const second = await addStaff(api, owner, 'cashier');

  // The morning: the catalogue, opening stock, a regular with a credit ceiling, a promotion starting tomorrow.
  const categories = [];
  for (const name of ['Épicerie', 'Boissons', 'Hygiène']) categories.push(await createCategory(api, owner.token, { name }));
  const opening = new Map<string, number>(); // stock key -> thousandths
  const products: any[] = [];
  for (const spec of CATALOGUE) {
    const product = await createProduct(
      api,
      owner.token,
      { name: spec.name, price_xaf: spec.price, cost_xaf: Math.round(spec.price * 0.7), category_id: categories[spec.category]!.id, ...(spec.unit ? { unit: spec.unit } : {}) },
      spec.stock,
    );
    products.push(product);
    opening.set(product.id, spec.stock * 1000);
  }
  const bags = await createProduct(api, owner.token, { name: 'Sachet plastique', price_xaf: 25, cost_xaf: 10, tracked: false, category_id: categories[2]!.id });
  products.push(bags);
  const shirts = await createProduct(api, owner.token, { name: 'T-shirt', price_xaf: 3000, cost_xaf: 1500 });
  products.push(shirts);
  for (const [size, spec] of Object.entries(T_SHIRTS)) {
    const variant = await postVariant(api, owner.token, shirts.id, { options: { Taille: size }, price_xaf: spec.price });
    t.equal(variant.status, 201, `variant ${size}`);
    const adjusted = await api.request('POST', `/products/${shirts.id}/adjust`, { token: owner.token, body: { new_quantity: spec.stock, variant_id: variant.body.data.id } });
    t.equal(adjusted.status, 200, `opening stock of ${size}`);
    opening.set(variant.body.data.id, spec.stock * 1000);
  }
  const seasonal = await createProduct(api, owner.token, { name: 'Guirlande de Noël', price_xaf: 2000, category_id: categories[2]!.id }, 6);
  opening.set(seasonal.id, 6000);
  const loyalReply = await api.request('POST', '/customers', { token: manager.token, body: { name: 'Maman Brigitte', phone: '+237699000001', credit_ceiling_xaf: 50_000 } });
  t.equal(loyalReply.status, 201, 'the regular');
  const loyal = loyalReply.body.data;
  const tomorrow = new Date(Date.now() + 24 * HOUR).toISOString();
  const promo = await api.request('POST', '/promotions', { token: owner.token, body: { name: 'Fête du riz', kind: 'percent', value: 10, product_ids: [products[0].id], starts_at: tomorrow } });
  t.equal(promo.status, 201, 'a promotion starting tomorrow');

  // Two tills pair and take the catalogue.
  const tills: Till[] = [];
  for (const [name, user] of [['Caisse 1', cashier], ['Caisse 2', second]] as const) {
    const device = await pairDevice(api, owner.token, name);
    tills.push({ name, device, auth: { device: device.token }, replica: emptyReplica(), user, outbox: [] });
  }
  for (const till of tills) {
    await waitFor(async () => {
      await catchUp(api, till.auth, till.replica);
      const r = till.replica.records;
      return r.products.size === products.length + 1 && r.variants.size === 3 && r.customers.size === 1 && r.promotions.size === 1;
    }, `${till.name} to take the catalogue`);
  }
  t.equal(tills[0]!.replica.records.products.size, CATALOGUE.length + 3, 'each till holds the catalogue before going offline');

  // Offline: each till records its day from its own replica.
  const model: ModelSale[] = [];
  const dayStart = Date.now() - 9 * HOUR;
  const dayEnd = Date.now() - 10 * 60 * 1000;
  for (const till of tills) recordOffline(till, random, seasonal.id, loyal.id, dayStart, dayEnd, model);
  t.equal(model.length, 2 * SALES_PER_TILL, '200 sales recorded offline');
  t.equal(tills.flatMap((till) => till.outbox).filter((r) => r.entity === 'customers').length, 2 * CUSTOMERS_PER_TILL, '10 customers made offline');

  // Meanwhile on the server: prices change, the garland is withdrawn, a product and a customer are added, a category renamed,
  // a variant repriced, another promotion planned, and the manager sells a few things online.
  const repriced = [products[0], products[4], products[10]];
  for (const product of repriced) {
    const reply = await api.request('PUT', `/products/${product.id}`, { token: owner.token, body: { price_xaf: product.price_xaf + 150 } });
    t.equal(reply.status, 200, `reprice ${product.name}`);
  }
  t.equal((await api.request('DELETE', `/products/${seasonal.id}`, { token: owner.token })).status, 204, 'the garland is withdrawn');
  const added = await createProduct(api, owner.token, { name: 'Jus de bissap 1 L', price_xaf: 800, category_id: categories[1]!.id }, 15);
  opening.set(added.id, 15_000);
  t.equal((await api.request('PUT', `/categories/${categories[2]!.id}`, { token: owner.token, body: { name: 'Hygiène et maison' } })).status, 200, 'a category renamed');
  const large = [...tills[0]!.replica.records.variants.values()].find((v) => v.options.Taille === 'L');
  t.equal((await api.request('PUT', `/variants/${large.id}`, { token: owner.token, body: { price_xaf: 3800 } })).status, 200, 'a variant repriced');
  const later = await api.request('POST', '/promotions', { token: owner.token, body: { name: 'Week-end boissons', kind: 'percent', value: 5, category_ids: [categories[1]!.id], starts_at: tomorrow } });
  t.equal(later.status, 201, 'another promotion planned');
  const walkIn = await api.request('POST', '/customers', { token: manager.token, body: { name: 'Client du comptoir', phone: '+237677000002' } });
  t.equal(walkIn.status, 201, 'a customer made on the server');
  const online: { id: string; lines: Line[] }[] = [];
  for (const [product, quantity] of [[added, 2], [products[2], 3], [products[10], 1]] as const) {
    const reply = await api.request('POST', '/sales', {
      token: manager.token,
      body: { items: [{ product_id: product.id, quantity }], payments: [{ method: 'cash', amount_xaf: 100_000 }] },
    });
    t.equal(reply.status, 201, `an online sale of ${product.name}`);
    online.push({ id: reply.body.data.id, lines: [{ key: product.id, milli: quantity * 1000 }] });
  }

  // Back online: both tills push at the same time, each with its flaky connection.
  const checks: Checks = { resent: [] };
  const started = Date.now();
  await Promise.all(tills.map((till) => pushDay(till, checks)));
  t.comment(`pushed in ${Date.now() - started} ms`);

  t.strictSame(requestFailures, [], 'every push answered 200');
  const all = tills.flatMap((till) => till.outbox);
  t.strictSame(protocolProblems, [], 'every push answered one result per record, customers first, then sales, in the order sent');

  // The one legitimate refusal: a sale naming a customer that another request of the same till is
  // still creating (the till pushes it again later). Anything else, a new customer pushed by two
  // requests at once included, must be applied by one and answered duplicate to the other.
  const customerNotYetThere = rejections.filter(
    (r) => r.entity === 'sales' && CONCURRENT.has(r.request) && r.code === 'validation_failed' && same(Object.keys(r.errors ?? {}), ['customer_id']),
  );
  t.strictSame(
    rejections.filter((r) => !customerNotYetThere.includes(r)),
    [],
    'no record was rejected, however the pushes interleaved',
  );
  const batch1Customers = tills.flatMap((till) => till.outbox.slice(15, 30).filter((r) => r.entity === 'customers'));
  t.ok(batch1Customers.length >= 2, 'each till pushed a new customer in the batch it retried while in flight');
  t.ok(all.every((record) => synced(record.id)), 'every record was confirmed in the end (applied or duplicate)');

  t.strictSame(all.filter((record) => !answers.has(record.id)).map((record) => record.id), [], 'every record was answered');
  const appliedTwice = all.filter((record) => (answers.get(record.id) ?? []).filter((a) => a.status === 'applied').length !== 1);
  t.strictSame(
    appliedTwice.map((record) => [record.entity, record.id, answers.get(record.id)]),
    [],
    'each record was applied exactly once; every other answer to it was duplicate',
  );
  for (const resent of checks.resent) {
    t.ok(resent.statuses.length > 0 && resent.statuses.every((s) => s === 'duplicate'), `${resent.request}: every record already confirmed answers duplicate`);
    const wrongReceipt = resent.receipts.filter(([id, receipt]) => {
      const applied = answers.get(id)!.find((a) => a.status === 'applied');
      return applied?.receipt_no !== receipt;
    });
    t.strictSame(wrongReceipt, [], `${resent.request}: a duplicate sale answers the receipt number it was given`);
  }

  // Every sale exists once.
  const pushedIds = model.map((sale) => sale.id);
  const [counted] = await api.ownerSql<{ n: number; distinct_ids: number }[]>`
    select count(*)::int as n, count(distinct id)::int as distinct_ids from sales where id = any(${pushedIds}::uuid[])`;
  t.strictSame({ ...counted }, { n: 200, distinct_ids: 200 }, 'the 200 offline sales exist, each once');
  const [shopCount] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sales where shop_id = ${shopId}`;
  t.equal(shopCount!.n, 200 + online.length, 'the shop has the 200 offline sales and the online ones, nothing else');
  const customerIds = all.filter((r) => r.entity === 'customers').map((r) => r.id);
  const [customersCounted] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from customers where id = any(${customerIds}::uuid[]) and deleted_at is null`;
  t.equal(customersCounted!.n, 10, 'the 10 offline customers exist');

  // Receipt numbers: 1..N, no gap, no repeat; each offline sale's is the one the push answered.
  const receipts = await api.ownerSql<{ id: string; receipt_no: number }[]>`select id, receipt_no from sales where shop_id = ${shopId} order by receipt_no`;
  t.strictSame(receipts.map((r) => r.receipt_no), receipts.map((_, i) => i + 1), 'receipt numbers run 1..N with no gap and no repeat');
  const receiptOf = new Map(receipts.map((r) => [r.id, r.receipt_no]));
  t.strictSame(
    model.filter((sale) => answers.get(sale.id)?.find((a) => a.status === 'applied')?.receipt_no !== receiptOf.get(sale.id)).map((s) => s.id),
    [],
    'each sale keeps the receipt number its push answered',
  );

  // What the tills charged is what was recorded, at the till's time, by the till's user, from the till.
  const recorded = await api.ownerSql<{ id: string; total_xaf: number; credit_xaf: number; created_at: Date; device_id: string; cashier_id: string | null; offline: boolean; customer_id: string | null }[]>`
    select id, total_xaf, credit_xaf, created_at, device_id, cashier_id, offline, customer_id from sales where id = any(${pushedIds}::uuid[])`;
  const recordedById = new Map(recorded.map((r) => [r.id, r]));
  const tillByName = new Map(tills.map((till) => [till.name, till]));
  const mismatched = model.flatMap((sale) => {
    const row = recordedById.get(sale.id);
    const till = tillByName.get(sale.till)!;
    const expected = { total_xaf: sale.total, credit_xaf: sale.credit, created_at: Date.parse(sale.body.created_at), device_id: till.device.id, cashier_id: till.user.user.id, offline: true, customer_id: sale.customerId };
    const actual = row && { total_xaf: row.total_xaf, credit_xaf: row.credit_xaf, created_at: row.created_at.getTime(), device_id: row.device_id, cashier_id: row.cashier_id, offline: row.offline, customer_id: row.customer_id };
    return same(actual, expected) ? [] : [{ id: sale.id, expected, actual }];
  });
  t.strictSame(mismatched, [], 'each sale has the till\'s total, credit, time, device, cashier and customer');

  // The garland was withdrawn while the tills sold it: its lines are kept as free lines at the till's price.
  const garlandSales = model.filter((sale) => sale.body.items.some((item: any) => item.product_id === seasonal.id)).map((sale) => sale.id);
  t.ok(garlandSales.length > 0, `the tills sold the garland offline (${garlandSales.length} sales)`);
  const garlandLines = await api.ownerSql<{ product_id: string | null; name: string; unit_price_xaf: number }[]>`
    select product_id, name, unit_price_xaf from sale_items where sale_id = any(${garlandSales}::uuid[]) and name = 'Guirlande de Noël'`;
  const soldLines = model.flatMap((sale) => sale.body.items.filter((item: any) => item.product_id === seasonal.id)).length;
  t.equal(garlandLines.length, soldLines, 'each garland line sold offline is recorded');
  t.ok(garlandLines.every((line) => line.product_id === null && line.unit_price_xaf === 2000), 'as a free line at the till\'s price');
  const [garlandMoves] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stock_movements where product_id = ${seasonal.id} and type = 'sale'`;
  t.equal(garlandMoves!.n, 0, 'that moves no stock of the withdrawn product');

  // The stock and the journal.
  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, shopId);
  t.strictSame(stockMismatches, [], 'on-hand equals the sum of the stock movements');
  t.strictSame(unbalancedEntries, [], 'every journal entry balances');
  const expectedStock = new Map(opening);
  for (const sale of [...model, ...online]) for (const line of sale.lines) expectedStock.set(line.key, expectedStock.get(line.key)! - line.milli);
  const stockRows = await api.ownerSql<{ id: string; on_hand: number }[]>`
    select id, on_hand from products where shop_id = ${shopId} and tracked and not exists (select 1 from variants v where v.product_id = products.id)
    union all select id, on_hand from variants where shop_id = ${shopId}`;
  const stockNow = new Map(stockRows.map((r) => [r.id, Math.round(r.on_hand * 1000)]));
  t.strictSame(sorted(stockNow), sorted(expectedStock), 'each product\'s on-hand is its opening stock minus what was sold');
  t.ok([...stockNow.values()].some((milli) => milli < 0), 'the offline day drove some stock negative');
  const [shirtRow] = await api.ownerSql<{ on_hand: number }[]>`select on_hand from products where id = ${shirts.id}`;
  const shirtVariants = [...tills[0]!.replica.records.variants.values()].filter((v) => v.product_id === shirts.id);
  t.equal(Math.round(shirtRow!.on_hand * 1000), shirtVariants.reduce((sum, v) => sum + expectedStock.get(v.id)!, 0), 'the product with variants holds the sum of its variants');

  // Who owes what.
  const owed = new Map<string, number>([[loyal.id, 0], ...customerIds.map((id) => [id, 0] as [string, number])]);
  for (const sale of model) if (sale.customerId) owed.set(sale.customerId, owed.get(sale.customerId)! + sale.credit);
  const balances = await api.ownerSql<{ id: string; balance_xaf: number }[]>`select id, balance_xaf from customers where id = any(${[...owed.keys()]}::uuid[])`;
  t.strictSame(sorted(new Map(balances.map((b) => [b.id, b.balance_xaf]))), sorted(owed), 'each customer owes the credit of the sales made on their account');
  t.ok(owed.get(loyal.id)! > 0, 'the regular bought on credit offline');

  // Both tills pull again until they hold what the server holds.
  const fresh = emptyReplica();
  const owners: SyncAuth = { bearer: owner.token };
  let server = await serverState(shopId);
  try {
    await waitFor(async () => {
      for (const till of tills) await catchUp(api, till.auth, till.replica);
      await catchUp(api, owners, fresh);
      server = await serverState(shopId);
      return same(keyFields(fresh), server) && tills.every((till) => same(view(till.replica), view(fresh)));
    }, 'both tills to converge on the server\'s state', 30_000);
  } catch (error) {
    t.fail((error as Error).message);
  }
  t.strictSame(keyFields(fresh), server, 'a fresh pull gives the server\'s live records');
  for (const till of tills) {
    t.strictSame(keyFields(till.replica), server, `${till.name} holds the server's catalogue and customers (key fields)`);
    t.strictSame(view(till.replica), view(fresh), `${till.name} holds exactly the records a fresh pull gives`);
    const r = till.replica.records;
    t.notOk(r.products.has(seasonal.id), `${till.name}: the withdrawn product is gone`);
    t.equal(r.products.get(added.id)?.name, 'Jus de bissap 1 L', `${till.name}: the new product arrived`);
    for (const product of repriced) t.equal(r.products.get(product.id)?.price_xaf, product.price_xaf + 150, `${till.name}: ${product.name} has its new price`);
    t.equal(r.variants.get(large.id)?.price_xaf, 3800, `${till.name}: the variant has its new price`);
    t.equal(r.categories.get(categories[2]!.id)?.name, 'Hygiène et maison', `${till.name}: the renamed category`);
    t.equal(r.promotions.size, 2, `${till.name}: both promotions`);
    t.ok(customerIds.every((id) => r.customers.has(id)) && r.customers.has(walkIn.body.data.id) && r.customers.has(loyal.id), `${till.name}: the 10 offline customers, the regular and the server's new customer`);
    t.equal(r.customers.size, 12, `${till.name}: 12 customers`);
  }

  // Every till can pull the day's sales.
  for (const till of tills) {
    const withSales = await waitFor(async () => {
      const replica = await catchUp(api, till.auth, emptyReplica(), { include_sales: 1 });
      return replica.records.sales.size >= 200 + online.length && replica;
    }, `${till.name} to pull every sale`).catch(() => catchUp(api, till.auth, emptyReplica(), { include_sales: 1 }));
    const sales = withSales.records.sales;
    t.equal(sales.size, 200 + online.length, `${till.name} pulls all ${200 + online.length} sales`);
    t.ok(pushedIds.every((id) => sales.has(id)), `${till.name} pulls each of the 200 offline sales`);
    const wrong = model.filter((sale) => {
      const pulled = sales.get(sale.id);
      return !pulled || pulled.receipt_no !== receiptOf.get(sale.id) || pulled.total_xaf !== sale.total || !pulled.offline || pulled.items.length !== sale.body.items.length;
    });
    t.strictSame(wrong.map((s) => s.id), [], `${till.name}: each pulled sale has its receipt number, total and lines`);
  }
});

t.test('ten tills coming back online at the same moment each get their answer', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { name: 'Eau minérale 1,5 L', price_xaf: 400 }, 100);
  const tills: PairedDevice[] = [];
  for (let n = 1; n <= 10; n++) tills.push(await pairDevice(api, owner.token, `Caisse ${n}`));
  const outboxes = tills.map(() =>
    Array.from({ length: 3 }, (_, i) => ({
      id: randomUUID(),
      created_at: new Date(Date.now() - (i + 1) * HOUR).toISOString(),
      user_id: cashier.user.id,
      items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 400 }],
      payments: [{ method: 'cash', amount_xaf: 500 }],
    })),
  );
  const pushes = Promise.all(tills.map((till, n) => push(api, { device: till.token }, { sales: outboxes[n] })));
  // unref: a timer still pending when the pushes answer must not keep the file's process alive.
  const within = (ms: number) => new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref());
  const replies = await Promise.race([pushes, within(10_000)]);
  if (!replies) {
    // The service is stuck (each push holding a pooled connection while waiting for another): close
    // its pool so that the pending requests fail and this file can finish (this is its last test).
    await api.appSql.end({ timeout: 0 });
    await Promise.race([pushes.catch(() => null), within(10_000)]);
  }
  t.ok(replies, 'all ten pushes are answered (within 10 s): pushes at once cannot exhaust the connection pool');
  if (!replies) return;
  t.ok(replies.every((reply) => reply.status === 200 && reply.body.data.results.every((r: any) => r.status === 'applied')), 'each sale applied');
  const receipts = await api.ownerSql<{ receipt_no: number }[]>`select receipt_no from sales where shop_id = ${owner.shop.id} order by receipt_no`;
  t.strictSame(receipts.map((r) => r.receipt_no), Array.from({ length: 30 }, (_, i) => i + 1), '30 sales, receipts 1..30');
  const [row] = await api.ownerSql<{ on_hand: number }[]>`select on_hand from products where id = ${product.id}`;
  t.equal(row!.on_hand, 70, 'each sale took its bottle once');
});
