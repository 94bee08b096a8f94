import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import { errors } from '../errors.ts';
import { type Codes, DEVICE_UNAUTHENTICATED, ErrorBody, meaningOf, refusedCodes, STANDARD_CODES } from '../schemas.ts';
import { UNKNOWN_FIELD, unwrapped } from '../strict-inputs.ts';
import { documentedHeaderName } from '../validation.ts';

/**
 * How an operation's answers are written in the OpenAPI document, so that a client developer (and a
 * generated client) sees per operation and per status exactly the codes the service can answer there:
 * `code` an enum of them over the shared `ErrorResponse`, one example per code (a 422's `errors` keyed
 * by an input the operation has), the headers each answer carries, and a `default` for what any
 * operation may answer. An answer with a status's standard codes is one shared component
 * (`#/components/responses/NotFound`), so the document stays small; one with codes of its own is
 * written in place.
 */

/** Headers, declared once (`#/components/headers/...`). */
const HEADERS = {
  'X-Request-Id': {
    description: 'The request\'s id, on every answer: the request\'s own `X-Request-Id` when it sent one, else a new one. The service\'s logs name the request by it.',
    required: true,
    schema: { type: 'string' },
  },
  'Content-Language': {
    description: 'The language of `message` and of the messages of `errors`: the caller\'s (see the document\'s description, Language).',
    required: true,
    schema: { type: 'string', enum: ['fr', 'en'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before sending the request again.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

type HeaderName = keyof typeof HEADERS;
const headerRefs = (...names: HeaderName[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** What an error status says before its codes. */
const LEADS: Record<string, string> = {
  400: 'The request could not be read; nothing was done.',
  401: 'The request does not say who sends it.',
  402: 'The shop\'s subscription has ended; nothing was done.',
  403: 'The caller may not do this; nothing was done.',
  404: 'Not found; nothing was done.',
  409: 'The record\'s state, or an earlier request, forbids the operation; nothing was changed.',
  413: 'The request is too large; nothing was done.',
  415: 'The body is not JSON; nothing was done.',
  422: 'The input was refused; nothing was recorded. `errors` names each failing input by its dotted path (`items.0.quantity`; query, path and header inputs by their own names).',
  429: 'Too many requests; nothing was done.',
  503: 'The service cannot answer now; retry later.',
  default: 'What any operation may answer besides the statuses it lists, each code with its status: a failure of the service, a request the HTTP server could not take, a body refused as it was read.',
};

/**
 * The `default` answer, whatever the operation: a failure the service did not expect, what the HTTP
 * server answers by itself to a request it could not take (api/server.ts,
 * api/middleware/header-size.ts), and a body refused as it is read, before any operation looks at it
 * (api/middleware/body.ts), even by an operation that takes none.
 */
const DEFAULT_CODES: Codes = {
  server_error: '500: anything unexpected. No detail is given (no stack trace, no SQL): `X-Request-Id` names the request in the logs.',
  bad_request: '400: the request is not valid HTTP (its request line, a header, its chunked framing, a path with a backslash); the connection is closed.',
  malformed_json: '400: a body, even to an operation that takes none, that ends before its declared length, or is JSON but not UTF-8.',
  request_timeout: '408: the request did not arrive whole within 120 s; the connection is closed.',
  payload_too_large: '413: a body over 1 MiB, even to an operation that takes none, or chunk extensions over the server\'s limit.',
  headers_too_large: '431: the request line and headers are over 16 KiB.',
};

/** The answers every operation giving them shares, by component name. */
const SHARED: { name: string; status: string; codes: Codes }[] = [
  { name: 'BadRequest', status: '400', codes: STANDARD_CODES[400] },
  { name: 'Unauthenticated', status: '401', codes: STANDARD_CODES[401] },
  { name: 'DeviceUnauthenticated', status: '401', codes: DEVICE_UNAUTHENTICATED },
  { name: 'SubscriptionRequired', status: '402', codes: STANDARD_CODES[402] },
  { name: 'Forbidden', status: '403', codes: STANDARD_CODES[403] },
  { name: 'NotFound', status: '404', codes: STANDARD_CODES[404] },
  { name: 'PayloadTooLarge', status: '413', codes: STANDARD_CODES[413] },
  { name: 'UnsupportedMediaType', status: '415', codes: STANDARD_CODES[415] },
  { name: 'RateLimited', status: '429', codes: STANDARD_CODES[429] },
  { name: 'ServiceUnavailable', status: '503', codes: STANDARD_CODES[503] },
  { name: 'DefaultError', status: 'default', codes: DEFAULT_CODES },
];

const sameCodes = (a: Codes, b: Codes) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([code, meaning]) => code in b && meaningOf(b[code]!) === meaningOf(meaning));

/** The messages of CONTRACT section 2's fixed rows and of the server's own answers, by code: an example says what the service says. */
const FIXED_MESSAGES = new Map(
  Object.values(errors)
    .filter((make) => make.length === 0)
    .map((make) => (make as () => { code: string; message: string })())
    .map(({ code, message }) => [code, message]),
);

const INVALID = errors.invalid({}).message;

/** What a 422 of an operation that takes no input names: a parameter it does not know (`dat`, a typo of `date`). */
const AN_UNKNOWN_PARAMETER = 'dat';

/** The input a 422 names when its code says no other, with a message the service gives on it. */
interface Input {
  key: string;
  message: string;
}

/** What the service says of a malformed value of this schema (api/validation.ts), for an example. */
function complaintAbout(schema: z.core.$ZodType): string {
  const def = unwrapped(schema)._zod.def;
  if (def.type === 'enum') return `Must be one of: ${Object.values(def.entries).join(', ')}.`;
  if (def.type === 'number' || def.type === 'bigint') return 'Must be a number.';
  if (def.type === 'boolean') return 'Must be true or false.';
  if (def.type === 'array') return 'Must be a list.';
  if (def.type === 'object' || def.type === 'record') return 'Must be an object.';
  if (def.type !== 'string') return 'This field is required.';
  const format = (def as { format?: string }).format;
  if (format === 'uuid') return 'Must be a valid UUID.';
  if (format === 'date' || format === 'datetime') return 'Must be a valid ISO-8601 date.';
  const maximum = def.checks?.map((check) => check._zod.def as { check: string; maximum?: number }).find((check) => check.check === 'max_length')?.maximum;
  return maximum === undefined ? 'This field is required.' : `Must be at most ${maximum} characters.`;
}

/** The fields of an object schema, through unions (their first option) and intersections. */
function fieldsOf(schema: z.core.$ZodType): [string, z.core.$ZodType][] {
  const def = unwrapped(schema)._zod.def;
  if (def.type === 'object') return Object.entries(def.shape);
  if (def.type === 'union') return def.options[0] ? fieldsOf(def.options[0]) : [];
  if (def.type === 'intersection') return [...fieldsOf(def.left), ...fieldsOf(def.right)];
  return [];
}

const isOptional = (schema: z.core.$ZodType) => (schema as z.core.$ZodTypes)._zod.optin === 'optional';

/**
 * The input a `validation_failed` example names: the first required body field, else the first body
 * field, else the first path, query or header parameter; none when the operation takes no input.
 */
function firstInput(request: RouteConfig['request']): Input | undefined {
  const json = request?.body?.content['application/json'];
  const body = json && 'schema' in json ? (json.schema as z.core.$ZodType) : undefined;
  const fields = body ? fieldsOf(body) : [];
  const [key, schema] = fields.find(([, field]) => !isOptional(field)) ?? fields[0] ?? [];
  if (key && schema) return { key, message: isOptional(schema) ? complaintAbout(schema) : 'This field is required.' };
  for (const [part, name] of [['params', String], ['query', String], ['headers', documentedHeaderName]] as const) {
    const parameters = request?.[part];
    const [first] = parameters && !Array.isArray(parameters) ? fieldsOf(parameters as z.core.$ZodType) : [];
    if (first) return { key: name(first[0]), message: complaintAbout(first[1]) };
  }
  return undefined;
}

/** `code` narrowed to the answer's codes, over the shared `ErrorResponse`. */
const codeSchema = (codes: Codes) => ({
  allOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { type: 'object', properties: { code: { type: 'string', enum: Object.keys(codes) } } }],
});

/** An error answer written out: what its status means, each code with its meaning, `code` an enum of them, an example of each. */
function errorAnswer(status: string, codes: Codes, input: Input | undefined): object {
  const list = Object.entries(codes).map(([code, meaning]) => {
    if (typeof meaning === 'string') return `\n- \`${code}\`: ${meaning}`;
    // The key with `N` for a line's index: `items.N.quantity`.
    return `\n- \`${code}\`: ${meaning.meaning.replace(/\.$/, '')} (on \`${meaning.on.replace(/\.0(?=\.|$)/g, '.N')}\`).`;
  });
  const examples = Object.fromEntries(
    Object.entries(codes).map(([code, meaning]) => {
      if (status !== '422') return [code, { summary: meaningOf(meaning), value: { message: FIXED_MESSAGES.get(code) ?? meaningOf(meaning), code } }];
      // An operation that takes no input refuses only inputs it does not know (api/strict-inputs.ts).
      const [key, message] =
        typeof meaning !== 'string' ? [meaning.on, meaning.meaning]
        : input ? [input.key, code === 'validation_failed' ? input.message : meaning]
        : [AN_UNKNOWN_PARAMETER, UNKNOWN_FIELD];
      return [code, { summary: meaningOf(meaning), value: { message: INVALID, code, errors: { [key]: [message] } } }];
    }),
  );
  const headers = headerRefs('X-Request-Id', 'Content-Language', ...(status === '429' || status === '503' ? (['Retry-After'] as const) : []));
  return { description: `${LEADS[status]} Codes:${list.join('')}`, headers, content: { 'application/json': { schema: codeSchema(codes), examples } } };
}

/**
 * The components the answers of every route refer to, registered once in the app's document: the
 * error shape, the answers with a status's standard codes, the headers.
 */
export function registerErrorAnswers(registry: OpenAPIHono['openAPIRegistry']): void {
  registry.register('ErrorResponse', ErrorBody);
  for (const { name, status, codes } of SHARED) registry.registerComponent('responses', name, errorAnswer(status, codes, undefined) as never);
  for (const name of Object.keys(HEADERS) as HeaderName[]) registry.registerComponent('headers', name, HEADERS[name] as never);
}

/**
 * The answers of a route as the document states them: each error answer `refusals` (or
 * `errorResponses`) built, with `standard` (the codes its definition implies, by status) before its
 * own, written out or referred to (the components of `registerErrorAnswers`); every other answer of
 * the route as it is, with `X-Request-Id`; and `default`.
 */
export function documentedAnswers(route: RouteConfig, standard: Partial<Record<number, Codes>>): RouteConfig['responses'] {
  const input = firstInput(route.request);
  const byStatus = new Map<string, Codes>(Object.entries(standard).map(([status, codes]) => [status, { ...codes }]));
  const answers: RouteConfig['responses'] = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    const own = refusedCodes(answer);
    if (own) {
      byStatus.set(status, { ...byStatus.get(status), ...own });
    } else {
      byStatus.delete(status);
      const plain = answer as { headers?: object };
      const retry = status === '429' || status === '503' ? headerRefs('Retry-After') : {};
      answers[status] = { ...plain, headers: { ...plain.headers, ...headerRefs('X-Request-Id'), ...retry } } as never;
    }
  }
  byStatus.set('default', DEFAULT_CODES);
  // Statuses in order, `default` last.
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : Number(a) - Number(b)))) {
    const shared = SHARED.find((candidate) => candidate.status === status && sameCodes(candidate.codes, codes));
    answers[status] = shared ? { $ref: `#/components/responses/${shared.name}` } : (errorAnswer(status, codes, input) as never);
  }
  return answers;
}
