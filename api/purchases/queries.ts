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
