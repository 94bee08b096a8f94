import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { createProduct, ledgerInvariants, registerShop } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { startService, type Reply } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { productWithVariants } from './stock-fixtures.ts';
import { openShift } from '../sales/sale-fixtures.ts';

/**
 * Random sequences of everything that moves stock, on two products and the two variants of a third
 * (purchases of batched and unbatched lines, online and offline sales, voids, partial refunds,
 * adjustments and stocktakes both ways, purchase returns), checked after every step against the rules
 * of db/functions/stock/batches.sql:
 * - every batch holds at least zero, and exactly the sum of its batch movements;
 * - an item's batches hold at most its on-hand (nothing when it is negative);
 * - on-hand equals the sum of stock movements, and the journal balances (ledgerInvariants);
 * - a sale's batches never get back more than it took from them;
 * - and each answer, on-hand and batch is the one a model of the rules predicts: takes first expired
 *   first out, give-backs to the batches the sale took from the last taken first, receipts and
 *   give-backs only up to the on-hand, returns of a batched line from its batch.
 * Quantities are counted in thousandths, so the model's arithmetic is exact.
 * Fixed seed; FC_SEED, FC_RUNS and FC_PATH replay another run (the seed is printed on failure).
 */

const api = await startService(t);

const RUN = propertyRun(20_261_202, 100);

/** Batch number and expiry date a purchase line may name; two share a date, one number comes with two dates. */
const BATCHES: [string | null, string | null][] = [
  ['L1', '2027-01-31'],
  ['L2', '2027-01-31'],
  ['L3', '2026-12-15'],
  [null, '2027-03-01'],
  ['L4', null],
  ['L1', '2027-06-30'],
];
const ITEMS = 4; // Two products without variants, then the two variants of the third.

const milli = (min: number, max: number) => fc.integer({ min, max });
/** Mostly the first product, so that its batches pile up and sales, refunds and returns cross several of them. */
const item = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat(ITEMS - 1) });

type Op =
  | { kind: 'purchase'; lines: { item: number; batch: number; quantity: number; cost: number }[] }
  | { kind: 'sale'; lines: { item: number; quantity: number }[]; offline: boolean }
  | { kind: 'void'; pick: number }
  | { kind: 'refund'; pick: number; line: number; share: number }
  | { kind: 'adjust'; item: number; quantity: number }
  | { kind: 'stocktake'; counts: { item: number; quantity: number }[] }
  | { kind: 'return'; pick: number; line: number; share: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('purchase' as const),
      // A negative batch is an unbatched line.
      lines: fc.array(fc.record({ item, batch: fc.integer({ min: -3, max: BATCHES.length - 1 }), quantity: milli(1, 6000), cost: fc.integer({ min: 1, max: 90 }) }), { minLength: 1, maxLength: 4 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('sale' as const),
      lines: fc.array(fc.record({ item, quantity: milli(1, 3000) }), { minLength: 1, maxLength: 2 }),
      offline: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), pick: fc.nat(30) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(30), line: fc.nat(2), share: fc.integer({ min: 1, max: 100 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('adjust' as const), item, quantity: milli(0, 9000) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('stocktake' as const),
      counts: fc.uniqueArray(fc.record({ item, quantity: milli(0, 9000) }), { minLength: 1, maxLength: 2, selector: (c) => c.item }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('return' as const), pick: fc.nat(30), line: fc.nat(2), share: fc.integer({ min: 1, max: 100 }) }) },
);

// ---------------------------------------------------------------------------------------------
// The model: what the rules say each item's on-hand and each batch hold, in thousandths.

interface ItemRef {
  product_id: string;
  variant_id: string | null;
}

interface ModelBatch {
  id: string;
  item: number;
  batch_number: string | null;
  expiry_date: string | null;
  /** created_at in microseconds since the epoch (batches of one purchase share it). */
  created: bigint;
  quantity: number;
}

interface ModelSale {
  id: string;
  status: 'completed' | 'partially_refunded' | 'refunded' | 'voided';
  lines: { id: string; item: number; quantity: number; refunded: number }[];
  /** Per batch: what the sale took, what it got back, and when it took (the order of all takes). */
  takes: Map<string, { taken: number; given: number; at: number }>;
}

interface ModelPurchase {
  id: string;
  lines: { id: string; item: number; quantity: number; returned: number; batch_id: string | null }[];
}

/** An answer the model expects: a status, and for a refusal its code. */
interface Expected {
  status: number;
  code?: string;
}

/** Ascending, as PostgreSQL orders dates as text, timestamps and uuids (their lowercase hex). */
const compare = <T extends string | bigint>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
/** Undated batches go out last. */
const UNDATED = '9999-12-31';

class Model {
  onHand: number[] = Array(ITEMS).fill(0);
  batches = new Map<string, ModelBatch>();
  sales: ModelSale[] = [];
  purchases: ModelPurchase[] = [];
  private clock = 0;

  constructor(readonly items: ItemRef[]) {}

  /** The item's batches with stock, in the order stock goes out: expiry (undated last), receipt, id. */
  fefo(item: number): ModelBatch[] {
    return [...this.batches.values()]
      .filter((b) => b.item === item && b.quantity > 0)
      .sort((a, b) => compare(a.expiry_date ?? UNDATED, b.expiry_date ?? UNDATED) || compare(a.created, b.created) || compare(a.id, b.id));
  }

  room(item: number): number {
    return Math.max(this.onHand[item]!, 0) - this.fefo(item).reduce((sum, b) => sum + b.quantity, 0);
  }

  /** Takes up to `quantity` from the item's batches first expired first out; a sale keeps track of what it took. */
  take(item: number, quantity: number, sale?: ModelSale): void {
    let left = quantity;
    for (const batch of this.fefo(item)) {
      if (left <= 0) break;
      const take = Math.min(batch.quantity, left);
      batch.quantity -= take;
      left -= take;
      if (sale) sale.takes.set(batch.id, { taken: take, given: 0, at: this.clock++ });
    }
  }

  /** Gives back up to `quantity` to the batches the sale took from, last taken first, within the room. */
  giveBack(item: number, quantity: number, sale: ModelSale): void {
    let left = Math.min(quantity, this.room(item));
    const owed = [...sale.takes.entries()]
      .filter(([id, take]) => this.batches.get(id)!.item === item && take.taken > take.given)
      .sort(([idA, a], [idB, b]) => b.at - a.at || compare(idA, idB));
    for (const [id, take] of owed) {
      if (left <= 0) break;
      const give = Math.min(take.taken - take.given, left);
      take.given += give;
      this.batches.get(id)!.quantity += give;
      left -= give;
    }
  }

  sale(id: string, lines: { id: string; item: number; quantity: number }[], offline: boolean): Expected {
    const perItem = new Map<number, number>();
    for (const line of lines) perItem.set(line.item, (perItem.get(line.item) ?? 0) + line.quantity);
    if (!offline && [...perItem].some(([item, quantity]) => this.onHand[item]! < quantity)) return { status: 422, code: 'insufficient_stock' };
    const sale: ModelSale = { id, status: 'completed', lines: lines.map((l) => ({ ...l, refunded: 0 })), takes: new Map() };
    for (const [item, quantity] of perItem) {
      this.onHand[item]! -= quantity;
      this.take(item, quantity, sale);
    }
    this.sales.push(sale);
    return { status: offline ? 200 : 201 };
  }

  void(sale: ModelSale): Expected {
    if (sale.status === 'voided') return { status: 409, code: 'sale_already_voided' };
    if (sale.status !== 'completed') return { status: 409, code: 'sale_refunded' };
    const ref = (line: ModelSale['lines'][number]) => this.items[line.item]!;
    const lines = [...sale.lines].sort((a, b) => compare(ref(a).product_id, ref(b).product_id) || compare(ref(a).variant_id ?? '', ref(b).variant_id ?? ''));
    for (const line of lines) {
      this.onHand[line.item]! += line.quantity;
      this.giveBack(line.item, line.quantity, sale);
    }
    sale.status = 'voided';
    return { status: 200 };
  }

  refund(sale: ModelSale, line: ModelSale['lines'][number], quantity: number): Expected {
    if (sale.status === 'voided') return { status: 409, code: 'sale_voided' };
    if (sale.status === 'refunded') return { status: 409, code: 'sale_refunded' };
    if (quantity > line.quantity - line.refunded) return { status: 422, code: 'refund_exceeds_sold' };
    line.refunded += quantity;
    this.onHand[line.item]! += quantity;
    this.giveBack(line.item, quantity, sale);
    sale.status = sale.lines.every((l) => l.refunded === l.quantity) ? 'refunded' : 'partially_refunded';
    return { status: 201 };
  }

  /** An adjustment, or a stocktake's counted variance: down takes first expired first out, up is unbatched. */
  count(item: number, quantity: number): void {
    const delta = quantity - this.onHand[item]!;
    this.onHand[item] = quantity;
    if (delta < 0) this.take(item, -delta);
  }

  receive(item: number, quantity: number, batch: ModelBatch | null): void {
    this.onHand[item]! += quantity;
    if (!batch) return;
    this.batches.set(batch.id, batch);
    const added = Math.min(quantity, this.room(item));
    if (added > 0) batch.quantity += added;
  }

  giveBackToSupplier(line: ModelPurchase['lines'][number], quantity: number): Expected {
    if (quantity > line.quantity - line.returned) return { status: 422, code: 'return_exceeds_received' };
    if (this.onHand[line.item]! < quantity) return { status: 422, code: 'insufficient_stock' };
    const batch = line.batch_id ? this.batches.get(line.batch_id)! : null;
    if (batch && batch.quantity < quantity) return { status: 422, code: 'insufficient_stock' };
    line.returned += quantity;
    this.onHand[line.item]! -= quantity;
    if (batch) batch.quantity -= quantity;
    else if (this.room(line.item) < 0) this.take(line.item, -this.room(line.item));
    return { status: 201 };
  }
}

// ---------------------------------------------------------------------------------------------

const thousandths = (value: unknown) => Math.round(Number(value) * 1000);
const units = (milli: number) => milli / 1000;

function expectAnswer(reply: Reply, expected: Expected, what: string): void {
  const status = reply.status;
  const code = reply.body?.code;
  if (status !== expected.status || (expected.code && code !== expected.code)) {
    throw new Error(`${what}: expected ${expected.status} ${expected.code ?? ''}, got ${status} ${JSON.stringify(reply.body)}`);
  }
}

/** The rules every state must satisfy, straight from the database. */
async function invariants(shopId: string): Promise<string[]> {
  const problems: string[] = [];
  const over = await api.ownerSql`
    with items as (
      select p.id as product_id, null::uuid as variant_id, p.on_hand from products p
       where p.shop_id = ${shopId} and not exists (select 1 from variants v where v.product_id = p.id)
      union all
      select v.product_id, v.id, v.on_hand from variants v where v.shop_id = ${shopId}
    )
    select i.product_id, i.variant_id, i.on_hand, sum(b.quantity) as held
      from items i join batches b on b.product_id = i.product_id and b.variant_id is not distinct from i.variant_id
     group by 1, 2, 3 having sum(b.quantity) > greatest(i.on_hand, 0)`;
  if (over.length) problems.push(`batches hold more than the on-hand: ${JSON.stringify(over)}`);
  const drift = await api.ownerSql`
    select b.id, b.quantity, coalesce(sum(m.quantity), 0) as moved
      from batches b left join batch_movements m on m.shop_id = b.shop_id and m.batch_id = b.id
     where b.shop_id = ${shopId}
     group by b.shop_id, b.id having b.quantity < 0 or b.quantity <> coalesce(sum(m.quantity), 0)`;
  if (drift.length) problems.push(`a batch below zero or unequal to its movements: ${JSON.stringify(drift)}`);
  const overGiven = await api.ownerSql`
    select sale_id, batch_id, sum(quantity) as net from batch_movements
     where shop_id = ${shopId} and sale_id is not null group by 1, 2 having sum(quantity) > 0`;
  if (overGiven.length) problems.push(`a sale's batches got back more than it took: ${JSON.stringify(overGiven)}`);
  const ledger = await ledgerInvariants(api, shopId);
  if (ledger.stockMismatches.length) problems.push(`on-hand differs from the movements: ${JSON.stringify(ledger.stockMismatches)}`);
  if (ledger.unbalancedEntries.length) problems.push(`unbalanced entries: ${JSON.stringify(ledger.unbalancedEntries)}`);
  return problems;
}

/** Where the database and the model part: every item's on-hand and every batch's quantity. */
async function departures(shopId: string, model: Model): Promise<string[]> {
  const problems: string[] = [];
  const products = await api.ownerSql<{ id: string; on_hand: number }[]>`select id, on_hand from products where shop_id = ${shopId}`;
  const variants = await api.ownerSql<{ id: string; on_hand: number }[]>`select id, on_hand from variants where shop_id = ${shopId}`;
  const onHand = new Map([...products, ...variants].map((row) => [row.id, thousandths(row.on_hand)]));
  model.items.forEach((ref, i) => {
    const actual = onHand.get(ref.variant_id ?? ref.product_id);
    if (actual !== model.onHand[i]) problems.push(`item ${i}: on hand ${actual}, the rules say ${model.onHand[i]} (thousandths)`);
  });
  const rows = await api.ownerSql<{ id: string; quantity: number; batch_number: string | null }[]>`
    select id, quantity, batch_number from batches where shop_id = ${shopId}`;
  if (rows.length !== model.batches.size) problems.push(`${rows.length} batches, the rules say ${model.batches.size}`);
  for (const row of rows) {
    const expected = model.batches.get(row.id);
    if (!expected || expected.quantity !== thousandths(row.quantity)) {
      problems.push(`batch ${row.batch_number ?? ''}/${expected?.expiry_date ?? ''} of item ${expected?.item}: ${thousandths(row.quantity)}, the rules say ${expected?.quantity}`);
    }
  }
  return problems;
}

t.test('whatever moves the stock, batches follow it: first expired first out, never below zero nor above the on-hand', async (t) => {
  await checkProperty(
    t,
    fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 18 }), async (ops) => {
      // Each run opens a shop and pairs a till through public routes: a long shrink would reach the
      // per-address limit (and report a 429 instead of the counterexample), so its bucket is cleared.
      await api.ownerSql`delete from rate_limits where bucket like 'address:%'`;
      const owner = await registerShop(api);
      // The owner works at an open till: what a void or a refund pays back leaves its drawer.
      await openShift(api, owner.token);
      const token = owner.token;
      const device = await pairDevice(api, token);
      const first = await createProduct(api, token, { price_xaf: 100 });
      const second = await createProduct(api, token, { price_xaf: 70 });
      const { product: sized, variants } = await productWithVariants(api, token, { S: 0, M: 0 }, { price_xaf: 120 });
      const refs: ItemRef[] = [
        { product_id: first.id, variant_id: null },
        { product_id: second.id, variant_id: null },
        { product_id: sized.id, variant_id: variants.S.id },
        { product_id: sized.id, variant_id: variants.M.id },
      ];
      const line = (i: number) => (refs[i]!.variant_id ? { product_id: refs[i]!.product_id, variant_id: refs[i]!.variant_id } : { product_id: refs[i]!.product_id });
      const model = new Model(refs);

      for (const [step, o] of ops.entries()) {
        const what = `step ${step} ${JSON.stringify(o)}`;
        if (o.kind === 'purchase') {
          const body = {
            items: o.lines.map((l) => {
              const [batch_number, expiry_date] = l.batch >= 0 ? BATCHES[l.batch]! : [null, null];
              return { ...line(l.item), quantity: units(l.quantity), unit_cost_xaf: l.cost, ...(batch_number ? { batch_number } : {}), ...(expiry_date ? { expiry_date } : {}) };
            }),
          };
          const reply = await api.request('POST', '/purchases', { token, body });
          expectAnswer(reply, { status: 201 }, what);
          const purchase = reply.body.data;
          const created = new Map(
            (await api.ownerSql<{ id: string; micros: string }[]>`
              select id, (extract(epoch from created_at) * 1000000)::bigint::text as micros from batches where shop_id = ${owner.shop.id}`).map((row) => [row.id, BigInt(row.micros)]),
          );
          model.purchases.push({
            id: purchase.id,
            lines: o.lines.map((l, i) => ({ id: purchase.items[i].id, item: l.item, quantity: l.quantity, returned: 0, batch_id: purchase.items[i].batch_id })),
          });
          o.lines.forEach((l, i) => {
            const batchId: string | null = purchase.items[i].batch_id;
            const known = batchId ? model.batches.get(batchId) : undefined;
            const batch = batchId
              ? (known ?? { id: batchId, item: l.item, batch_number: purchase.items[i].batch_number, expiry_date: purchase.items[i].expiry_date, created: created.get(batchId)!, quantity: 0 })
              : null;
            model.receive(l.item, l.quantity, batch);
          });
        } else if (o.kind === 'sale') {
          const id = randomUUID();
          const items = o.lines.map((l) => ({ ...line(l.item), quantity: units(l.quantity) }));
          let reply: Reply;
          if (o.offline) {
            reply = await push(api, { device: device.token }, { sales: [{ ...offlineSale(id, first.id, 1), items }] });
            if (reply.status === 200 && reply.body.data.results[0].status !== 'applied') throw new Error(`${what}: ${JSON.stringify(reply.body)}`);
          } else {
            reply = await api.request('POST', '/sales', { token, body: { id, items, payments: [{ method: 'cash', amount_xaf: 10_000_000 }] } });
          }
          const saleItems = reply.status < 300 ? (await api.request('GET', `/sales/${id}`, { token })).body.data.items : [];
          expectAnswer(reply, model.sale(id, o.lines.map((l, i) => ({ id: saleItems[i]?.id, ...l })), o.offline), what);
        } else if (o.kind === 'void' && model.sales.length) {
          const sale = model.sales[o.pick % model.sales.length]!;
          const reply = await api.request('POST', `/sales/${sale.id}/void`, { token, body: { reason: 'Erreur' } });
          expectAnswer(reply, model.void(sale), what);
        } else if (o.kind === 'refund' && model.sales.length) {
          const sale = model.sales[o.pick % model.sales.length]!;
          const sold = sale.lines[o.line % sale.lines.length]!;
          const quantity = Math.max(1, Math.round((sold.quantity * o.share) / 100));
          const body = { method: 'cash', items: [{ sale_item_id: sold.id, quantity: units(quantity) }] };
          const reply = await api.request('POST', `/sales/${sale.id}/refund`, { token, body });
          expectAnswer(reply, model.refund(sale, sold, quantity), what);
        } else if (o.kind === 'adjust') {
          const ref = refs[o.item]!;
          const body = { new_quantity: units(o.quantity), reason: 'Recomptage', ...(ref.variant_id ? { variant_id: ref.variant_id } : {}) };
          expectAnswer(await api.request('POST', `/products/${ref.product_id}/adjust`, { token, body }), { status: 200 }, what);
          model.count(o.item, o.quantity);
        } else if (o.kind === 'stocktake') {
          const opened = await api.request('POST', '/stocktakes', { token, body: {} });
          expectAnswer(opened, { status: 201 }, what);
          const counts = o.counts.map((c) => ({
            item_id: opened.body.data.items.find((i: any) => i.product_id === refs[c.item]!.product_id && i.variant_id === refs[c.item]!.variant_id).id,
            counted_quantity: units(c.quantity),
          }));
          expectAnswer(await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token, body: { counts } }), { status: 200 }, what);
          expectAnswer(await api.request('POST', `/stocktakes/${opened.body.data.id}/commit`, { token }), { status: 200 }, what);
          for (const c of o.counts) model.count(c.item, c.quantity);
        } else if (o.kind === 'return' && model.purchases.length) {
          const purchase = model.purchases[o.pick % model.purchases.length]!;
          const received = purchase.lines[o.line % purchase.lines.length]!;
          const quantity = Math.max(1, Math.round((received.quantity * o.share) / 100));
          const body = { items: [{ purchase_item_id: received.id, quantity: units(quantity) }] };
          const reply = await api.request('POST', `/purchases/${purchase.id}/returns`, { token, body });
          expectAnswer(reply, model.giveBackToSupplier(received, quantity), what);
        }
        const problems = [...(await invariants(owner.shop.id)), ...(await departures(owner.shop.id, model))];
        if (problems.length) throw new Error(`${what}:\n${problems.join('\n')}`);
      }
    }),
    RUN,
    'sequences of stock changes',
    90_000,
  );
});
