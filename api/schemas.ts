import { z } from '@hono/zod-openapi';

/** Building blocks shared by every domain's schemas, so a bound reads the same everywhere. */

export const Locale = z.enum(['fr', 'en']).openapi({ description: 'Language of the user, receipts and e-mails.' });

export const Email = z.email().max(254);

/** bcrypt reads 72 bytes and ignores the rest, so a longer password would be silently shortened. */
export const Password = z
  .string()
  .min(8)
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, 'Must be at most 72 bytes.')
  .openapi({ description: 'At least 8 characters, at most 72 bytes.', format: 'password', maxLength: 72 });

export const Uuid = z.uuid();

export const Timestamp = z.iso.datetime().openapi({ description: 'ISO-8601, UTC.' });

/** PostgreSQL has no year 0 (zod accepts it): a day or a time in a request starts at year 1, else a 422, never a failed query. */
const fromYearOne = (value: string) => !value.startsWith('0000');

/** A calendar day, `2026-11-21`. */
export const IsoDate = z.iso.date().refine(fromYearOne, 'Must be a valid ISO-8601 date.');

/** A time with its offset, `2026-11-21T08:30:00+01:00` or `...Z`. */
export const IsoDateTime = z.iso.datetime({ offset: true }).refine(fromYearOne, 'Must be a valid ISO-8601 date.');

/** At most `places` decimals, tolerant of binary floating point (19.25 is two places, 0.1 + 0.2 is one). */
export const hasDecimals = (places: number) => (value: number) => Number.isInteger(Math.round(value * 10 ** places * 1e6) / 1e6);

/** The largest amount the service accepts: far above any shop's needs, far below 2^53. */
export const MAX_XAF = 1_000_000_000_000;

/** Integer XAF, never negative. */
export const Money = z.number().int().min(0).max(MAX_XAF);

/**
 * A unit price or cost. Bounded with quantities so that quantity x unit price (stock values, line
 * totals) always fits a bigint: 10^9 x 10^9 = 10^18 < 9.2 x 10^18.
 */
export const UnitMoney = z.number().int().min(0).max(1_000_000_000);

/** Quantities: JSON numbers with at most 3 decimals, at most a billion units either way. */
export const Quantity = z.number().min(-1_000_000_000).max(1_000_000_000).refine(hasDecimals(3), 'Must have at most 3 decimals.');

/** A VAT rate in percent, 0 to 100, two decimals at most (19.25). */
export const VatRate = z.number().min(0).max(100).refine(hasDecimals(2), 'Must have at most 2 decimals.');

/** A boolean in a query string: true, false, 1 or 0. */
export const QueryBoolean = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** Optional text that also accepts null ("null" in the spec's tables). */
export const optionalText = (max: number) => z.string().max(max).nullable().optional();

export const ErrorBody = z
  .object({
    message: z.string(),
    code: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional().openapi({
      description: 'Failing inputs keyed by dotted path (`items.0.quantity`), each with its messages.',
    }),
  })
  .openapi('Error');

export const IdParam = z.object({ id: Uuid.openapi({ param: { name: 'id', in: 'path' } }) });

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ param: { name: 'limit', in: 'query' }, example: 50 }),
  cursor: z.string().max(200).optional().openapi({ param: { name: 'cursor', in: 'query' }, description: 'Opaque; from `meta.next_cursor`.' }),
});

export const one = <T extends z.ZodType>(record: T) => z.object({ data: record });

export const many = <T extends z.ZodType>(record: T) =>
  z.object({ data: z.array(record), meta: z.object({ next_cursor: z.string().nullable() }) });

/** A required JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true as const });

/** A JSON answer of a route, for its OpenAPI entry and its typed handler. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { 'application/json': { schema } } });

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } });

/** The error answers a route can give, for its OpenAPI entry. */
export const errorResponses = {
  400: errorResponse('Malformed JSON (`malformed_json`).'),
  401: errorResponse('No or bad bearer token (`unauthenticated`).'),
  402: errorResponse('The shop\'s trial and subscription have both ended (`subscription_required`); writes only.'),
  403: errorResponse('The caller\'s role may not do this (`forbidden`).'),
  404: errorResponse('No such record in the caller\'s shop (`not_found`).'),
  409: errorResponse('The record\'s state forbids the operation.'),
  413: errorResponse('Body over 1 MiB (`payload_too_large`).'),
  422: errorResponse('Validation failed (`validation_failed` or a business-rule code).'),
  429: errorResponse('Too many attempts (`rate_limited`).'),
} as const;

export function pickErrors<K extends keyof typeof errorResponses>(...statuses: K[]): Pick<typeof errorResponses, K> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponses[status]])) as Pick<typeof errorResponses, K>;
}

export const bearer = [{ bearerAuth: [] }];
