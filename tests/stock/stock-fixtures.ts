import type { Test } from 'tap';
import { createProduct, ledgerInvariants, postVariant } from '../support/fixtures.ts';
export { staffedShop, type StaffedShop } from '../support/fixtures.ts';
import type { Reply, Service } from '../support/service.ts';

/** Set-up shared by the stock tests (tests/stock only; candidates for tests/support/fixtures.ts). */

/** A tracked product with one variant per value of a single "Taille" axis, each variant stocked as given. */
export async function productWithVariants(
  api: Service,
  token: string,
  stock: Record<string, number>,
  fields: Record<string, unknown> = {},
): Promise<{ product: any; variants: Record<string, any> }> {
  const product = await createProduct(api, token, fields);
  const axes = await api.request('POST', `/products/${product.id}/options`, { token, body: { options: [{ name: 'Taille', values: Object.keys(stock) }] } });
  if (axes.status !== 200) throw new Error(`options failed: ${axes.status} ${JSON.stringify(axes.body)}`);
  const variants: Record<string, any> = {};
  for (const [size, onHand] of Object.entries(stock)) {
    const created = await postVariant(api, token, product.id, { options: { Taille: size } });
    if (created.status !== 201) throw new Error(`create variant failed: ${created.status} ${JSON.stringify(created.body)}`);
    variants[size] = created.body.data;
    if (onHand !== 0) variants[size] = { ...created.body.data, on_hand: (await adjustTo(api, token, product.id, onHand, created.body.data.id)).movement.on_hand_after };
  }
  return { product: await productRecord(api, token, product.id), variants };
}

export function adjust(api: Service, token: string, productId: string, body: Record<string, unknown>): Promise<Reply> {
  return api.request('POST', `/products/${productId}/adjust`, { token, body });
}

/** Sets the stock of a product (or of its variant) through the API; throws unless it answers 200. */
export async function adjustTo(api: Service, token: string, productId: string, newQuantity: number, variantId?: string): Promise<any> {
  const reply = await adjust(api, token, productId, { new_quantity: newQuantity, ...(variantId ? { variant_id: variantId } : {}) });
  if (reply.status !== 200) throw new Error(`adjust failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The product as GET /products/{id} answers it, with its variants. */
export async function productRecord(api: Service, token: string, productId: string): Promise<any> {
  const reply = await api.request('GET', `/products/${productId}`, { token });
  if (reply.status !== 200) throw new Error(`read product failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export async function deleteProduct(api: Service, token: string, productId: string): Promise<void> {
  const reply = await api.request('DELETE', `/products/${productId}`, { token });
  if (reply.status !== 204) throw new Error(`delete product failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

export interface JournalLine {
  account: string;
  debit_xaf: number;
  credit_xaf: number;
}

/** The journal lines posted for one source (e.g. 'stock_adjustment' and the movement's id), read past row-level security. */
export async function journalLines(api: Service, sourceType: string, sourceId: string): Promise<JournalLine[]> {
  const rows = await api.ownerSql<JournalLine[]>`
    select l.account, l.debit_xaf, l.credit_xaf
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where e.source_type = ${sourceType} and e.source_id = ${sourceId}
     order by l.id`;
  return rows.map((row) => ({ account: row.account, debit_xaf: row.debit_xaf, credit_xaf: row.credit_xaf }));
}

export async function journalEntryCount(api: Service, shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from journal_entries where shop_id = ${shopId}`;
  return row!.n;
}

export async function movementCount(api: Service, shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stock_movements where shop_id = ${shopId}`;
  return row!.n;
}

/** The two ledger invariants of CONTRACT section 5 hold for the shop. */
export async function expectLedgerInvariants(t: Test, api: Service, shopId: string, what = ''): Promise<void> {
  const label = what ? `${what}: ` : '';
  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, shopId);
  t.strictSame(stockMismatches, [], `${label}on-hand equals the sum of movements`);
  t.strictSame(unbalancedEntries, [], `${label}every journal entry balances`);
}

/** Every page of a list, following meta.next_cursor. */
export async function allPages(api: Service, token: string, path: string, limit: number): Promise<Reply[]> {
  const pages: Reply[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const reply: Reply = await api.request('GET', `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    pages.push(reply);
    cursor = reply.body.meta.next_cursor;
    if (pages.length > 1000) throw new Error('pagination does not end');
  } while (cursor);
  return pages;
}
