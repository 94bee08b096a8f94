import fc from 'fast-check';
import t from 'tap';
import { createProduct, registerShop, waitFor } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { startService } from '../support/service.ts';

/**
 * The reports equal the ledger to the franc: random days of sales (several VAT rates, discounts,
 * tracked and untracked goods, every method), voids and refunds of that day's or earlier days'
 * sales, purchases and purchase returns, some days sealed by the nightly task and some left open;
 * then for every day the Z's net equals what the journal credited 701 that day and its VAT what it
 * credited 4431, and the last Z's grand total is the sum of the days' nets. Days past are made by
 * moving the shop's records back in time. Fixed seed; FC_SEED, FC_RUNS and FC_PATH replay another.
 */
const api = await startService(t);
const RUN = propertyRun(20_261_125, 30);

type Op =
  | { kind: 'sale'; product: number; quantity: number; discount: number; method: 'cash' | 'carrier1_momo' | 'card' }
  | { kind: 'void'; sale: number }
  | { kind: 'refund'; sale: number }
  | { kind: 'purchase'; product: number; quantity: number; cost: number; vat: 0 | 19.25 }
  | { kind: 'return'; purchase: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('sale' as const), product: fc.nat(3), quantity: fc.integer({ min: 1, max: 4 }), discount: fc.nat(300), method: fc.constantFrom('cash' as const, 'carrier1_momo' as const, 'card' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('void' as const), sale: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), sale: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purchase' as const), product: fc.nat(3), quantity: fc.integer({ min: 1, max: 20 }), cost: fc.integer({ min: 100, max: 5_000 }), vat: fc.constantFrom(0 as const, 19.25 as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('return' as const), purchase: fc.nat(10) }) },
);
const day = fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 8 }), sealAfter: fc.boolean() });

/**
 * Every dated record of the shop moved `days` days back (as in z.test.ts), purchases included, and
 * what sealing stored with them: the seal, the Zs and their facts, the days late records went to.
 */
async function backdate(shopId: string, days: number): Promise<void> {
  const by = `${days} days`;
  await api.ownerSql.begin(async (sql) => {
    // The seal row first, as the sealing task takes it: a task the crontab starts meanwhile seals
    // before or after the move, never halfway through it.
    await sql`insert into z_seals (shop_id, sealed_through)
              select id, (created_at at time zone timezone)::date - 1 from shops where id = ${shopId} on conflict (shop_id) do nothing`;
    await sql`select 1 from z_seals where shop_id = ${shopId} for update`;
    await sql`update shops set created_at = created_at - ${by}::interval where id = ${shopId}`;
    await sql`update sales set created_at = created_at - ${by}::interval, recorded_at = recorded_at - ${by}::interval,
                               voided_at = voided_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update sale_payments set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update refunds set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update purchases set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update journal_entries set posted_at = posted_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update sales set reported_on = reported_on - ${days}::int where shop_id = ${shopId} and reported_on is not null`;
    await sql`update z_seals set sealed_through = sealed_through - ${days}::int where shop_id = ${shopId}`;
    await sql`update z_reports set day = day - ${days}::int where shop_id = ${shopId}`;
    await sql`update report_facts set day = day - ${days}::int where shop_id = ${shopId}`;
  });
}

async function seal(): Promise<void> {
  await api.ownerSql`select graphile_worker.add_job('report__seal_z', '{}'::json)`;
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number; error: string | null }[]>`
      select count(*)::int as n, max(last_error) as error from graphile_worker.jobs where task_identifier = 'report__seal_z'`;
    // A failed attempt would be retried after a backoff: report it rather than wait it out.
    if (row!.error) throw new Error(`the sealing job failed: ${row!.error}`);
    return row!.n === 0;
  }, 'the sealing job');
}

/** What the journal posted to `account` (credit minus debit) per shop day. */
async function journalByDay(shopId: string, account: string): Promise<Map<string, number>> {
  const rows = await api.ownerSql<{ day: string; net: string }[]>`
    select ((e.posted_at at time zone s.timezone)::date)::text as day, sum(l.credit_xaf - l.debit_xaf)::text as net
      from journal_lines l join journal_entries e on e.id = l.entry_id join shops s on s.id = e.shop_id
     where e.shop_id = ${shopId} and l.account = ${account} group by 1`;
  return new Map(rows.map((row) => [row.day, Number(row.net)]));
}

t.test('over random days of sales, voids, refunds, purchases and returns, sealed or not, each day\'s Z equals the journal', async (t) => {
  // The sealing task runs in a real graphile-worker, without mail (the Z mails queue and stay).
  const { startMailbox, startMailWorker } = await import('../support/mailbox.ts');
  await startMailWorker(t, api, await startMailbox(t));
  const seen = { sales: 0, voids: 0, refunds: 0, purchases: 0, returns: 0, sealedDays: 0, openDays: 0 };
  const property = fc.asyncProperty(fc.array(day, { minLength: 1, maxLength: 3 }), async (days) => {
    const owner = await registerShop(api);
    const products = [
      await createProduct(api, owner.token, { name: 'Ciment', price_xaf: 5_000, vat_rate: 19.25, cost_xaf: 3_500 }, 1_000),
      await createProduct(api, owner.token, { name: 'Huile', price_xaf: 1_250, vat_rate: 5.5, cost_xaf: 900 }, 1_000),
      await createProduct(api, owner.token, { name: 'Riz', price_xaf: 700, vat_rate: 0, cost_xaf: 500 }, 1_000),
      await createProduct(api, owner.token, { name: 'Livraison', price_xaf: 2_000, vat_rate: 19.25, tracked: false }),
    ];
    const sales: any[] = [];
    const purchases: any[] = [];
    for (const [index, { ops, sealAfter }] of days.entries()) {
      for (const step of ops) {
        if (step.kind === 'sale') {
          const product = products[step.product]!;
          const gross = product.price_xaf * step.quantity;
          const reply = await api.request('POST', '/sales', {
            token: owner.token,
            body: { items: [{ product_id: product.id, quantity: step.quantity, discount_xaf: Math.min(step.discount, gross) }], payments: [{ method: step.method, amount_xaf: gross }] },
          });
          if (reply.status === 201) (sales.push(reply.body.data), seen.sales++);
        } else if (step.kind === 'void' && sales.length) {
          const sale = sales[step.sale % sales.length];
          if ((await api.request('POST', `/sales/${sale.id}/void`, { token: owner.token, body: { reason: 'Erreur' } })).status === 200) seen.voids++;
        } else if (step.kind === 'refund' && sales.length) {
          const sale = sales[step.sale % sales.length];
          const reply = await api.request('POST', `/sales/${sale.id}/refund`, { token: owner.token, body: { method: 'cash', items: [{ sale_item_id: sale.items[0].id, quantity: 1 }] } });
          if (reply.status === 201) seen.refunds++;
        } else if (step.kind === 'purchase') {
          const reply = await api.request('POST', '/purchases', {
            token: owner.token,
            body: { vat_rate: step.vat, items: [{ product_id: products[step.product]!.id, quantity: step.quantity, unit_cost_xaf: step.cost }] },
          });
          if (reply.status === 201) (purchases.push(reply.body.data), seen.purchases++);
        } else if (step.kind === 'return' && purchases.length) {
          const purchase = purchases[step.purchase % purchases.length];
          const reply = await api.request('POST', `/purchases/${purchase.id}/returns`, { token: owner.token, body: { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] } });
          if (reply.status === 201) seen.returns++;
        }
      }
      if (index < days.length - 1) {
        await backdate(owner.shop.id, 1);
        if (sealAfter) await seal();
      }
    }
    const [first] = await api.ownerSql<{ day: string; today: string }[]>`
      select ((created_at at time zone timezone)::date)::text as day, ((now() at time zone timezone)::date)::text as today from shops where id = ${owner.shop.id}`;
    const sales701 = await journalByDay(owner.shop.id, '701');
    const vat4431 = await journalByDay(owner.shop.id, '4431');
    let grand = 0;
    let lastGrand = 0;
    for (let d = new Date(`${first!.day}T00:00:00Z`); d.toISOString().slice(0, 10) <= first!.today; d = new Date(d.getTime() + 86_400_000)) {
      const date = d.toISOString().slice(0, 10);
      const z = (await api.request('GET', `/reports/z?date=${date}`, { token: owner.token })).body.data;
      if (z.net_xaf !== (sales701.get(date) ?? 0)) throw new Error(`${date}: Z net ${z.net_xaf} but 701 ${sales701.get(date) ?? 0}`);
      if (z.vat_xaf !== (vat4431.get(date) ?? 0)) throw new Error(`${date}: Z VAT ${z.vat_xaf} but 4431 ${vat4431.get(date) ?? 0}`);
      const rates = z.vat_per_rate.reduce((sum: number, rate: { vat_xaf: number }) => sum + rate.vat_xaf, 0);
      if (rates !== z.vat_xaf) throw new Error(`${date}: VAT per rate ${rates} but VAT ${z.vat_xaf}`);
      grand += z.net_total_xaf;
      if (z.sealed) seen.sealedDays++;
      else seen.openDays++;
      if (z.z_no !== null || !z.sealed) lastGrand = z.grand_total_xaf;
    }
    if (lastGrand !== grand) throw new Error(`the grand total ${lastGrand} is not the sum of the days' nets ${grand}`);
  });
  await checkProperty(t, property, RUN, 'random days', 80_000);
  t.comment(`exercised: ${JSON.stringify(seen)}`);
  if (!RUN.path) {
    t.ok(seen.voids > 0 && seen.refunds > 0 && seen.purchases > 0, `voids (${seen.voids}), refunds (${seen.refunds}) and purchases (${seen.purchases}) were made`);
    t.ok(seen.sealedDays > 0 && seen.openDays > 0, `days were sealed (${seen.sealedDays}) and left open (${seen.openDays})`);
  }
});
