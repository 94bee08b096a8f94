import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { createProduct, ledgerInvariants, postVariant, type ShopFixture } from '../support/fixtures.ts';
export { staffedShop, type StaffedShop } from '../support/fixtures.ts';
import type { Reply, Service } from '../support/service.ts';

/** Set-up and read-backs of sales, shared by the tests of sales and of what reads them (reports). */

export const METHODS = ['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank'] as const;
/** The treasury account each method lands in (SYSCOHADA). */
export const TREASURY: Record<(typeof METHODS)[number], string> = { cash: '571', carrier1_momo: '585', carrier2_money: '585', card: '521', bank: '521' };

export function postSale(api: Service, token: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<Reply> {
  return api.request('POST', '/sales', { token, body, ...(headers ? { headers } : {}) });
}

/** A sale that must be recorded (201); answers the sale. */
export async function sell(api: Service, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await postSale(api, token, body);
  if (reply.status !== 201) throw new Error(`sale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export async function readSale(api: Service, token: string, saleId: string): Promise<any> {
  const reply = await api.request('GET', `/sales/${saleId}`, { token });
  if (reply.status !== 200) throw new Error(`read sale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export function voidSale(api: Service, token: string, saleId: string, body: Record<string, unknown> = { reason: 'Erreur de caisse' }): Promise<Reply> {
  return api.request('POST', `/sales/${saleId}/void`, { token, body });
}

export function refundSale(api: Service, token: string, saleId: string, body: Record<string, unknown>): Promise<Reply> {
  return api.request('POST', `/sales/${saleId}/refund`, { token, body });
}

/** A customer created through the API (by a manager or owner when it has a ceiling). */
export async function createCustomer(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await api.request('POST', '/customers', { token, body: { name: `Client ${randomUUID().slice(0, 6)}`, ...fields } });
  if (reply.status !== 201) throw new Error(`create customer failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export async function readCustomer(api: Service, token: string, customerId: string): Promise<any> {
  const reply = await api.request('GET', `/customers/${customerId}`, { token });
  if (reply.status !== 200) throw new Error(`read customer failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Gives a customer points with a manager's correction. */
export async function givePoints(api: Service, token: string, customerId: string, delta: number): Promise<void> {
  const reply = await api.request('POST', `/customers/${customerId}/points`, { token, body: { delta, reason: 'Cadeau' } });
  if (reply.status !== 201) throw new Error(`points correction failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** PUT /shop by the owner (allow_negative_stock, loyalty rates...). */
export async function setShop(api: Service, owner: ShopFixture, body: Record<string, unknown>): Promise<void> {
  const reply = await api.request('PUT', '/shop', { token: owner.token, body });
  if (reply.status !== 200) throw new Error(`shop settings failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

export async function createPromotion(api: Service, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await api.request('POST', '/promotions', { token, body: { name: `Promo ${randomUUID().slice(0, 6)}`, ...body } });
  if (reply.status !== 201) throw new Error(`create promotion failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A tracked product with one variant per value of a "Taille" axis, each priced and stocked as given. */
export async function productWithVariants(
  api: Service,
  token: string,
  variants: Record<string, { price_xaf: number; on_hand: number }>,
  fields: Record<string, unknown> = {},
): Promise<{ product: any; variants: Record<string, any> }> {
  const product = await createProduct(api, token, fields);
  const created: Record<string, any> = {};
  for (const [size, { price_xaf, on_hand }] of Object.entries(variants)) {
    const reply = await postVariant(api, token, product.id, { options: { Taille: size }, price_xaf });
    if (reply.status !== 201) throw new Error(`create variant failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    created[size] = reply.body.data;
    if (on_hand !== 0) {
      const adjusted = await api.request('POST', `/products/${product.id}/adjust`, { token, body: { new_quantity: on_hand, variant_id: reply.body.data.id } });
      if (adjusted.status !== 200) throw new Error(`variant stock failed: ${adjusted.status} ${JSON.stringify(adjusted.body)}`);
    }
  }
  return { product, variants: created };
}

/** Opens a shift for the user behind `token` (POST /shift/open); answers its id. */
export async function openShift(api: Service, token: string): Promise<string> {
  const reply = await api.request('POST', '/shift/open', { token, body: { opening_float_xaf: 0 } });
  if (reply.status !== 201) throw new Error(`open shift failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.id;
}

/** Stored on-hand of a product (or of its variant), read past row-level security. */
export async function onHand(api: Service, productId: string, variantId?: string): Promise<number> {
  const [row] = variantId
    ? await api.ownerSql<{ on_hand: number }[]>`select on_hand from variants where id = ${variantId}`
    : await api.ownerSql<{ on_hand: number }[]>`select on_hand from products where id = ${productId}`;
  return row!.on_hand;
}

export interface Movement {
  type: string;
  quantity: number;
  on_hand_after: number;
  variant_id: string | null;
  source_type: string | null;
  source_id: string | null;
}

/** The stock movements of a product, oldest first. */
export async function movements(api: Service, productId: string): Promise<Movement[]> {
  const rows = await api.ownerSql<Movement[]>`
    select type, quantity, on_hand_after, variant_id, source_type, source_id
      from stock_movements where product_id = ${productId} order by created_at, id`;
  return rows.map((row) => ({ ...row }));
}

export interface JournalLine {
  entry_id: string;
  source_type: string;
  account: string;
  debit_xaf: number;
  credit_xaf: number;
}

/** Every journal line a sale caused: its own entries, its void's, and its refunds'. */
export async function saleJournal(api: Service, saleId: string): Promise<JournalLine[]> {
  const rows = await api.ownerSql<JournalLine[]>`
    select e.id as entry_id, e.source_type, l.account, l.debit_xaf, l.credit_xaf
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where (e.source_type in ('sale', 'sale_void') and e.source_id = ${saleId})
        or (e.source_type = 'sale_refund' and e.source_id in (select id from refunds where sale_id = ${saleId}))
     order by e.created_at, l.id`;
  return rows.map((row) => ({ ...row }));
}

/** Debit minus credit per account over the given lines (accounts netting to zero left out unless `keepZero`). */
export function netByAccount(lines: JournalLine[], keepZero = false): Record<string, number> {
  const net: Record<string, number> = {};
  for (const line of lines) net[line.account] = (net[line.account] ?? 0) + line.debit_xaf - line.credit_xaf;
  return Object.fromEntries(Object.entries(net).filter(([, value]) => keepZero || value !== 0).sort(([a], [b]) => a.localeCompare(b)));
}

/** Debits and credits per account of the lines of one source type, as {account: [debit, credit]}. */
export function postings(lines: JournalLine[], sourceType: string): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const line of lines.filter((l) => l.source_type === sourceType)) {
    const [debit, credit] = out[line.account] ?? [0, 0];
    out[line.account] = [debit + line.debit_xaf, credit + line.credit_xaf];
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The e-mailed receipt jobs queued for a sale. */
export async function receiptJobs(api: Service, saleId: string): Promise<{ payload: any }[]> {
  return [
    ...(await api.ownerSql<{ payload: any }[]>`
      select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'sale__email_receipt' and j.payload ->> 'sale_id' = ${saleId}`),
  ];
}

export async function receiptJobCount(api: Service): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'sale__email_receipt'`;
  return row!.n;
}

export async function saleCount(api: Service, shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sales where shop_id = ${shopId}`;
  return row!.n;
}

/** The receipt numbers of a shop's sales, ascending. */
export async function receiptNumbers(api: Service, shopId: string): Promise<number[]> {
  const rows = await api.ownerSql<{ receipt_no: number }[]>`select receipt_no from sales where shop_id = ${shopId} order by receipt_no`;
  return rows.map((row) => row.receipt_no);
}

/** The two ledger invariants of CONTRACT section 5 hold for the shop. */
export async function expectLedgerInvariants(t: Test, api: Service, shopId: string, what = ''): Promise<void> {
  const label = what ? `${what}: ` : '';
  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, shopId);
  t.strictSame(stockMismatches, [], `${label}on-hand equals the sum of movements`);
  t.strictSame(unbalancedEntries, [], `${label}every journal entry balances`);
}

/** round(x) half away from zero, the CONTRACT's rounding, for the expected values of a test. */
export function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** VAT included in a total at a rate (percent), by the CONTRACT's rule. */
export function vatOf(totalXaf: number, rate: number): number {
  return roundHalfAway((totalXaf * rate) / (100 + rate));
}

/** n numbers 1..n. */
export const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
