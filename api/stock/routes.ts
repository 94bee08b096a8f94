import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { categoryExists } from '../categories/queries.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { CursorAt, decodeCursor, page, SINGLE_PAGE } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { findProduct, listProducts, productEverExisted, toProductRecord } from '../products/queries.ts';
import { ProductRecord } from '../products/schemas.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, ListQuery, many, nullableRef, one, pickErrors, refusals, Text, Uuid } from '../schemas.ts';
import { ADJUSTED, CANCELLED_STOCKTAKE, COMMITTED_STOCKTAKE, LOW_STOCK, OPENED_STOCKTAKE } from './examples.ts';
import {
  adjustStock,
  cancelStocktake,
  commitStocktake,
  findStocktake,
  listBatches,
  listMovements,
  listStocktakes,
  openStocktake,
  recordCounts,
  stockValuation,
  toMovementRecord,
  toStocktakeRecord,
} from './queries.ts';
import {
  AdjustBody,
  BatchesQuery,
  BatchRecord,
  CreateStocktakeBody,
  MovementRecord,
  MovementsQuery,
  RecordCountsBody,
  StocktakeDetail,
  StocktakeListQuery,
  StocktakeRecord,
  Valuation,
} from './schemas.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

/** Stock adjustments, stocktakes and stock reports need a manager or the owner (CONTRACT section 3). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const writers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];

const ProductParam = z.object({ product_id: Uuid.openapi({ param: { name: 'product_id', in: 'path' } }) });
const StocktakeParam = z.object({ stocktake_id: Uuid.openapi({ param: { name: 'stocktake_id', in: 'path' } }) });
const tags = ['Stock'];

const adjust = createRoute({
  method: 'post',
  path: '/products/{product_id}/adjust',
  tags,
  operationId: 'adjustStock',
  summary: 'Set on-hand to a counted figure (manager or owner)',
  description:
    'Writes an `adjustment` movement of the difference and posts its value at last cost to the journal (a loss debits 6031 and credits 31; a gain the reverse). ' +
    'A count equal to the stock records nothing (`movement` null). An untracked product is a 422 `product_not_tracked`; a product with variants needs `variant_id` (422 `variant_required`).',
  security: bearer,
  middleware: writers,
  request: { params: ProductParam, body: jsonBody(AdjustBody) },
  responses: {
    200: jsonResponse('The product after the adjustment, and the movement written.', one(z.object({ product: ProductRecord, movement: nullableRef(MovementRecord, 'The adjustment written; null when the count equals the stock (nothing recorded).') })), { data: ADJUSTED }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or `variant_id` names a variant of another product.',
      product_not_tracked: { on: 'product_id', meaning: 'The product does not track stock.' },
      variant_required: { on: 'variant_id', meaning: 'The product keeps its stock on its variants: `variant_id` must name one.' },
    }),
  },
});

const movements = createRoute({
  method: 'get',
  path: '/products/{product_id}/movements',
  tags,
  operationId: 'listStockMovements',
  summary: 'The product\'s stock ledger, newest first (manager or owner)',
  description:
    'Every change of the product\'s on-hand (of one variant with `variant_id`): sales, voids, refunds, purchases and returns, adjustments and stocktakes, each with its signed quantity, ' +
    'the on-hand after it, who made it and what caused it (`source_type`, `source_id`). By pages (`limit`, `cursor`). Still readable after the product is deleted: its history is kept.',
  security: bearer,
  middleware: readers,
  request: { params: ProductParam, query: MovementsQuery },
  responses: { 200: jsonResponse('Movements.', many(MovementRecord)), ...pickErrors(401, 403, 404) },
});

const batches = createRoute({
  method: 'get',
  path: '/products/{product_id}/batches',
  tags,
  operationId: 'listBatches',
  summary: 'The product\'s batches, first expired first out (manager or owner)',
  description:
    'Batches of the product and of its variants (`name` carries the variant\'s options), made by purchase lines with a `batch_number` and/or `expiry_date`. ' +
    'Ordered as sales take from them: soonest `expiry_date` first, undated batches last, then the oldest received. `quantity` is what the batch still holds; ' +
    'the rest of the on-hand is unbatched stock. `cost_xaf` is the unit cost (excluding VAT) of its last receipt and `value_xaf` is `quantity` x `cost_xaf`, ' +
    'rounded half away from zero. Only batches with stock unless `include_empty=true`. The same readers as the stock ledger; still readable after the product ' +
    'is deleted; an unknown product, or another shop\'s, is a 404. One page: `meta.next_cursor` is always null.',
  security: bearer,
  middleware: readers,
  request: { params: ProductParam, query: BatchesQuery },
  responses: { 200: jsonResponse('Batches.', many(BatchRecord)), ...pickErrors(401, 403, 404) },
});

const listStocktakesRoute = createRoute({
  method: 'get',
  path: '/stocktakes',
  tags,
  operationId: 'listStocktakes',
  summary: 'List stocktakes, newest first (manager or owner)',
  description: 'Every stocktake of the shop, or those of one `status`, newest first, by pages, each with its counts summary (items, counted, variance value at last cost); no items: read one for them.',
  security: bearer,
  middleware: readers,
  request: { query: StocktakeListQuery },
  responses: { 200: jsonResponse('Stocktakes.', many(StocktakeRecord)), ...pickErrors(401, 403) },
});

const createStocktake = createRoute({
  method: 'post',
  path: '/stocktakes',
  tags,
  operationId: 'createStocktake',
  summary: 'Open a stocktake (manager or owner)',
  description: 'Count the shelves, record the counts, then commit. Snapshots the expected on-hand of every tracked product without variants and of every variant (of one category and its subcategories when `category_id` is given; an unknown one is a 422 on it). Sales go on during the count.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateStocktakeBody) },
  responses: {
    201: jsonResponse('The stocktake with its items.', one(StocktakeDetail), { data: OPENED_STOCKTAKE }),
    ...pickErrors(400, 401, 402, 403, 413),
  },
});

const getStocktake = createRoute({
  method: 'get',
  path: '/stocktakes/{stocktake_id}',
  tags,
  operationId: 'getStocktake',
  summary: 'Read a stocktake with its items and variances (manager or owner)',
  description: 'Each item with what was expected when the stocktake opened, what was counted (null until counted), the variance and its value at last cost.',
  security: bearer,
  middleware: readers,
  request: { params: StocktakeParam },
  responses: { 200: jsonResponse('The stocktake.', one(StocktakeDetail)), ...pickErrors(401, 403, 404) },
});

const counts = createRoute({
  method: 'post',
  path: '/stocktakes/{stocktake_id}/counts',
  tags,
  operationId: 'recordStocktakeCounts',
  summary: 'Record counts while open (manager or owner)',
  description: 'A count can be corrected, or cleared with null, until commit. An item of another stocktake is a 422 on `counts.N.item_id`; a stocktake no longer open is a 409 `stocktake_not_open`.',
  security: bearer,
  middleware: writers,
  request: { params: StocktakeParam, body: jsonBody(RecordCountsBody) },
  responses: {
    200: jsonResponse('The stocktake.', one(StocktakeDetail)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { stocktake_not_open: 'The stocktake was committed or cancelled: its counts can no longer change.' }),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `counts.N.item_id` is not an item of this stocktake.' }),
  },
});

const commit = createRoute({
  method: 'post',
  path: '/stocktakes/{stocktake_id}/commit',
  tags,
  operationId: 'commitStocktake',
  summary: 'Commit: apply the counted variances to stock (manager or owner)',
  description:
    'In one transaction: each counted item\'s variance (counted - expected) becomes a `stocktake` movement against the on-hand at commit time, so sales made during the count are kept; ' +
    'uncounted items are left untouched; the variance value at last cost is posted to the journal. Applied once: a second or concurrent commit is a 409 `stocktake_not_open`.',
  security: bearer,
  middleware: writers,
  request: { params: StocktakeParam },
  responses: {
    200: jsonResponse('The committed stocktake.', one(StocktakeDetail), { data: COMMITTED_STOCKTAKE }),
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { stocktake_not_open: 'The stocktake was already committed or cancelled.' }),
  },
});

const cancel = createRoute({
  method: 'post',
  path: '/stocktakes/{stocktake_id}/cancel',
  tags,
  operationId: 'cancelStocktake',
  summary: 'Cancel an open stocktake (manager or owner)',
  description: 'The counts are dropped and the stock is left as it is; the stocktake stays listed as `cancelled`.',
  security: bearer,
  middleware: writers,
  request: { params: StocktakeParam },
  responses: {
    200: jsonResponse('The cancelled stocktake.', one(StocktakeDetail), { data: CANCELLED_STOCKTAKE }),
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { stocktake_not_open: 'The stocktake was already committed or cancelled.' }),
  },
});

const lowStock = createRoute({
  method: 'get',
  path: '/reports/low-stock',
  tags: ['Reports'],
  operationId: 'listLowStock',
  summary: 'Tracked products at or below their reorder level (manager or owner)',
  description: 'Active tracked products whose on-hand (the sum of their variants\' when they have some) is at or below their `reorder_level`: what to buy. By name, by pages. ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('Products by name.', many(ProductRecord), LOW_STOCK), ...pickErrors(401, 403) },
});

const valuation = createRoute({
  method: 'get',
  path: '/reports/stock-valuation',
  tags: ['Reports'],
  operationId: 'getStockValuation',
  summary: 'On-hand x last cost per tracked product, with the total (manager or owner)',
  description: 'Lines by product name, paginated; `meta.total_xaf` and `meta.products` cover every tracked product. Negative stock counts negatively. ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('The valuation.', Valuation), ...pickErrors(401, 403) },
});

const NameKey = z.tuple([Text, z.uuid()]);
const TimeKey = z.tuple([CursorAt, z.uuid()]);

async function stocktakeOr404(tx: AppEnv['Variables']['tx'], id: string) {
  const stocktake = await findStocktake(tx, id);
  if (!stocktake) throw errors.notFound();
  return stocktake;
}

export const stockRoutes = newRouter()
  .openapi(adjust, async (c) => {
    const { product_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { tx } = c.var;
    const movement = await adjustStock(tx, product_id, { variant_id: body.variant_id ?? null, new_quantity: body.new_quantity, reason: body.reason ?? null });
    return c.json({ data: { product: (await findProduct(tx, product_id))!, movement } }, 200);
  })
  .openapi(movements, async (c) => {
    const { product_id } = c.req.valid('param');
    const { limit, cursor, variant_id } = c.req.valid('query');
    if (!(await productEverExisted(c.var.tx, product_id))) throw errors.notFound();
    const before = decodeCursor(cursor, TimeKey);
    const { rows, nextCursor } = page(await listMovements(c.var.tx, product_id, variant_id, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toMovementRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(batches, async (c) => {
    const { product_id } = c.req.valid('param');
    if (!(await productEverExisted(c.var.tx, product_id))) throw errors.notFound();
    const { include_empty } = c.req.valid('query');
    return c.json({ data: await listBatches(c.var.tx, product_id, include_empty ?? false), meta: SINGLE_PAGE }, 200);
  })
  .openapi(listStocktakesRoute, async (c) => {
    const { limit, cursor, status } = c.req.valid('query');
    const before = decodeCursor(cursor, TimeKey);
    const { rows, nextCursor } = page(await listStocktakes(c.var.tx, status, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toStocktakeRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(createStocktake, async (c) => {
    const { note, category_id } = c.req.valid('json');
    const { tx } = c.var;
    if (category_id && !(await categoryExists(tx, category_id))) throw invalidField('category_id', 'No such category in this shop.');
    const id = await openStocktake(tx, note ?? null, category_id ?? null);
    return c.json({ data: await stocktakeOr404(tx, id) }, 201);
  })
  .openapi(getStocktake, async (c) => c.json({ data: await stocktakeOr404(c.var.tx, c.req.valid('param').stocktake_id) }, 200))
  .openapi(counts, async (c) => {
    const { stocktake_id } = c.req.valid('param');
    await recordCounts(c.var.tx, stocktake_id, c.req.valid('json').counts);
    return c.json({ data: await stocktakeOr404(c.var.tx, stocktake_id) }, 200);
  })
  .openapi(commit, async (c) => {
    const { stocktake_id } = c.req.valid('param');
    await commitStocktake(c.var.tx, stocktake_id);
    return c.json({ data: await stocktakeOr404(c.var.tx, stocktake_id) }, 200);
  })
  .openapi(cancel, async (c) => {
    const { stocktake_id } = c.req.valid('param');
    await cancelStocktake(c.var.tx, stocktake_id);
    return c.json({ data: await stocktakeOr404(c.var.tx, stocktake_id) }, 200);
  })
  .openapi(
    lowStock,
    fromReplica(async (c) => {
      const { limit, cursor } = c.req.valid('query');
      const after = decodeCursor(cursor, NameKey);
      const { rows, nextCursor } = page(await listProducts(c.var.tx, { low_stock: true }, limit, after), limit, (row) => [row.name, row.id]);
      return c.json({ data: rows.map(toProductRecord), meta: { next_cursor: nextCursor } }, 200);
    }),
  )
  .openapi(
    valuation,
    fromReplica(async (c) => {
      const { limit, cursor } = c.req.valid('query');
      const after = decodeCursor(cursor, NameKey);
      const result = await stockValuation(c.var.tx, limit, after);
      const { rows, nextCursor } = page(result.rows, limit, (row) => [row.name, row.product_id]);
      return c.json({ data: rows, meta: { next_cursor: nextCursor, total_xaf: result.total_xaf, products: result.products } }, 200);
    }),
  );
