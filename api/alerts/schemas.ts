import { z } from '@hono/zod-openapi';
import { IsoDate, Timestamp, Uuid } from '../schemas.ts';
import { EXPIRING, EXPIRING_ALERT } from './examples.ts';

/** A number of days as the spec bounds them: an integer from 1 to 3650. */
const Days = (name: string, fallback: number, description: string) =>
  z.coerce.number().int().min(1).max(3650).default(fallback).openapi({ param: { name, in: 'query' }, example: fallback, description });

export const ExpiringQuery = z.object({
  within_days: Days('within_days', 30, 'Batches expiring at most this many days from today (shop calendar), expired ones included. 1 to 3650, default 30.'),
});

export const ExpiringLine = z
  .object({
    batch_id: Uuid,
    product_id: Uuid,
    variant_id: Uuid.nullable(),
    name: z.string(),
    batch_number: z.string().nullable(),
    expiry_date: IsoDate,
    days_left: z.number().int().openapi({ description: 'Days from today to the expiry date; negative once expired.' }),
    quantity: z.number().openapi({ description: 'What the batch still holds.' }),
    value_xaf: z.number().int().openapi({ description: 'quantity x the batch\'s unit cost (excluding VAT), rounded half away from zero.' }),
  })
  .openapi('ExpiringBatch', { example: EXPIRING.data[0] });

export const Expiring = z
  .object({
    data: z.array(ExpiringLine).openapi({ description: 'Soonest expiry first.' }),
    meta: z.object({ within_days: z.number().int(), as_of: IsoDate.openapi({ description: 'Today in the shop\'s time zone.' }), total_value_xaf: z.number().int() }),
  })
  .openapi('ExpiringReport', { example: EXPIRING });

export const ALERTS_DEFAULT_LIMIT = 50;
export const ALERTS_MAX_LIMIT = 500;

export const AlertsQuery = z.object({
  dead_days: Days('dead_days', 90, 'An item with stock and no sale for this many days is dead stock. 1 to 3650, default 90.'),
  expiring_days: Days('expiring_days', 30, 'A batch expiring within this many days is expiring. 1 to 3650, default 30.'),
  // The spec bounds limit from below only: a larger one is served, capped.
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .default(ALERTS_DEFAULT_LIMIT)
    .transform((limit) => Math.min(limit, ALERTS_MAX_LIMIT))
    // Behind a transform the generator writes neither the bounds nor the type: stated here.
    .openapi({
      param: { name: 'limit', in: 'query' },
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      example: ALERTS_DEFAULT_LIMIT,
      description: `At most this many alerts, the most urgent: at least 1, default ${ALERTS_DEFAULT_LIMIT}; more than ${ALERTS_MAX_LIMIT} is served as ${ALERTS_MAX_LIMIT}.`,
    }),
});

export const AlertKind = z.enum(['negative_stock', 'expired', 'out_of_stock', 'expiring', 'low_stock', 'dead_stock']);

export const Alert = z
  .object({
    kind: AlertKind,
    product_id: Uuid,
    variant_id: Uuid.nullable(),
    name: z.string(),
    quantity: z.number().openapi({ description: 'On hand; for expiring and expired, what the batch holds.' }),
    reorder_level: z.number(),
    batch_id: Uuid.nullable().openapi({ description: 'expiring and expired only.' }),
    batch_number: z.string().nullable(),
    expiry_date: IsoDate.nullable(),
    days_left: z.number().int().nullable(),
    last_sold_at: Timestamp.nullable().openapi({ description: 'dead_stock only: the last sale, null when never sold.' }),
  })
  .openapi('StockAlert', { example: EXPIRING_ALERT });
