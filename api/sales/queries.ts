import { createHash } from 'node:crypto';
import type { Sql, Tx } from '../db.ts';
import type { TenantScope } from '../middleware/tenancy.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import { saleDebt } from '../credit/queries.ts';
import type { CreateSaleBody, ReceiptInput, SaleRecord } from './schemas.ts';

/** A stable fingerprint of a request body: keys sorted, so the same sale sent twice hashes the same. */
export function requestHash(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
        : value;
  return createHash('sha256').update(JSON.stringify(canonical(body))).digest('hex');
}

/** The shop and the user a sale procedure is called for: the request's (its transaction is bound to them). */
export type SaleScope = Pick<TenantScope, 'shopId' | 'userId'>;

/**
 * Records a sale through the one entry point (sale_submit) inside the request's transaction.
 * `replayed` when the same id came back with the same body; a different body under the same id is a
 * 409 raised by the procedure.
 */
export async function recordSale(
  tx: Tx,
  scope: SaleScope,
  sale: CreateSaleBody & { id: string; created_at?: string | undefined; till_created_at?: string | null },
  offline = false,
): Promise<{ id: string; replayed: boolean }> {
  const [row] = await tx<{ result: { id: string; replayed: boolean } }[]>`
    select sale_submit(${scope.shopId}, ${scope.userId}, ${tx.json(salePayload(sale))}, null, ${offline}) as result`;
  return row!.result;
}

/**
 * What the procedures take: the body, its fingerprint (replays are recognised by it), created_at and,
 * for an offline sale recorded at the server's time, the till's (till_created_at, api/sync/push.ts).
 */
function salePayload(sale: CreateSaleBody & { id: string; created_at?: string | undefined; till_created_at?: string | null }) {
  const { created_at, till_created_at, ...body } = sale;
  return { ...body, created_at: created_at ?? null, till_created_at: till_created_at ?? null, request_hash: requestHash(body) };
}

/**
 * POST /sales without a request transaction: the sale in one autocommit statement (sale_submit sets
 * the caller's shop and user, records the sale and takes the receipt counter last, then PostgreSQL
 * commits), then the answer read in a second one, sent with the first on one reserved connection
 * (pipelined: one write, one wait; PostgreSQL runs the read after the sale's commit). The shop's
 * counter is held for the commit only. A refused sale's error is the answer, whatever the read
 * found. The answer is null only if the sale went in between (it never does).
 */
export async function recordSaleAlone(
  sql: Sql,
  scope: TenantScope,
  sale: CreateSaleBody & { id: string },
): Promise<{ sale: SaleRecord | null; replayed: boolean }> {
  const connection = await sql.reserve();
  try {
    const submitted = connection<{ result: { id: string; replayed: boolean } }[]>`
      select sale_submit(${scope.shopId}, ${scope.userId}, ${connection.json(salePayload(sale))}, ${scope.requestId ?? null}) as result`.execute();
    const read = connection<{ sale: SaleRecord | null }[]>`select sale_read(${scope.shopId}, ${scope.userId}, ${sale.id}) as sale`;
    // Both settle before the connection goes back: a query still on its way (the read waits for the
    // sale's answer, or for its own description on a connection new to it) must never meet the next
    // borrower's statements on the wire, which would take each other's answers.
    const [submittedOutcome, readOutcome] = await Promise.allSettled([submitted, read]);
    if (submittedOutcome.status === 'rejected') throw submittedOutcome.reason;
    if (readOutcome.status === 'rejected') throw readOutcome.reason;
    const [row] = submittedOutcome.value;
    const [answer] = readOutcome.value;
    return { sale: answer!.sale, replayed: row!.result.replayed };
  } finally {
    connection.release();
  }
}

export async function findSale(tx: Tx, id: string): Promise<SaleRecord | null> {
  const [row] = await tx<{ sale: SaleRecord | null }[]>`select sale_json(id) as sale from sales where shop_id = app_shop_id() and id = ${id}`;
  return row?.sale ?? null;
}

export interface SaleFilters {
  from?: string;
  to?: string;
  customer_id?: string;
  status?: SaleRecord['status'];
  shift_id?: string;
  cashier?: string;
}

/** Sales newest first; days are the shop's calendar days. */
export async function listSales(tx: Tx, filters: SaleFilters, limit: number, before: readonly [string, string] | null) {
  return tx<{ sale: SaleRecord; cursor_at: string; id: string }[]>`
    select s.id, sale_json(s.id) as sale, ${tx.unsafe(CURSOR_AT('s.created_at'))} as cursor_at
      from sales s join shops sh on sh.id = s.shop_id
     where s.shop_id = app_shop_id()
       ${filters.from ? tx`and (s.created_at at time zone sh.timezone)::date >= ${filters.from}::date` : tx``}
       ${filters.to ? tx`and (s.created_at at time zone sh.timezone)::date <= ${filters.to}::date` : tx``}
       ${filters.customer_id ? tx`and s.customer_id = ${filters.customer_id}` : tx``}
       ${filters.status ? tx`and s.status = ${filters.status}` : tx``}
       ${filters.shift_id ? tx`and s.shift_id = ${filters.shift_id}` : tx``}
       ${filters.cashier ? tx`and s.cashier_id = ${filters.cashier}` : tx``}
       ${before ? tx`and (s.created_at, s.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by s.created_at desc, s.id desc
     limit ${limit + 1}`;
}

export async function voidSale(tx: Tx, scope: SaleScope, id: string, reason: string): Promise<void> {
  await tx`select sale_void(${scope.shopId}, ${scope.userId}, ${id}, ${reason})`;
}

export async function refundSale(
  tx: Tx,
  scope: SaleScope,
  id: string,
  refund: { method: string; reason: string | null; items: { sale_item_id: string; quantity: number }[] },
): Promise<string> {
  const [row] = await tx<{ id: string }[]>`
    select sale_refund(${scope.shopId}, ${scope.userId}, ${id}, ${refund.method}, ${refund.reason}, ${tx.json(refund.items)}) as id`;
  return row!.id;
}

/**
 * Points the sale would have earned, credited to a card shown after paying (loyalty_attribute: once
 * per sale): on what was paid and not refunded since.
 */
export async function attributeLoyalty(tx: Tx, sale: SaleRecord, customerId: string): Promise<number> {
  const refunded = sale.refunds.reduce((sum, refund) => sum + refund.total_xaf, 0);
  const base = Math.max(0, sale.total_xaf - sale.credit_xaf - refunded);
  const [row] = await tx<{ points: number }[]>`select loyalty_attribute(${customerId}, ${sale.id}, ${base}) as points`;
  return row!.points;
}

/** What a receipt or an invoice of the sale shows; null when the sale is not the caller's shop's. */
export async function loadReceiptInput(tx: Tx, saleId: string): Promise<ReceiptInput | null> {
  const sale = await findSale(tx, saleId);
  if (!sale) return null;
  const account = sale.credit_xaf > 0 ? await saleDebt(tx, sale.id) : null;
  return { sale, ...(await documentParties(tx, sale.customer_id)), account };
}

/** The shop and the customer a sale's or a quote's document names. */
export async function documentParties(tx: Tx, customerId: string | null): Promise<Pick<ReceiptInput, 'shop' | 'customer'>> {
  const [shop] = await tx<ReceiptInput['shop'][]>`
    select name, phone, email, address, city, tax_id, trade_register_no, legal_form, share_capital_xaf, tax_regime, tax_centre, bank_details,
           momo_merchant_no, payment_terms_days, receipt_header, receipt_footer, locale, timezone, payment_method_labels
      from shops where id = app_shop_id()`;
  const [customer] = customerId
    ? await tx<NonNullable<ReceiptInput['customer']>[]>`select id, name, phone, email, tax_id, trade_register_no, address from customers where id = ${customerId}`
    : [];
  return { shop: shop!, customer: customer ?? null };
}

