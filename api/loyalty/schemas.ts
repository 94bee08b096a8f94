import { z } from '@hono/zod-openapi';
import { CardNo, CustomerRecord, TierRef } from '../customers/schemas.ts';
import { CARD_PRINT, CORRECT_POINTS, LOYALTY_REPORT, POINTS_CORRECTION, POINTS_ENTRY, REGISTER_CARD, REPLACE_TIERS, TIER } from './examples.ts';
import { businessDate, decimal, ListQuery, nullableRef, requiredText, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

export const RegisterCardBody = z
  .object({
    card_no: CardNo,
    customer_id: Uuid.nullable().optional().openapi({ description: 'An existing customer of the shop; or give `name` instead.' }),
    name: requiredText(160).nullable().optional().openapi({ description: 'Creates the customer on the spot; or give `customer_id` instead.' }),
  })
  .openapi('RegisterLoyaltyCard', { example: REGISTER_CARD });

export const CardPrint = z
  .object({
    shop_name: z.string(),
    customer_id: Uuid,
    customer_name: z.string(),
    card_no: z.string(),
    points: z.number().int(),
    tier: nullableRef(TierRef, 'Null when the customer holds no tier: the shop has none, or the points earned over the last 12 months reach no tier\'s `min_points`.'),
    barcode: z.object({
      format: z.literal('code128'),
      svg: z.string().nullable().openapi({ description: 'Self-contained SVG; null when the card number has characters outside printable ASCII.' }),
    }),
  })
  .openapi('LoyaltyCardPrint', { example: CARD_PRINT });

export const PointsKind = z.enum(['earn', 'redeem', 'adjust', 'reverse']);

export const PointsEntry = z
  .object({
    id: Uuid,
    customer_id: Uuid,
    kind: PointsKind,
    points: z.number().int().openapi({ description: 'Signed.' }),
    source_type: z.string().nullable(),
    source_id: Uuid.nullable(),
    reason: z.string().nullable(),
    user_id: Uuid.nullable(),
    created_at: Timestamp,
  })
  .openapi('PointsEntry', { example: POINTS_ENTRY });

export const CorrectPointsBody = z
  .object({
    delta: z
      .number()
      .int()
      .min(-1_000_000_000)
      .max(1_000_000_000)
      .refine((delta) => delta !== 0, 'Must not be 0.')
      .openapi({ not: { const: 0 }, description: 'Signed; never 0.' }),
    reason: requiredText(160),
  })
  .openapi('CorrectPoints', { example: CORRECT_POINTS });

export const PointsCorrection = z.object({ customer: CustomerRecord, entry: PointsEntry }).openapi({ example: POINTS_CORRECTION });

export const TierRecord = z
  .object({
    id: Uuid,
    key: z.string(),
    name: z.string(),
    min_points: z.number().int(),
    multiplier: z.number(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('LoyaltyTier', { example: TIER });
export type TierRecord = z.infer<typeof TierRecord>;

const TierInput = z.object({
  key: requiredText(40),
  name: requiredText(60),
  min_points: z.number().int().min(0).max(1_000_000_000),
  multiplier: decimal(2).min(0).max(10),
});

export const ReplaceTiersBody = z
  .object({
    tiers: z
      .array(TierInput)
      .min(1)
      .max(8)
      .openapi({
        description: 'Keys and thresholds unique; one tier starts at 0 points.',
        ...({ contains: { type: 'object', properties: { min_points: { const: 0 } }, required: ['min_points'] } } as object),
      }),
  })
  .superRefine((body, ctx) => {
    const keys = new Set<string>();
    const thresholds = new Set<number>();
    body.tiers.forEach((tier, index) => {
      if (keys.has(tier.key)) ctx.addIssue({ code: 'custom', path: ['tiers', index, 'key'], message: 'Keys must be unique.' });
      if (thresholds.has(tier.min_points)) ctx.addIssue({ code: 'custom', path: ['tiers', index, 'min_points'], message: 'Thresholds must be unique.' });
      keys.add(tier.key);
      thresholds.add(tier.min_points);
    });
    if (body.tiers.length > 0 && !thresholds.has(0)) {
      ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'The lowest tier must start at 0 points.' });
    }
  })
  .openapi('ReplaceTiers', { example: REPLACE_TIERS });

export const ReportQuery = z
  .object({
    from: businessDate('First day (shop time); default 30 days ago.').optional().openapi({ param: { name: 'from', in: 'query' } }),
    to: businessDate('Last day, on or after from; default today.').optional().openapi({ param: { name: 'to', in: 'query' } }),
  })
  .refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const LoyaltyReport = z
  .object({
    from: z.string(),
    to: z.string(),
    issued: z.number().int().openapi({ description: 'Points earned in the period.' }),
    redeemed: z.number().int().openapi({ description: 'Points redeemed in the period (positive).' }),
    adjusted: z.number().int().openapi({ description: 'Net manager corrections in the period.' }),
    reversed: z.number().int().openapi({ description: 'Net reversals (voids, refunds) in the period.' }),
    outstanding: z.number().int().openapi({ description: 'Unredeemed points held now.' }),
    top_holders: z.array(z.object({ customer_id: Uuid, name: z.string(), points: z.number().int() })),
    tiers: z.array(z.object({ key: z.string(), name: z.string(), min_points: z.number().int(), customers: z.number().int(), points: z.number().int() })),
  })
  .openapi('LoyaltyReport', { example: LOYALTY_REPORT });

export const PointsHistoryQuery = ListQuery;
