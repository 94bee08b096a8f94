import { z } from '@hono/zod-openapi';

/** Building blocks shared by every domain's schemas, so a bound reads the same everywhere. */

export const Locale = z.enum(['fr', 'en']).openapi({ description: 'Language of the user, receipts and e-mails.' });

/**
 * Text PostgreSQL can store: no NUL character and no half of a UTF-16 surrogate pair (JSON `"\ud800"`
 * parses to one). Read in Unicode mode, where a well-formed pair is one character outside the range.
 */
const STORABLE = /^[^\u0000\uD800-\uDFFF]*$/u;

/** The same with a character that is not white space: what `.trim().min(1)` leaves non-empty (`\s` is what trim removes). */
const FILLED = /^[^\u0000\uD800-\uDFFF]*[^\s\u0000\uD800-\uDFFF][^\u0000\uD800-\uDFFF]*$/u;

/** The patterns text inputs carry in the OpenAPI document (tests/platform/openapi.test.ts holds every text input to them). */
export const TEXT_PATTERNS = { storable: STORABLE.source, filled: FILLED.source } as const;

/**
 * The one text schema every string input is built on (bodies, queries, path parameters, pushed
 * records, cursors): a NUL or a lone surrogate is a 422 on its key, never a failed query. Lengths
 * count characters (code points), as PostgreSQL and JSON Schema do.
 */
export const Text = z
  .string()
  .regex(STORABLE, 'Must not contain a NUL character or an unpaired surrogate.')
  .openapi({ pattern: STORABLE.source });

/** Required text, trimmed: 1 to `max` characters once trimmed. */
export const requiredText = (max: number) => Text.trim().min(1).max(max).openapi({ pattern: FILLED.source });

/** Optional text that also accepts null ("null" in the spec's tables). */
export const optionalText = (max: number) => Text.max(max).nullable().optional();

/** What a string schema's own format checks, stated as a pattern too: `format` alone is looser (any year, any UUID version). */
const patternOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: { pattern: RegExp } } })._zod.def.pattern.source;

/** An e-mail address as zod checks it (stricter than JSON Schema's `format: email`, so the pattern states it). */
export const emailAddress = (max: number) => z.email().max(max).openapi({ pattern: patternOf(z.email()) });

export const Email = emailAddress(254);

/** bcrypt reads 72 bytes and ignores the rest, so a longer password would be silently shortened. */
export const Password = Text.min(8)
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, 'Must be at most 72 bytes.')
  .openapi({ description: 'At least 8 characters, at most 72 bytes (UTF-8).', format: 'password', maxLength: 72 });

/** A password typed to log in or to confirm: checked against the stored hash, never stored. */
export const GivenPassword = Text.min(1).max(200);

export const Uuid = z.uuid().openapi({ pattern: patternOf(z.uuid()) });

export const Timestamp = z.iso.datetime().openapi({ description: 'ISO-8601, UTC.', pattern: patternOf(z.iso.datetime()) });

/** PostgreSQL has no year 0 (zod accepts it): a day or a time in a request starts at year 1, else a 422, never a failed query. */
const fromYearOne = (value: string) => !value.startsWith('0000');
const notYearZero = (pattern: string) => `^(?!0000)${pattern.slice(1)}`;

/** A calendar day, `2026-11-21`. */
export const IsoDate = z.iso
  .date()
  .refine(fromYearOne, 'Must be a valid ISO-8601 date.')
  .openapi({ pattern: notYearZero(patternOf(z.iso.date())) });

/**
 * The rule of every period (CONTRACT section 9): `to` on or after `from`, a 422 on `to`. Checked only
 * when both are dates: a malformed one has its own error, never this one besides it.
 * Usage: `z.object({ from, to }).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM())`.
 */
export const toNotBeforeFrom = (q: { from?: string | null | undefined; to?: string | null | undefined }) =>
  !q.from || !q.to || !IsoDate.safeParse(q.from).success || !IsoDate.safeParse(q.to).success || q.to >= q.from;
/** Its error, a new object at each use: zod takes over the options object it is given. */
export const TO_NOT_BEFORE_FROM = () => ({ path: ['to'], message: 'Must be on or after from.' });

/** A time with its offset, `2026-11-21T08:30:00+01:00` or `...Z`. */
export const IsoDateTime = z.iso
  .datetime({ offset: true })
  .refine(fromYearOne, 'Must be a valid ISO-8601 date.')
  .openapi({ pattern: notYearZero(patternOf(z.iso.datetime({ offset: true }))) });

/**
 * The decimals of a JSON number, counted exactly from its shortest round-trip form, the one
 * `String(n)` writes: `1e-10` has 10, `1.0000000001` has 10, `0.1 + 0.2` has 17. No float tolerance:
 * a stored `numeric(14,3)` would round away whatever is beyond.
 */
export function decimalPlaces(value: number): number {
  const [digits = '', exponent = '0'] = String(Math.abs(value)).split('e');
  return Math.max(0, (digits.split('.')[1]?.length ?? 0) - Number(exponent));
}

export const hasDecimals = (places: number) => (value: number) => decimalPlaces(value) <= places;

/** A number with at most `places` decimals; the document states it as `multipleOf` (exact in decimal, as JSON numbers are). */
export const decimal = (places: number) =>
  z.number().refine(hasDecimals(places), `Must have at most ${places} decimals.`).openapi({ multipleOf: Number(`1e-${places}`) });

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
export const Quantity = decimal(3).min(-1_000_000_000).max(1_000_000_000);

/** A count or a threshold: 0 or more. */
export const NonNegativeQuantity = Quantity.min(0);

/** What a line sells, refunds or prices: more than 0. */
export const PositiveQuantity = Quantity.gt(0);

/** A VAT rate in percent, 0 to 100, two decimals at most (19.25). */
export const VatRate = decimal(2).min(0).max(100);

/** A boolean in a query string: true, false, 1 or 0. */
export const QueryBoolean = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

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
  cursor: Text.max(200).optional().openapi({ param: { name: 'cursor', in: 'query' }, description: 'Opaque; from `meta.next_cursor`.' }),
});

export const one = <T extends z.ZodType>(record: T) => z.object({ data: record });

export const many = <T extends z.ZodType>(record: T) =>
  z.object({ data: z.array(record), meta: z.object({ next_cursor: z.string().nullable() }) });

/**
 * A required JSON request body. Its example is the schema's own (`.openapi('X', { example })`), or
 * `example` when the schema is inline or the operation's request is a particular one.
 */
export const jsonBody = <T extends z.ZodType>(schema: T, example?: unknown) => ({
  content: { 'application/json': example === undefined ? { schema } : { schema, example } },
  required: true as const,
});

/** A JSON answer of a route, for its OpenAPI entry and its typed handler; `example` as for `jsonBody`. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T, example?: unknown) => ({
  description,
  content: { 'application/json': example === undefined ? { schema } : { schema, example } },
});

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } });

/** The error answers a route can give, for its OpenAPI entry. */
export const errorResponses = {
  400: errorResponse('Malformed JSON (`malformed_json`).'),
  401: errorResponse('No or bad bearer token (`unauthenticated`).'),
  402: errorResponse('The shop\'s trial and subscription have both ended (`subscription_required`); writes only.'),
  403: errorResponse('The caller\'s role may not do this (`forbidden`).'),
  404: errorResponse('No such record in the caller\'s shop (`not_found`).'),
  409: errorResponse('The record\'s state forbids the operation, or an `Idempotency-Key` was used with another request (`idempotency_conflict`).'),
  413: errorResponse('Body over 1 MiB (`payload_too_large`).'),
  415: errorResponse('A body that is not `application/json` (`unsupported_media_type`).'),
  422: errorResponse('Validation failed (`validation_failed` or a business-rule code).'),
  429: errorResponse('Too many attempts (`rate_limited`): a rate limit, or the shop\'s requests already hold its share of the service\'s database connections; try again after `Retry-After` seconds.'),
  503: errorResponse('The database cannot be reached right now, or did not answer within the request\'s deadline (`service_unavailable`): retry it as it was after `Retry-After` seconds (the same sale `id` or `Idempotency-Key`: nothing is recorded twice).'),
} as const;

/** The codes each answer built by `refusals` lists, so that api/router.ts can add the codes every operation shares. */
const REFUSED_CODES = new WeakMap<object, Record<string, string>>();

/**
 * The 409 or 422 answer of one operation with the codes it can give and what each means, so a client
 * developer sees them per operation: `...refusals(409, { sale_already_voided: 'The sale was voided before.' })`.
 * The description lists the codes; each code is also an example of the answer.
 */
export function refusals<S extends 409 | 422>(status: S, codes: Record<string, string>): Record<S, ReturnType<typeof errorResponse> & { content: { 'application/json': { examples: Record<string, { summary: string; value: unknown }> } } }> {
  const lead = status === 409 ? 'The record\'s state, or an earlier request, forbids the operation; nothing was changed. Codes:' : 'The input was refused; nothing was recorded. `errors` names the failing inputs. Codes:';
  const list = Object.entries(codes).map(([code, meaning]) => `\n- \`${code}\`: ${meaning}`).join('');
  const examples = Object.fromEntries(
    Object.entries(codes).map(([code, meaning]) => [
      code,
      { summary: meaning, value: status === 422 ? { message: 'The given data was invalid.', code, errors: { [code === 'validation_failed' ? 'name' : 'body']: [meaning] } } : { message: meaning, code } },
    ]),
  );
  const answer = errorResponse(`${lead}${list}`);
  const refusal = { ...answer, content: { 'application/json': { ...answer.content['application/json'], examples } } };
  REFUSED_CODES.set(refusal, codes);
  return { [status]: refusal } as never;
}

/** The codes a 409 or 422 answer lists, when `refusals` built it; undefined for any other answer. */
export const refusedCodes = (answer: unknown): Record<string, string> | undefined => (answer && typeof answer === 'object' ? REFUSED_CODES.get(answer) : undefined);

export function pickErrors<K extends keyof typeof errorResponses>(...statuses: K[]): Pick<typeof errorResponses, K> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponses[status]])) as Pick<typeof errorResponses, K>;
}

export const bearer = [{ bearerAuth: [] }];
