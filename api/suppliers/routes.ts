import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals, Text } from '../schemas.ts';
import { SUPPLIER, UPDATE_SUPPLIER } from './examples.ts';
import { createSupplier, deleteSupplier, findSupplier, listSuppliers, lockSupplier, toSupplierRecord, updateSupplier } from './queries.ts';
import { CreateSupplierBody, SupplierListQuery, SupplierParam, SupplierRecord, UpdateSupplierBody } from './schemas.ts';

/** Suppliers, like the purchases made from them, need a manager or the owner (CONTRACT section 3). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const writers: MiddlewareHandler<AppEnv>[] = [...readers, requireActiveSubscription];
const tags = ['Suppliers and purchases'];

const list = createRoute({
  method: 'get',
  path: '/suppliers',
  tags,
  operationId: 'listSuppliers',
  summary: 'List or search suppliers (manager or owner)',
  description: 'The shop\'s suppliers by name, by pages (`limit`, `cursor`), each with what the shop owes them (`balance_xaf`). `q` searches names, or phone numbers digits only. Cashiers get a 403.',
  security: bearer,
  middleware: readers,
  request: { query: SupplierListQuery },
  responses: { 200: jsonResponse('Suppliers by name.', many(SupplierRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/suppliers',
  tags,
  operationId: 'createSupplier',
  summary: 'Create a supplier (manager or owner)',
  description: 'The new supplier owes and is owed nothing: `balance_xaf` is 0 and only purchases, their payments and returns move it.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateSupplierBody) },
  responses: {
    201: jsonResponse('The new supplier.', one(SupplierRecord), { data: { ...SUPPLIER, balance_xaf: 0, updated_at: SUPPLIER.created_at } }),
    ...pickErrors(400, 401, 402, 403, 413),
  },
});

const read = createRoute({
  method: 'get',
  path: '/suppliers/{supplier_id}',
  tags,
  operationId: 'getSupplier',
  summary: 'Read a supplier (manager or owner)',
  description: 'The supplier with what the shop owes them now (`balance_xaf`). A deleted supplier, or another shop\'s, is a 404.',
  security: bearer,
  middleware: readers,
  request: { params: SupplierParam },
  responses: { 200: jsonResponse('The supplier.', one(SupplierRecord)), ...pickErrors(401, 403, 404) },
});

const update = createRoute({
  method: 'put',
  path: '/suppliers/{supplier_id}',
  tags,
  operationId: 'updateSupplier',
  summary: 'Change a supplier (manager or owner)',
  description: 'Only the fields sent change; `balance_xaf` is read-only. A deleted supplier is a 404.',
  security: bearer,
  middleware: writers,
  request: { params: SupplierParam, body: jsonBody(UpdateSupplierBody) },
  responses: {
    200: jsonResponse('The supplier as saved.', one(SupplierRecord), { data: { ...SUPPLIER, ...UPDATE_SUPPLIER, updated_at: '2026-11-21T12:15:40.000Z' } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/suppliers/{supplier_id}',
  tags,
  operationId: 'deleteSupplier',
  summary: 'Delete a supplier (manager or owner)',
  description:
    'A supplier whose `balance_xaf` is not 0 (the shop owes them, or they owe the shop) is a 409 `supplier_has_balance`; ' +
    'otherwise a soft delete that keeps their purchases: the supplier leaves the list and answers 404 from then on.',
  security: bearer,
  middleware: writers,
  request: { params: SupplierParam },
  responses: {
    204: { description: 'Deleted.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { supplier_has_balance: 'The shop still owes the supplier, or the supplier owes the shop: settle the balance first.' }),
  },
});

export const supplierRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filters } = c.req.valid('query');
    const after = decodeCursor(cursor, z.tuple([Text, z.uuid()]));
    const { rows, nextCursor } = page(await listSuppliers(c.var.tx, filters, limit, after), limit, (row) => [row.name, row.id]);
    return c.json({ data: rows.map(toSupplierRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    return c.json({ data: await createSupplier(c.var.tx, c.req.valid('json')) }, 201);
  })
  .openapi(read, async (c) => {
    const supplier = await findSupplier(c.var.tx, c.req.valid('param').supplier_id);
    if (!supplier) throw errors.notFound();
    return c.json({ data: supplier }, 200);
  })
  .openapi(update, async (c) => {
    const supplier = await updateSupplier(c.var.tx, c.req.valid('param').supplier_id, c.req.valid('json'));
    if (!supplier) throw errors.notFound();
    return c.json({ data: supplier }, 200);
  })
  .openapi(remove, async (c) => {
    const { supplier_id: id } = c.req.valid('param');
    const supplier = await lockSupplier(c.var.tx, id);
    if (!supplier) throw errors.notFound();
    if (supplier.balance_xaf > 0) {
      throw errors.conflict('supplier_has_balance', `The shop still owes this supplier ${supplier.balance_xaf} XAF: pay it before deleting the supplier.`);
    }
    if (supplier.balance_xaf < 0) {
      throw errors.conflict('supplier_has_balance', `This supplier still owes the shop ${-supplier.balance_xaf} XAF: settle it before deleting the supplier.`);
    }
    await deleteSupplier(c.var.tx, id);
    return c.body(null, 204);
  });
