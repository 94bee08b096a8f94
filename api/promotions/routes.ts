import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { missingCategories } from '../categories/queries.ts';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { errors, type FieldErrors } from '../errors.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { cataloguePrices, missingProducts, missingVariants } from '../products/queries.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals, Uuid } from '../schemas.ts';
import { createPromotion, deletePromotion, findPromotion, listPromotions, promotionDiscounts, replacePromotion, toPromotionRecord } from './queries.ts';
import {
  CreatePromotionBody,
  Preview,
  PreviewBody,
  PromotionFields,
  PromotionListQuery,
  PromotionRecord,
  promotionProblems,
  UpdatePromotionBody,
} from './schemas.ts';

const PromotionParam = z.object({ promotion_id: Uuid.openapi({ param: { name: 'promotion_id', in: 'path' } }) });
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const writers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];
const tags = ['Promotions'];

const RULE =
  'Pricing rule: each line gets the single best promotion live at the time of the sale (the largest discount; on a tie, the oldest promotion); ' +
  'promotions never stack. A whole-sale promotion (no products, categories or variants named) is a percent and competes on every line. ' +
  'Days and hours are the shop\'s local time (`timezone` in /shop).';

const list = createRoute({
  method: 'get',
  path: '/promotions',
  tags,
  operationId: 'listPromotions',
  summary: 'List promotions, oldest first (any shop user)',
  description: RULE,
  security: bearer,
  middleware: readers,
  request: { query: PromotionListQuery },
  responses: { 200: jsonResponse('Promotions.', many(PromotionRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/promotions',
  tags,
  operationId: 'createPromotion',
  summary: 'Create a promotion (manager or owner)',
  description: `${RULE} The fields must agree with the kind (see \`kind\`); products, categories and variants named must be the shop's (422 on \`product_ids.N\`...).`,
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreatePromotionBody) },
  responses: {
    201: jsonResponse('The promotion.', one(PromotionRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, disagrees with the kind, or names a product, category or variant the shop does not have.' }),
  },
});

const update = createRoute({
  method: 'put',
  path: '/promotions/{promotion_id}',
  tags,
  operationId: 'updatePromotion',
  summary: 'Change a promotion (manager or owner)',
  description:
    'Only the fields sent change; the whole promotion must still follow the rules of its kind (checked after the merge). Products, categories and variants ' +
    'sent must be the shop\'s; those already stored are not checked again, so a promotion whose product was deleted can still be switched off (`active: false`).',
  security: bearer,
  middleware: writers,
  request: { params: PromotionParam, body: jsonBody(UpdatePromotionBody) },
  responses: {
    200: jsonResponse('The promotion as saved.', one(PromotionRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { validation_failed: 'An input is malformed, the merged promotion disagrees with its kind, or a product, category or variant sent is not the shop\'s.' }),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/promotions/{promotion_id}',
  tags,
  operationId: 'deletePromotion',
  summary: 'Delete a promotion (manager or owner)',
  description: 'From now on no sale gets it; the sales that got it keep their discount. To pause a promotion instead, set `active: false`.',
  security: bearer,
  middleware: writers,
  request: { params: PromotionParam },
  responses: { 204: { description: 'Deleted.' }, ...pickErrors(401, 402, 403, 404) },
});

const preview = createRoute({
  method: 'post',
  path: '/promotions/preview',
  tags,
  operationId: 'previewPromotions',
  summary: 'Price a basket with the promotions, before the sale (any shop user)',
  description: `${RULE} The same SQL function prices the sale itself. Nothing is recorded; \`at\` prices the basket at another time (default now).`,
  security: bearer,
  middleware: readers,
  request: { body: jsonBody(PreviewBody) },
  responses: {
    200: jsonResponse('Each line with its promotion, and the totals.', one(Preview)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or a line names a product or variant the shop does not have.' }),
  },
});

/**
 * The fields agree with each other (on the whole promotion, after a PUT's merge), and the references
 * sent name records of this shop. References already stored are not checked again: a product deleted
 * since must not stop anyone from switching its promotion off.
 */
async function assertPromotion(tx: Tx, promotion: PromotionFields, sent: Partial<PromotionFields> = promotion): Promise<void> {
  const problems: FieldErrors = promotionProblems(promotion);
  const check = async (key: 'product_ids' | 'category_ids' | 'variant_ids', missing: (tx: Tx, ids: string[]) => Promise<string[]>) => {
    const ids = sent[key] ?? [];
    if (ids.length === 0) return;
    const absent = new Set(await missing(tx, ids));
    ids.forEach((id, index) => {
      if (absent.has(id)) problems[`${key}.${index}`] = ['No such record in this shop.'];
    });
  };
  await check('product_ids', missingProducts);
  await check('category_ids', missingCategories);
  await check('variant_ids', missingVariants);
  if (Object.keys(problems).length > 0) throw errors.invalid(problems);
}

export const promotionRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, active } = c.req.valid('query');
    const after = decodeCursor(cursor, z.tuple([CursorAt, z.uuid()]));
    const { rows, nextCursor } = page(await listPromotions(c.var.tx, active, limit, after), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toPromotionRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    await assertPromotion(c.var.tx, body);
    return c.json({ data: await createPromotion(c.var.tx, body) }, 201);
  })
  .openapi(preview, async (c) => {
    const { items, at } = c.req.valid('json');
    const { tx } = c.var;
    const prices = await cataloguePrices(tx, items);
    const unknown: FieldErrors = {};
    prices.forEach((price, index) => {
      if (price === null) unknown[items[index]!.variant_id ? `items.${index}.variant_id` : `items.${index}.product_id`] = ['No such product or variant in this shop.'];
    });
    if (Object.keys(unknown).length > 0) throw errors.invalid(unknown);
    const when = at ?? new Date().toISOString();
    const lines = items.map((item, index) => ({
      product_id: item.product_id,
      variant_id: item.variant_id ?? null,
      quantity: item.quantity,
      unit_price_xaf: item.unit_price_xaf ?? prices[index]!,
      discount_xaf: item.discount_xaf ?? 0,
    }));
    const discounts = await promotionDiscounts(tx, lines, when);
    const priced = lines.map((line, index) => {
      const priced = discounts[index]!;
      return {
        index,
        ...line,
        gross_xaf: priced.gross_xaf,
        discount_xaf: priced.line_discount_xaf,
        promotion_id: priced.promotion_id,
        promotion_name: priced.promotion_name,
        promotion_discount_xaf: priced.discount_xaf,
        total_xaf: priced.gross_xaf - priced.line_discount_xaf - priced.discount_xaf,
      };
    });
    const subtotal = priced.reduce((sum, line) => sum + line.gross_xaf, 0);
    const total = priced.reduce((sum, line) => sum + line.total_xaf, 0);
    return c.json({ data: { at: new Date(when).toISOString(), items: priced, subtotal_xaf: subtotal, discount_xaf: subtotal - total, total_xaf: total } }, 200);
  })
  .openapi(update, async (c) => {
    const { promotion_id } = c.req.valid('param');
    const current = await findPromotion(c.var.tx, promotion_id, true);
    if (!current) throw errors.notFound();
    const { id: _id, scope: _scope, created_at: _c, updated_at: _u, ...stored } = current;
    const body = c.req.valid('json');
    const merged = { ...stored, ...body } as PromotionFields;
    await assertPromotion(c.var.tx, merged, body);
    return c.json({ data: await replacePromotion(c.var.tx, promotion_id, merged) }, 200);
  })
  .openapi(remove, async (c) => {
    const { promotion_id } = c.req.valid('param');
    if (!(await findPromotion(c.var.tx, promotion_id, true))) throw errors.notFound();
    await deletePromotion(c.var.tx, promotion_id);
    return c.body(null, 204);
  });
