import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { createProduct, ledgerInvariants, postVariant, staffedShop, type ShopFixture } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { pairDevice, push, type SyncAuth } from './sync-fixtures.ts';

const api = await startService(t);

/**
 * Fuzzed pushes: random mixes of valid, duplicate and invalid records (and now and then a body that
 * is not a push at all), through the device and the bearer routes, each run in a shop of its own.
 * Duplicates repeat a record of the same or an earlier push, as sent or changed; ids of another
 * shop's records come back too, and make records of this shop (an id is unique in its shop only)
 * while the other shop's stay as they were; a push is now and then sent twice at once (a till retrying while its
 * first request runs); some sales name what the server deleted or changed since. After every push the
 * answer is checked record by record against a model, and the database against the model: every
 * valid record exists once, no refused one exists anywhere, receipt numbers stay gap-free and follow
 * the push order, the stock and the journal add up, and nothing answers 500. Fixed seed so CI is
 * reproducible; FC_SEED (and FC_PATH, from a failure report) replay another run, FC_RUNS changes how many.
 */
const RUN = propertyRun(20_260_612, 40);
const { runs: RUNS, path: PATH } = RUN;

const USERS = ['owner', 'manager', 'cashier'] as const;
type UserName = (typeof USERS)[number];
const ROUTES = ['device', ...USERS] as const;
type Route = (typeof ROUTES)[number];
type Entity = 'customers' | 'sales' | 'expenses' | 'cash_movements';
const PUSH_ORDER: readonly Entity[] = ['customers', 'sales', 'expenses', 'cash_movements'];

// The generators

/** Records that are not objects at all. */
const NOT_OBJECTS = [42, null, 'vente', true, [], [1, 2]] as const;

const line = fc.record({ product: fc.nat(2), variant: fc.nat(1), quantity: fc.integer({ min: 1, max: 3 }), half: fc.boolean() });
const lines = fc.array(line, { minLength: 1, maxLength: 3 });
const userPick = fc.option(fc.nat(2), { freq: 2 });

const BAD_SALES = [
  'no_items', 'empty_items', 'negative_quantity', 'zero_quantity', 'four_decimals', 'string_quantity', 'items_not_array', 'unknown_product',
  'bad_uuid', 'numeric_id', 'missing_id', 'year_zero', 'not_a_date', 'not_an_object', 'huge_note', 'unknown_customer',
  'unknown_user', 'change_without_cash', 'anonymous_short', 'bad_method', 'variant_of_another_product',
] as const;
/** What the till sold that the server changed since: the sale is recorded all the same. */
const CATALOGUE_CHANGES = ['product_given_variants', 'withdrawn_product', 'deleted_customer'] as const;
const BAD_CUSTOMERS = [
  'no_name', 'blank_name', 'long_name', 'huge_name', 'bad_email', 'bad_uuid', 'numeric_id', 'not_an_object', 'negative_ceiling', 'card_taken',
  'year_zero', 'name_not_string',
] as const;
const BAD_EXPENSES = ['zero_amount', 'bad_category', 'bad_method', 'future_day', 'not_an_object', 'bad_uuid', 'unknown_user'] as const;
const BAD_CASH = ['no_reason', 'zero_amount', 'bad_direction', 'year_zero', 'not_an_object', 'bad_uuid', 'unknown_user'] as const;

const saleSpec = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      entity: fc.constant('sales' as const),
      kind: fc.constant('valid' as const),
      lines,
      pay: fc.constantFrom('cash_over', 'exact', 'credit'),
      customer: fc.option(fc.nat(), { freq: 2 }),
      at: fc.boolean(),
      user: userPick,
      revive: fc.option(fc.nat(), { freq: 4 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ entity: fc.constant('sales' as const), kind: fc.constant('duplicate' as const), pick: fc.nat(), changed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ entity: fc.constant('sales' as const), kind: fc.constant('duplicate_invalid' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ entity: fc.constant('sales' as const), kind: fc.constant('foreign' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('sales' as const), kind: fc.constant('catalogue_changed' as const), change: fc.constantFrom(...CATALOGUE_CHANGES) }) },
  { weight: 5, arbitrary: fc.record({ entity: fc.constant('sales' as const), kind: fc.constant('bad' as const), bad: fc.constantFrom(...BAD_SALES), junk: fc.constantFrom(...NOT_OBJECTS) }) },
);
const customerSpec = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      entity: fc.constant('customers' as const),
      kind: fc.constant('new' as const),
      ceiling: fc.nat(3).map((n) => n === 0),
      email: fc.boolean(),
      card: fc.boolean(),
      revive: fc.option(fc.nat(), { freq: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('customers' as const), kind: fc.constant('duplicate' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ entity: fc.constant('customers' as const), kind: fc.constant('update' as const), pick: fc.nat(), version: fc.constantFrom('fresh', 'stale', 'none') }),
  },
  { weight: 1, arbitrary: fc.record({ entity: fc.constant('customers' as const), kind: fc.constant('foreign' as const), pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ entity: fc.constant('customers' as const), kind: fc.constant('bad' as const), bad: fc.constantFrom(...BAD_CUSTOMERS), junk: fc.constantFrom(...NOT_OBJECTS) }) },
);
const expenseSpec = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      entity: fc.constant('expenses' as const),
      kind: fc.constant('new' as const),
      user: userPick,
      method: fc.constantFrom('cash', 'card', 'carrier1_momo'),
      revive: fc.option(fc.nat(), { freq: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('expenses' as const), kind: fc.constant('duplicate' as const), pick: fc.nat(), changed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ entity: fc.constant('expenses' as const), kind: fc.constant('foreign' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('expenses' as const), kind: fc.constant('bad' as const), bad: fc.constantFrom(...BAD_EXPENSES), junk: fc.constantFrom(...NOT_OBJECTS) }) },
);
const cashSpec = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      entity: fc.constant('cash_movements' as const),
      kind: fc.constant('new' as const),
      user: userPick,
      direction: fc.constantFrom('in', 'out'),
      at: fc.boolean(),
      revive: fc.option(fc.nat(), { freq: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('cash_movements' as const), kind: fc.constant('duplicate' as const), pick: fc.nat(), changed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ entity: fc.constant('cash_movements' as const), kind: fc.constant('foreign' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ entity: fc.constant('cash_movements' as const), kind: fc.constant('bad' as const), bad: fc.constantFrom(...BAD_CASH), junk: fc.constantFrom(...NOT_OBJECTS) }) },
);

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;
type SaleSpec = Generated<typeof saleSpec>;
type CustomerSpec = Generated<typeof customerSpec>;
type ExpenseSpec = Generated<typeof expenseSpec>;
type CashSpec = Generated<typeof cashSpec>;
type RecordSpec = SaleSpec | CustomerSpec | ExpenseSpec | CashSpec;

const recordSpec: fc.Arbitrary<RecordSpec> = fc.oneof(
  { weight: 5, arbitrary: saleSpec as fc.Arbitrary<RecordSpec> },
  { weight: 3, arbitrary: customerSpec as fc.Arbitrary<RecordSpec> },
  { weight: 2, arbitrary: expenseSpec as fc.Arbitrary<RecordSpec> },
  { weight: 2, arbitrary: cashSpec as fc.Arbitrary<RecordSpec> },
);

/** Bodies that are not a push: each with the answer it must get (a 200 with no results, or the error code). */
const JUNK = ['array', 'string', 'null', 'number', 'sales_string', 'sales_object', 'customers_number', 'nested_junk', 'malformed', 'unknown_keys', 'too_many_sales'] as const;
type Junk = (typeof JUNK)[number];

const pushSpec = fc.record({
  route: fc.constantFrom(...ROUTES),
  junk: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...JUNK) }),
  records: fc.array(recordSpec, { maxLength: 15, size: 'medium' }),
  /** Sent twice at once: a till that retried while its first request was still running. */
  twice: fc.nat(4).map((n) => n === 0),
  /** With top-level keys the API does not know (a newer till's), which are ignored. */
  extra: fc.nat(5).map((n) => n === 0),
});
type PushSpec = Generated<typeof pushSpec>;
const pushes = fc.array(pushSpec, { minLength: 1, maxLength: 5 });

// The world and the model

interface World {
  owner: ShopFixture;
  users: Record<UserName, { id: string; token: string; role: UserName }>;
  device: { id: string; token: string };
  /** A tracked product, an untracked one, one sold by variant. */
  products: { id: string; price: number; tracked: boolean; variants: { id: string; price: number }[] }[];
  card: string;
  /** The customer the shop already has (with that card and a credit ceiling). */
  regular: string;
  /** A product and a customer the tills knew, deleted since on the server. */
  withdrawn: { id: string; price: number };
  gone: string;
  stock: Map<string, number>; // thousandths, by stock key
}

interface AppliedSale {
  body: Record<string, any>;
  receipt: number;
}

interface Model {
  sales: Map<string, AppliedSale>;
  customers: Map<string, { name: string }>;
  expenses: Map<string, Record<string, any>>;
  cash: Map<string, Record<string, any>>;
  /** Valid ids refused and never applied since: none of them may exist anywhere. */
  rejected: Record<Entity, Set<string>>;
  receipts: number;
  /** The other shops' records whose ids this run reused: each must stay as it was. */
  borrowed: { entity: Entity; theirs: Theirs }[];
  /**
   * The ids of the push being planned, when it is sent twice at once: there an id appears once, since
   * what the other request answers for a record the same push changes again later depends on how the
   * two requests interleave.
   */
  inPush: Set<string>;
}

/** A record applied in the shop of an earlier run, with a fingerprint of its row when that run ended. */
interface Theirs {
  id: string;
  shop: string;
  row: string;
}

/** Records of the shops of earlier runs: reused here, their ids belong to another shop. */
const foreign: Record<Entity, Theirs[]> = { customers: [], sales: [], expenses: [], cash_movements: [] };

/** What the model says a record must get. */
interface Expectation {
  status: 'applied' | 'duplicate' | 'rejected';
  code?: string;
  receipt?: number;
}

interface Planned {
  entity: Entity;
  raw: unknown;
  expect: Expectation;
  label: string;
}

/** Coverage of the generated runs, so a generator that never reaches the interesting paths fails. */
const seen: Record<string, number> = {};
const saw = (what: string) => {
  seen[what] = (seen[what] ?? 0) + 1;
};

class Violation extends Error {}

function check(condition: boolean, message: string, reply?: Reply): asserts condition {
  if (!condition) throw new Violation(`${message}${reply ? ` (answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 2000)})` : ''}`);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const nth = <T>(items: readonly T[], pick: number): T | undefined => (items.length ? items[pick % items.length] : undefined);
/** One of the ids (of earlier records, to repeat or reuse) that the push being planned has not used yet. */
const pickId = (model: Model, ids: Iterable<string>, pick: number) => nth([...ids].filter((id) => !model.inPush.has(id)), pick);

/**
 * Another shop's record whose id the push being planned has not used yet, remembered so that the
 * database check finds it unchanged.
 */
function borrow(model: Model, entity: Entity, pick: number): string | undefined {
  const theirs = nth(foreign[entity].filter((record) => !model.inPush.has(record.id)), pick);
  if (theirs) model.borrowed.push({ entity, theirs });
  return theirs?.id;
}
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/**
 * A till's clock (CONTRACT section 4): mostly right, sometimes dead (1970), days ahead or months
 * behind. Never a refusal: a time plainly wrong is replaced by the server's (tests/sync/clock-corrections.test.ts).
 */
const tillTime = (n: number) => [minutesAgo(5 + (n % 600)), minutesAgo(30), '1970-01-01T00:00:00.000Z', new Date(Date.now() + 3 * 86_400_000).toISOString(), minutesAgo(200 * 24 * 60)][n % 5]!;
/** No calendar has it (PostgreSQL has no year 0): a malformed date. */
const YEAR_ZERO = '0000-06-15T10:00:00Z';

async function buildWorld(): Promise<World> {
  // Each run opens a shop through the public routes (registration, logins, pairing): a long shrink
  // would reach the per-address limit, so the test clears that bucket first.
  await api.ownerSql`delete from rate_limits where bucket like 'address:%'`;
  const { owner, manager, cashier } = await staffedShop(api);
  const users = {
    owner: { id: owner.user.id as string, token: owner.token, role: 'owner' as const },
    manager: { id: manager.user.id as string, token: manager.token, role: 'manager' as const },
    cashier: { id: cashier.user.id as string, token: cashier.token, role: 'cashier' as const },
  };
  const stock = new Map<string, number>();
  const tracked = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1000 }, 5);
  stock.set(tracked.id, 5000);
  const untracked = await createProduct(api, owner.token, { name: 'Sachet', price_xaf: 250, tracked: false });
  const shirt = await createProduct(api, owner.token, { name: 'Pagne', price_xaf: 1500 });
  const variants: { id: string; price: number }[] = [];
  for (const [size, price] of [['M', 1500], ['L', 2000]] as const) {
    const made = await postVariant(api, owner.token, shirt.id, { options: { Taille: size }, price_xaf: price });
    if (made.status !== 201) throw new Error(`variant: ${made.status} ${JSON.stringify(made.body)}`);
    const adjusted = await api.request('POST', `/products/${shirt.id}/adjust`, { token: owner.token, body: { new_quantity: 3, variant_id: made.body.data.id } });
    if (adjusted.status !== 200) throw new Error(`variant stock: ${adjusted.status}`);
    variants.push({ id: made.body.data.id, price });
    stock.set(made.body.data.id, 3000);
  }
  const card = `CARTE-${randomUUID().slice(0, 8)}`;
  const regular = await api.request('POST', '/customers', { token: manager.token, body: { name: 'Cliente fidèle', card_no: card, credit_ceiling_xaf: 10_000 } });
  if (regular.status !== 201) throw new Error(`customer: ${regular.status}`);
  const shift = await api.request('POST', '/shift/open', { token: cashier.token, body: { opening_float_xaf: 5000 } });
  if (shift.status !== 201) throw new Error(`shift: ${shift.status}`);
  const withdrawn = await createProduct(api, owner.token, { name: 'Guirlande', price_xaf: 700 }, 4);
  if ((await api.request('DELETE', `/products/${withdrawn.id}`, { token: owner.token })).status !== 204) throw new Error('delete product');
  stock.set(withdrawn.id, 4000);
  const gone = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Client parti' } });
  if ((await api.request('DELETE', `/customers/${gone.body.data.id}`, { token: owner.token })).status !== 204) throw new Error('delete customer');
  const device = await pairDevice(api, owner.token, 'Caisse fuzz');
  const world: World = {
    owner,
    users,
    device,
    products: [
      { id: tracked.id, price: 1000, tracked: true, variants: [] },
      { id: untracked.id, price: 250, tracked: false, variants: [] },
      { id: shirt.id, price: 1500, tracked: true, variants },
    ],
    card,
    regular: regular.body.data.id,
    withdrawn: { id: withdrawn.id, price: 700 },
    gone: gone.body.data.id,
    stock,
  };
  return world;
}

function emptyModel(regular: string): Model {
  return {
    sales: new Map(),
    customers: new Map([[regular, { name: 'Cliente fidèle' }]]),
    expenses: new Map(),
    cash: new Map(),
    rejected: { customers: new Set(), sales: new Set(), expenses: new Set(), cash_movements: new Set() },
    receipts: 0,
    borrowed: [],
    inPush: new Set(),
  };
}

// Planning: each record's body and the answer the model expects, in the order the server applies them

/** The bearer's user for a bearer route, none for a till. */
const bearerOf = (world: World, route: Route) => (route === 'device' ? null : world.users[route]);

/** A till acts with the role of the user a record names (a cashier's when none); a bearer with its own. */
function roleFor(world: World, route: Route, user: number | null): UserName {
  const bearer = bearerOf(world, route);
  if (bearer) return bearer.role;
  return user === null ? 'cashier' : USERS[user]!;
}

const atLeastManager = (role: UserName) => role === 'owner' || role === 'manager';

/** A valid basket: its items, total and the stock it takes. */
function basket(world: World, specLines: Generated<typeof lines>) {
  let total = 0;
  const items = specLines.map((l) => {
    const product = world.products[l.product]!;
    const variant = product.variants.length ? product.variants[l.variant % product.variants.length]! : null;
    const milli = l.quantity * 1000 + (l.half ? 500 : 0);
    total += ((variant?.price ?? product.price) * milli) / 1000;
    return { product_id: product.id, ...(variant ? { variant_id: variant.id } : {}), quantity: milli / 1000 };
  });
  return { items, total };
}

function planSale(world: World, model: Model, route: Route, spec: SaleSpec): Planned {
  const label = `sale ${spec.kind}${spec.kind === 'bad' ? ` ${spec.bad}` : ''}`;
  const fresh = (raw: unknown, code: string): Planned => {
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) model.rejected.sales.add(id);
    return { entity: 'sales', raw, expect: { status: 'rejected', code }, label };
  };
  const product = world.products[0]!;

  if (spec.kind === 'duplicate' || spec.kind === 'duplicate_invalid') {
    const id = pickId(model, model.sales.keys(), spec.pick);
    if (id) {
      const original = model.sales.get(id)!;
      if (spec.kind === 'duplicate_invalid') {
        return { entity: 'sales', raw: { ...original.body, items: [{ product_id: product.id, quantity: -1 }] }, expect: { status: 'rejected', code: 'validation_failed' }, label };
      }
      const raw = spec.changed
        ? { ...original.body, note: 'Renvoyée modifiée', items: original.body.items.map((item: any, i: number) => (i === 0 ? { ...item, quantity: item.quantity + 1 } : item)) }
        : original.body;
      return { entity: 'sales', raw, expect: { status: 'duplicate', receipt: original.receipt }, label: `${label}${spec.changed ? ' changed' : ''}` };
    }
  }
  if (spec.kind === 'foreign') {
    const id = borrow(model, 'sales', spec.pick);
    const mine = id === undefined ? undefined : model.sales.get(id);
    if (mine) {
      saw('sales with another shop\'s id already mine: duplicate');
      return { entity: 'sales', raw: mine.body, expect: { status: 'duplicate', receipt: mine.receipt }, label };
    }
    if (id) {
      const body = { id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 5000 }] };
      model.receipts += 1;
      model.sales.set(id, { body, receipt: model.receipts });
      world.stock.set(product.id, world.stock.get(product.id)! - 1000);
      saw('sales applied with another shop\'s id');
      return { entity: 'sales', raw: body, expect: { status: 'applied', receipt: model.receipts }, label };
    }
  }
  if (spec.kind === 'catalogue_changed') {
    // Recorded at the till's price; a line the catalogue no longer holds as sold moves no stock; a deleted customer comes back.
    const id = randomUUID();
    const line =
      spec.change === 'product_given_variants'
        ? { product_id: world.products[2]!.id, quantity: 1 }
        : { product_id: (spec.change === 'withdrawn_product' ? world.withdrawn : product).id, quantity: 2 };
    const total = spec.change === 'product_given_variants' ? world.products[2]!.price : 2 * (spec.change === 'withdrawn_product' ? world.withdrawn.price : product.price);
    const body = {
      id,
      ...(spec.change === 'deleted_customer' ? { customer_id: world.gone } : {}),
      items: [line],
      payments: [{ method: spec.change === 'deleted_customer' ? 'credit' : 'card', amount_xaf: total }],
    };
    if (spec.change === 'deleted_customer') {
      if (!model.customers.has(world.gone)) model.customers.set(world.gone, { name: 'Client parti' });
      world.stock.set(product.id, world.stock.get(product.id)! - 2000); // an ordinary line: it moves stock
    }
    saw(`sales recorded after the catalogue changed: ${spec.change}`);
    model.receipts += 1;
    model.sales.set(id, { body, receipt: model.receipts });
    return { entity: 'sales', raw: body, expect: { status: 'applied', receipt: model.receipts }, label: `${label} ${spec.change}` };
  }
  if (spec.kind === 'bad') {
    const id = randomUUID();
    const base = { id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 5000 }] };
    const item = base.items[0]!;
    switch (spec.bad) {
      case 'no_items': return fresh({ id, payments: base.payments }, 'validation_failed');
      case 'empty_items': return fresh({ ...base, items: [] }, 'validation_failed');
      case 'negative_quantity': return fresh({ ...base, items: [{ ...item, quantity: -2 }] }, 'validation_failed');
      case 'zero_quantity': return fresh({ ...base, items: [{ ...item, quantity: 0 }] }, 'validation_failed');
      case 'four_decimals': return fresh({ ...base, items: [{ ...item, quantity: 1.2345 }] }, 'validation_failed');
      case 'string_quantity': return fresh({ ...base, items: [{ ...item, quantity: '2' }] }, 'validation_failed');
      case 'items_not_array': return fresh({ ...base, items: 'savon' }, 'validation_failed');
      case 'unknown_product': return fresh({ ...base, items: [{ product_id: randomUUID(), quantity: 1 }] }, 'validation_failed');
      case 'bad_uuid': return { entity: 'sales', raw: { ...base, id: 'vente-1' }, expect: { status: 'rejected', code: 'validation_failed' }, label };
      case 'numeric_id': return { entity: 'sales', raw: { ...base, id: 12 }, expect: { status: 'rejected', code: 'validation_failed' }, label };
      case 'missing_id': return { entity: 'sales', raw: { items: base.items, payments: base.payments }, expect: { status: 'rejected', code: 'validation_failed' }, label };
      case 'year_zero': return fresh({ ...base, created_at: YEAR_ZERO }, 'validation_failed');
      case 'not_a_date': return fresh({ ...base, created_at: 'hier soir' }, 'validation_failed');
      case 'not_an_object': return { entity: 'sales', raw: spec.junk, expect: { status: 'rejected', code: 'validation_failed' }, label: `${label} ${JSON.stringify(spec.junk)}` };
      case 'huge_note': return fresh({ ...base, note: 'n'.repeat(20_000) }, 'validation_failed');
      case 'unknown_customer': return fresh({ ...base, customer_id: randomUUID() }, 'validation_failed');
      case 'unknown_user': return fresh({ ...base, user_id: randomUUID() }, 'validation_failed');
      case 'variant_of_another_product': return fresh({ ...base, items: [{ product_id: product.id, variant_id: world.products[2]!.variants[0]!.id, quantity: 1 }] }, 'validation_failed');
      case 'change_without_cash': return fresh({ ...base, payments: [{ method: 'card', amount_xaf: 1500 }] }, 'change_without_cash');
      case 'anonymous_short': return fresh({ ...base, payments: [{ method: 'cash', amount_xaf: 999 }] }, 'payment_insufficient');
      case 'bad_method': return fresh({ ...base, payments: [{ method: 'bitcoin', amount_xaf: 1000 }] }, 'validation_failed');
    }
  }

  // A valid sale (also what a duplicate or a foreign id falls back to when there is nothing to repeat).
  const valid = spec.kind === 'valid' ? spec : { lines: [{ product: 0, variant: 0, quantity: 1, half: false }], pay: 'cash_over', customer: null, at: false, user: null, revive: null };
  const revived = valid.revive === null ? undefined : pickId(model, model.rejected.sales, valid.revive);
  const id = revived ?? randomUUID();
  if (revived) {
    model.rejected.sales.delete(revived);
    saw('revived sale ids');
  }
  const { items, total } = basket(world, valid.lines);
  const customers = [...model.customers.keys()];
  const customer = valid.pay === 'credit' ? nth(customers, valid.customer ?? 0) : valid.customer === null ? undefined : nth(customers, valid.customer);
  const payments =
    valid.pay === 'credit' && customer
      ? [{ method: 'credit', amount_xaf: total }]
      : valid.pay === 'exact'
        ? [{ method: 'card', amount_xaf: total }]
        : [{ method: 'cash', amount_xaf: total + 500 }];
  const body = {
    id,
    ...(valid.at ? { created_at: tillTime(total) } : {}),
    ...(valid.user !== null ? { user_id: world.users[USERS[valid.user]!].id } : {}),
    ...(customer ? { customer_id: customer } : {}),
    items,
    payments,
  };
  model.receipts += 1;
  model.sales.set(id, { body, receipt: model.receipts });
  for (const item of items) {
    const key = item.variant_id ?? item.product_id;
    if (world.stock.has(key)) world.stock.set(key, world.stock.get(key)! - Math.round(item.quantity * 1000));
  }
  if (payments[0]!.method === 'credit') saw('credit sales');
  return { entity: 'sales', raw: body, expect: { status: 'applied', receipt: model.receipts }, label: `sale ${spec.kind === 'valid' ? 'valid' : `${spec.kind} (nothing to repeat: valid)`}` };
}

function planCustomer(world: World, model: Model, route: Route, spec: CustomerSpec): Planned {
  const label = `customer ${spec.kind}${spec.kind === 'bad' ? ` ${spec.bad}` : spec.kind === 'update' ? ` ${spec.version}` : ''}`;
  const rejected = (raw: unknown, code: string): Planned => {
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) && !model.customers.has(id)) model.rejected.customers.add(id);
    return { entity: 'customers', raw, expect: { status: 'rejected', code }, label };
  };
  const live = pickId(model, model.customers.keys(), spec.kind === 'duplicate' || spec.kind === 'update' ? spec.pick : 0);

  if (spec.kind === 'duplicate' && live) {
    return { entity: 'customers', raw: { id: live, name: model.customers.get(live)!.name }, expect: { status: 'duplicate' }, label };
  }
  if (spec.kind === 'update' && live) {
    const id = live;
    const name = `Renommé ${randomUUID().slice(0, 6)}`;
    if (spec.version === 'fresh') {
      // The version the till edited is at least the server's: the change applies.
      model.customers.set(id, { name });
      return { entity: 'customers', raw: { id, name, updated_at: new Date(Date.now() + 60_000).toISOString() }, expect: { status: 'applied' }, label };
    }
    const raw = { id, name, ...(spec.version === 'stale' ? { updated_at: '2020-01-01T00:00:00.000Z' } : {}) };
    return { entity: 'customers', raw, expect: { status: 'rejected', code: 'stale' }, label };
  }
  if (spec.kind === 'foreign') {
    const id = borrow(model, 'customers', spec.pick);
    const mine = id === undefined ? undefined : model.customers.get(id);
    if (id && mine) {
      saw('customers with another shop\'s id already mine: duplicate');
      return { entity: 'customers', raw: { id, name: mine.name }, expect: { status: 'duplicate' }, label };
    }
    if (id) {
      model.customers.set(id, { name: 'Déjà ailleurs' });
      saw('customers applied with another shop\'s id');
      return { entity: 'customers', raw: { id, name: 'Déjà ailleurs' }, expect: { status: 'applied' }, label };
    }
  }
  if (spec.kind === 'bad') {
    const id = randomUUID();
    switch (spec.bad) {
      case 'no_name': return rejected({ id, phone: '+237600000000' }, 'validation_failed');
      case 'blank_name': return rejected({ id, name: '   ' }, 'validation_failed');
      case 'long_name': return rejected({ id, name: 'x'.repeat(161) }, 'validation_failed');
      case 'huge_name': return rejected({ id, name: 'x'.repeat(100_000) }, 'validation_failed');
      case 'name_not_string': return rejected({ id, name: { first: 'Awa' } }, 'validation_failed');
      case 'bad_email': return rejected({ id, name: 'Awa', email: 'pas-un-email' }, 'validation_failed');
      case 'bad_uuid': return rejected({ id: 'client-7', name: 'Awa' }, 'validation_failed');
      case 'numeric_id': return rejected({ id: 7, name: 'Awa' }, 'validation_failed');
      case 'not_an_object': return { entity: 'customers', raw: spec.junk, expect: { status: 'rejected', code: 'validation_failed' }, label: `${label} ${JSON.stringify(spec.junk)}` };
      case 'negative_ceiling': return rejected({ id, name: 'Awa', credit_ceiling_xaf: -5 }, 'validation_failed');
      case 'card_taken': return rejected({ id, name: 'Awa', card_no: world.card }, 'card_taken');
      case 'year_zero': return rejected({ id, name: 'Awa', created_at: YEAR_ZERO }, 'validation_failed');
    }
  }

  // A new customer.
  const fresh = spec.kind === 'new' ? spec : { ceiling: false, email: false, card: false, revive: null };
  const revived = fresh.revive === null ? undefined : pickId(model, model.rejected.customers, fresh.revive);
  const id = revived ?? randomUUID();
  const raw = {
    id,
    name: `Client ${id.slice(0, 6)}`,
    phone: `+2376${String(parseInt(id.slice(0, 6), 16) % 100_000_000).padStart(8, '0')}`,
    ...(fresh.email ? { email: `c.${id.slice(0, 8)}@example.cm` } : {}),
    ...(fresh.card ? { card_no: `C-${id.slice(0, 8)}` } : {}),
    ...(fresh.ceiling ? { credit_ceiling_xaf: 20_000 } : {}),
  };
  // Setting a credit ceiling needs a manager: a till acts as a cashier for customers.
  if (fresh.ceiling && !(route === 'owner' || route === 'manager')) {
    saw('ceilings refused to a cashier or a till');
    return rejected(raw, 'forbidden');
  }
  if (revived) {
    model.rejected.customers.delete(revived);
    saw('revived customer ids');
  }
  model.customers.set(id, { name: raw.name });
  return { entity: 'customers', raw, expect: { status: 'applied' }, label: `customer ${spec.kind === 'new' ? 'new' : `${spec.kind} (fallback: new)`}` };
}

function planExpense(world: World, model: Model, route: Route, spec: ExpenseSpec): Planned {
  const label = `expense ${spec.kind}${spec.kind === 'bad' ? ` ${spec.bad}` : ''}`;
  const rejected = (raw: unknown, code: string): Planned => {
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) && !model.expenses.has(id)) model.rejected.expenses.add(id);
    return { entity: 'expenses', raw, expect: { status: 'rejected', code }, label };
  };
  if (spec.kind === 'duplicate') {
    const id = pickId(model, model.expenses.keys(), spec.pick);
    if (id) {
      const original = model.expenses.get(id)!;
      return { entity: 'expenses', raw: spec.changed ? { ...original, amount_xaf: original.amount_xaf + 1 } : original, expect: { status: 'duplicate' }, label };
    }
  }
  const manager = route === 'device' ? { user_id: world.users.manager.id } : {};
  if (spec.kind === 'foreign') {
    const id = borrow(model, 'expenses', spec.pick);
    if (id && model.expenses.has(id)) {
      saw('expenses with another shop\'s id already mine: duplicate');
      return { entity: 'expenses', raw: model.expenses.get(id), expect: { status: 'duplicate' }, label };
    }
    if (id) {
      const raw = { id, category: 'other', amount_xaf: 100, payment_method: 'card', ...manager };
      // Refused like any new expense of a cashier; not counted as refused ids, which must exist nowhere: this one is another shop's.
      if (!atLeastManager(roleFor(world, route, 1))) return { entity: 'expenses', raw, expect: { status: 'rejected', code: 'forbidden' }, label };
      model.expenses.set(id, raw);
      saw('expenses applied with another shop\'s id');
      return { entity: 'expenses', raw, expect: { status: 'applied' }, label };
    }
  }
  if (spec.kind === 'bad') {
    const id = randomUUID();
    const base = { id, category: 'supplies', amount_xaf: 1500, payment_method: 'card', ...manager };
    switch (spec.bad) {
      case 'zero_amount': return rejected({ ...base, amount_xaf: 0 }, 'validation_failed');
      case 'bad_category': return rejected({ ...base, category: 'fun' }, 'validation_failed');
      case 'bad_method': return rejected({ ...base, payment_method: 'credit' }, 'validation_failed');
      // The day is checked by the procedure, after the role: a cashier is refused first.
      case 'future_day': return rejected({ ...base, spent_at: '2099-01-01' }, atLeastManager(roleFor(world, route, 1)) ? 'validation_failed' : 'forbidden');
      case 'not_an_object': return { entity: 'expenses', raw: spec.junk, expect: { status: 'rejected', code: 'validation_failed' }, label: `${label} ${JSON.stringify(spec.junk)}` };
      case 'bad_uuid': return rejected({ ...base, id: 'depense-1' }, 'validation_failed');
      case 'unknown_user': return rejected({ ...base, user_id: randomUUID() }, 'validation_failed');
    }
  }
  const fresh = spec.kind === 'new' ? spec : { user: 1, method: 'card', revive: null };
  const revived = fresh.revive === null ? undefined : pickId(model, model.rejected.expenses, fresh.revive);
  const id = revived ?? randomUUID();
  const raw = {
    id,
    category: 'supplies',
    amount_xaf: 1500,
    payment_method: fresh.method,
    description: 'Sacs et ficelle',
    ...(fresh.user !== null ? { user_id: world.users[USERS[fresh.user]!].id } : {}),
  };
  if (!atLeastManager(roleFor(world, route, fresh.user))) {
    saw('expenses refused to a cashier');
    return rejected(raw, 'forbidden');
  }
  if (revived) {
    model.rejected.expenses.delete(revived);
    saw('revived expense ids');
  }
  model.expenses.set(id, raw);
  return { entity: 'expenses', raw, expect: { status: 'applied' }, label: `expense ${spec.kind === 'new' ? 'new' : `${spec.kind} (fallback: new)`}` };
}

function planCash(world: World, model: Model, route: Route, spec: CashSpec): Planned {
  const label = `cash movement ${spec.kind}${spec.kind === 'bad' ? ` ${spec.bad}` : ''}`;
  const rejected = (raw: unknown, code: string): Planned => {
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) && !model.cash.has(id)) model.rejected.cash_movements.add(id);
    return { entity: 'cash_movements', raw, expect: { status: 'rejected', code }, label };
  };
  if (spec.kind === 'duplicate') {
    const id = pickId(model, model.cash.keys(), spec.pick);
    if (id) {
      const original = model.cash.get(id)!;
      return { entity: 'cash_movements', raw: spec.changed ? { ...original, reason: 'Renvoyé' } : original, expect: { status: 'duplicate' }, label };
    }
  }
  if (spec.kind === 'foreign') {
    const id = borrow(model, 'cash_movements', spec.pick);
    if (id && model.cash.has(id)) {
      saw('cash_movements with another shop\'s id already mine: duplicate');
      return { entity: 'cash_movements', raw: model.cash.get(id), expect: { status: 'duplicate' }, label };
    }
    if (id) {
      // The cashier's: only the cashier has an open shift.
      const raw = { id, direction: 'in', amount_xaf: 100, reason: 'Ailleurs', user_id: world.users.cashier.id };
      model.cash.set(id, raw);
      saw('cash_movements applied with another shop\'s id');
      return { entity: 'cash_movements', raw, expect: { status: 'applied' }, label };
    }
  }
  const cashier = route === 'device' ? { user_id: world.users.cashier.id } : {};
  if (spec.kind === 'bad') {
    const id = randomUUID();
    const base = { id, direction: 'in', amount_xaf: 500, reason: 'Fond de caisse', ...cashier };
    switch (spec.bad) {
      case 'no_reason': return rejected({ id, direction: 'in', amount_xaf: 500, ...cashier }, 'validation_failed');
      case 'zero_amount': return rejected({ ...base, amount_xaf: 0 }, 'validation_failed');
      case 'bad_direction': return rejected({ ...base, direction: 'sideways' }, 'validation_failed');
      case 'year_zero': return rejected({ ...base, created_at: YEAR_ZERO }, 'validation_failed');
      case 'not_an_object': return { entity: 'cash_movements', raw: spec.junk, expect: { status: 'rejected', code: 'validation_failed' }, label: `${label} ${JSON.stringify(spec.junk)}` };
      case 'bad_uuid': return rejected({ ...base, id: 'mouvement-1' }, 'validation_failed');
      case 'unknown_user': return rejected({ ...base, user_id: randomUUID() }, 'validation_failed');
    }
  }
  const fresh = spec.kind === 'new' ? spec : { user: 2, direction: 'in', at: false, revive: null };
  const revived = fresh.revive === null ? undefined : pickId(model, model.rejected.cash_movements, fresh.revive);
  const id = revived ?? randomUUID();
  const raw = {
    id,
    direction: fresh.direction,
    amount_xaf: 500,
    reason: 'Monnaie',
    ...(fresh.user !== null ? { user_id: world.users[USERS[fresh.user]!].id } : {}),
    ...(fresh.at ? { created_at: tillTime(parseInt(id.slice(0, 4), 16)) } : {}),
  };
  // Drawer cash goes to the open shift of the record's user (else the bearer): only the cashier has one.
  const author = fresh.user !== null ? USERS[fresh.user]! : (bearerOf(world, route)?.role ?? null);
  if (author !== 'cashier') {
    saw('cash movements without an open shift');
    return rejected(raw, 'no_open_shift');
  }
  if (revived) {
    model.rejected.cash_movements.delete(revived);
    saw('revived cash movement ids');
  }
  model.cash.set(id, raw);
  return { entity: 'cash_movements', raw, expect: { status: 'applied' }, label: `cash movement ${spec.kind === 'new' ? 'new' : `${spec.kind} (fallback: new)`}` };
}

/** The records of a push in the order the server applies them (customers, sales, expenses, cash movements), each with its expectation. */
function plan(world: World, model: Model, spec: PushSpec): Planned[] {
  const planned: Planned[] = [];
  model.inPush.clear();
  for (const entity of PUSH_ORDER) {
    for (const record of spec.records.filter((r) => r.entity === entity)) {
      const next =
        record.entity === 'customers'
          ? planCustomer(world, model, spec.route, record)
          : record.entity === 'sales'
            ? planSale(world, model, spec.route, record)
            : record.entity === 'expenses'
              ? planExpense(world, model, spec.route, record)
              : planCash(world, model, spec.route, record);
      planned.push(next);
      const id = typeof next.raw === 'object' && next.raw !== null ? (next.raw as { id?: unknown }).id : undefined;
      if (spec.twice && typeof id === 'string') model.inPush.add(id);
    }
  }
  return planned;
}

// Sending and checking

function authOf(world: World, route: Route): SyncAuth {
  return route === 'device' ? { device: world.device.token } : { bearer: world.users[route].token };
}

/** A whole body that is not a push, and what it must answer. */
function junkBody(junk: Junk): { body?: unknown; rawBody?: string; status: number; code?: string } {
  switch (junk) {
    case 'array': return { body: [{ sales: [] }], status: 422, code: 'validation_failed' };
    case 'string': return { body: 'des ventes', status: 422, code: 'validation_failed' };
    case 'null': return { body: null, status: 422, code: 'validation_failed' };
    case 'number': return { body: 12, status: 422, code: 'validation_failed' };
    case 'sales_string': return { body: { sales: 'toutes' }, status: 422, code: 'validation_failed' };
    case 'sales_object': return { body: { sales: { id: randomUUID() } }, status: 422, code: 'validation_failed' };
    case 'customers_number': return { body: { customers: 3 }, status: 422, code: 'validation_failed' };
    case 'nested_junk': return { body: { sales: [], customers: null, expenses: [[]] }, status: 422, code: 'validation_failed' };
    case 'malformed': return { rawBody: '{"sales": [{"id": ', status: 400, code: 'malformed_json' };
    case 'unknown_keys': return { body: { ventes: [{ id: randomUUID() }], clients: 'x' }, status: 200 };
    case 'too_many_sales': return { body: { sales: Array.from({ length: 501 }, () => 0) }, status: 413, code: 'payload_too_large' };
  }
}

async function sendJunk(world: World, route: Route, junk: Junk, at: string): Promise<void> {
  const expected = junkBody(junk);
  const auth = authOf(world, route);
  const path = route === 'device' ? '/device/sync/push' : '/sync/push';
  const credentials = 'device' in auth ? { headers: { authorization: `Device ${auth.device}` } } : { token: auth.bearer };
  const reply =
    expected.rawBody !== undefined
      ? await api.request('POST', path, { ...credentials, rawBody: expected.rawBody })
      : await api.request('POST', path, { ...credentials, body: expected.body });
  check(reply.status !== 500, `${at}: junk body ${junk}: no server error`, reply);
  check(reply.status === expected.status, `${at}: junk body ${junk}: status ${expected.status}`, reply);
  if (expected.status === 200) {
    check(same(reply.body, { data: { results: [] } }), `${at}: junk body ${junk}: nothing to apply`, reply);
  } else {
    const keys = Object.keys(reply.body ?? {}).sort();
    check(
      typeof reply.body?.message === 'string' && reply.body.code === expected.code && (same(keys, ['code', 'message']) || same(keys, ['code', 'errors', 'message'])),
      `${at}: junk body ${junk}: the CONTRACT's error shape {message, code${expected.status === 422 ? ', errors' : ''}} with code ${expected.code}`,
      reply,
    );
  }
  saw(`junk body ${junk}`);
}

/** One answer against the model's expectation. */
function checkResult(p: Planned, result: any, where: string): void {
  check(result.status === p.expect.status, `${where}: expected ${p.expect.status}${p.expect.code ? ` ${p.expect.code}` : ''}`);
  check(result.code !== 'server_error', `${where}: no server error`);
  if (p.expect.status === 'rejected') {
    const rawId = typeof p.raw === 'object' && p.raw !== null ? (p.raw as { id?: unknown }).id : undefined;
    check(result.code === p.expect.code && typeof result.message === 'string' && result.message.length > 0, `${where}: code ${p.expect.code} and a message`);
    if (p.expect.code === 'validation_failed') check(result.errors && Object.keys(result.errors).length > 0, `${where}: the failing fields`);
    if (p.expect.code === 'stale') check(result.record?.id === rawId, `${where}: the server's record to reconcile with`);
  }
  if (p.expect.receipt !== undefined) check(result.receipt_no === p.expect.receipt, `${where}: receipt ${p.expect.receipt}`);
}

async function sendPush(world: World, model: Model, spec: PushSpec, at: string): Promise<void> {
  const planned = plan(world, model, spec);
  const body: Record<string, unknown[]> = {};
  for (const p of planned) (body[p.entity] ??= []).push(p.raw);
  if (spec.extra) {
    Object.assign(body, { refunds: [{ id: randomUUID() }], device_clock: [new Date().toISOString()] });
    saw('pushes with unknown top-level keys');
  }
  const replies = await Promise.all(Array.from({ length: spec.twice ? 2 : 1 }, () => push(api, authOf(world, spec.route), body)));
  const answers = replies.map((reply, n) => {
    const label = `${at}${spec.twice ? ` (request ${n + 1} of 2 at once)` : ''}`;
    check(reply.status !== 500, `${label}: no server error`, reply);
    check(reply.status === 200, `${label}: 200`, reply);
    const results: any[] = reply.body?.data?.results;
    check(Array.isArray(results) && results.length === planned.length, `${label}: one result per record (${planned.length})`, reply);
    return results;
  });
  planned.forEach((p, index) => {
    const rawId = typeof p.raw === 'object' && p.raw !== null ? (p.raw as { id?: unknown }).id : undefined;
    const got = answers.map((results) => results[index]);
    const where = `${at}: record ${index} (${p.label}, ${JSON.stringify(p.raw)?.slice(0, 300)}) answered ${JSON.stringify(got)}`;
    for (const result of got) check(result?.entity === p.entity && result?.id === (typeof rawId === 'string' ? rawId : null), `${where}: its entity and id, in the order applied`);
    if (!spec.twice) checkResult(p, got[0], where);
    else if (p.expect.status === 'applied') {
      // Sent twice at once: one request applies it, the other finds it.
      const winner = got.find((r) => r.status === 'applied');
      check(winner !== undefined && got.filter((r) => r.status === 'applied').length === 1, `${where}: applied by exactly one of the two requests`);
      checkResult(p, winner, where);
      checkResult({ ...p, expect: { ...p.expect, status: 'duplicate' } }, got.find((r) => r !== winner), `${where} (the other request)`);
      saw(`${p.entity} applied by one of two requests at once`);
    } else for (const result of got) checkResult(p, result, where);
    saw(`${p.entity} ${p.expect.status}${p.expect.code ? ` ${p.expect.code}` : ''}`);
  });
  saw(`pushes by ${spec.route}${spec.twice ? ' twice at once' : ''}`);
}

/** The database against the model, after a push. */
async function checkDatabase(world: World, model: Model, at: string): Promise<void> {
  const shopId = world.owner.shop.id;
  const sql = api.ownerSql;
  const sales = await sql<{ id: string; receipt_no: number }[]>`select id, receipt_no from sales where shop_id = ${shopId} order by receipt_no`;
  check(sales.length === model.sales.size, `${at}: ${sales.length} sales in the shop, the model ${model.sales.size}`);
  check(same(sales.map((s) => s.receipt_no), sales.map((_, i) => i + 1)), `${at}: receipt numbers 1..N with no gap: ${sales.map((s) => s.receipt_no).join(',')}`);
  for (const sale of sales) check(model.sales.get(sale.id)?.receipt === sale.receipt_no, `${at}: sale ${sale.id} is a valid one, with receipt ${model.sales.get(sale.id)?.receipt}`);

  const customers = await sql<{ id: string; name: string }[]>`select id, name from customers where shop_id = ${shopId} and deleted_at is null`;
  check(customers.length === model.customers.size, `${at}: ${customers.length} customers, the model ${model.customers.size}`);
  for (const c of customers) check(model.customers.get(c.id)?.name === c.name, `${at}: customer ${c.id} is ${c.name}, the model ${model.customers.get(c.id)?.name}`);

  const expenses = await sql<{ id: string }[]>`select id from expenses where shop_id = ${shopId}`;
  check(same(expenses.map((e) => e.id).sort(), [...model.expenses.keys()].sort()), `${at}: the expenses are the valid ones`);
  const cash = await sql<{ id: string }[]>`select id from cash_movements where shop_id = ${shopId}`;
  check(same(cash.map((c) => c.id).sort(), [...model.cash.keys()].sort()), `${at}: the cash movements are the valid ones`);

  const refused = Object.values(model.rejected).flatMap((ids) => [...ids]);
  if (refused.length) {
    const [found] = await sql<{ n: number }[]>`
      select (select count(*) from sales where id = any(${refused}::uuid[])) + (select count(*) from customers where id = any(${refused}::uuid[]))
           + (select count(*) from expenses where id = any(${refused}::uuid[])) + (select count(*) from cash_movements where id = any(${refused}::uuid[])) as n`;
    check(Number(found!.n) === 0, `${at}: no refused record exists, in any shop`);
  }

  for (const entity of PUSH_ORDER) {
    const borrowed = model.borrowed.filter((b) => b.entity === entity).map((b) => b.theirs);
    if (!borrowed.length) continue;
    const now = await rowPrints(entity, borrowed.map((b) => b.shop), borrowed.map((b) => b.id));
    for (const theirs of borrowed) {
      check(now.get(`${theirs.shop}/${theirs.id}`) === theirs.row, `${at}: ${entity} ${theirs.id} of shop ${theirs.shop} is as that shop left it`);
    }
  }

  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, shopId);
  check(stockMismatches.length === 0, `${at}: on-hand equals the sum of movements, but ${JSON.stringify(stockMismatches)}`);
  check(unbalancedEntries.length === 0, `${at}: every journal entry balances, but ${JSON.stringify(unbalancedEntries)}`);
  for (const [key, expected] of world.stock) {
    const [row] = await sql<{ on_hand: number }[]>`select on_hand from variants where id = ${key} union all select on_hand from products where id = ${key}`;
    check(Math.round(row!.on_hand * 1000) === expected, `${at}: on-hand of ${key} is ${row!.on_hand}, the model ${expected / 1000} (each sale counted once)`);
  }
}

/** A fingerprint of each row named by its shop and id (they pair up), by `shop/id`. */
async function rowPrints(entity: Entity, shops: string[], ids: string[]): Promise<Map<string, string>> {
  const rows = await api.ownerSql<{ shop_id: string; id: string; row: string }[]>`
    select t.shop_id, t.id, md5(t::text) as row
      from unnest(${shops}::uuid[], ${ids}::uuid[]) as named (shop_id, id) join ${api.ownerSql(entity)} t on t.shop_id = named.shop_id and t.id = named.id`;
  return new Map(rows.map((r) => [`${r.shop_id}/${r.id}`, r.row]));
}

async function run(sequence: PushSpec[]): Promise<void> {
  const world = await buildWorld();
  const model = emptyModel(world.regular);
  for (const [index, spec] of sequence.entries()) {
    const at = `push ${index} by ${spec.route}`;
    if (spec.junk) await sendJunk(world, spec.route, spec.junk, at);
    else await sendPush(world, model, spec, at);
    await checkDatabase(world, model, at);
  }
  const shop = world.owner.shop.id;
  const applied: Record<Entity, string[]> = {
    sales: [...model.sales.keys()],
    customers: [...model.customers.keys()],
    expenses: [...model.expenses.keys()],
    cash_movements: [...model.cash.keys()],
  };
  for (const entity of PUSH_ORDER) {
    const prints = await rowPrints(entity, applied[entity].map(() => shop), applied[entity]);
    foreign[entity].push(
      ...applied[entity].map((id) => {
        const row = prints.get(`${shop}/${id}`);
        check(row !== undefined, `${entity} ${id} of the model is in the shop`);
        return { id, shop, row };
      }),
    );
  }
}

t.test('fuzzed pushes never create a duplicate, never lose a valid record and never answer 500', async (t) => {
  const started = Date.now();
  const property = fc.asyncProperty(pushes, run);
  await checkProperty(t, property, RUN, 'random runs', 60_000);
  t.comment(`${RUNS} runs in ${Date.now() - started} ms; exercised: ${JSON.stringify(seen)}`);
  if (!PATH) {
    for (const what of [
      'sales applied', 'sales duplicate', 'sales rejected validation_failed', 'sales applied with another shop\'s id',
      'sales recorded after the catalogue changed: product_given_variants', 'sales recorded after the catalogue changed: withdrawn_product',
      'sales recorded after the catalogue changed: deleted_customer', 'sales rejected change_without_cash', 'sales rejected payment_insufficient', 'customers applied', 'customers duplicate', 'customers rejected stale',
      'customers rejected forbidden', 'customers rejected card_taken', 'customers applied with another shop\'s id', 'customers rejected validation_failed',
      'expenses applied', 'expenses duplicate', 'expenses rejected forbidden', 'expenses applied with another shop\'s id', 'cash_movements applied',
      'cash_movements applied with another shop\'s id',
      'cash_movements duplicate', 'cash_movements rejected no_open_shift', 'cash_movements rejected validation_failed', 'revived sale ids', 'credit sales',
      'pushes by device', 'pushes by owner', 'pushes by manager', 'pushes by cashier', 'junk body malformed', 'sales applied by one of two requests at once',
      'customers applied by one of two requests at once', 'expenses applied by one of two requests at once',
      'cash_movements applied by one of two requests at once', 'pushes by device twice at once',
    ]) {
      t.ok((seen[what] ?? 0) > 0, `the runs reached ${what} (${seen[what] ?? 0})`);
    }
  }
});
