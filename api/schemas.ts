import { z } from '@hono/zod-openapi';

/** Building blocks shared by every domain's schemas, so a bound reads the same everywhere. */

export const Locale = z.enum(['fr', 'en']).openapi({ description: 'Language of the user, receipts and e-mails.' });

/**
 * Text PostgreSQL can store: no NUL character and no half of a UTF-16 surrogate pair (JSON `"\ud800"`
 * parses to one). Read in Unicode mode, where a well-formed pair is one character outside the range.
 */
const STORABLE = /^[^\u0000\uD800-\uDFFF]*$/u;

/**
 * What `trim()` removes (the `\s` of a JavaScript regex), as the document writes it: ASCII as escapes, the rest
 * as the characters themselves, since no escape of a non-ASCII character reads alike in ECMA-262,
 * Python, Rust and PCRE. Without U+2028 and U+2029: written as themselves they would end the regular
 * expression literal a client generator writes (API_DESCRIPTION in api/app.ts states them instead).
 */
const DOCUMENTED_SPACE = `\\x09-\\x0D\\x20${String.fromCodePoint(0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000, 0xfeff)}`;

/**
 * The patterns text inputs carry in the OpenAPI document (tests/platform/openapi.test.ts holds every
 * text input to them): `Text`'s rule and `requiredText`'s (a character besides white space), in the
 * syntax every JSON Schema validator reads alike, without the `u` flag. A lone surrogate is no character
 * to Python or Rust, so that rule is stated in words only.
 */
export const TEXT_PATTERNS = {
  storable: '^[^\\x00]*$',
  filled: `^[^\\x00]*[^\\x00${DOCUMENTED_SPACE}][^\\x00]*$`,
} as const;

/**
 * The one text schema every string input is built on (bodies, queries, path parameters, pushed
 * records, cursors): a NUL or a lone surrogate is a 422 on its key, never a failed query. Lengths
 * count characters (code points), as PostgreSQL and JSON Schema do.
 */
export const Text = z
  .string()
  .regex(STORABLE, 'Must not contain a NUL character or an unpaired surrogate.')
  .openapi({ pattern: TEXT_PATTERNS.storable });

/** Required text, trimmed: 1 to `max` characters once trimmed. */
export const requiredText = (max: number) => Text.trim().min(1).max(max).openapi({ pattern: TEXT_PATTERNS.filled });

/** Optional text that also accepts null ("null" in the spec's tables). */
export const optionalText = (max: number) => Text.max(max).nullable().optional();

/**
 * What a string schema's own format checks, stated as a pattern too: `format` alone is looser (any year,
 * any UUID version). Digits are written `[0-9]`: `\d` is any Unicode digit to Python and Rust.
 */
const patternOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: { pattern: RegExp } } })._zod.def.pattern.source.replaceAll('\\d', '[0-9]');

/**
 * An e-mail address as JSON Schema's `format: email` means it (RFC 5321's Mailbox, as ajv-formats checks
 * it): a dot-atom local part, `@`, then two or more hostname labels of 1 to 63 letters, digits and
 * hyphens, none starting or ending with a hyphen. Quoted local parts and address literals are refused.
 */
const MAILBOX = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** The document says `format: email` and nothing looser; the rule is the format's (API_DESCRIPTION in api/app.ts). */
export const emailAddress = (max: number) => z.email({ pattern: MAILBOX }).max(max);

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
/** zod's day pattern without year 0000, and without a lookahead (Rust's regex has none): its leap centuries and its four-digit years. */
function notYearZero(pattern: string): string {
  const [leapCenturies, anyYear] = ['[02468][048]00', '[0-9]{4}'];
  if (!pattern.includes(leapCenturies) || !pattern.includes(anyYear)) throw new Error(`zod's day pattern changed: ${pattern}`);
  return pattern
    .replace(leapCenturies, '(?:0[48]|[2468][048])00')
    .replace(anyYear, '(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})');
}

/** A calendar day, `2026-11-21`. */
export const IsoDate = z.iso
  .date()
  .refine(fromYearOne, 'Must be a valid ISO-8601 date.')
  .openapi({ pattern: notYearZero(patternOf(z.iso.date())) });

/**
 * The rule of every period (CONTRACT section 9): `to` on or after `from`, a 422 on `to`. Checked only
 * when both are dates: a malformed one has its own error, never this one besides it (nor does a
 * business day before 2000: `when`, for refine; a superRefine checks it itself).
 * Usage: `z.object({ from, to }).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM())`.
 */
export const toNotBeforeFrom = (q: { from?: string | null | undefined; to?: string | null | undefined }) =>
  !q.from || !q.to || !IsoDate.safeParse(q.from).success || !IsoDate.safeParse(q.to).success || q.to >= q.from;
/** Its error, a new object at each use: zod takes over the options object it is given. */
export const TO_NOT_BEFORE_FROM = () => ({
  path: ['to'],
  message: 'Must be on or after from.',
  when: (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }) => !payload.issues.some((issue) => issue.path?.[0] === 'from' || issue.path?.[0] === 'to'),
});

/** A time with its offset, `2026-11-21T08:30:00+01:00` or `...Z`. */
export const IsoDateTime = z.iso
  .datetime({ offset: true })
  .refine(fromYearOne, 'Must be a valid ISO-8601 date.')
  .openapi({ pattern: notYearZero(patternOf(z.iso.datetime({ offset: true }))) });

/** A time a till's clock stamped (a pushed record's `created_at`): a Timestamp from year 1, whatever the clock said (api/sync/push.ts). */
export const ClockTimestamp = Timestamp.refine(fromYearOne, 'Must be a valid ISO-8601 date.').openapi({ pattern: notYearZero(patternOf(z.iso.datetime())) });

/** CONTRACT section 4: the till's time of a record the server dated itself, on the records a till pushes (sales, cash movements, customers). */
export const TillCreatedAt = Timestamp.nullable().openapi({
  description:
    'Set when the till that pushed the record had a clock plainly wrong (before 2000, or more than a day ahead of the server): the time it ' +
    'stamped, while `created_at` is when the server received the record. Null otherwise. `GET /sync/clock-corrections` lists these records.',
});

/**
 * CONTRACT section 4: a date a person types for the shop's business (an expense's day, a promotion's
 * dates, a report's period, a batch's expiry, a quote's validity) is on or after 2000-01-01, as
 * written (a time's offset aside). An earlier one is a slip (`0026` for `2026`): a 422 on its key,
 * never a record of year 26. Dates a machine stamps (a till's clock) follow the clock rule of
 * api/sync/push.ts instead; list filters take any day (an early `from` only widens the search).
 */
export const BUSINESS_DAY_FROM = '2000-01-01';
export const FROM_2000 = 'Must be on or after 2000-01-01.';
const FROM_2000_RULE = 'On or after 2000-01-01: an earlier date is a 422.';

/** zod's days of years 2000 to 9999, leap days included, without a lookahead (see notYearZero). */
const DAY_FROM_2000 =
  '(?:[2-9][0-9](?:0[48]|[2468][048]|[13579][26])-02-29|(?:[2468][048]|[3579][26])00-02-29|' +
  '[2-9][0-9]{3}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8])))';

/** The time of day and offset of zod's date-time pattern: what follows its day. */
function timeOfDay(pattern: string): string {
  const at = pattern.indexOf(')T(');
  if (at < 0) throw new Error(`zod's date-time pattern changed: ${pattern}`);
  return pattern.slice(at + 1);
}

/** Checked only on a well-formed date, so that a malformed one has its one message. */
const from2000 = { message: FROM_2000, when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };
const onOrAfter2000 = (value: string) => value.slice(0, 10) >= BUSINESS_DAY_FROM;

/** A business day a person types: `description` says what the day is; the document adds the rule. */
export const businessDate = (description: string) =>
  IsoDate.refine(onOrAfter2000, from2000).openapi({ pattern: `^${DAY_FROM_2000}$`, description: `${description} ${FROM_2000_RULE}` });

/** A business time a person types, with its offset: on or after 2000-01-01 as written. */
export const businessDateTime = (description: string) =>
  IsoDateTime.refine(onOrAfter2000, from2000).openapi({
    pattern: `^${DAY_FROM_2000}${timeOfDay(patternOf(z.iso.datetime({ offset: true })))}`,
    description: `${description} ${FROM_2000_RULE}`,
  });

export const BusinessDate = businessDate('A day, `YYYY-MM-DD`.');
export const BusinessDateTime = businessDateTime('A time with its offset, ISO-8601.');

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

const MAX_QUANTITY = 1_000_000_000;

/** Quantities: JSON numbers with at most 3 decimals, at most a billion units either way. */
export const Quantity = decimal(3).min(-MAX_QUANTITY).max(MAX_QUANTITY);

/** A count or a threshold: 0 or more. */
export const NonNegativeQuantity = decimal(3).min(0).max(MAX_QUANTITY);

/** What a line sells, refunds or prices: more than 0, one lower bound in the document (`exclusiveMinimum: 0`, no `minimum` beside it). */
export const PositiveQuantity = decimal(3).gt(0).max(MAX_QUANTITY);

/** A VAT rate in percent, 0 to 100, two decimals at most (19.25). */
export const VatRate = decimal(2).min(0).max(100);

/**
 * A boolean in a query string, documented as one (`?active=true`, as generators write a boolean): the
 * server also takes `1` and `0`, as earlier clients send them (API_DESCRIPTION in api/app.ts says so).
 */
export const QueryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1')
  .openapi({ type: 'boolean' });

/**
 * Every error answer (CONTRACT section 2). Named `ErrorResponse`, not after a JavaScript global: a
 * generated client declares a type of each component's name. Each answer of each operation narrows
 * `code` to the codes it can carry there (api/docs/error-answers.ts).
 */
export const ErrorBody = z
  .object({
    message: z.string().openapi({ description: 'What went wrong, in the language `Content-Language` names.' }),
    code: z.string().openapi({ description: 'What went wrong, for a program: never translated. Each answer lists the codes it can carry.' }),
    errors: z.record(z.string(), z.array(z.string())).optional().openapi({
      description: 'Failing inputs keyed by dotted path (`items.0.quantity`), each with its messages.',
    }),
  })
  .openapi('ErrorResponse');

export const IdParam = z.object({ id: Uuid.openapi({ param: { name: 'id', in: 'path' } }) });

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ param: { name: 'limit', in: 'query' }, example: 50 }),
  cursor: Text.max(200).optional().openapi({ param: { name: 'cursor', in: 'query' }, description: 'Opaque; from `meta.next_cursor`.' }),
});

/**
 * A named component (`.openapi('Shop')`) or null, where it is used: `anyOf: [{$ref}, {type: 'null'}]` with
 * `description` beside it. Never `Shop.nullable()`: the generator keeps the name on the nullable copy, so
 * the component itself would admit null wherever it is used (`Shop | null` in a generated client) and the
 * use site's description would be lost (tests/platform/openapi-docs.test.ts).
 */
export const nullableRef = <T extends z.ZodType>(schema: T, description?: string) => {
  const union = z.union([schema, z.null()]);
  return description === undefined ? union : union.openapi({ description });
};

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

/**
 * What a code of an error answer means; for a 422 also the input its `errors` names, by dotted path
 * (`{ on: 'amount_xaf', meaning: '...' }`): without `on`, the operation's first input.
 */
export type Meaning = string | { on: string; meaning: string };
export type Codes = Record<string, Meaning>;
export const meaningOf = (meaning: Meaning) => (typeof meaning === 'string' ? meaning : meaning.meaning);

/**
 * The codes each error status answers wherever an operation can give it (CONTRACT section 2), with
 * what each means: api/router.ts adds them from the operation's definition (its body, parameters,
 * middleware), and an operation's own `refusals` come after them.
 */
export const STANDARD_CODES = {
  400: {
    malformed_json: 'The body is not valid JSON, or not valid UTF-8.',
    bad_request: 'The request is not valid HTTP (its request line, a header, its chunked framing): the server answers it before any operation, and closes the connection.',
  },
  401: { unauthenticated: 'No bearer token, or one whose session is over (expired, logged out, password changed or reset, user removed).' },
  402: { subscription_required: 'The shop\'s trial and subscription have both ended: it may read, log in and out and edit its profile, not write.' },
  403: { forbidden: 'The caller\'s role may not do this (partners and administrators have no shop).' },
  404: { not_found: 'No such record in the caller\'s shop (another shop\'s record is a 404 too).' },
  409: { idempotency_conflict: 'This Idempotency-Key was already used within 24 hours with another request.' },
  413: { payload_too_large: 'The body is over 1 MiB (or its chunk extensions over the server\'s limit: the connection is closed).' },
  415: { unsupported_media_type: 'A body whose `Content-Type` is not `application/json` (an empty body is no body, whatever its type).' },
  422: { validation_failed: 'An input is missing, malformed or unknown to the operation (`Unknown field.`); `errors` names each failing input with its messages.' },
  429: {
    rate_limited:
      'Too many attempts (a rate limit), or the shop\'s requests already hold its share of the service\'s database connections: try again after `Retry-After` seconds.',
  },
  503: {
    service_unavailable:
      'The database cannot be reached right now, or did not answer within the request\'s deadline: retry the request as it was after `Retry-After` seconds (the same sale `id` or `Idempotency-Key`: nothing is recorded twice).',
  },
} as const satisfies Record<number, Codes>;

/** The 401 of `/device/sync/*`, in place of the bearer token's. */
export const DEVICE_UNAUTHENTICATED: Codes = {
  device_unauthenticated: 'No `Authorization: Device <token>`, or the token of no live device (unknown, or revoked).',
};

type ErrorAnswer = { description: string; content: { 'application/json': { schema: typeof ErrorBody } } };

/** The codes each answer built by `refusals` lists, so that api/router.ts can add the codes every operation shares. */
const REFUSED_CODES = new WeakMap<object, Codes>();

/**
 * An error answer of one operation with the codes it can give there and what each means, so a client
 * developer sees them per operation: `...refusals(409, { sale_already_voided: 'The sale was voided before.' })`,
 * `...refusals(422, { overpayment: { on: 'amount_xaf', meaning: 'More than is owed.' } })`. The
 * router adds the codes its definition implies (`validation_failed`, `idempotency_conflict`...) and
 * writes the answer out: `code` an enum of them, one example per code (api/docs/error-answers.ts).
 */
export function refusals<S extends number>(status: S, codes: Codes): Record<S, ErrorAnswer> {
  const list = Object.entries(codes).map(([code, meaning]) => `\n- \`${code}\`: ${meaningOf(meaning)}`);
  const answer: ErrorAnswer = { description: `Codes:${list.join('')}`, content: { 'application/json': { schema: ErrorBody } } };
  REFUSED_CODES.set(answer, codes);
  return { [status]: answer } as Record<S, ErrorAnswer>;
}

/** The error answers a route can give with their standard codes, for its OpenAPI entry (`pickErrors(401, 403)`). */
export const errorResponses = Object.fromEntries(
  Object.entries(STANDARD_CODES).map(([status, codes]) => [status, Object.values(refusals(Number(status), codes))[0]]),
) as { [S in keyof typeof STANDARD_CODES]: ErrorAnswer };

/** The codes an error answer lists, when `refusals` built it; undefined for any other answer. */
export const refusedCodes = (answer: unknown): Codes | undefined => (answer && typeof answer === 'object' ? REFUSED_CODES.get(answer) : undefined);

export function pickErrors<K extends keyof typeof errorResponses>(...statuses: K[]): Pick<typeof errorResponses, K> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponses[status]])) as Pick<typeof errorResponses, K>;
}

export const bearer = [{ bearerAuth: [] }];
