import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals } from '../schemas.ts';
import { PAID_PURCHASE, RETURNED_PURCHASE } from './examples.ts';
import { findPurchase, listPurchases, payables, payPurchase, recordPurchase, returnPurchase } from './queries.ts';
import { CreatePurchaseBody, Payables, PayPurchaseBody, PurchaseListQuery, PurchaseParam, PurchaseRecord, PurchaseReturnBody } from './schemas.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

/** Purchases, their payments and returns need a manager or the owner (issue 13). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const writers: MiddlewareHandler<AppEnv>[] = [...readers, requireActiveSubscription];
const tags = ['Suppliers and purchases'];
const TimeKey = z.tuple([CursorAt, z.uuid()]);

const list = createRoute({
  method: 'get',
  path: '/purchases',
  tags,
  operationId: 'listPurchases',
  summary: 'List purchases, newest first (manager or owner)',
  description: 'Newest received first, by pages (`limit`, `cursor`); filtered by supplier, status (`unpaid`, `partially_paid`, `paid`) and days received (`from`, `to`, shop time). Each purchase comes whole: lines, payments and returns.',
  security: bearer,
  middleware: readers,
  request: { query: PurchaseListQuery },
  responses: { 200: jsonResponse('Purchases, each with its lines, payments and returns.', many(PurchaseRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/purchases',
  tags,
  operationId: 'createPurchase',
  summary: 'Receive goods: stock in, costs refreshed, batches, the purchase entry (manager or owner)',
  description:
    'One transaction (purchase_record). Lines cost `round(quantity x unit_cost_xaf)` excluding VAT; `vat_xaf = round(subtotal_xaf x vat_rate / 100)`. ' +
    'A line naming a product or a variant moves its stock in (`purchase` movements, tracked products only) and sets its product\'s `cost_xaf`; ' +
    'with a `batch_number` and/or `expiry_date` the units go into that batch, which sales then take first expired first out. ' +
    'A line with only a `name` is a cost that is not stock. Journal: 601 (subtotal) and 4452 (VAT) against 401; the goods into stock at cost (31 against 6031). ' +
    'The supplier\'s `balance_xaf` grows by the total. Purchases are never changed or deleted: corrections are returns.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreatePurchaseBody) },
  responses: {
    201: jsonResponse('The purchase.', one(PurchaseRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed; or a line names an unknown supplier, product or variant, has neither product, variant nor name, puts untracked goods in a batch, or makes a stock or a total too large to record.',
      variant_required: { on: 'items.0.variant_id', meaning: 'The product keeps its stock on its variants: the line must name one.' },
    }),
  },
});

const read = createRoute({
  method: 'get',
  path: '/purchases/{purchase_id}',
  tags,
  operationId: 'getPurchase',
  summary: 'Read a purchase with its lines, payments and returns (manager or owner)',
  description: 'The purchase whole: its lines (with what was returned of each and the batch it went into), its payments and its returns, oldest first, and what remains to pay (`balance_xaf`).',
  security: bearer,
  middleware: readers,
  request: { params: PurchaseParam },
  responses: { 200: jsonResponse('The purchase.', one(PurchaseRecord), { data: RETURNED_PURCHASE }), ...pickErrors(401, 403, 404) },
});

const pay = createRoute({
  method: 'post',
  path: '/purchases/{purchase_id}/pay',
  tags,
  operationId: 'payPurchase',
  summary: 'Pay all or part of a supplier invoice (manager or owner)',
  description:
    'At most what remains (`balance_xaf`; beyond it 422 `overpayment` on `amount_xaf`). Status moves `unpaid` -> `partially_paid` -> `paid`. ' +
    'Journal: 401 debited, the method\'s treasury account credited. Paid in cash during the caller\'s open shift, it comes out of that drawer ' +
    '(`shift_id`; the shift\'s `cash_supplier_payments_xaf`). Answers the purchase with the new payment.',
  security: bearer,
  middleware: writers,
  request: { params: PurchaseParam, body: jsonBody(PayPurchaseBody) },
  responses: {
    201: jsonResponse('The purchase, paid.', one(PurchaseRecord), { data: PAID_PURCHASE }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { overpayment: { on: 'amount_xaf', meaning: 'The amount is more than what remains to pay.' } }),
  },
});

const giveBack = createRoute({
  method: 'post',
  path: '/purchases/{purchase_id}/returns',
  tags,
  operationId: 'returnPurchase',
  summary: 'Send goods back to the supplier (manager or owner)',
  description:
    'One transaction (purchase_return). A line no further than received less already returned (422 `return_exceeds_received` on `items.N.quantity`) ' +
    'nor than on hand, or for a line received into a batch than that batch holds (422 `insufficient_stock`). `purchase_return` movements take the goods ' +
    'out of the line\'s batch, or else out of unbatched stock first. The invoice is reduced pro rata (VAT included), the journal reversed ' +
    '(401 against 601 and 4452, the goods out of stock at cost) and the supplier\'s balance goes down (below zero the supplier owes the shop). ' +
    'Answers the purchase with the new return.',
  security: bearer,
  middleware: writers,
  request: { params: PurchaseParam, body: jsonBody(PurchaseReturnBody) },
  responses: {
    201: jsonResponse('The purchase with its returns.', one(PurchaseRecord), { data: RETURNED_PURCHASE }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or `items.N.purchase_item_id` is not a line of this purchase.',
      return_exceeds_received: { on: 'items.0.quantity', meaning: 'A line returns more than was received less already returned.' },
      insufficient_stock: { on: 'items.0.quantity', meaning: 'A line returns more than is on hand, or than its batch holds.' },
    }),
  },
});

const payablesReport = createRoute({
  method: 'get',
  path: '/reports/payables',
  tags,
  operationId: 'getPayables',
  summary: 'What the shop owes its suppliers, aged by invoice date (manager or owner)',
  description:
    'Shaped as GET /reports/receivables. Per supplier: its balance, and what remains of each purchase not fully paid ' +
    '(`total_xaf - returned_xaf - paid_xaf`) in buckets of 0-30, 31-60, 61-90 and over 90 days since the day it was received (its invoice date, ' +
    'whole days of the shop\'s calendar), `oldest_at` the oldest such purchase. Purchases without a supplier form one line with `supplier_id` and ' +
    '`name` null (its balance is what remains of them). A supplier owing the shop a credit (negative balance: goods returned after payment) is ' +
    'listed with that balance, its buckets zero and `oldest_at` null when nothing of its is open; so a line\'s buckets may add up to more than ' +
    'its balance, never less. Largest balance first; `totals` over all lines; `as_of` the time of the answer. ' +
    MAY_LAG,
  security: bearer,
  middleware: readers,
  responses: { 200: jsonResponse('Payables.', z.object({ data: Payables })), ...pickErrors(401, 403) },
});

export const purchaseRoutes = newRouter()
  .openapi(
    payablesReport,
    fromReplica(async (c) => c.json({ data: await payables(c.var.tx) }, 200)),
  )
  .openapi(list, async (c) => {
    const { limit, cursor, ...filter } = c.req.valid('query');
    const before = decodeCursor(cursor, TimeKey);
    const { rows, nextCursor } = page(await listPurchases(c.var.tx, filter, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map((row) => row.purchase), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => c.json({ data: await recordPurchase(c.var.tx, c.req.valid('json')) }, 201))
  .openapi(read, async (c) => {
    const purchase = await findPurchase(c.var.tx, c.req.valid('param').purchase_id);
    if (!purchase) throw errors.notFound();
    return c.json({ data: purchase }, 200);
  })
  .openapi(pay, async (c) => c.json({ data: await payPurchase(c.var.tx, c.req.valid('param').purchase_id, c.req.valid('json')) }, 201))
  .openapi(giveBack, async (c) => c.json({ data: await returnPurchase(c.var.tx, c.req.valid('param').purchase_id, c.req.valid('json').items) }, 201));
