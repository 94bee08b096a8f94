import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, hasRole, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, IdParam, jsonBody, jsonResponse, many, one, pickErrors, refusals, Text } from '../schemas.ts';
import { CUSTOMER } from './examples.ts';
import { createCustomer, deleteCustomer, findCustomer, findCustomerByCard, listCustomers, lockCustomer, toCustomerRecord, updateCustomer } from './queries.ts';
import { CardNo, CreateCustomerBody, CustomerListQuery, CustomerRecord, UpdateCustomerBody } from './schemas.ts';

/** Cashiers look customers up and create them at the till (CONTRACT section 3); credit is a manager's call. */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const cashierWriters: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier'), requireActiveSubscription];
const managerWriters: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];
const tags = ['Customers'];

const list = createRoute({
  method: 'get',
  path: '/customers',
  tags,
  operationId: 'listCustomers',
  summary: 'List or search customers (any shop user)',
  description:
    'By name, then id. `q` finds a customer by part of the name (accents ignored), by card number, or by the first digits of the phone number; ' +
    '`owing` keeps those who owe (or not). Each customer comes with its balance, points and tier. Paginated: pass `meta.next_cursor` back as `cursor`.',
  security: bearer,
  middleware: readers,
  request: { query: CustomerListQuery },
  responses: { 200: jsonResponse('Customers by name.', many(CustomerRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/customers',
  tags,
  operationId: 'createCustomer',
  summary: 'Create a customer (any shop user)',
  description:
    'A cashier may create a customer at the till; a credit ceiling above 0 needs a manager or the owner (403 for a cashier). ' +
    'A loyalty card number another customer of the shop holds is a 409 `card_taken`. The customer starts with no balance and no points.',
  security: bearer,
  middleware: cashierWriters,
  request: { body: jsonBody(CreateCustomerBody) },
  responses: {
    201: jsonResponse('The new customer.', one(CustomerRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, { card_taken: 'Another customer of the shop holds this loyalty card number.' }),
  },
});

const findByCard = createRoute({
  method: 'get',
  path: '/customers/find-by-card',
  tags,
  operationId: 'findCustomerByCard',
  summary: 'The customer holding a loyalty card (scan to look up)',
  description: 'The card number exactly as printed or scanned (`card_no`). No customer of the shop holds it: 404 `not_found`.',
  security: bearer,
  middleware: readers,
  request: { query: z.object({ card_no: CardNo.openapi({ param: { name: 'card_no', in: 'query' }, example: CUSTOMER.card_no }) }) },
  responses: { 200: jsonResponse('The customer.', one(CustomerRecord)), ...pickErrors(401, 403, 404) },
});

const read = createRoute({
  method: 'get',
  path: '/customers/{id}',
  tags,
  operationId: 'getCustomer',
  summary: 'Read a customer (any shop user)',
  description: 'With what the customer owes now (`balance_xaf`), its credit ceiling, points and tier. A deleted customer is a 404.',
  security: bearer,
  middleware: readers,
  request: { params: IdParam },
  responses: { 200: jsonResponse('The customer.', one(CustomerRecord)), ...pickErrors(401, 403, 404) },
});

const update = createRoute({
  method: 'put',
  path: '/customers/{id}',
  tags,
  operationId: 'updateCustomer',
  summary: 'Change a customer (any shop user; the credit ceiling: manager or owner)',
  description:
    'Only the fields sent change. Sending `credit_ceiling_xaf` at all needs a manager or the owner (403 for a cashier). ' +
    'A card number another customer holds is a 409 `card_taken`.',
  security: bearer,
  middleware: cashierWriters,
  request: { params: IdParam, body: jsonBody(UpdateCustomerBody) },
  responses: {
    200: jsonResponse('The customer as saved.', one(CustomerRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { card_taken: 'Another customer of the shop holds this loyalty card number.' }),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/customers/{id}',
  tags,
  operationId: 'deleteCustomer',
  summary: 'Delete a customer (manager or owner)',
  description: 'A customer who owes money is a 409 `customer_has_balance`; otherwise a soft delete that keeps their history (sales, points, settlements).',
  security: bearer,
  middleware: managerWriters,
  request: { params: IdParam },
  responses: {
    204: { description: 'Deleted.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { customer_has_balance: 'The customer owes money: settle it before deleting.' }),
  },
});

export const customerRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filters } = c.req.valid('query');
    const after = decodeCursor(cursor, z.tuple([Text, z.uuid()]));
    const { rows, nextCursor } = page(await listCustomers(c.var.tx, filters, limit, after), limit, (row) => [row.name, row.id]);
    return c.json({ data: rows.map(toCustomerRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    if ((body.credit_ceiling_xaf ?? 0) > 0 && !hasRole(c.var.caller, 'manager')) throw errors.forbidden();
    return c.json({ data: await createCustomer(c.var.tx, body) }, 201);
  })
  .openapi(findByCard, async (c) => {
    const customer = await findCustomerByCard(c.var.tx, c.req.valid('query').card_no);
    if (!customer) throw errors.notFound();
    return c.json({ data: customer }, 200);
  })
  .openapi(read, async (c) => {
    const customer = await findCustomer(c.var.tx, c.req.valid('param').id);
    if (!customer) throw errors.notFound();
    return c.json({ data: customer }, 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    if (body.credit_ceiling_xaf !== undefined && !hasRole(c.var.caller, 'manager')) throw errors.forbidden();
    if (!(await lockCustomer(c.var.tx, id))) throw errors.notFound();
    return c.json({ data: (await updateCustomer(c.var.tx, id, body))! }, 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    const customer = await lockCustomer(c.var.tx, id);
    if (!customer) throw errors.notFound();
    if (customer.balance_xaf > 0) throw errors.conflict('customer_has_balance', `This customer owes ${customer.balance_xaf} XAF: settle it before deleting.`);
    await deleteCustomer(c.var.tx, id);
    return c.body(null, 204);
  });
