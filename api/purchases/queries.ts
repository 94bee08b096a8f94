import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { PurchaseRecord } from './schemas.ts';

type CreatePurchase = {
  supplier_id?: string | null | undefined;
  reference?: string | null | undefined;
  note?: string | null | undefined;
  vat_rate?: number | null | undefined;
  items: {
    product_id?: string | null | undefined;
    variant_id?: string | null | undefined;
    name?: string | null | undefined;
    quantity: number;
    unit_cost_xaf: number;
    batch_number?: string | null | undefined;
    expiry_date?: string | null | undefined;
  }[];
};

/** The purchase as the API shows it (purchase_json), or null when the caller's shop has none of that id. */
export async function findPurchase(tx: Tx, id: string): Promise<PurchaseRecord | null> {
  const [row] = await tx<{ purchase: PurchaseRecord | null }[]>`select purchase_json(id) as purchase from purchases where id = ${id}`;
  return row?.purchase ?? null;
}

/** Receives the goods (purchase_record: stock, batches, costs, journal, supplier balance) and answers the purchase. */
export async function recordPurchase(tx: Tx, body: CreatePurchase): Promise<PurchaseRecord> {
  // Two statements: a stable function reads the snapshot its statement began with, before the purchase.
  const [row] = await tx<{ id: string }[]>`select purchase_record(${tx.json(body as never)}) as id`;
  return (await findPurchase(tx, row!.id))!;
}

/** Pays part or all of a purchase (purchase_pay: 404, 422 overpayment). */
export async function payPurchase(tx: Tx, id: string, payment: { amount_xaf: number; method: string; reference?: string | null | undefined }): Promise<PurchaseRecord> {
  await tx`select purchase_pay(${id}, ${payment.amount_xaf}, ${payment.method}, ${payment.reference ?? null})`;
  return (await findPurchase(tx, id))!;
}

/** Sends goods back (purchase_return: 404, 422 return_exceeds_received or insufficient_stock). */
export async function returnPurchase(
  tx: Tx,
  id: string,
  items: { purchase_item_id: string; quantity: number; reason?: string | null | undefined }[],
): Promise<PurchaseRecord> {
  await tx`select purchase_return(${id}, ${tx.json(items as never)})`;
  return (await findPurchase(tx, id))!;
}

/** Purchases newest first, optionally of one supplier or status, between two days of the shop's calendar. */
export async function listPurchases(
  tx: Tx,
  filter: { supplier_id?: string | undefined; status?: string | undefined; from?: string | undefined; to?: string | undefined },
  limit: number,
  before: readonly [string, string] | null,
): Promise<{ id: string; purchase: PurchaseRecord; cursor_at: string }[]> {
  return tx`
    select p.id, purchase_json(p.id) as purchase, ${tx.unsafe(CURSOR_AT('p.created_at'))} as cursor_at
      from purchases p join shops sh on sh.id = p.shop_id
     where p.shop_id = app_shop_id()
       ${filter.supplier_id ? tx`and p.supplier_id = ${filter.supplier_id}` : tx``}
       ${filter.status ? tx`and p.status = ${filter.status}` : tx``}
       ${filter.from ? tx`and p.created_at >= (${filter.from}::date)::timestamp at time zone sh.timezone` : tx``}
       ${filter.to ? tx`and p.created_at < (${filter.to}::date + 1)::timestamp at time zone sh.timezone` : tx``}
       ${before ? tx`and (p.created_at, p.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by p.created_at desc, p.id desc
     limit ${limit + 1}`;
}

type PayableRow = {
  supplier_id: string | null;
  name: string | null;
  phone: string | null;
  balance_xaf: number;
  days_0_30_xaf: number;
  days_31_60_xaf: number;
  days_61_90_xaf: number;
  days_over_90_xaf: number;
  oldest_at: Date | null;
};
type Bucket = 'balance_xaf' | 'days_0_30_xaf' | 'days_31_60_xaf' | 'days_61_90_xaf' | 'days_over_90_xaf';

/**
 * What the shop owes its suppliers: what remains of each purchase not fully paid, aged by its invoice
 * date (the day received, shop calendar) into 0-30, 31-60, 61-90 and over 90 days; purchases without
 * a supplier together; suppliers owing the shop a credit (negative balance) listed too.
 */
export async function payables(tx: Tx) {
  const rows = await tx<PayableRow[]>`
    with open as (
      select p.supplier_id, p.total_xaf - p.returned_xaf - p.paid_xaf as remaining, p.created_at,
             (now() at time zone sh.timezone)::date - (p.created_at at time zone sh.timezone)::date as age
        from purchases p join shops sh on sh.id = p.shop_id
       where p.shop_id = app_shop_id() and p.status <> 'paid'
    ), aged as (
      select supplier_id,
             coalesce(sum(remaining), 0)::bigint as owed,
             coalesce(sum(remaining) filter (where age <= 30), 0)::bigint as days_0_30_xaf,
             coalesce(sum(remaining) filter (where age between 31 and 60), 0)::bigint as days_31_60_xaf,
             coalesce(sum(remaining) filter (where age between 61 and 90), 0)::bigint as days_61_90_xaf,
             coalesce(sum(remaining) filter (where age > 90), 0)::bigint as days_over_90_xaf,
             min(created_at) as oldest_at
        from open group by supplier_id
    )
    select a.supplier_id, s.name, s.phone, coalesce(s.balance_xaf, a.owed) as balance_xaf,
           a.days_0_30_xaf, a.days_31_60_xaf, a.days_61_90_xaf, a.days_over_90_xaf, a.oldest_at
      from aged a left join suppliers s on s.id = a.supplier_id
    union all
    select s.id, s.name, s.phone, s.balance_xaf, 0, 0, 0, 0, null
      from suppliers s
     where s.shop_id = app_shop_id() and s.balance_xaf < 0
       and not exists (select 1 from purchases p where p.supplier_id = s.id and p.status <> 'paid')
     order by balance_xaf desc, name nulls last, supplier_id nulls last`;
  const sum = (key: Bucket) => rows.reduce((total, row) => total + row[key], 0);
  return {
    as_of: new Date().toISOString(),
    suppliers: rows.map((row) => ({ ...row, oldest_at: row.oldest_at?.toISOString() ?? null })),
    totals: {
      balance_xaf: sum('balance_xaf'),
      days_0_30_xaf: sum('days_0_30_xaf'),
      days_31_60_xaf: sum('days_31_60_xaf'),
      days_61_90_xaf: sum('days_61_90_xaf'),
      days_over_90_xaf: sum('days_over_90_xaf'),
    },
  };
}

/** Headline purchase figures of the shop, for the dashboard: today's receipts and what is owed to suppliers. */
export async function purchasesSummary(tx: Tx): Promise<{ today_count: number; today_total_xaf: number; payables_xaf: number; open_purchases: number }> {
  const [row] = await tx<{ today_count: number; today_total_xaf: number; payables_xaf: number; open_purchases: number }[]>`
    with today as (
      select (date_trunc('day', now() at time zone timezone)) at time zone timezone as starts from shops where id = app_shop_id()
    )
    select (select count(*)::int from purchases p, today where p.shop_id = app_shop_id() and p.created_at >= today.starts) as today_count,
           (select coalesce(sum(p.total_xaf), 0)::bigint from purchases p, today where p.shop_id = app_shop_id() and p.created_at >= today.starts) as today_total_xaf,
           (select coalesce(sum(p.total_xaf - p.returned_xaf - p.paid_xaf), 0)::bigint from purchases p where p.shop_id = app_shop_id() and p.status <> 'paid') as payables_xaf,
           (select count(*)::int from purchases p where p.shop_id = app_shop_id() and p.status <> 'paid') as open_purchases`;
  return row!;
}
