import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { createProduct, ledgerInvariants, postVariant, staffedShop } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { startService, type Reply } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';

const api = await startService(t);

/**
 * Random sequences of everything that moves stock (purchases into random batches, online and offline
 * sales, voids, refunds, adjustments, stocktakes, purchase returns) on a product and a variant of a
 * fresh shop, checked after every step: no batch below zero, each batch equal to the sum of its
 * movements, an item's batches never holding more than its on-hand (zero when negative), and the
 * ledger invariants. Fixed seed; FC_SEED, FC_RUNS and FC_PATH replay another run.
 */
const RUN = propertyRun(20_261_125, 30);

const BATCHES: [string | null, string | null][] = [['A', '2027-01-31'], ['B', '2026-12-15'], [null, '2027-03-01'], ['C', null], [null, null]];
const qty = fc.integer({ min: 1, max: 6000 }).map((milli) => milli / 1000);

type Op =
  | { kind: 'purchase'; item: number; batch: number; quantity: number }
  | { kind: 'sale'; item: number; quantity: number; offline: boolean }
  | { kind: 'void'; pick: number }
  | { kind: 'refund'; pick: number; share: number }
  | { kind: 'adjust'; item: number; quantity: number }
  | { kind: 'stocktake'; item: number; quantity: number }
  | { kind: 'return'; pick: number; share: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('purchase' as const), item: fc.nat(1), batch: fc.nat(BATCHES.length - 1), quantity: qty }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sale' as const), item: fc.nat(1), quantity: qty, offline: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(20), share: fc.integer({ min: 1, max: 100 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('adjust' as const), item: fc.nat(1), quantity: fc.integer({ min: 0, max: 8000 }).map((m) => m / 1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stocktake' as const), item: fc.nat(1), quantity: fc.integer({ min: 0, max: 8000 }).map((m) => m / 1000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('return' as const), pick: fc.nat(20), share: fc.integer({ min: 1, max: 100 }) }) },
);

/** Statuses an operation may answer: a refusal by a rule is fine, a 500 or an unexpected code is not. */
function expectAnswer(reply: Reply, allowed: number[], what: string): void {
  if (!allowed.includes(reply.status)) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
}

async function invariants(shopId: string): Promise<string[]> {
  const problems: string[] = [];
  const over = await api.ownerSql`
    with items as (
      select p.id as product_id, null::uuid as variant_id, p.on_hand from products p
       where p.shop_id = ${shopId} and not exists (select 1 from variants v where v.product_id = p.id)
      union all
      select v.product_id, v.id, v.on_hand from variants v where v.shop_id = ${shopId}
    )
    select i.product_id, i.variant_id, i.on_hand, coalesce(sum(b.quantity), 0) as held
      from items i left join batches b on b.product_id = i.product_id and b.variant_id is not distinct from i.variant_id
     group by 1, 2, 3 having coalesce(sum(b.quantity), 0) > greatest(i.on_hand, 0)`;
  if (over.length) problems.push(`batches hold more than on hand: ${JSON.stringify(over)}`);
  const drift = await api.ownerSql`
    select b.id, b.quantity, coalesce(sum(m.quantity), 0) as moved
      from batches b left join batch_movements m on m.batch_id = b.id
     where b.shop_id = ${shopId} group by b.id having b.quantity <> coalesce(sum(m.quantity), 0) or b.quantity < 0`;
  if (drift.length) problems.push(`a batch differs from its movements: ${JSON.stringify(drift)}`);
  const ledger = await ledgerInvariants(api, shopId);
  if (ledger.stockMismatches.length) problems.push(`on-hand differs from movements: ${JSON.stringify(ledger.stockMismatches)}`);
  if (ledger.unbalancedEntries.length) problems.push(`unbalanced entries: ${JSON.stringify(ledger.unbalancedEntries)}`);
  return problems;
}

t.test('whatever moves the stock, batches stay within the on-hand, never below zero, equal to their movements', async (t) => {
  await checkProperty(
    t,
    fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (ops) => {
      const { owner } = await staffedShop(api);
      const device = await pairDevice(api, owner.token);
      const plain = await createProduct(api, owner.token, { price_xaf: 100 });
      const sized = await createProduct(api, owner.token, { price_xaf: 100 });
      const variant = (await postVariant(api, owner.token, sized.id, { options: { Taille: 'M' } })).body.data;
      const items = [{ product_id: plain.id }, { product_id: sized.id, variant_id: variant.id }];
      const sales: any[] = [];
      const purchases: any[] = [];
      for (const [step, o] of ops.entries()) {
        const what = `step ${step} ${JSON.stringify(o)}`;
        if (o.kind === 'purchase') {
          const [batch_number, expiry_date] = BATCHES[o.batch]!;
          const line = { ...items[o.item]!, quantity: o.quantity, unit_cost_xaf: 40, batch_number, expiry_date };
          if (o.item === 1) delete (line as any).product_id;
          const reply = await api.request('POST', '/purchases', { token: owner.token, body: { items: [line] } });
          expectAnswer(reply, [201], what);
          purchases.push(reply.body.data);
        } else if (o.kind === 'sale' && o.offline) {
          const sale = { ...offlineSale(randomUUID(), items[o.item]!.product_id, o.quantity), items: [{ ...items[o.item]!, quantity: o.quantity }] };
          const reply = await push(api, { device: device.token }, { sales: [sale] });
          expectAnswer(reply, [200], what);
          const read = await api.request('GET', `/sales/${sale.id}`, { token: owner.token });
          if (read.status === 200) sales.push(read.body.data);
        } else if (o.kind === 'sale') {
          const reply = await api.request('POST', '/sales', { token: owner.token, body: { items: [{ ...items[o.item]!, quantity: o.quantity }], payments: [{ method: 'cash', amount_xaf: 10_000 }] } });
          expectAnswer(reply, [201, 422], what);
          if (reply.status === 201) sales.push(reply.body.data);
        } else if (o.kind === 'void' && sales.length) {
          const sale = sales[o.pick % sales.length];
          expectAnswer(await api.request('POST', `/sales/${sale.id}/void`, { token: owner.token, body: { reason: 'Erreur' } }), [200, 409], what);
        } else if (o.kind === 'refund' && sales.length) {
          const sale = sales[o.pick % sales.length];
          const quantity = Math.max(1, Math.round((sale.items[0].quantity * 1000 * o.share) / 100)) / 1000;
          const body = { method: 'cash', items: [{ sale_item_id: sale.items[0].id, quantity }] };
          expectAnswer(await api.request('POST', `/sales/${sale.id}/refund`, { token: owner.token, body }), [201, 409, 422], what);
        } else if (o.kind === 'adjust') {
          const body = { new_quantity: o.quantity, reason: 'Recomptage', ...(o.item === 1 ? { variant_id: variant.id } : {}) };
          expectAnswer(await api.request('POST', `/products/${items[o.item]!.product_id}/adjust`, { token: owner.token, body }), [200], what);
        } else if (o.kind === 'stocktake') {
          const opened = await api.request('POST', '/stocktakes', { token: owner.token, body: {} });
          expectAnswer(opened, [201], what);
          const item = opened.body.data.items.find((i: any) => i.product_id === items[o.item]!.product_id && (i.variant_id ?? null) === (items[o.item]!.variant_id ?? null));
          const counts = { counts: [{ item_id: item.id, counted_quantity: o.quantity }] };
          expectAnswer(await api.request('POST', `/stocktakes/${opened.body.data.id}/counts`, { token: owner.token, body: counts }), [200], what);
          expectAnswer(await api.request('POST', `/stocktakes/${opened.body.data.id}/commit`, { token: owner.token }), [200], what);
        } else if (o.kind === 'return' && purchases.length) {
          const purchase = purchases[o.pick % purchases.length];
          const quantity = Math.max(1, Math.round((purchase.items[0].quantity * 1000 * o.share) / 100)) / 1000;
          const body = { items: [{ purchase_item_id: purchase.items[0].id, quantity }] };
          expectAnswer(await api.request('POST', `/purchases/${purchase.id}/returns`, { token: owner.token, body }), [201, 422], what);
        }
        const problems = await invariants(owner.shop.id);
        if (problems.length) throw new Error(`${what}:\n${problems.join('\n')}`);
      }
    }),
    RUN,
    'sequences of stock changes',
    120_000,
  );
});
