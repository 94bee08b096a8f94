import { z } from '@hono/zod-openapi';
import { CREATE_PROMOTION, PREVIEW, PREVIEW_REQUEST, PROMOTION, UPDATE_PROMOTION } from './examples.ts';
import { businessDateTime, decimal, ListQuery, Money, NonNegativeQuantity, PositiveQuantity, QueryBoolean, requiredText, Text, Timestamp, UnitMoney, Uuid } from '../schemas.ts';

export const PromotionKind = z.enum(['percent', 'amount_xaf', 'buy_x_get_y', 'price_xaf']);

const TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const Time = Text.regex(TIME, 'Must be a time as HH:MM.').openapi({ pattern: TIME.source });

export const PromotionRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    kind: PromotionKind,
    value: z.number(),
    scope: z.enum(['sale', 'items']).openapi({ description: 'sale: no product, category or variant named (percent only); items: the lines named.' }),
    product_ids: z.array(Uuid),
    category_ids: z.array(Uuid),
    variant_ids: z.array(Uuid),
    min_quantity: z.number(),
    min_total_xaf: z.number().int(),
    starts_at: Timestamp.nullable(),
    ends_at: Timestamp.nullable(),
    days_of_week: z.array(z.number().int()).nullable(),
    starts_time: z.string().nullable(),
    ends_time: z.string().nullable(),
    active: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Promotion', { example: PROMOTION });
export type PromotionRecord = z.infer<typeof PromotionRecord>;

export const PromotionFields = z.object({
  name: requiredText(160),
  kind: PromotionKind.openapi({
    description:
      'percent: `value` % off the line (0 < value <= 100). amount_xaf: `value` XAF off each unit. price_xaf: each unit at `value` XAF. ' +
      'buy_x_get_y: buy `min_quantity`, get `value` free (in each group of min_quantity + value units, value units are free).',
  }),
  value: decimal(2).min(0).max(1_000_000_000),
  product_ids: z.array(Uuid).max(500).optional(),
  category_ids: z.array(Uuid).max(100).optional(),
  variant_ids: z.array(Uuid).max(500).optional(),
  min_quantity: NonNegativeQuantity.optional().openapi({ description: 'A line needs at least this quantity (buy_x_get_y: the X bought).' }),
  min_total_xaf: Money.optional().openapi({ description: 'The basket needs at least this total.' }),
  starts_at: businessDateTime('When the promotion starts; null: no start.').nullable().optional(),
  ends_at: businessDateTime('When it ends; null: no end.').nullable().optional(),
  days_of_week: z.array(z.number().int().min(1).max(7)).min(1).max(7).nullable().optional().openapi({ description: 'ISO days, Monday = 1; null: every day.' }),
  starts_time: Time.nullable().optional().openapi({ description: 'Daily window in the shop\'s time zone (with ends_time).' }),
  ends_time: Time.nullable().optional(),
  active: z.boolean().optional(),
});
export type PromotionFields = z.infer<typeof PromotionFields>;

/** The rules that tie fields together, checked on the whole promotion (after a PUT's merge too). */
export function promotionProblems(p: PromotionFields): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const add = (key: string, message: string) => (problems[key] ??= []).push(message);
  const targeted = (p.product_ids?.length ?? 0) + (p.category_ids?.length ?? 0) + (p.variant_ids?.length ?? 0) > 0;
  if (!targeted && p.kind !== 'percent') add('kind', 'A promotion on the whole sale must be a percent: name products, categories or variants for the other kinds.');
  if (p.kind === 'percent' && (p.value <= 0 || p.value > 100)) add('value', 'A percent must be more than 0 and at most 100.');
  if (p.kind === 'amount_xaf' && (!Number.isInteger(p.value) || p.value < 1)) add('value', 'Must be a whole number of XAF, at least 1.');
  if (p.kind === 'price_xaf' && !Number.isInteger(p.value)) add('value', 'Must be a whole number of XAF.');
  if (p.kind === 'buy_x_get_y') {
    if (!Number.isInteger(p.value) || p.value < 1) add('value', 'The free quantity must be a whole number, at least 1.');
    if (!Number.isInteger(p.min_quantity ?? 0) || (p.min_quantity ?? 0) < 1) add('min_quantity', 'The quantity to buy must be a whole number, at least 1.');
  }
  if (p.starts_at && p.ends_at && Date.parse(p.ends_at) <= Date.parse(p.starts_at)) add('ends_at', 'Must be after starts_at.');
  if ((p.starts_time == null) !== (p.ends_time == null)) add(p.starts_time == null ? 'starts_time' : 'ends_time', 'Give both starts_time and ends_time, or neither.');
  if (p.starts_time != null && p.starts_time === p.ends_time) add('ends_time', 'Must differ from starts_time.');
  return problems;
}

/** An object holding these properties, `required` of them present (all by default). */
const holding = (properties: Record<string, object>, required = Object.keys(properties)) => ({ type: 'object', properties, ...(required.length ? { required } : {}) });

/** What every kind but percent needs: a product, a category or a variant named (`items: {}`: each is the UUID the property itself states). */
const TARGETED = {
  anyOf: (['product_ids', 'category_ids', 'variant_ids'] as const).map((key) => holding({ [key]: { type: 'array', items: {}, minItems: 1 } })),
};

/**
 * The rules of `promotionProblems` that JSON Schema can state, for the document of a new promotion
 * (a PUT is checked after its merge with the stored promotion, so its body alone cannot carry them).
 * Not stated: ends_at after starts_at, ends_time unlike starts_time. Written as choices, never as
 * if/then, so that a generated client types them: one branch per `kind` (its `value`, buy_x_get_y's
 * `min_quantity`, the targets the kinds but percent need), and the daily window given whole or not at all.
 * Each choice is a branch of `allOf` of its own: a generator reads an `anyOf` beside `properties` as a union with them.
 */
const PROMOTION_RULES = [
  {
    oneOf: [
      holding({ kind: { const: 'percent' }, value: { type: 'number', exclusiveMinimum: 0, maximum: 100 } }),
      { ...holding({ kind: { const: 'amount_xaf' }, value: { type: 'integer', minimum: 1 } }), allOf: [TARGETED] },
      { ...holding({ kind: { const: 'buy_x_get_y' }, value: { type: 'integer', minimum: 1 }, min_quantity: { type: 'integer', minimum: 1 } }), allOf: [TARGETED] },
      { ...holding({ kind: { const: 'price_xaf' }, value: { type: 'integer' } }), allOf: [TARGETED] },
    ],
  },
  // Given: a time each (the pattern the properties state, repeated: a string input always says its pattern); else neither.
  { anyOf: [holding({ starts_time: { type: 'string', pattern: TIME.source }, ends_time: { type: 'string', pattern: TIME.source } }), holding({ starts_time: { type: 'null' }, ends_time: { type: 'null' } }, [])] },
];

export const CreatePromotionBody = PromotionFields.openapi('CreatePromotion', { example: CREATE_PROMOTION, ...({ allOf: PROMOTION_RULES } as object) });
export const UpdatePromotionBody = PromotionFields.partial().openapi('UpdatePromotion', { example: UPDATE_PROMOTION });

export const PromotionListQuery = ListQuery.extend({
  active: QueryBoolean.optional().openapi({ param: { name: 'active', in: 'query' } }),
});

export const PreviewBody = z
  .object({
    items: z
      .array(
        z.object({
          product_id: Uuid,
          variant_id: Uuid.nullable().optional(),
          quantity: PositiveQuantity,
          unit_price_xaf: UnitMoney.nullable().optional().openapi({ description: 'Default: the catalogue price (the variant\'s, when given).' }),
          discount_xaf: Money.nullable().optional().openapi({ description: 'A manual discount on the line, before promotions.' }),
        }),
      )
      .min(1)
      .max(200),
    at: businessDateTime('When the sale happens; default now.').optional(),
  })
  .openapi('PromotionPreviewRequest', { example: PREVIEW_REQUEST });

export const PreviewLine = z.object({
  index: z.number().int(),
  product_id: Uuid,
  variant_id: Uuid.nullable(),
  quantity: z.number(),
  unit_price_xaf: z.number().int(),
  gross_xaf: z.number().int().openapi({ description: 'quantity x unit price, rounded half away from zero.' }),
  discount_xaf: z.number().int().openapi({ description: 'The manual discount.' }),
  promotion_id: Uuid.nullable(),
  promotion_name: z.string().nullable(),
  promotion_discount_xaf: z.number().int(),
  total_xaf: z.number().int(),
});

export const Preview = z
  .object({
    at: Timestamp,
    items: z.array(PreviewLine),
    subtotal_xaf: z.number().int(),
    discount_xaf: z.number().int().openapi({ description: 'Manual and promotion discounts together.' }),
    total_xaf: z.number().int(),
  })
  .openapi('PromotionPreview', { example: PREVIEW });
