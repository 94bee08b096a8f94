import type { Service } from '../support/service.ts';

/** Opens a shift that must open; answers its record. */
export async function openShift(api: Service, token: string, openingFloatXaf = 0): Promise<any> {
  const reply = await api.request('POST', '/shift/open', { token, body: { opening_float_xaf: openingFloatXaf } });
  if (reply.status !== 201) throw new Error(`open shift failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Closes the caller's shift, which must close; answers its record. */
export async function closeShift(api: Service, token: string, body: Record<string, unknown> = { counted_cash_xaf: 0 }): Promise<any> {
  const reply = await api.request('POST', '/shift/close', { token, body });
  if (reply.status !== 200) throw new Error(`close shift failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The caller's open shift with its totals (GET /shift), or null. */
export async function currentShift(api: Service, token: string): Promise<any> {
  const reply = await api.request('GET', '/shift', { token });
  if (reply.status !== 200) throw new Error(`current shift failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A cash movement that must be recorded; answers its record. */
export async function moveCash(api: Service, token: string, direction: 'in' | 'out', amountXaf: number, reason = 'Fond de caisse'): Promise<any> {
  const reply = await api.request('POST', '/shift/cash', { token, body: { direction, amount_xaf: amountXaf, reason } });
  if (reply.status !== 201) throw new Error(`cash movement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** An expense that must be recorded; answers its record. */
export async function spend(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await api.request('POST', '/expenses', { token, body: { category: 'supplies', amount_xaf: 1_000, payment_method: 'cash', ...fields } });
  if (reply.status !== 201) throw new Error(`expense failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export type SalePayment = [kind: 'payment' | 'change' | 'refund' | 'void', method: string, amountXaf: number];

/**
 * Stands for a sale until sales exist: a minimal sales row and its payment rows (signed as seen from
 * the drawer) attached to the shift, written past row-level security. Answers the sale id.
 */
export async function recordSale(api: Service, shopId: string, shiftId: string | null, payments: SalePayment[]): Promise<string> {
  const total = payments.filter(([kind]) => kind === 'payment').reduce((sum, [, , amount]) => sum + amount, 0);
  const [sale] = await api.ownerSql<{ id: string }[]>`
    insert into sales (id, shop_id, receipt_no, shift_id, cashier_id, subtotal_xaf, discount_xaf, vat_xaf, total_xaf, paid_xaf, change_xaf, credit_xaf, request_hash)
    select gen_random_uuid(), ${shopId}, coalesce(max(receipt_no), 0) + 1, ${shiftId}, null, ${total}, 0, 0, ${total}, ${total}, 0, 0, 'test'
      from sales where shop_id = ${shopId}
    returning id`;
  for (const [kind, method, amount] of payments) {
    await api.ownerSql`
      insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, shift_id) values (${shopId}, ${sale!.id}, ${kind}, ${method}, ${amount}, ${shiftId})`;
  }
  return sale!.id;
}

/** The lines of the journal entries a record posted, read past row-level security, debits first. */
export async function journalLines(api: Service, sourceType: string, sourceId: string): Promise<{ shop_id: string; account: string; debit_xaf: number; credit_xaf: number }[]> {
  const rows = await api.ownerSql<{ shop_id: string; account: string; debit_xaf: number; credit_xaf: number }[]>`
    select l.shop_id, l.account, l.debit_xaf, l.credit_xaf
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where e.source_type = ${sourceType} and e.source_id = ${sourceId}
     order by l.debit_xaf desc, l.account`;
  return rows.map((row) => ({ ...row }));
}

/** Today in the shop's calendar (YYYY-MM-DD), and `days` days before it. */
export async function shopDay(api: Service, shopId: string, daysAgo = 0): Promise<string> {
  const [row] = await api.ownerSql<{ day: string }[]>`
    select ((now() at time zone timezone)::date - ${daysAgo}::int)::text as day from shops where id = ${shopId}`;
  return row!.day;
}
