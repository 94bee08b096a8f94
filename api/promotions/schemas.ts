import { z } from '@hono/zod-openapi';
import { CREATE_PROMOTION, PREVIEW, PREVIEW_REQUEST, PROMOTION, UPDATE_PROMOTION } from './examples.ts';
import { decimal, IsoDateTime, ListQuery, Money, NonNegativeQuantity, PositiveQuantity, QueryBoolean, requiredText, Text, Timestamp, UnitMoney, Uuid } from '../schemas.ts';

export const PromotionKind = z.enum(['percent', 'amount_xaf', 'buy_x_get_y', 'price_xaf']);

const Time = Text.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Must be a time as HH:MM.').openapi({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' });

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
  starts_at: IsoDateTime.nullable().optional(),
  ends_at: IsoDateTime.nullable().optional(),
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

const kindIs = (kind: PromotionFields['kind']) => ({ type: 'object', properties: { kind: { const: kind } } });
const value = (rule: object) => ({ type: 'object', properties: { value: rule } });
const given = (key: string) => ({ type: 'object', properties: { [key]: { type: 'string' } }, required: [key] });

/**
 * The rules of `promotionProblems` that JSON Schema can state, for the document of a new promotion
 * (a PUT is checked after its merge with the stored promotion, so its body alone cannot carry them).
 * Not stated: ends_at after starts_at, ends_time unlike starts_time.
 */
const PROMOTION_RULES = [
  { if: kindIs('percent'), then: value({ type: 'number', exclusiveMinimum: 0, maximum: 100 }) },
  { if: kindIs('amount_xaf'), then: value({ type: 'integer', minimum: 1 }) },
  { if: kindIs('price_xaf'), then: value({ type: 'integer' }) },
  {
    if: kindIs('buy_x_get_y'),
    then: { type: 'object', properties: { value: { type: 'integer', minimum: 1 }, min_quantity: { type: 'integer', minimum: 1 } }, required: ['min_quantity'] },
  },
  {
    if: { type: 'object', properties: { kind: { not: { const: 'percent' } } } },
    then: { anyOf: (['product_ids', 'category_ids', 'variant_ids'] as const).map((key) => ({ type: 'object', properties: { [key]: { type: 'array', minItems: 1 } }, required: [key] })) },
  },
  { if: given('starts_time'), then: given('ends_time') },
  { if: given('ends_time'), then: given('starts_time') },
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
    at: IsoDateTime.optional().openapi({ description: 'When the sale happens; default now.' }),
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
