import type { QuoteDocumentInput } from '../../api/quotes/document.ts';
import type { QuoteRecord } from '../../api/quotes/schemas.ts';
import { CUSTOMER, receiptInput } from '../receipts/receipt-fixtures.ts';
import type { Reply, Service } from '../support/service.ts';
export { currentShift, openShift, shopDay } from '../shifts/shift-fixtures.ts';
export {
  createCustomer,
  createPromotion,
  expectLedgerInvariants,
  movements,
  onHand,
  postings,
  postSale,
  productWithVariants,
  readCustomer,
  readSale,
  receiptJobs,
  receiptNumbers,
  saleCount,
  saleJournal,
  sell,
  setShop,
  staffedShop,
  vatOf,
} from '../sales/sale-fixtures.ts';

/** Set-up and read-backs shared by the quotes tests (tests/quotes only). */

export const QUOTE_KEYS = [
  'converted_at', 'created_at', 'created_by', 'created_by_name', 'customer_id', 'customer_name', 'discount_xaf', 'id', 'items', 'note', 'quote_no',
  'sale_id', 'status', 'subtotal_xaf', 'total_xaf', 'updated_at', 'valid_until', 'vat_breakdown', 'vat_xaf',
].sort();
export const QUOTE_ITEM_KEYS = [
  'discount_xaf', 'id', 'line_no', 'name', 'product_id', 'promotion_discount_xaf', 'promotion_id', 'quantity', 'total_xaf', 'unit_price_xaf',
  'variant_id', 'vat_rate', 'vat_xaf',
].sort();

/** A free-text line: no product, so no catalogue, no stock, no promotion on a product. */
export const freeLine = (unitPrice: number, fields: Record<string, unknown> = {}) => ({ name: 'Prestation', quantity: 1, unit_price_xaf: unitPrice, vat_rate: 0, ...fields });

export const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

export function postQuote(api: Service, token: string, body: unknown, headers?: Record<string, string>): Promise<Reply> {
  return api.request('POST', '/quotes', { token, body, ...(headers ? { headers } : {}) });
}

/** A quote that must be created (201); answers the quote. */
export async function createQuote(api: Service, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await postQuote(api, token, body);
  if (reply.status !== 201) throw new Error(`create quote failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export const getQuote = (api: Service, token: string, id: string): Promise<Reply> => api.request('GET', `/quotes/${id}`, { token });

/** A quote that must read (200); answers the quote. */
export async function readQuote(api: Service, token: string, id: string): Promise<any> {
  const reply = await getQuote(api, token, id);
  if (reply.status !== 200) throw new Error(`read quote failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export const putQuote = (api: Service, token: string, id: string, body: unknown): Promise<Reply> => api.request('PUT', `/quotes/${id}`, { token, body });

export const deleteQuote = (api: Service, token: string, id: string): Promise<Reply> => api.request('DELETE', `/quotes/${id}`, { token });

export const markQuote = (api: Service, token: string, id: string, status: unknown): Promise<Reply> =>
  api.request('POST', `/quotes/${id}/status`, { token, body: { status } });

/** A status change that must succeed (200); answers the quote. */
export async function mark(api: Service, token: string, id: string, status: string): Promise<any> {
  const reply = await markQuote(api, token, id, status);
  if (reply.status !== 200) throw new Error(`mark quote ${status} failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export function convertQuote(api: Service, token: string, id: string, body: unknown = {}, headers?: Record<string, string>): Promise<Reply> {
  return api.request('POST', `/quotes/${id}/convert`, { token, body, ...(headers ? { headers } : {}) });
}

/** A conversion that must succeed (201); answers {quote, sale}. */
export async function convert(api: Service, token: string, id: string, body: unknown = {}): Promise<{ quote: any; sale: any }> {
  const reply = await convertQuote(api, token, id, body);
  if (reply.status !== 201) throw new Error(`convert quote failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** GET /quotes with a query string ('?status=draft'); must answer 200; answers the body ({data, meta}). */
export async function listQuotes(api: Service, token: string, query = ''): Promise<any> {
  const reply = await api.request('GET', `/quotes${query}`, { token });
  if (reply.status !== 200) throw new Error(`list quotes failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** The calendar day `days` days after `day` (YYYY-MM-DD; negative goes back). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** What the database holds of a shop's quotes (deleted ones included), read past row-level security. */
export async function storedQuotes(api: Service, shopId: string): Promise<{ id: string; status: string; sale_id: string | null; deleted_at: Date | null }[]> {
  const rows = await api.ownerSql<{ id: string; status: string; sale_id: string | null; deleted_at: Date | null }[]>`
    select id, status, sale_id, deleted_at from quotes where shop_id = ${shopId} order by quote_no`;
  return rows.map((row) => ({ ...row }));
}

/** The ids of a list of records, in order. */
export const ids = (records: { id: string }[]) => records.map((record) => record.id);

// ---------------------------------------------------------------------------------------------
// The quote's printed document is a pure function of the quote, the shop and the customer: these build them by hand, no database needed.

export const QUOTE_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const AT = '2026-11-21T13:05:00.000Z';

type QuoteItem = QuoteRecord['items'][number];

let counter = 0;
const uuid = () => `00000000-0000-4000-9000-${String(++counter).padStart(12, '0')}`;

export function quoteItem(fields: Partial<QuoteItem> & Pick<QuoteItem, 'name' | 'quantity' | 'unit_price_xaf'>): QuoteItem {
  return { id: uuid(), line_no: 1, product_id: uuid(), variant_id: null, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0, vat_rate: 19.25, vat_xaf: 0, total_xaf: 0, ...fields };
}

/**
 * A quote of three lines, worked out by the sale's rules:
 * - Café moulu 250 g: 2 x 2 500 = 5 000, line discount 500, total 4 500, VAT 19.25 % 726
 * - Riz parfumé 5 kg: 1 x 12 500, line discount 250 and promotion 1 250, total 11 000, VAT 19.25 % 1 776
 * - Tomates: 1.5 x 1 000 = 1 500, VAT 0 %
 * Subtotal 19 000, discounts 2 000, total 17 000, VAT 2 502.
 */
export function sampleQuote(fields: Partial<QuoteRecord> = {}): QuoteRecord {
  return {
    id: QUOTE_ID,
    quote_no: 12,
    status: 'sent',
    customer_id: CUSTOMER.id,
    customer_name: CUSTOMER.name,
    note: null,
    valid_until: '2026-12-31',
    subtotal_xaf: 19000,
    discount_xaf: 2000,
    vat_xaf: 2502,
    total_xaf: 17000,
    items: [
      quoteItem({ line_no: 1, name: 'Café moulu 250 g', quantity: 2, unit_price_xaf: 2500, discount_xaf: 500, vat_xaf: 726, total_xaf: 4500 }),
      quoteItem({ line_no: 2, name: 'Riz parfumé 5 kg', quantity: 1, unit_price_xaf: 12500, discount_xaf: 250, promotion_id: uuid(), promotion_discount_xaf: 1250, vat_xaf: 1776, total_xaf: 11000 }),
      quoteItem({ line_no: 3, name: 'Tomates', quantity: 1.5, unit_price_xaf: 1000, vat_rate: 0, vat_xaf: 0, total_xaf: 1500 }),
    ],
    vat_breakdown: [
      { rate: 0, base_xaf: 1500, vat_xaf: 0, total_xaf: 1500 },
      { rate: 19.25, base_xaf: 12998, vat_xaf: 2502, total_xaf: 15500 },
    ],
    sale_id: null,
    created_by: uuid(),
    created_by_name: 'Awa Ndiaye',
    converted_at: null,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

export function quoteInput(overrides: { quote?: Partial<QuoteRecord>; shop?: Partial<QuoteDocumentInput['shop']>; customer?: QuoteDocumentInput['customer'] } = {}): QuoteDocumentInput {
  return {
    quote: sampleQuote(overrides.quote),
    shop: receiptInput({ shop: overrides.shop }).shop,
    customer: overrides.customer === undefined ? CUSTOMER : overrides.customer,
  };
}
