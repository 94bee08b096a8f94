import t from 'tap';
import { errors } from '../../api/errors.ts';
import { UNKNOWN_FIELD } from '../../api/strict-inputs.ts';
import { bodySchema, deref, mergeAllOf, operationsOf, type Operation, type Schema } from '../support/openapi-arbitraries.ts';
import { resolved } from '../support/openapi-validator.ts';
import { startService } from '../support/service.ts';

/**
 * How the OpenAPI document states errors, as a client developer and a generated client read it: each
 * error answer of each operation lists the codes it can carry and narrows `code` to them, every
 * operation has a `default` answer, every answer declares its headers, and a 422's examples name inputs
 * the operation has. That real answers carry only the codes listed is
 * tests/platform/openapi-conformance.test.ts and tests/chaos/fuzz.test.ts (through answerProblems).
 */

const api = await startService(t);
const doc = (await api.raw('GET', '/openapi.json')).body;
const operations = operationsOf(doc);

/** Every answer of every operation, its `$ref` followed, by `METHOD /path status`. */
const answers = operations.flatMap((op) =>
  Object.entries(op.spec.responses as Record<string, Schema>).map(([status, answer]) => ({ op, status, where: `${op.name} ${status}`, answer: resolved(doc, answer)! })),
);
const isError = (status: string) => status === 'default' || Number(status) >= 400;
const errorAnswers = answers.filter(({ status }) => isError(status));

/** The codes an answer's JSON schema lets `code` take. */
function codesOf(answer: Schema): string[] | undefined {
  const schema = answer.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const merged = deref(doc, schema).allOf ? mergeAllOf(doc, deref(doc, schema)) : deref(doc, schema);
  return merged.properties?.code?.enum;
}

/** `- \`code\`: meaning` lines, as api/docs/error-answers.ts writes them. */
const listedCodes = (answer: Schema) => [...String(answer.description).matchAll(/^- `([a-z_]+)`: \S/gm)].map((match) => match[1]!);

const codesAt = (name: string, status: string) => codesOf(errorAnswers.find((answer) => answer.where === `${name} ${status}`)!.answer);

t.test('no schema is named after a JavaScript global: errors are `ErrorResponse`, not `Error`', async (t) => {
  // What a generated client declares a type of: a component named so would shadow the global (or a TypeScript utility type).
  const globals = new Set([...Object.getOwnPropertyNames(globalThis), 'Record', 'Partial', 'Required', 'Readonly', 'Pick', 'Omit', 'Exclude', 'Extract', 'NonNullable', 'ReturnType', 'Awaited']);
  t.strictSame(Object.keys(doc.components.schemas).filter((name) => globals.has(name)), [], 'component schemas named after a global');
  t.ok(doc.components.schemas.ErrorResponse, 'ErrorResponse is a component');
  const apart = errorAnswers.filter(({ answer }) => {
    const schema = answer.content?.['application/json']?.schema;
    return schema && schema.$ref !== '#/components/schemas/ErrorResponse' && schema.allOf?.[0]?.$ref !== '#/components/schemas/ErrorResponse';
  });
  t.strictSame(apart.map(({ where }) => where), [], 'error answers not built on ErrorResponse');
});

t.test('every error answer of every operation narrows `code` to the codes it lists, each with its meaning and an example', async (t) => {
  const wrong: string[] = [];
  for (const { where, answer } of errorAnswers) {
    const codes = codesOf(answer);
    if (!codes?.length) {
      wrong.push(`${where}: \`code\` is no enum`);
      continue;
    }
    const listed = listedCodes(answer);
    if (listed.join() !== codes.join()) wrong.push(`${where}: the description lists ${listed.join(', ') || 'nothing'}, \`code\` takes ${codes.join(', ')}`);
    const examples = answer.content['application/json'].examples ?? {};
    for (const code of codes) if (examples[code]?.value?.code !== code) wrong.push(`${where}: \`${code}\` has no example`);
  }
  t.strictSame(wrong, [], 'error answers whose codes are not stated');
  t.strictSame(codesAt('POST /api/v1/auth/login', '401'), ['invalid_credentials'], 'a login\'s 401 is a wrong e-mail or password, never a token');
  t.strictSame(codesAt('POST /api/v1/device/sync/push', '401'), ['device_unauthenticated'], 'a device\'s 401 is its own');
  t.strictSame(codesAt('GET /api/v1/device/sync/pull', '401'), ['device_unauthenticated']);
  t.strictSame(codesAt('GET /api/v1/sync/pull', '401'), ['unauthenticated'], 'the bearer\'s on /sync');
  t.strictSame(codesAt('POST /api/v1/device-pairings/{code}/claim', '404'), ['not_found', 'pairing_not_found']);
  t.strictSame(codesAt('POST /api/v1/sales', '409'), ['idempotency_conflict']);
  t.match(codesAt('POST /api/v1/sales', '422'), ['validation_failed', 'insufficient_stock'], 'the shared code first, then the operation\'s');
  t.strictSame(codesAt('POST /api/v1/sales/{sale_id}/void', '409'), ['idempotency_conflict', 'sale_already_voided', 'sale_refunded', 'sale_credit_settled', 'no_open_shift']);
  t.strictSame(codesAt('GET /api/v1/products', '429'), ['rate_limited']);
  t.strictSame(codesAt('GET /api/v1/products', '503'), ['service_unavailable']);
  t.strictSame(codesAt('GET /readyz', '503'), ['not_ready']);
});

t.test('every operation has a `default` error answer: server_error, and what the HTTP server answers by itself', async (t) => {
  t.strictSame(operations.filter((op) => !op.spec.responses.default).map((op) => op.name), [], 'operations without a default answer');
  const codes = codesOf(resolved(doc, doc.paths['/api/v1/sales'].post.responses.default)!);
  t.strictSame(codes, ['server_error', 'bad_request', 'malformed_json', 'request_timeout', 'payload_too_large', 'headers_too_large']);
  t.notOk(answers.some(({ status }) => status === '500'), 'no operation lists 500 besides: the default says it');
  // The server's own answers are rows of api/errors.ts: the default names them as they are raised.
  const raised = new Set(Object.values(errors).filter((make) => make.length === 0).map((make) => (make as () => { code: string })().code));
  t.strictSame(codes?.filter((code) => !raised.has(code)), [], 'codes of the default that api/errors.ts does not raise');
});

t.test('every answer declares X-Request-Id; error answers Content-Language; 429 and 503 Retry-After; browsers may read them', async (t) => {
  const lacking = (names: string[], among: typeof answers) =>
    among.flatMap(({ where, answer }) => names.filter((name) => !resolved(doc, answer.headers?.[name])?.schema).map((name) => `${where}: ${name}`));
  t.strictSame(lacking(['X-Request-Id'], answers), [], 'answers without X-Request-Id');
  // /readyz's 503 is the probe's own answer, which names no language.
  t.strictSame(lacking(['Content-Language'], errorAnswers.filter(({ where }) => where !== 'GET /readyz 503')), [], 'error answers without Content-Language');
  t.strictSame(lacking(['Retry-After'], answers.filter(({ status }) => status === '429' || status === '503')), [], '429 and 503 answers without Retry-After');
  const answer = await api.raw('GET', '/api/v1/products', { headers: { origin: 'https://till.example.cm' } });
  const exposed = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
  for (const name of ['x-request-id', 'content-language', 'retry-after']) t.ok(exposed.includes(name), `CORS exposes ${name}`);
  t.match(doc.info.description, /405 `method_not_allowed`[^\n]*`Allow`/, 'the 405 (another method on a path that exists) and its Allow header are described once, for every path');
});

/**
 * Keys a real 422 of the operation gives that are not its inputs, with why: converting a quote runs the
 * sale procedure on the quote's own lines and customer, which the request does not send; a logo's body
 * is the image file, not JSON, and its 422 names it `logo` as a whole.
 */
const KEYS_OF_THE_RECORD: Record<string, string[]> = {
  'POST /api/v1/quotes/{quote_id}/convert': ['items.0.quantity', 'items.0.variant_id', 'customer_id'],
  'PUT /api/v1/shop/logo': ['logo'],
};

/** Whether `segments` is a path into `schema`: a property, an array's item by index, a map's value by any key. */
function isPathIn(schema: Schema, segments: string[]): boolean {
  if (!segments.length) return true;
  let current = deref(doc, schema);
  if (current.allOf) current = mergeAllOf(doc, current);
  const branches: Schema[] | undefined = current.anyOf ?? current.oneOf;
  if (branches) return branches.some((branch) => isPathIn(branch, segments));
  const [head, ...rest] = segments as [string, ...string[]];
  if (current.items) return /^\d+$/.test(head) && isPathIn(current.items, rest);
  if (current.properties?.[head]) return isPathIn(current.properties[head], rest);
  return typeof current.additionalProperties === 'object' && isPathIn(current.additionalProperties, rest);
}

/** Whether a dotted key names an input of the operation: a body path, or a query, path or header parameter by its name. */
function namesInput(op: Operation, key: string): boolean {
  const parameters: { in: string; name: string }[] = op.spec.parameters ?? [];
  if (parameters.some((p) => (p.in === 'header' ? p.name.toLowerCase() === key.toLowerCase() : p.name === key))) return true;
  const body = bodySchema(op);
  return !!body && isPathIn(body, key.split('.'));
}

t.test('every 422 example names in `errors` inputs its operation has (body paths, query, path and header parameters)', async (t) => {
  const wrong: string[] = [];
  let checked = 0;
  for (const { op, where, answer } of errorAnswers.filter(({ status }) => status === '422')) {
    for (const [name, example] of Object.entries((answer.content?.['application/json']?.examples ?? {}) as Record<string, { value: { errors?: Record<string, string[]> } }>)) {
      for (const [key, messages] of Object.entries(example.value.errors ?? {})) {
        checked++;
        // An operation that takes no input refuses only inputs it does not know: that key is, by definition, none of its own.
        const unknownField = messages.every((message) => message === UNKNOWN_FIELD);
        if (!namesInput(op, key) && !unknownField && !KEYS_OF_THE_RECORD[op.name]?.includes(key)) wrong.push(`${where} ${name}: \`${key}\``);
      }
    }
  }
  t.ok(checked > 150, `${checked} keys checked`);
  t.strictSame(wrong, [], '422 examples keyed by what the operation does not take');
});
