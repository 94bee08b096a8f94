import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { findCustomer, findCustomerByCard } from '../customers/queries.ts';
import { CUSTOMER } from '../customers/examples.ts';
import { CustomerRecord } from '../customers/schemas.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import type { Tx } from '../db.ts';
import { authenticate, inOwnStatements, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals, Uuid } from '../schemas.ts';
import { attributeLoyalty, findSale, listSales, recordSale, recordSaleAlone, refundSale, voidSale } from './queries.ts';
import { SALE } from './examples.ts';
import { AttributeLoyaltyBody, CreateSaleBody, RefundBody, SaleListQuery, SaleRecord, VoidBody } from './schemas.ts';

const SaleParam = z.object({ sale_id: Uuid.openapi({ param: { name: 'sale_id', in: 'path' } }) });
const cashiers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const managers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];
const tags = ['Sales'];

const create = createRoute({
  method: 'post',
  path: '/sales',
  tags,
  operationId: 'createSale',
  summary: 'Record a sale (any shop user)',
  description: [
    'One stored procedure, one transaction: catalogue prices and VAT rates when a line omits them, line discounts, the best single promotion per line, redeemed points (their value comes off the lines pro rata), totals and VAT (line total = round(quantity x unit price) - discounts; VAT = round(total x rate / (100 + rate)), half away from zero),',
    'payments (change only from cash: 422 `change_without_cash`), a shortfall on the named customer\'s account within the ceiling (422 `payment_insufficient` without a customer, `credit_limit_exceeded` beyond the ceiling),',
    'stock (422 `insufficient_stock` on `items.N.quantity` beyond on-hand unless the shop allows negative stock; concurrent sales of the last unit never both succeed), points earned on what was paid, the next gap-free receipt number, the journal, the cashier\'s open shift, and an e-mailed receipt job when the customer has an e-mail.',
    '`device_id` must be one of the shop\'s live devices (another shop\'s, an unknown or a revoked one is a 422 on `device_id`).',
    'Idempotent: a client `id` sent again with the same body answers the stored sale with 200; with another body 409 `idempotency_conflict`. So does an `Idempotency-Key` header (24 hours). An `id` is the shop\'s own: another shop\'s sale with the same `id` is another sale, which neither shop sees.',
    '\n\n**Prices belong to managers** (CONTRACT section 3). A cashier sells a line with a product at the catalogue\'s unit price (a variant\'s own `price_xaf`) and VAT rate (the product\'s):',
    'sending the same figures explicitly is fine, sending others is a 403 `forbidden` (the CONTRACT\'s fixed message, which names no line) unless the shop\'s `cashier_price_override` is on.',
    'A cashier\'s line discount (`discount_xaf`) may be at most the shop\'s `cashier_max_discount_percent` (default 10) of the line\'s gross round(quantity x unit price), the cap included;',
    'beyond it the sale is a 422 `discount_not_allowed` on `items.N.discount_xaf`, whether or not `cashier_price_override` is on (promotions are not line discounts and are not capped).',
    'Free lines (no `product_id`) are the cashier\'s own: any price, VAT rate and discount. Managers and owners are not limited.',
    'Every line keeps what the catalogue said when it was recorded, and `GET /reports/price-overrides` lists each line whose price, VAT rate or discount departed from it, whoever made it.',
    'A refused sale records nothing and takes no receipt number. The same rule will hold for quotes.',
  ].join(' '),
  security: bearer,
  middleware: [...cashiers, requireActiveSubscription],
  request: { body: jsonBody(CreateSaleBody) },
  responses: {
    201: jsonResponse('The sale.', one(SaleRecord)),
    200: jsonResponse('The sale already recorded under this id (a retry).', one(SaleRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, { idempotency_conflict: 'This sale id, or this Idempotency-Key, was already used with another body.' }),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or names a record (customer, device, product, variant) the shop does not have.',
      insufficient_stock: { on: 'items.0.quantity', meaning: 'A line asks for more than is on hand and the shop does not allow negative stock.' },
      payment_insufficient: { on: 'payments', meaning: 'The payments do not cover the total and no customer takes the rest on account.' },
      credit_limit_exceeded: { on: 'customer_id', meaning: 'The rest on the customer\'s account would pass its credit ceiling.' },
      change_without_cash: { on: 'payments', meaning: 'Payments exceed the total but no cash was given: only cash can be given back.' },
      redeem_exceeds_total: { on: 'redeem_points', meaning: 'The redeemed points are worth more than the sale.' },
      insufficient_points: { on: 'redeem_points', meaning: 'The customer holds fewer points than `redeem_points`.' },
      variant_required: { on: 'items.0.variant_id', meaning: 'The product is sold by variant: the line must name one.' },
      discount_not_allowed: { on: 'items.0.discount_xaf', meaning: 'A cashier\'s line discount beyond the shop\'s cap.' },
    }),
  },
});

const list = createRoute({
  method: 'get',
  path: '/sales',
  tags,
  operationId: 'listSales',
  summary: 'List sales, newest first (any shop user)',
  description:
    'The shop\'s sales by when they happened (an offline sale keeps its own time), newest first, each whole: lines, payments, refunds and VAT per rate. ' +
    'Filters: days of the shop\'s time zone (`from`, `to`, both included), customer, status, shift and cashier. Paginated: pass `meta.next_cursor` back as `cursor`.',
  security: bearer,
  middleware: cashiers,
  request: { query: SaleListQuery },
  responses: { 200: jsonResponse('Sales with items, payments, refunds and VAT breakdown.', many(SaleRecord)), ...pickErrors(401, 403) },
});

const read = createRoute({
  method: 'get',
  path: '/sales/{sale_id}',
  tags,
  operationId: 'getSale',
  summary: 'Read a sale (any shop user)',
  description: 'The sale with its lines, payments (change and reversals included), refunds and VAT per rate. Another shop\'s sale is a 404, as an unknown one.',
  security: bearer,
  middleware: cashiers,
  request: { params: SaleParam },
  responses: { 200: jsonResponse('The sale.', one(SaleRecord)), ...pickErrors(401, 403, 404) },
});

const voidRoute = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/void',
  tags,
  operationId: 'voidSale',
  summary: 'Void a completed sale with no refund (manager or owner)',
  description:
    'Stock comes back (`void` movements); payments, credit, points and journal are reversed by new records; the sale keeps its number and shows as voided. ' +
    'A second void is a 409 `sale_already_voided`; a sale with refunds a 409 `sale_refunded`; a credit sale partly paid already a 409 `sale_credit_settled` (refund it instead). ' +
    'The money goes back from the drawer the sale was taken in while that shift is open, else from the voider\'s open shift (its expected cash counts it); ' +
    'a sale that took cash with neither open is a 409 `no_open_shift`.',
  security: bearer,
  middleware: managers,
  request: { params: SaleParam, body: jsonBody(VoidBody) },
  responses: {
    200: jsonResponse('The voided sale.', one(SaleRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      sale_already_voided: 'The sale was voided before.',
      sale_refunded: 'The sale has refunds: it can no longer be voided.',
      sale_credit_settled: 'Part of this credit sale was paid since: refund it instead.',
      no_open_shift: 'The sale took cash, and neither its own shift nor the voider\'s is open: no drawer to give the cash back from.',
    }),
  },
});

const refund = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/refund',
  tags,
  operationId: 'refundSale',
  summary: 'Refund selected items of a sale (manager or owner)',
  description:
    'Never more than sold less already refunded (422 `refund_exceeds_sold` on `items.N.quantity`). Each line\'s share pro rata (its last unit takes the exact remainder), stock back for tracked goods, ' +
    'VAT and journal reversed pro rata, points reversed pro rata, the money paid back by `method` (credit: off what the sale still owes on the customer\'s account). A voided sale is a 409 `sale_voided`, a fully refunded one 409 `sale_refunded`. ' +
    'The money is paid out of the refunder\'s open shift, else out of the sale\'s shift while it is open; a cash refund with neither open is a 409 `no_open_shift`.',
  security: bearer,
  middleware: managers,
  request: { params: SaleParam, body: jsonBody(RefundBody) },
  responses: {
    201: jsonResponse('The sale with its refunds.', one(SaleRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      sale_voided: 'The sale is voided: nothing is left to refund.',
      sale_refunded: 'The sale is already refunded in full.',
      no_open_shift: 'A cash refund, and neither the refunder\'s shift nor the sale\'s is open: no drawer to pay it out of.',
    }),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, a line is not part of this sale, or `credit` is asked for more than the sale still owes on the customer\'s account.',
      refund_exceeds_sold: { on: 'items.0.quantity', meaning: 'A line asks back more than was sold less what was already refunded.' },
    }),
  },
});

const attribute = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/attribute-loyalty',
  tags,
  operationId: 'attributeSaleLoyalty',
  summary: 'Credit the points of a paid sale to a loyalty card shown afterwards (any shop user)',
  description:
    'Once per sale (409 `loyalty_already_attributed`), on what was paid and not refunded; the sale itself is not rewritten. ' +
    'A sale made for another customer is a 409 `sale_has_customer`, a voided one `sale_already_voided`, a fully refunded one `sale_refunded`; an unknown card a 422 on `card_no`.',
  security: bearer,
  middleware: [...cashiers, requireActiveSubscription],
  request: { params: SaleParam, body: jsonBody(AttributeLoyaltyBody) },
  responses: {
    200: jsonResponse(
      'The customer and the points credited.',
      one(z.object({ customer: CustomerRecord, points_earned: z.number().int() }).openapi({ example: { customer: CUSTOMER, points_earned: SALE.points_earned } })),
    ),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      loyalty_already_attributed: 'The points of this sale were credited before.',
      sale_has_customer: 'The sale was made for another customer.',
      sale_already_voided: 'The sale is voided.',
      sale_refunded: 'The sale was refunded in full: it earns no points.',
    }),
    ...refusals(422, { validation_failed: 'The body is malformed, or no customer holds this `card_no`.' }),
  },
});

async function saleOr404(tx: AppEnv['Variables']['tx'], id: string): Promise<SaleRecord> {
  const sale = await findSale(tx, id);
  if (!sale) throw errors.notFound();
  return sale;
}

export const saleRoutes = newRouter()
  .openapi(
    create,
    inOwnStatements(async (c) => {
      const body = c.req.valid('json');
      const sale = { ...body, id: body.id ?? randomUUID() };
      const tx = c.get('tx') as Tx | undefined;
      if (tx) {
        const { id, replayed } = await recordSale(tx, c.var.transactionScope!, sale);
        return c.json({ data: await saleOr404(tx, id) }, replayed ? 200 : 201);
      }
      const { sale: recorded, replayed } = await recordSaleAlone(c.var.deps.sql, c.var.transactionScope!, sale);
      if (!recorded) throw errors.notFound();
      return c.json({ data: recorded }, replayed ? 200 : 201);
    }),
  )
  .openapi(list, async (c) => {
    const { limit, cursor, ...filters } = c.req.valid('query');
    const before = decodeCursor(cursor, z.tuple([CursorAt, z.uuid()]));
    const { rows, nextCursor } = page(await listSales(c.var.tx, filters, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map((row) => row.sale), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(read, async (c) => c.json({ data: await saleOr404(c.var.tx, c.req.valid('param').sale_id) }, 200))
  .openapi(voidRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    await voidSale(c.var.tx, c.var.transactionScope!, sale_id, c.req.valid('json').reason);
    return c.json({ data: await saleOr404(c.var.tx, sale_id) }, 200);
  })
  .openapi(refund, async (c) => {
    const { sale_id } = c.req.valid('param');
    const body = c.req.valid('json');
    await refundSale(c.var.tx, c.var.transactionScope!, sale_id, { method: body.method, reason: body.reason ?? null, items: body.items });
    return c.json({ data: await saleOr404(c.var.tx, sale_id) }, 201);
  })
  .openapi(attribute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const { tx } = c.var;
    const sale = await saleOr404(tx, sale_id);
    const customer = await findCustomerByCard(tx, c.req.valid('json').card_no);
    if (!customer) throw invalidField('card_no', 'No customer holds this card.');
    if (sale.customer_id && sale.customer_id !== customer.id) {
      throw errors.conflict('sale_has_customer', 'This sale was made for another customer.');
    }
    if (sale.status === 'voided') throw errors.conflict('sale_already_voided', 'This sale is voided.');
    if (sale.status === 'refunded') throw errors.conflict('sale_refunded', 'This sale was refunded in full: it earns no points.');
    const points = await attributeLoyalty(tx, sale, customer.id);
    return c.json({ data: { customer: (await findCustomer(tx, customer.id))!, points_earned: points } }, 200);
  });
