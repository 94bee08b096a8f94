import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, IdParam, jsonBody, jsonResponse, ListQuery, many, one, pickErrors, refusals } from '../schemas.ts';
import { CATEGORY, UPDATE_CATEGORY } from './examples.ts';
import type { Tx } from '../db.ts';
import {
  categoryExists,
  categoryHoldsAnything,
  createCategory,
  deleteCategory,
  isWithin,
  listCategories,
  lockCategory,
  toCategoryRecord,
  updateCategory,
} from './queries.ts';
import { CategoryRecord, CreateCategoryBody, UpdateCategoryBody } from './schemas.ts';

const writers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];

const list = createRoute({
  method: 'get',
  path: '/categories',
  tags: ['Catalogue'],
  operationId: 'listCategories',
  summary: 'List categories (any shop user)',
  description: 'Every category of the shop, top-level and subcategories alike (`parent_id` builds the tree), by `sort_order` then id, by pages (`limit`, `cursor`).',
  security: bearer,
  middleware: [authenticate, requireRole('cashier')] as const,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('Categories by sort_order, then id.', many(CategoryRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/categories',
  tags: ['Catalogue'],
  operationId: 'createCategory',
  summary: 'Create a category (manager or owner)',
  description: 'A top-level category, or a subcategory of one of the shop\'s categories (`parent_id`; another shop\'s or an unknown one is a 422 on `parent_id`). Cashiers get a 403. Tills receive it on their next pull.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateCategoryBody) },
  responses: { 201: jsonResponse('The new category.', one(CategoryRecord)), ...pickErrors(400, 401, 402, 403, 413) },
});

const update = createRoute({
  method: 'put',
  path: '/categories/{id}',
  tags: ['Catalogue'],
  operationId: 'updateCategory',
  summary: 'Change a category (manager or owner)',
  description: 'Only the fields sent change. A category cannot be put inside itself or one of its subcategories, nor under an unknown category (422 on `parent_id`).',
  security: bearer,
  middleware: writers,
  request: { params: IdParam, body: jsonBody(UpdateCategoryBody) },
  responses: {
    200: jsonResponse('The category as saved.', one(CategoryRecord), { data: { ...CATEGORY, ...UPDATE_CATEGORY, updated_at: '2026-11-21T08:12:09.000Z' } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `parent_id` names an unknown category, the category itself or one of its subcategories.' }),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/categories/{id}',
  tags: ['Catalogue'],
  operationId: 'deleteCategory',
  summary: 'Delete an empty category (manager or owner)',
  description: 'A category that still holds products or subcategories is a 409 `category_not_empty`. Tills receive the deletion on their next pull.',
  security: bearer,
  middleware: writers,
  request: { params: IdParam },
  responses: {
    204: { description: 'Deleted.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { category_not_empty: 'The category still holds products or subcategories: move or delete them first.' }),
  },
});

async function assertParent(tx: Tx, parentId: string | null | undefined, self?: string): Promise<void> {
  if (parentId === null || parentId === undefined) return;
  if (!(await categoryExists(tx, parentId))) throw invalidField('parent_id', 'No such category in this shop.');
  if (self && (await isWithin(tx, parentId, self))) throw invalidField('parent_id', 'A category cannot be inside itself or one of its subcategories.');
}

export const categoryRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const after = decodeCursor(cursor, z.tuple([z.number().int(), z.uuid()]));
    const { rows, nextCursor } = page(await listCategories(c.var.tx, limit, after), limit, (row) => [row.sort_order, row.id]);
    return c.json({ data: rows.map(toCategoryRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    await assertParent(c.var.tx, body.parent_id);
    const category = await createCategory(c.var.tx, { name: body.name, parent_id: body.parent_id ?? null, sort_order: body.sort_order ?? 0 });
    return c.json({ data: category }, 201);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    if (!(await lockCategory(c.var.tx, id))) throw errors.notFound();
    await assertParent(c.var.tx, body.parent_id, id);
    return c.json({ data: (await updateCategory(c.var.tx, id, body))! }, 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await lockCategory(c.var.tx, id))) throw errors.notFound();
    if (await categoryHoldsAnything(c.var.tx, id)) {
      throw errors.conflict('category_not_empty', 'This category still holds products or subcategories.');
    }
    await deleteCategory(c.var.tx, id);
    return c.body(null, 204);
  });
