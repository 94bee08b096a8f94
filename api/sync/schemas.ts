import { z } from '@hono/zod-openapi';
import { CategoryRecord } from '../categories/schemas.ts';
import { CreateCustomerBody, CustomerRecord } from '../customers/schemas.ts';
import { CreateExpenseBody } from '../expenses/schemas.ts';
import { TierRecord } from '../loyalty/schemas.ts';
import { OptionRecord, ProductRecord, VariantRecord } from '../products/schemas.ts';
import { PromotionRecord } from '../promotions/schemas.ts';
import { QuoteRecord } from '../quotes/schemas.ts';
import { CreateSaleBody, SaleRecord } from '../sales/schemas.ts';
import { ClockTimestamp, Text, Timestamp, Uuid } from '../schemas.ts';
import { CashMovementBody } from '../shifts/schemas.ts';
import { PULL, PULLED, PUSH, PUSH_RESULTS, SYNC_CASH_MOVEMENT, SYNC_CUSTOMER, SYNC_EXPENSE, SYNC_SALE } from './examples.ts';

/** What a pull serves, in this order (CONTRACT section 4). */
// New entities go last: a cursor is a list of positions in this order, and one written before an
// entity existed (shorter) starts that entity from the beginning.
export const ENTITIES = ['categories', 'products', 'product_options', 'variants', 'customers', 'promotions', 'loyalty_tiers', 'sales', 'quotes'] as const;
export type EntityName = (typeof ENTITIES)[number];

/** CONTRACT section 4: `limit` defaults to 200 and is clamped to 1..1000. */
export const PULL_DEFAULT_LIMIT = 200;
export const PULL_MAX_LIMIT = 1000;

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

export const PullQuery = z.object({
  since: Text.max(4000).optional().openapi({
    param: { name: 'since', in: 'query' },
    description:
      'The `cursor` of the previous pull; omit on the first sync. An ISO-8601 date-time is also accepted (records changed at or after it), ' +
      'for clients that only kept a time; the cursor is the exact and concurrency-safe form.',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(Number.MIN_SAFE_INTEGER)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .transform((limit) => Math.min(PULL_MAX_LIMIT, Math.max(1, limit ?? PULL_DEFAULT_LIMIT)))
    // Behind a transform the generator writes neither the bounds nor the type (it adds `null`): stated here.
    .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'Records per entity per page: default 200, clamped to 1..1000.', example: 200 }),
  include_sales: Text.optional()
    .transform((value) => value !== undefined && TRUTHY.has(value.trim().toLowerCase()))
    .openapi({
      param: { name: 'include_sales', in: 'query' },
      description: 'Truthy (1, true, yes, on): also the shop\'s sales with items and payments. Otherwise `data.sales` is `[]` and `has_more.sales` false.',
    }),
});

const deletedAt = { deleted_at: Timestamp.nullable().openapi({ description: 'Set once the record is deleted: drop it from the till.' }) };

export const PullResponse = z
  .object({
    data: z.object({
      categories: z.array(CategoryRecord.extend(deletedAt).openapi({ example: PULLED.category })),
      products: z.array(ProductRecord.extend(deletedAt).openapi({ example: PULLED.product })),
      product_options: z.array(OptionRecord.extend(deletedAt).openapi({ example: PULLED.option })),
      variants: z.array(VariantRecord.extend(deletedAt).openapi({ example: PULLED.variant })),
      customers: z.array(CustomerRecord.extend(deletedAt).openapi({ example: PULLED.customer })),
      promotions: z.array(PromotionRecord.extend(deletedAt).openapi({ example: PULLED.promotion })),
      loyalty_tiers: z.array(TierRecord.extend(deletedAt).openapi({ example: PULLED.tier })),
      sales: z.array(
        SaleRecord.extend({ deleted_at: z.null().openapi({ description: 'Sales are never deleted: a void shows in `status`.' }) }).openapi({ example: PULLED.sale }),
      ),
      quotes: z.array(
        QuoteRecord.extend(deletedAt).openapi({
          description: 'Each with its status as shown when pulled: a till compares `valid_until` with its own date to see a quote expire later.',
          example: PULLED.quote,
        }),
      ),
    }),
    has_more: z.object(Object.fromEntries(ENTITIES.map((entity) => [entity, z.boolean()])) as Record<EntityName, z.ZodBoolean>),
    cursor: z.string().openapi({ description: 'Opaque: send it back as `since`. Call again while any `has_more` is true.' }),
  })
  .openapi('SyncPull', { example: PULL });

/** The most records of one kind a push may carry; beyond, 413 (as a body over 8 MiB). */
export const PUSH_MAX_SALES = 500;
export const PUSH_MAX_RECORDS = 2000;

const heldBy = {
  user_id: Uuid.nullable().optional().openapi({
    description: 'The shop user who made the record on the till. Default: the bearer\'s user on /sync/push; none on /device/sync/push.',
  }),
};

/**
 * Pushed records are the exception to strict inputs (api/strict-inputs.ts), and the document says so
 * with `additionalProperties: true`. They are built flat from the fields of their POST bodies, not as
 * an `allOf` over those closed components, which would close them too. What they carry beyond their
 * fields is dropped before it reaches the database.
 */
const OPEN_RECORD =
  'Fields this version does not know, here and in everything the record holds (a sale\'s lines and payments), are accepted and ignored: ' +
  'a till updated before the server may send them, and what happened offline (a sale made) is never refused for them.';

const happenedAt = ClockTimestamp.optional().openapi({
  description:
    'When it happened, by the till\'s clock: kept, however old (a day whose Z is sealed is reported in the next Z). A clock plainly wrong, ' +
    'before 2000-01-01 or more than a day ahead of the server, is never a refusal: the record is made at the time the server receives it and ' +
    'keeps this time as `till_created_at` (`GET /sync/clock-corrections` lists it). Default: now.',
});

export const PushedSale = CreateSaleBody.omit({ id: true })
  .extend({
    id: Uuid.openapi({ description: 'The till\'s id for the sale: a retried push finds it (`duplicate`).' }),
    device_id: Uuid.nullable().optional().openapi({
      description:
        'On /device/sync/push ignored: the sale carries the pushing device. On /sync/push one of the shop\'s devices, a device revoked since ' +
        'included (the sale happened on it), or none; another shop\'s or an unknown one is `rejected` with `validation_failed` on `device_id`.',
    }),
    created_at: happenedAt,
    ...heldBy,
  })
  .openapi('SyncSale', { example: SYNC_SALE, description: `A sale made on the till. ${OPEN_RECORD}`, additionalProperties: true });
export type PushedSale = z.infer<typeof PushedSale>;

export const PushedCustomer = z.object({
  ...CreateCustomerBody.shape,
  id: Uuid.openapi({ description: 'The till\'s id: a customer created offline keeps it; a known id is an update.' }),
  updated_at: Timestamp.optional().openapi({
    description:
      'The server\'s `updated_at` of the version the till edited (from its last pull). When the server\'s record has changed since, the update is ' +
      '`rejected` with code `stale` and the server\'s `record`. Omitted: a customer created on the till.',
  }),
  created_at: happenedAt,
}).openapi('SyncCustomer', { example: SYNC_CUSTOMER, description: `A customer created or edited on the till. ${OPEN_RECORD}`, additionalProperties: true });
export type PushedCustomer = z.infer<typeof PushedCustomer>;

export const PushedExpense = z
  .object({ ...CreateExpenseBody.shape, id: Uuid, ...heldBy })
  .openapi('SyncExpense', { example: SYNC_EXPENSE, description: `An expense recorded on the till. ${OPEN_RECORD}`, additionalProperties: true });
export type PushedExpense = z.infer<typeof PushedExpense>;

export const PushedCashMovement = z
  .object({ ...CashMovementBody.shape, id: Uuid, created_at: happenedAt, ...heldBy })
  .openapi('SyncCashMovement', { example: SYNC_CASH_MOVEMENT, description: `Cash put into or taken out of the drawer on the till. ${OPEN_RECORD}`, additionalProperties: true });
export type PushedCashMovement = z.infer<typeof PushedCashMovement>;

/**
 * Each record is checked on its own (api/sync/push.ts: a bad one is `rejected` in the answer, the
 * others still apply), so the body takes any array item; the document names each item's component,
 * so that a generated client types the records.
 */
const records = (component: string) =>
  z
    .array(z.unknown())
    .optional()
    .openapi({
      description: `Records shaped as ${component}; each is checked on its own (a bad one is \`rejected\`, the others still apply).`,
      items: { $ref: `#/components/schemas/${component}` },
    });

/**
 * Open too, and for the same reason: a newer till may push kinds of records this version does not
 * know (`refunds`), and refusing the body would refuse the sales pushed beside them.
 */
export const PushBody = z
  .looseObject({
    customers: records('SyncCustomer'),
    sales: records('SyncSale'),
    expenses: records('SyncExpense'),
    cash_movements: records('SyncCashMovement'),
  })
  .openapi('SyncPush', {
    example: PUSH,
    description:
      'Arrays of records this version does not know (a newer till\'s kinds of records) are accepted and ignored, and answer no result: ' +
      'refusing them would refuse the sales pushed beside them. A till reads one result per record it sent under the four names below.',
    additionalProperties: true,
  });

export const PushEntity = z.enum(['customers', 'sales', 'expenses', 'cash_movements']);
export type PushEntity = z.infer<typeof PushEntity>;

const resultOf = <E extends PushEntity, F extends z.ZodRawShape>(entity: E, fields: F) =>
  z.object({
    entity: z.literal(entity),
    id: z.string().nullable().openapi({ description: 'The record\'s id as sent (null when it had none).' }),
    status: z.enum(['applied', 'duplicate', 'rejected']),
    code: z.string().optional().openapi({ description: 'Why it was rejected: `validation_failed`, `stale`, `forbidden`, `no_open_shift`...' }),
    message: z.string().optional(),
    errors: z.record(z.string(), z.array(z.string())).optional().openapi({ description: 'Failing fields of the record, dotted (`items.0.quantity`).' }),
    ...fields,
  });

/** One result per pushed record, told apart by `entity`: each kind carries its own fields. */
export const PushResult = z
  .discriminatedUnion('entity', [
    // `record` is a bare reference: a description beside it would make generated clients type it `Customer & unknown`.
    resultOf('customers', { record: CustomerRecord.optional() }).openapi('SyncCustomerResult', {
      description: 'A pushed customer\'s result; rejected as `stale`, it carries the server\'s `record`, to reconcile with.',
    }),
    resultOf('sales', {
      receipt_no: z.number().int().optional().openapi({ description: 'Applied or duplicate: the receipt number the server gave the sale.' }),
    }).openapi('SyncSaleResult', { description: 'A pushed sale\'s result, with its receipt number once recorded.' }),
    resultOf('expenses', {}).openapi('SyncExpenseResult', { description: 'A pushed expense\'s result.' }),
    resultOf('cash_movements', {}).openapi('SyncCashMovementResult', { description: 'A pushed cash movement\'s result.' }),
  ])
  .openapi('SyncPushResult');
export type PushResult = z.infer<typeof PushResult>;

export const PushResponse = z.object({ data: z.object({ results: z.array(PushResult) }) }).openapi('SyncPushResponse', { example: PUSH_RESULTS });
