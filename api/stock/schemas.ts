import { z } from '@hono/zod-openapi';
import { ADJUST_STOCK, BATCH, CREATE_STOCKTAKE, MOVEMENT, RECORD_COUNTS, STOCKTAKE, STOCKTAKE_DETAIL, STOCKTAKE_ITEM, VALUATION, VALUATION_LINE } from './examples.ts';
import { ListQuery, NonNegativeQuantity, optionalText, QueryBoolean, Timestamp, Uuid } from '../schemas.ts';

export const MovementType = z.enum(['sale', 'void', 'refund', 'purchase', 'purchase_return', 'adjustment', 'stocktake']);

export const MovementRecord = z
  .object({
    id: Uuid,
    product_id: Uuid,
    variant_id: Uuid.nullable(),
    type: MovementType,
    quantity: z.number().openapi({ description: 'Signed change of on-hand.' }),
    on_hand_after: z.number().openapi({ description: 'On-hand of the item (the variant, when there is one) after this movement.' }),
    reason: z.string().nullable(),
    source_type: z.string().nullable().openapi({ description: 'What caused it: adjustment, stocktake, sale, purchase...' }),
    source_id: Uuid.nullable(),
    user_id: Uuid.nullable(),
    user_name: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('StockMovement', { example: MOVEMENT });
export type MovementRecord = z.infer<typeof MovementRecord>;

export const AdjustBody = z
  .object({
    new_quantity: NonNegativeQuantity.openapi({ description: 'The counted on-hand; the movement is the difference.' }),
    reason: optionalText(160),
    variant_id: Uuid.nullable().optional().openapi({ description: 'Required for a product with variants: the variant counted.' }),
  })
  .openapi('AdjustStock', { example: ADJUST_STOCK });

export const MovementsQuery = ListQuery.extend({
  variant_id: Uuid.optional().openapi({ param: { name: 'variant_id', in: 'query' } }),
});

export const StocktakeStatus = z.enum(['open', 'committed', 'cancelled']);

export const StocktakeItem = z
  .object({
    id: Uuid,
    product_id: Uuid,
    variant_id: Uuid.nullable(),
    name: z.string().openapi({ description: 'Product name, with the variant\'s options.' }),
    sku: z.string().nullable(),
    expected_quantity: z.number().openapi({ description: 'On-hand when the stocktake was opened.' }),
    counted_quantity: z.number().nullable(),
    variance: z.number().nullable().openapi({ description: 'counted - expected; null while not counted.' }),
    variance_value_xaf: z.number().int().nullable().openapi({ description: 'variance x last cost, rounded half away from zero.' }),
    counted_at: Timestamp.nullable(),
  })
  .openapi('StocktakeItem', { example: STOCKTAKE_ITEM });
export type StocktakeItem = z.infer<typeof StocktakeItem>;

export const StocktakeSummary = z.object({
  items: z.number().int(),
  counted: z.number().int(),
  variance_value_xaf: z.number().int().openapi({ description: 'Sum of the counted items\' variance values.' }),
});

export const StocktakeRecord = z
  .object({
    id: Uuid,
    status: StocktakeStatus,
    note: z.string().nullable(),
    category_id: Uuid.nullable(),
    created_by: Uuid.nullable(),
    committed_by: Uuid.nullable(),
    committed_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    summary: StocktakeSummary,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Stocktake', { example: STOCKTAKE });
export type StocktakeRecord = z.infer<typeof StocktakeRecord>;

export const StocktakeDetail = StocktakeRecord.extend({ items: z.array(StocktakeItem) }).openapi('StocktakeDetail', { example: STOCKTAKE_DETAIL });

export const CreateStocktakeBody = z
  .object({
    note: optionalText(255),
    category_id: Uuid.nullable().optional().openapi({ description: 'Count one category (with its subcategories) instead of the whole shop.' }),
  })
  .openapi('CreateStocktake', { example: CREATE_STOCKTAKE });

export const RecordCountsBody = z
  .object({
    counts: z
      .array(z.object({ item_id: Uuid, counted_quantity: NonNegativeQuantity.nullable().optional().openapi({ description: 'null clears the count.' }) }))
      .min(1)
      .max(5000),
  })
  .openapi('RecordCounts', { example: RECORD_COUNTS });

export const StocktakeListQuery = ListQuery.extend({
  status: StocktakeStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
});

export const ValuationLine = z
  .object({
    product_id: Uuid,
    name: z.string(),
    sku: z.string().nullable(),
    unit: z.string(),
    on_hand: z.number(),
    cost_xaf: z.number().int(),
    value_xaf: z.number().int().openapi({ description: 'on_hand x cost_xaf, rounded half away from zero.' }),
  })
  .openapi('StockValuationLine', { example: VALUATION_LINE });

export const Valuation = z
  .object({
    data: z.array(ValuationLine),
    meta: z.object({
      next_cursor: z.string().nullable(),
      total_xaf: z.number().int().openapi({ description: 'Value of every tracked product (all pages).' }),
      products: z.number().int().openapi({ description: 'Number of tracked products (all pages).' }),
    }),
  })
  .openapi('StockValuation', { example: VALUATION });

export const BatchRecord = z
  .object({
    id: Uuid,
    product_id: Uuid,
    variant_id: Uuid.nullable(),
    name: z.string(),
    batch_number: z.string().nullable(),
    expiry_date: z.string().nullable().openapi({ description: 'YYYY-MM-DD, the shop\'s calendar; null for a batch known by its number only.' }),
    quantity: z.number().openapi({ description: 'What the batch still holds.' }),
    cost_xaf: z.number().int().openapi({ description: 'Unit cost excluding VAT of its last receipt.' }),
    value_xaf: z.number().int().openapi({ description: 'quantity x cost_xaf, rounded half away from zero.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Batch', { example: BATCH });
export type BatchRecord = z.infer<typeof BatchRecord>;

export const BatchesQuery = z.object({
  include_empty: QueryBoolean.optional().openapi({ param: { name: 'include_empty', in: 'query' }, description: 'Also list emptied batches (default false).' }),
});
