/**
 * A shop's history, seeded set-based for the benches that need years of sales (bench:reports,
 * bench:fiscal): as the owner, with triggers and foreign-key checks off
 * (session_replication_role = replica), 500 products in 10 categories, then `sales` sales of 5 lines
 * each spread over the last `days` days at shop hours (08:00 to 20:59 local), today included, paid
 * in cash, mobile money or card, about 1% voided (sale i with i % 100 = 7) and 1% partly refunded
 * (i % 100 = 13: one unit of the first line, an hour later), each with its payments and its journal
 * entry (sales 701 and VAT 4431 against the treasury; voids and refunds reversed), purchases with
 * deductible VAT (4452) twice a month; the receipt counter at `sales` and the shop created `days`
 * days ago. Sale i has receipt number i and id md5('sale' || i); its line k has id
 * md5('item' || i || '.' || k). Nothing is chained, sealed or vacuumed here.
 */
import postgres from 'postgres';
import { type BenchRun, count, login, ms, register, request, say } from './support.ts';

export const PRODUCTS = 500;
const BATCH_DAYS = 60;

export interface History {
  shopId: string;
  /** The shop's owner, one of the sales' cashiers. */
  ownerId: string;
  cashierIds: string[];
  sales: number;
  days: number;
}

export async function seedHistory(owner: postgres.Sql, { shopId, ownerId, cashierIds, sales, days }: History): Promise<void> {
  await owner.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    await sql`
      insert into categories (id, shop_id, name)
      select md5('cat' || c)::uuid, ${shopId}::uuid, 'Rayon ' || c from generate_series(1, 10) c`;
    await sql`
      insert into products (id, shop_id, name, search_name, category_id, price_xaf, cost_xaf, vat_rate, tracked, on_hand)
      select md5('product' || p)::uuid, ${shopId}::uuid, 'Article ' || p, 'article ' || p, md5('cat' || (1 + p % 10))::uuid,
             100 * (5 + p % 120), 70 * (5 + p % 120), case when p % 4 = 0 then 0 else 19.25 end, true, 1000000
        from generate_series(1, ${PRODUCTS}) p`;
  });
  const perDay = sales / days;
  const users = [ownerId, ...cashierIds];
  for (let from = 0; from < days; from += BATCH_DAYS) {
    const to = Math.min(days, from + BATCH_DAYS);
    const first = Math.floor(from * perDay) + 1;
    const last = Math.floor(to * perDay);
    await owner.begin(async (sql) => {
      await sql`set local session_replication_role = replica`;
      // Sale i: (days - 1 - floor((i-1) / perDay)) days ago, a pseudo-random local time of shop hours.
      await sql`
        create temp table seed_lines on commit drop as
        select i, k, md5('sale' || i)::uuid as sale_id, md5('product' || (1 + (i * 7 + k * 131) % ${PRODUCTS}))::uuid as product_id,
               (1 + (i + k) % 3)::numeric as quantity, 100 * (5 + (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 120) as price,
               70 * (5 + (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 120) as cost,
               case when (1 + (i * 7 + k * 131) % ${PRODUCTS}) % 4 = 0 then 0 else 19.25 end as rate
          from generate_series(${first}::int, ${last}::int) i, generate_series(1, 5) k`;
      await sql`
        create temp table seed_sales on commit drop as
        select l.i, l.sale_id, sum(round(l.quantity * l.price))::bigint as total,
               sum(vat_included(round(l.quantity * l.price)::bigint, l.rate))::bigint as vat,
               (((current_date - ${days - 1}::int + floor((l.i - 1) / ${perDay}::float8)::int)::timestamp
                 + make_interval(hours => 8 + (l.i * 37) % 13, mins => (l.i * 17) % 60, secs => (l.i * 13) % 60))
                 at time zone 'Africa/Douala') as at,
               case (l.i % 20) when 0 then 'card' when 1 then 'card' when 2 then 'carrier1_momo' when 3 then 'carrier1_momo'
                               when 4 then 'carrier2_money' else 'cash' end as method,
               (${users}::uuid[])[1 + l.i % ${users.length}] as cashier
          from seed_lines l group by l.i, l.sale_id`;
      await sql`
        insert into sales (id, shop_id, receipt_no, status, cashier_id, subtotal_xaf, discount_xaf, vat_xaf, total_xaf, paid_xaf, change_xaf,
                           credit_xaf, request_hash, created_at, recorded_at, voided_at, void_reason)
        select sale_id, ${shopId}::uuid, i, case when i % 100 = 7 then 'voided' when i % 100 = 13 then 'partially_refunded' else 'completed' end,
               cashier, total, 0, vat, total, total, 0, 0, 'seed', at, at,
               case when i % 100 = 7 then at + interval '10 minutes' end, case when i % 100 = 7 then 'Erreur' end
          from seed_sales`;
      await sql`
        insert into sale_items (id, shop_id, sale_id, line_no, product_id, name, quantity, unit_price_xaf, vat_rate, vat_xaf, total_xaf, cost_xaf,
                                stock_cost_xaf, refunded_quantity)
        select md5('item' || i || '.' || k)::uuid, ${shopId}::uuid, sale_id, k, product_id, 'Article', quantity, price, rate,
               vat_included(round(quantity * price)::bigint, rate), round(quantity * price)::bigint, cost, round(quantity * cost)::bigint,
               case when i % 100 = 13 and k = 1 then 1 else 0 end
          from seed_lines`;
      await sql`
        insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, created_at)
        select ${shopId}::uuid, sale_id, 'payment', method, total, at from seed_sales
        union all
        select ${shopId}::uuid, sale_id, 'void', method, -total, at + interval '10 minutes' from seed_sales where i % 100 = 7`;
      // Refunds: one unit of the first line, an hour after the sale.
      await sql`
        insert into refunds (id, shop_id, sale_id, method, reason, total_xaf, vat_xaf, created_at)
        select md5('refund' || s.i)::uuid, ${shopId}::uuid, s.sale_id, s.method, 'Défaut', round(l.price)::bigint,
               round(vat_included(round(l.quantity * l.price)::bigint, l.rate) / l.quantity)::bigint, s.at + interval '1 hour'
          from seed_sales s join seed_lines l on l.i = s.i and l.k = 1 where s.i % 100 = 13`;
      await sql`
        insert into refund_items (shop_id, refund_id, sale_item_id, quantity, total_xaf, vat_xaf, cost_xaf, stock_cost_xaf)
        select ${shopId}::uuid, r.id, md5('item' || s.i || '.1')::uuid, 1, r.total_xaf, r.vat_xaf, l.cost, l.cost
          from seed_sales s join refunds r on r.id = md5('refund' || s.i)::uuid join seed_lines l on l.i = s.i and l.k = 1`;
      await sql`
        insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, created_at)
        select ${shopId}::uuid, r.sale_id, 'refund', r.method, -r.total_xaf, r.created_at
          from refunds r join seed_sales s on s.sale_id = r.sale_id`;
      // The journal: one entry per sale (treasury against 701 and 4431), its void's reversal, each refund.
      await sql`
        insert into journal_entries (id, shop_id, source_type, source_id, memo, posted_at)
        select md5('je' || i)::uuid, ${shopId}::uuid, 'sale', sale_id, 'Sale', at from seed_sales
        union all
        select md5('jv' || i)::uuid, ${shopId}::uuid, 'sale_void', sale_id, 'Void', at + interval '10 minutes' from seed_sales where i % 100 = 7
        union all
        select md5('jr' || s.i)::uuid, ${shopId}::uuid, 'sale_refund', r.id, 'Refund', r.created_at
          from seed_sales s join refunds r on r.sale_id = s.sale_id`;
      await sql`
        insert into journal_lines (shop_id, entry_id, account, debit_xaf, credit_xaf)
        select ${shopId}::uuid, md5('je' || i)::uuid, case method when 'cash' then '571' when 'card' then '521' else '585' end, total, 0 from seed_sales
        union all select ${shopId}::uuid, md5('je' || i)::uuid, '701', 0, total - vat from seed_sales
        union all select ${shopId}::uuid, md5('je' || i)::uuid, '4431', 0, vat from seed_sales where vat > 0
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, case method when 'cash' then '571' when 'card' then '521' else '585' end, 0, total
                    from seed_sales where i % 100 = 7
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, '701', total - vat, 0 from seed_sales where i % 100 = 7
        union all select ${shopId}::uuid, md5('jv' || i)::uuid, '4431', vat, 0 from seed_sales where i % 100 = 7 and vat > 0
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, case s.method when 'cash' then '571' when 'card' then '521' else '585' end, 0, r.total_xaf
                    from seed_sales s join refunds r on r.sale_id = s.sale_id
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, '701', r.total_xaf - r.vat_xaf, 0 from seed_sales s join refunds r on r.sale_id = s.sale_id
        union all select ${shopId}::uuid, md5('jr' || s.i)::uuid, '4431', r.vat_xaf, 0 from seed_sales s join refunds r on r.sale_id = s.sale_id where r.vat_xaf > 0`;
    });
    process.stdout.write(`\r  seeded       days ${to} of ${days}, sales ${count(last)}   `);
  }
  process.stdout.write('\n');
  // Purchases with deductible VAT twice a month (the VAT declaration's 4452).
  await owner.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    await sql`
      insert into journal_entries (id, shop_id, source_type, source_id, memo, posted_at)
      select md5('jp' || d)::uuid, ${shopId}::uuid, 'purchase', md5('purchase' || d)::uuid, 'Purchase',
             (current_date - d)::timestamp at time zone 'Africa/Douala' + interval '10 hours'
        from generate_series(1, ${days - 1}, 15) d`;
    await sql`
      insert into journal_lines (shop_id, entry_id, account, debit_xaf, credit_xaf)
      select ${shopId}::uuid, md5('jp' || d)::uuid, '601', 2000000, 0 from generate_series(1, ${days - 1}, 15) d
      union all select ${shopId}::uuid, md5('jp' || d)::uuid, '4452', 385000, 0 from generate_series(1, ${days - 1}, 15) d
      union all select ${shopId}::uuid, md5('jp' || d)::uuid, '401', 0, 2385000 from generate_series(1, ${days - 1}, 15) d`;
    await sql`insert into receipt_counters (shop_id, last_no) values (${shopId}::uuid, ${sales}) on conflict (shop_id) do update set last_no = excluded.last_no`;
    await sql`update shops set created_at = (current_date - ${days}::int)::timestamp at time zone 'Africa/Douala' where id = ${shopId}`;
  });
}

/** A shop registered through the app, with its owner's token, 3 cashiers and an owner connection (closed at the end): where a history goes. */
export async function historyShop(bench: BenchRun, baseUrl: string, shopName: string) {
  const email = `owner-${bench.database}@bench.example`;
  const { shopId, userId } = await register(baseUrl, shopName, email);
  const { token } = await login(baseUrl, email);
  const owner = postgres(bench.ownerUrl, { max: 1, onnotice: () => {} });
  bench.closeAtEnd(() => owner.end({ timeout: 1 }));
  const cashierIds: string[] = [];
  for (let c = 1; c <= 3; c++) {
    const reply = await request(baseUrl, 'POST', '/users', { token, body: { name: `Caissière ${c}`, email: `c${c}-${bench.database}@bench.example`, password: 'bench-password-1234', role: 'cashier' } });
    if (reply.status !== 201) throw new Error(`cashier: ${reply.status} ${JSON.stringify(reply.body)}`);
    cashierIds.push(reply.body.data.id);
  }
  return { shopId, userId, token, owner, cashierIds };
}

/** Seals every ended day of the shop as the nightly task does (z_seal_next, day after day), printing the time taken; `what` ends the line. */
export async function sealEndedDays(owner: postgres.Sql, shopId: string, what: string): Promise<void> {
  const started = performance.now();
  let sealed = 0;
  for (;;) {
    const [row] = await owner<{ day: string | null }[]>`select z_seal_next(${shopId})::text as day`;
    if (!row?.day) break;
    sealed++;
    if (sealed % 50 === 0) process.stdout.write(`\r  sealing      ${sealed} days   `);
  }
  const sealMs = performance.now() - started;
  say(`\r  sealed       ${sealed} days in ${ms(sealMs)} (${ms(sealMs / Math.max(1, sealed))} per day), ${what}`);
}
