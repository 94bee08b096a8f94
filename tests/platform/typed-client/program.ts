/**
 * A till's day written as a client developer writes it: types generated from GET /openapi.json by
 * openapi-typescript (`./openapi.ts`, made by tests/platform/typed-client.test.ts next to a copy of
 * this file), calls through openapi-fetch, no cast and no `any`. The test type-checks it under
 * `tsc --strict` and then runs it against a started service (BASE_URL); it throws on any answer it
 * did not expect.
 *
 * Not part of the project's own `tsc` (tsconfig.json excludes this folder): `./openapi.ts` exists
 * only in the test's temporary directory.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

type Schemas = components['schemas'];

/** The push body as the operation declares it. */
type PushBody = paths['/api/v1/sync/push']['post']['requestBody']['content']['application/json'];

/**
 * A body whose records are `unknown[]` (untyped `items`) takes anything, the records below included:
 * this is what fails the type-check then, naming the entity.
 */
type Typed<T, K extends string> = unknown extends T ? `POST /sync/push ${K} records are unknown in the generated client` : true;
// The four arrays by name: the body also takes other keys (a newer till's kinds of records), so `keyof PushBody` is any string.
type Records<K extends 'sales' | 'customers' | 'expenses' | 'cash_movements'> = NonNullable<PushBody[K]>[number];
const pushRecordsAreTyped: [
  Typed<Records<'sales'>, 'sales'>,
  Typed<Records<'customers'>, 'customers'>,
  Typed<Records<'expenses'>, 'expenses'>,
  Typed<Records<'cash_movements'>, 'cash_movements'>,
] = [true, true, true, true];
void pushRecordsAreTyped;

const baseUrl = process.env.BASE_URL;
if (!baseUrl) throw new Error('BASE_URL is not set');

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`unexpected answer: ${what}`);
}

/** The answer's body when the status is the one expected; otherwise throws with what came back. */
function expect<D, E>(what: string, status: number, result: { data?: D; error?: E; response: Response }): D {
  if (result.response.status !== status || result.data === undefined) {
    throw new Error(`${what}: expected ${status}, got ${result.response.status} ${JSON.stringify(result.error ?? result.data)}`);
  }
  return result.data;
}

const anonymous = createClient<paths>({ baseUrl });

// Register: a shop, its owner and a token.
const email = `owner.${crypto.randomUUID().slice(0, 8)}@example.cm`;
const registered = expect(
  'register',
  201,
  await anonymous.POST('/api/v1/auth/register', {
    body: { shop_name: 'Boutique Awa', owner_name: 'Awa Ndiaye', owner_email: email, password: 'secret-pass-1', locale: 'fr' },
  }),
).data;
check(registered.user.email === email && registered.user.role === 'owner', `register: the owner, got ${JSON.stringify(registered.user)}`);
const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${registered.token}` } });

// A product with stock.
const product = expect(
  'create product',
  201,
  await api.POST('/api/v1/products', { body: { name: 'Savon de Marseille', price_xaf: 1_500, cost_xaf: 900, vat_rate: 19.25 } }),
).data;
check(product.tracked && product.on_hand === 0, 'a new product is tracked with no stock');
const stocked = expect(
  'adjust stock',
  200,
  await api.POST('/api/v1/products/{product_id}/adjust', { params: { path: { product_id: product.id } }, body: { new_quantity: 20, reason: 'Stock initial' } }),
).data;
check(stocked.product.on_hand === 20, `on hand 20, got ${stocked.product.on_hand}`);

// A shift: the cash of the sale, the refund and the cash movement goes through its drawer.
const shift = expect('open shift', 201, await api.POST('/api/v1/shift/open', { body: { opening_float_xaf: 10_000 } })).data;
check(shift.status === 'open' && shift.opening_float_xaf === 10_000, 'the shift is open');

// A sale at the counter: 3 x 1,500 paid with 5,000 in cash.
const saleId = crypto.randomUUID();
const sale = expect(
  'sale',
  201,
  await api.POST('/api/v1/sales', {
    body: { id: saleId, items: [{ product_id: product.id, quantity: 3 }], payments: [{ method: 'cash', amount_xaf: 5_000 }] },
  }),
).data;
check(sale.id === saleId && sale.receipt_no === 1 && sale.status === 'completed', `sale recorded, got ${JSON.stringify(sale)}`);
check(sale.total_xaf === 4_500 && sale.change_xaf === 500 && sale.vat_xaf === 726, `totals, got ${sale.total_xaf}/${sale.change_xaf}/${sale.vat_xaf}`);
const line = sale.items[0];
check(line !== undefined && sale.items.length === 1 && line.quantity === 3, 'one line of 3');

// What the till recorded while offline: a new customer, a sale to that customer, a taxi paid from the drawer, cash taken out of it.
const customer: Schemas['SyncCustomer'] = { id: crypto.randomUUID(), name: 'Odile Tchamba', phone: '+237 655 31 72 08', created_at: new Date(Date.now() - 120_000).toISOString() };
const offlineSale: Schemas['SyncSale'] = {
  id: crypto.randomUUID(),
  customer_id: customer.id,
  created_at: new Date(Date.now() - 60_000).toISOString(),
  items: [{ product_id: product.id, quantity: 2 }],
  payments: [{ method: 'cash', amount_xaf: 3_000 }],
};
const expense: Schemas['SyncExpense'] = { id: crypto.randomUUID(), category: 'transport', amount_xaf: 1_000, payment_method: 'cash', description: 'Taxi pour la livraison' };
const movement: Schemas['SyncCashMovement'] = { id: crypto.randomUUID(), direction: 'out', amount_xaf: 2_000, reason: 'Achat sachets', created_at: new Date(Date.now() - 30_000).toISOString() };
const pushBody: PushBody = { customers: [customer], sales: [offlineSale], expenses: [expense], cash_movements: [movement] };

const pushed = expect('push', 200, await api.POST('/api/v1/sync/push', { body: pushBody })).data.results;
check(pushed.length === 4, `one result per record, got ${JSON.stringify(pushed)}`);
const expected: [(typeof pushed)[number]['entity'], string][] = [
  ['customers', customer.id],
  ['sales', offlineSale.id],
  ['expenses', expense.id],
  ['cash_movements', movement.id],
];
expected.forEach(([entity, id], index) => {
  const result = pushed[index];
  check(result !== undefined && result.entity === entity && result.id === id && result.status === 'applied', `push result ${index}: ${JSON.stringify(result)}`);
});
let offlineReceiptNo: number | undefined;
for (const result of pushed) if (result.entity === 'sales') offlineReceiptNo = result.receipt_no;
check(offlineReceiptNo === 2, `the offline sale took receipt 2, got ${offlineReceiptNo}`);

// Pushed again (a till that lost the answer): each record is applied once.
const again = expect('push again', 200, await api.POST('/api/v1/sync/push', { body: pushBody })).data.results;
check(again.length === 4 && again.every((result) => result.status === 'duplicate'), `a second push is duplicates, got ${JSON.stringify(again)}`);

const offline = expect('read the offline sale', 200, await api.GET('/api/v1/sales/{sale_id}', { params: { path: { sale_id: offlineSale.id } } })).data;
check(offline.offline && offline.customer_id === customer.id && offline.total_xaf === 3_000 && offline.created_at === offlineSale.created_at, `offline sale kept, got ${JSON.stringify(offline)}`);

// The receipt, as text for a chat and as ESC/POS bytes for the printer.
const text = expect(
  'text receipt',
  200,
  await api.GET('/api/v1/sales/{sale_id}/receipt/text', { params: { path: { sale_id: sale.id }, query: { style: 'fixed', locale: 'fr' } } }),
).data;
check(text.format === 'text' && text.style === 'fixed' && text.text.includes('Savon de Marseille') && text.text.includes('Boutique Awa'), `text receipt, got ${JSON.stringify(text)}`);
const escpos = expect('ESC/POS receipt', 200, await api.GET('/api/v1/sales/{sale_id}/receipt', { params: { path: { sale_id: sale.id } } })).data;
const bytes = Uint8Array.from(atob(escpos.base64), (ch) => ch.charCodeAt(0));
check(escpos.format === 'escpos' && escpos.width === 80 && escpos.columns === 48, `ESC/POS defaults, got ${escpos.width}/${escpos.columns}`);
check(bytes[0] === 0x1b && bytes[1] === 0x40, 'the receipt starts with ESC @');

// Refund one of the three: more than what is left is refused on its key, then one is paid back in cash.
const tooMany = await api.POST('/api/v1/sales/{sale_id}/refund', {
  params: { path: { sale_id: sale.id } },
  body: { method: 'cash', items: [{ sale_item_id: line.id, quantity: 4 }] },
});
check(tooMany.response.status === 422 && tooMany.error !== undefined, `refund beyond the sale is 422, got ${tooMany.response.status}`);
check(tooMany.error.code === 'refund_exceeds_sold' && (tooMany.error.errors?.['items.0.quantity'] ?? []).length > 0, `keyed by items.0.quantity, got ${JSON.stringify(tooMany.error)}`);
const refunded = expect(
  'refund',
  201,
  await api.POST('/api/v1/sales/{sale_id}/refund', {
    params: { path: { sale_id: sale.id } },
    body: { method: 'cash', reason: 'Emballage abîmé', items: [{ sale_item_id: line.id, quantity: 1 }] },
  }),
).data;
check(refunded.status === 'partially_refunded' && refunded.refunds.length === 1, `partly refunded, got ${refunded.status}`);
check(refunded.items[0]?.refunded_quantity === 1, 'one unit back');

// The day's Z: two sales (one offline), one refund, one expense, one cash movement.
const z = expect('Z report', 200, await api.GET('/api/v1/reports/z', {})).data;
check(!z.sealed && z.z_no === null, 'today\'s Z is live');
check(z.sales.count === 2 && z.sales.total_xaf === 7_500, `sales in the Z, got ${JSON.stringify(z.sales)}`);
check(z.refunds.count === 1 && z.refunds.total_xaf === 1_500, `refunds in the Z, got ${JSON.stringify(z.refunds)}`);
check(z.net_total_xaf === 6_000, `net 6,000, got ${z.net_total_xaf}`);
check(z.first_receipt_no === 1 && z.last_receipt_no === 2, `receipts 1 to 2, got ${z.first_receipt_no}..${z.last_receipt_no}`);
check(z.expenses.count === 1 && z.expenses.total_xaf === 1_000 && z.expenses.per_method['cash'] === 1_000, `expenses, got ${JSON.stringify(z.expenses)}`);
check(z.cash_movements.count === 1 && z.cash_movements.out_xaf === 2_000 && z.cash_movements.in_xaf === 0, `cash movements, got ${JSON.stringify(z.cash_movements)}`);

process.stdout.write(`${JSON.stringify({ ok: true, sale: sale.id, offline_sale: offlineSale.id, z_net_total_xaf: z.net_total_xaf })}\n`);
