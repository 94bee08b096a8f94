import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import { documentParties } from '../sales/queries.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import type { ConvertQuoteBody, CreateQuoteBody, QuoteRecord, UpdateQuoteBody } from './schemas.ts';

/** The quote as the API shows it (quote_json), or null when the caller's shop has none of that id. */
export async function findQuote(tx: Tx, id: string): Promise<QuoteRecord | null> {
  const [row] = await tx<{ quote: QuoteRecord | null }[]>`select quote_json(id) as quote from quotes where id = ${id} and deleted_at is null`;
  return row?.quote ?? null;
}

// Each write is one procedure, and the answer is read in a second statement: a stable function reads
// the snapshot its statement began with, before the write.

/** Records a quote priced as a sale (quote_record) and answers it. */
export async function createQuote(tx: Tx, body: CreateQuoteBody): Promise<QuoteRecord> {
  const [row] = await tx<{ id: string }[]>`select quote_record(${tx.json(body as never)}) as id`;
  return (await findQuote(tx, row!.id))!;
}

/** Changes a draft or sent quote (quote_update: 404, 409 quote_closed; items priced again). */
export async function updateQuote(tx: Tx, id: string, changes: UpdateQuoteBody): Promise<QuoteRecord> {
  await tx`select quote_update(${id}, ${tx.json(changes as never)})`;
  return (await findQuote(tx, id))!;
}

/** Marks a quote (quote_set_status: 404, 409 quote_closed once converted). */
export async function setQuoteStatus(tx: Tx, id: string, status: string): Promise<QuoteRecord> {
  await tx`select quote_set_status(${id}, ${status})`;
  return (await findQuote(tx, id))!;
}

/** Deletes a draft or sent quote (quote_delete: 404, 409 quote_closed). */
export async function deleteQuote(tx: Tx, id: string): Promise<void> {
  await tx`select quote_delete(${id})`;
}

/** Converts the quote into a sale (quote_convert, through sale_record) and answers both. */
export async function convertQuote(tx: Tx, id: string, saleId: string, body: ConvertQuoteBody): Promise<{ quote: QuoteRecord; sale: SaleRecord }> {
  await tx`select quote_convert(${id}, ${saleId}, ${tx.json((body.payments ?? []) as never)})`;
  const [row] = await tx<{ quote: QuoteRecord; sale: SaleRecord }[]>`select quote_json(${id}) as quote, sale_json(${saleId}) as sale`;
  return row!;
}

/** Quotes newest first, by shown status (a draft past its date is expired), customer and days of creation. */
export async function listQuotes(
  tx: Tx,
  filter: { status?: string | undefined; customer_id?: string | undefined; from?: string | undefined; to?: string | undefined },
  limit: number,
  before: readonly [string, string] | null,
): Promise<{ id: string; quote: QuoteRecord; cursor_at: string }[]> {
  return tx`
    select q.id, quote_json(q.id) as quote, ${tx.unsafe(CURSOR_AT('q.created_at'))} as cursor_at
      from quotes q join shops sh on sh.id = q.shop_id
     where q.shop_id = app_shop_id() and q.deleted_at is null
       ${filter.status ? tx`and quote_shown_status(q.status, q.valid_until, (now() at time zone sh.timezone)::date) = ${filter.status}` : tx``}
       ${filter.customer_id ? tx`and q.customer_id = ${filter.customer_id}` : tx``}
       ${filter.from ? tx`and q.created_at >= (${filter.from}::date)::timestamp at time zone sh.timezone` : tx``}
       ${filter.to ? tx`and q.created_at < (${filter.to}::date + 1)::timestamp at time zone sh.timezone` : tx``}
       ${before ? tx`and (q.created_at, q.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by q.created_at desc, q.id desc
     limit ${limit + 1}`;
}

/** What the quote's document shows: the quote, the shop's details and the customer. */
export async function loadQuoteDocument(tx: Tx, id: string): Promise<{ quote: QuoteRecord; shop: ReceiptInput['shop']; customer: ReceiptInput['customer'] } | null> {
  const quote = await findQuote(tx, id);
  if (!quote) return null;
  return { quote, ...(await documentParties(tx, quote.customer_id)) };
}
