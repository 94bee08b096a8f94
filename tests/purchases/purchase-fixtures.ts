import type { Service } from '../support/service.ts';

/** Shared set-up of the purchases, batches and alerts tests. */

/** A supplier created through the API by a manager or owner. */
export async function createSupplier(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await api.request('POST', '/suppliers', { token, body: { name: 'Grossiste du Port', phone: '+237 699 00 11 22', ...fields } });
  if (reply.status !== 201) throw new Error(`create supplier failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** POST /purchases; throws unless 201. */
export async function receive(api: Service, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await api.request('POST', '/purchases', { token, body });
  if (reply.status !== 201) throw new Error(`purchase failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A cash sale of `quantity` of one item at its catalogue price; throws unless 201. */
export async function sell(api: Service, token: string, item: { product_id: string; variant_id?: string }, quantity: number): Promise<any> {
  const reply = await api.request('POST', '/sales', { token, body: { items: [{ ...item, quantity }], payments: [{ method: 'cash', amount_xaf: 100_000_000 }] } });
  if (reply.status !== 201) throw new Error(`sale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The item's batches straight from the database, soonest expiry first: [batch_number, quantity]. */
export async function batchesOf(api: Service, productId: string): Promise<[string | null, number][]> {
  const rows = await api.ownerSql<{ batch_number: string | null; quantity: number }[]>`
    select batch_number, quantity from batches where product_id = ${productId} order by expiry_date nulls last, created_at, id`;
  return rows.map((row) => [row.batch_number, Number(row.quantity)]);
}

/** Each account's net (debit - credit) over the entries of one source. */
export async function netPerAccount(api: Service, sourceType: string, sourceId: string): Promise<Record<string, number>> {
  const rows = await api.ownerSql<{ account: string; net: number }[]>`
    select l.account, sum(l.debit_xaf - l.credit_xaf)::bigint as net
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where e.source_type = ${sourceType} and e.source_id = ${sourceId}
     group by l.account order by l.account`;
  return Object.fromEntries(rows.map((row) => [row.account, Number(row.net)]));
}

/** The supplier's balance as GET /suppliers/{id} shows it. */
export async function supplierBalance(api: Service, token: string, supplierId: string): Promise<number> {
  const reply = await api.request('GET', `/suppliers/${supplierId}`, { token });
  return reply.body.data.balance_xaf;
}
