import { execFileSync } from 'node:child_process';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import fc from 'fast-check';
import t from 'tap';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../api/logger.ts';
import { IsoDate, IsoDateTime, PositiveQuantity, requiredText, Text, TEXT_PATTERNS, Timestamp, Uuid } from '../../api/schemas.ts';
import { PushedCashMovement, PushedCustomer, PushedExpense, PushedSale } from '../../api/sync/schemas.ts';
import { bodySchema, deref, operationsOf, requestOf, requestSchemas, visitSchemas, type Operation } from '../support/openapi-arbitraries.ts';
import { registerShop } from '../support/fixtures.ts';
import { documentValidator } from '../support/openapi-validator.ts';
import { expectInvalid } from '../support/replies.ts';
import { propertyRun } from '../support/property.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const doc = (await api.raw('GET', '/openapi.json')).body;

t.test('the OpenAPI document is 3.1 and describes version 1.0.0', async (t) => {
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
});

t.test('every operation built so far is documented under /api/v1', async (t) => {
  const expected: [string, string][] = [
    ['/api/v1/auth/register', 'post'],
    ['/api/v1/auth/login', 'post'],
    ['/api/v1/auth/me', 'get'],
    ['/api/v1/auth/logout', 'post'],
    ['/api/v1/auth/forgot-password', 'post'],
    ['/api/v1/auth/reset-password', 'post'],
    ['/api/v1/profile', 'put'],
    ['/api/v1/profile/password', 'post'],
    ['/api/v1/users', 'get'],
    ['/api/v1/users', 'post'],
    ['/api/v1/users/{id}', 'put'],
    ['/api/v1/users/{id}', 'delete'],
    ['/api/v1/shop', 'get'],
    ['/api/v1/shop', 'put'],
    ['/api/v1/dashboard', 'get'],
    ['/api/v1/categories', 'get'],
    ['/api/v1/categories', 'post'],
    ['/api/v1/categories/{id}', 'put'],
    ['/api/v1/categories/{id}', 'delete'],
    ['/api/v1/products', 'get'],
    ['/api/v1/products', 'post'],
    ['/api/v1/products/{id}', 'get'],
    ['/api/v1/products/{id}', 'put'],
    ['/api/v1/products/{id}', 'delete'],
    ['/api/v1/products/barcodes/generate', 'post'],
    ['/api/v1/products/{product_id}/adjust', 'post'],
    ['/api/v1/products/{product_id}/movements', 'get'],
    ['/api/v1/products/{product_id}/options', 'get'],
    ['/api/v1/products/{product_id}/options', 'post'],
    ['/api/v1/products/{product_id}/options/{option_id}', 'delete'],
    ['/api/v1/products/{product_id}/variants/generate', 'post'],
    ['/api/v1/products/{product_id}/variants', 'get'],
    ['/api/v1/products/{product_id}/variants', 'post'],
    ['/api/v1/variants/{variant_id}', 'put'],
    ['/api/v1/variants/{variant_id}', 'delete'],
    ['/api/v1/reports/stock-valuation', 'get'],
    ['/api/v1/reports/low-stock', 'get'],
    ['/api/v1/stocktakes', 'get'],
    ['/api/v1/stocktakes', 'post'],
    ['/api/v1/stocktakes/{stocktake_id}', 'get'],
    ['/api/v1/stocktakes/{stocktake_id}/counts', 'post'],
    ['/api/v1/stocktakes/{stocktake_id}/commit', 'post'],
    ['/api/v1/stocktakes/{stocktake_id}/cancel', 'post'],
    ['/api/v1/customers', 'get'],
    ['/api/v1/customers', 'post'],
    ['/api/v1/customers/{id}', 'get'],
    ['/api/v1/customers/{id}', 'put'],
    ['/api/v1/customers/{id}', 'delete'],
    ['/api/v1/customers/find-by-card', 'get'],
    ['/api/v1/loyalty-cards/register', 'post'],
    ['/api/v1/customers/{customer_id}/statement', 'get'],
    ['/api/v1/customers/{customer_id}/payments', 'post'],
    ['/api/v1/customers/{customer_id}/card', 'get'],
    ['/api/v1/customers/{customer_id}/points', 'post'],
    ['/api/v1/customers/{customer_id}/points', 'get'],
    ['/api/v1/reports/receivables', 'get'],
    ['/api/v1/reports/price-overrides', 'get'],
    ['/api/v1/loyalty/tiers', 'get'],
    ['/api/v1/loyalty/tiers', 'put'],
    ['/api/v1/loyalty/report', 'get'],
    ['/api/v1/promotions', 'get'],
    ['/api/v1/promotions', 'post'],
    ['/api/v1/promotions/{promotion_id}', 'put'],
    ['/api/v1/promotions/{promotion_id}', 'delete'],
    ['/api/v1/promotions/preview', 'post'],
    ['/api/v1/sales', 'get'],
    ['/api/v1/sales', 'post'],
    ['/api/v1/sales/{sale_id}', 'get'],
    ['/api/v1/sales/{sale_id}/void', 'post'],
    ['/api/v1/sales/{sale_id}/refund', 'post'],
    ['/api/v1/sales/{sale_id}/attribute-loyalty', 'post'],
    ['/api/v1/sales/{sale_id}/receipt', 'get'],
    ['/api/v1/sales/{sale_id}/receipt/text', 'get'],
    ['/api/v1/sales/{sale_id}/receipt/email', 'post'],
    ['/api/v1/sales/{sale_id}/invoice', 'get'],
    ['/api/v1/sales/{sale_id}/share', 'post'],
    ['/api/v1/shared/{token}/invoice', 'get'],
    ['/api/v1/shared/{token}/receipt/text', 'get'],
    ['/api/v1/shift', 'get'],
    ['/api/v1/shifts', 'get'],
    ['/api/v1/shift/open', 'post'],
    ['/api/v1/shift/close', 'post'],
    ['/api/v1/shift/cash', 'post'],
    ['/api/v1/expenses', 'get'],
    ['/api/v1/expenses', 'post'],
    ['/api/v1/expenses/{expense_id}', 'delete'],
    ['/api/v1/device-pairings', 'post'],
    ['/api/v1/device-pairings/{code}', 'get'],
    ['/api/v1/device-pairings/{code}/claim', 'post'],
    ['/api/v1/devices', 'get'],
    ['/api/v1/devices/{id}', 'delete'],
    ['/api/v1/device/sync/pull', 'get'],
    ['/api/v1/device/sync/push', 'post'],
    ['/api/v1/sync/pull', 'get'],
    ['/api/v1/sync/push', 'post'],
    ['/api/v1/sync/clock-corrections', 'get'],
    ['/api/v1/partner/dashboard', 'get'],
    ['/api/v1/partner/referrals', 'get'],
    ['/api/v1/partner/commissions', 'get'],
    ['/api/v1/admin/partners', 'get'],
    ['/api/v1/admin/partners', 'post'],
    ['/api/v1/admin/partners/{id}', 'put'],
    ['/api/v1/admin/partner-commissions', 'get'],
    ['/api/v1/admin/partner-commissions/pay', 'post'],
    ['/healthz', 'get'],
    ['/readyz', 'get'],
    ['/metrics', 'get'],
  ];
  for (const [path, method] of expected) t.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
});

t.test('request bounds come from the same zod schemas that validate', async (t) => {
  const register = doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].schema;
  const schema = register.$ref ? doc.components.schemas[register.$ref.split('/').pop()] : register;
  t.equal(schema.properties.shop_name.maxLength, 160);
  t.equal(schema.properties.password.minLength, 8);
  t.same(schema.properties.phone, { type: ['string', 'null'], maxLength: 40, pattern: TEXT_PATTERNS.storable });
  t.same(schema.properties.locale.enum, ['fr', 'en', null]);
  t.same([...schema.required].sort(), ['owner_email', 'owner_name', 'password', 'shop_name']);
});

t.test('protected operations declare the bearer scheme and their error answers', async (t) => {
  t.same(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'From POST /api/v1/auth/login or /auth/register.',
  });
  const putShop = doc.paths['/api/v1/shop'].put;
  t.same(putShop.security, [{ bearerAuth: [] }]);
  for (const status of ['401', '402', '403', '422']) t.ok(putShop.responses[status], `documents ${status}`);
});

t.test('every operation documents the answers its definition implies: bodies, parameters, credentials, subscription, rate limit, database', async (t) => {
  for (const op of operationsOf(doc)) {
    const declared = Object.keys(op.spec.responses);
    const expect = (status: string, why: string) => t.ok(declared.includes(status), `${op.name} declares ${status} (${why})`);
    const parameters: { in: string; name: string }[] = op.spec.parameters ?? [];
    if (op.spec.requestBody) for (const status of ['400', '413', '415', '422']) expect(status, 'it takes a body');
    if (parameters.length) expect('422', 'it takes parameters');
    if (parameters.some((p) => p.in === 'path')) expect('404', 'a path parameter names a record');
    if (op.spec.security?.length) expect('401', 'it needs credentials');
    if (op.path.startsWith('/api/v1/')) expect('503', 'it uses the database');
  }
  for (const name of ['DELETE /api/v1/users/{id}', 'DELETE /api/v1/categories/{id}', 'POST /api/v1/stocktakes/{stocktake_id}/commit', 'POST /api/v1/stocktakes/{stocktake_id}/cancel', 'GET /api/v1/device-pairings/{code}']) {
    t.ok(operationsOf(doc).find((op) => op.name === name)?.spec.responses['422'], `${name} declares the 422 of its path parameter`);
  }
  t.notOk(doc.paths['/healthz'].get.responses['503'], 'liveness touches no database');
  const sale = doc.paths['/api/v1/sales'].post;
  t.ok(sale.parameters.some((p: any) => p.in === 'header' && p.name === 'idempotency-key'), 'an authenticated POST takes Idempotency-Key');
  t.ok(sale.responses['409'], 'and may answer 409 idempotency_conflict');
});

t.test('/metrics declares the metrics token, its 401 and its 404 (no METRICS_TOKEN), and answers Prometheus text', async (t) => {
  const metrics = doc.paths['/metrics'].get;
  t.same(metrics.tags, ['Operations']);
  t.same(metrics.security, [{ metricsToken: [] }]);
  t.match(doc.components.securitySchemes.metricsToken, { type: 'http', scheme: 'bearer' });
  t.ok(metrics.responses['200'].content['text/plain'], 'Prometheus text');
  for (const status of ['401', '404']) t.ok(metrics.responses[status], `documents ${status}`);
  t.notOk(metrics.responses['503'], 'no database');
});

/** The operations anyone may call: signing up and in, the health checks, a pairing's first steps, the shared links, the payment providers' callbacks. */
const PUBLIC_OPERATIONS = [
  'GET /healthz', 'GET /readyz', 'POST /api/v1/auth/register', 'POST /api/v1/auth/login', 'POST /api/v1/auth/forgot-password', 'POST /api/v1/auth/reset-password',
  'GET /api/v1/shared/{token}/invoice', 'GET /api/v1/shared/{token}/receipt/text', 'GET /s/{token}', 'GET /s/{token}/pdf', 'GET /s/{token}/receipt', 'GET /s/{token}/print',
  'POST /api/v1/device-pairings', 'GET /api/v1/device-pairings/{code}',
  'PUT /api/v1/billing/callbacks/{provider}/{reference}', 'POST /api/v1/billing/callbacks/{provider}/{reference}', 'PUT /api/v1/billing/callbacks/{provider}', 'POST /api/v1/billing/callbacks/{provider}',
  'GET /api/v1/fiscal/public-key',
];

t.test('every operation states its credentials, and a public one says so with security: []', async (t) => {
  const operations = operationsOf(doc);
  t.strictSame(operations.filter((op) => !Array.isArray(op.spec.security)).map((op) => op.name), [], 'none leaves security unsaid');
  t.strictSame(operations.filter((op) => op.spec.security.length === 0).map((op) => op.name).sort(), [...PUBLIC_OPERATIONS].sort(), 'security: [] on the public ones only');
});

t.test('the document names its licence and its contact', async (t) => {
  t.match(doc.info.license, { name: String, identifier: String });
  t.match(doc.info.contact, { name: String });
});

t.test('no number states minimum beside exclusiveMinimum, nor maximum beside exclusiveMaximum: a quantity sold is more than 0 and at most a billion', async (t) => {
  const mixed: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((item, index) => visit(item, `${at}/${index}`));
    else if (node && typeof node === 'object') {
      const schema = node as Record<string, unknown>;
      if (('minimum' in schema && 'exclusiveMinimum' in schema) || ('maximum' in schema && 'exclusiveMaximum' in schema)) mixed.push(at);
      for (const [key, value] of Object.entries(schema)) visit(value, `${at}/${key}`);
    }
  };
  visit(doc, '#');
  t.strictSame(mixed, [], 'one bound of each side');
  t.notOk(PositiveQuantity.safeParse(0).success, '0 is refused');
  t.ok(PositiveQuantity.safeParse(0.001).success && PositiveQuantity.safeParse(1_000_000_000).success, '0.001 and a billion are taken');
  t.notOk(PositiveQuantity.safeParse(1_000_000_000.001).success, 'more than a billion is refused');
});

t.test('a boolean query flag is documented as a boolean, and the server takes true, false, 1 and 0', async (t) => {
  const flags = operationsOf(doc).flatMap((op) => ((op.spec.parameters ?? []) as { in: string; name: string; schema: { type?: unknown; enum?: unknown[] } }[]).filter((p) => p.in === 'query').map((p) => ({ op, p })));
  const named = (name: string) => flags.filter(({ p }) => p.name === name);
  for (const name of ['active', 'tracked', 'low_stock', 'owing', 'include_deleted', 'include_empty']) {
    t.ok(named(name).length > 0 && named(name).every(({ p }) => p.schema.type === 'boolean' && !p.schema.enum), `${name}: type boolean`);
  }
  t.strictSame(flags.filter(({ p }) => p.schema.enum?.some((value) => value === 'true' || value === 'false')).map(({ op, p }) => `${op.name} ${p.name}`), [], 'no flag is a string enum');
  const owner = await registerShop(api);
  for (const value of ['true', 'false', '1', '0']) t.equal((await api.request('GET', `/products?active=${value}`, { token: owner.token })).status, 200, `active=${value}`);
  expectInvalid(t, await api.request('GET', '/products?active=yes', { token: owner.token }), 'active', 'active=yes');
});

t.test('the receipt\'s paper width is an integer, 58 or 80, in the query and in the answer', async (t) => {
  const receipt = doc.paths['/api/v1/sales/{sale_id}/receipt'].get;
  const width = receipt.parameters.find((p: { name: string }) => p.name === 'width');
  t.strictSame(width.schema, { type: 'integer', enum: [58, 80], default: 80, description: width.schema.description });
  const answer = deref(doc, receipt.responses['200'].content['application/json'].schema);
  const record = deref(doc, answer.properties.data);
  t.strictSame(record.properties.width, { type: 'integer', enum: [58, 80] });
  t.strictSame(record.properties.columns, { type: 'integer', enum: [32, 48] });
});

t.test('device sync operations declare device credentials; /sync/* the bearer scheme', async (t) => {
  t.match(doc.components.securitySchemes.deviceAuth, { type: 'apiKey', in: 'header', name: 'Authorization' });
  t.same(doc.paths['/api/v1/device/sync/pull'].get.security, [{ deviceAuth: [] }]);
  t.same(doc.paths['/api/v1/device/sync/push'].post.security, [{ deviceAuth: [] }]);
  t.same(doc.paths['/api/v1/sync/pull'].get.security, [{ bearerAuth: [] }]);
  t.ok(doc.components.schemas.SyncSale && doc.components.schemas.SyncCustomer, 'the pushed records\' shapes are documented');
});

t.test('the interactive reference is served without any external request', async (t) => {
  const page = await api.raw('GET', '/api-docs');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  const sources = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  t.ok(sources.length >= 3);
  for (const source of sources) t.ok(source.startsWith('/'), `${source} is served by the service`);
  for (const source of sources) {
    const asset = await api.raw('GET', source);
    t.equal(asset.status, 200, source);
  }
  t.equal((await api.raw('GET', '/api-docs/assets/package.json')).status, 404, 'only the listed assets are served');
});

/** Formats whose own pattern (stated beside them) admits ASCII only; `format: email` admits ASCII only by itself. */
const ASCII_FORMATS = new Set(['uuid', 'date', 'date-time']);
/** Other patterns of inputs, each admitting digits and separators only. */
const ASCII_PATTERNS = new Set(['^([01][0-9]|2[0-3]):[0-5][0-9]$', '^[2-9][0-9]{3}-(0[1-9]|1[0-2])$']);

t.test('every text input of every operation goes through the shared text schema, which refuses NUL and lone surrogates', async (t) => {
  for (const text of ['a\u0000b', '\ud800', 'x\udc00', '\udc00\ud800']) t.notOk(Text.safeParse(text).success, `the server refuses ${JSON.stringify(text)}`);
  t.notOk(new RegExp(TEXT_PATTERNS.storable).test('a\u0000b'), 'the document\'s pattern refuses the NUL (the lone surrogate is stated in words)');
  t.ok(new RegExp(TEXT_PATTERNS.storable).test('Thé vert 🍵 𝄞'), 'and takes any other character');
  for (const pattern of ASCII_PATTERNS) t.notOk(new RegExp(pattern).test('1\u00002:00'), `${pattern} admits no NUL`);
  const strays: string[] = [];
  let inputs = 0;
  for (const op of operationsOf(doc)) {
    for (const { where, schema } of requestSchemas(doc, op)) {
      visitSchemas(doc, schema, where, (s, at, key) => {
        const types = [s.type].flat();
        if (types.includes('object') && s.additionalProperties && typeof s.additionalProperties === 'object' && !s.propertyNames) {
          strays.push(`${op.name} ${at}: keys without propertyNames`);
        }
        if (!types.includes('string') && !key) return;
        inputs++;
        if (s.enum || 'const' in s) return;
        if (s.format === 'email' || (ASCII_FORMATS.has(s.format) && s.pattern)) return;
        if (s.pattern === TEXT_PATTERNS.storable || s.pattern === TEXT_PATTERNS.filled || ASCII_PATTERNS.has(s.pattern)) return;
        strays.push(`${op.name} ${at}`);
      });
    }
  }
  t.ok(inputs > 150, `${inputs} text inputs checked`);
  t.strictSame(strays, [], 'build string inputs on Text, requiredText or optionalText (api/schemas.ts), never on a raw z.string()');
});

// ---------------------------------------------------------------------------------------------
// Patterns every JSON Schema validator reads alike: ECMA-262 without the `u` flag, Python's `re`,
// Rust's `regex` and PCRE (API_DESCRIPTION in api/app.ts, TEXT_PATTERNS in api/schemas.ts).

/** Every `pattern` string of the document, wherever it is: components, parameters, bodies, answers, propertyNames. */
function patternsOf(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => patternsOf(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsOf(value, found);
    }
  }
  return found;
}

/** Python's verdict on each case: the pattern compiles, and `re.search` (as Python's JSON Schema validators use it) finds it in each text. */
function inPython(cases: { pattern: string; texts: string[] }[]): { error?: string; matches: boolean[] }[] {
  const script = [
    'import json, re, sys',
    'answers = []',
    'for case in json.loads(sys.stdin.buffer.read().decode("utf-8")):',
    '    try:',
    '        compiled = re.compile(case["pattern"])',
    '    except re.error as error:',
    '        answers.append({"error": str(error), "matches": []})',
    '        continue',
    '    answers.append({"matches": [compiled.search(text) is not None for text in case["texts"]]})',
    'sys.stdout.write(json.dumps(answers))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(cases), maxBuffer: 256 * 1024 * 1024 }).toString());
}

/** Syntax a JSON Schema validator refuses or reads otherwise than another, with the reason. */
const UNPORTABLE: [RegExp, string][] = [
  [/\\u|\\U|\\x\{/, 'a \\u or \\x{...} escape (PCRE has no \\u; ECMA-262 reads \\u{...} with the u flag only; Rust refuses a surrogate)'],
  [/\\[dDsSwWbB]/, 'a class escape (\\d, \\s and \\w are Unicode to Python and Rust, ASCII to ECMA-262 and PCRE)'],
  [/\\[pP]/, 'a Unicode property (the u flag only)'],
  [/\(\?[=!<]/, 'a lookaround or a named group (Rust has neither)'],
  [/\\[1-9]|\\k/, 'a backreference (Rust has none)'],
  [/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, 'a control character or a line separator written as itself'],
  [/[\ud800-\udfff]/, 'a character beyond the Basic Multilingual Plane written as itself (two units without the u flag)'],
];

/** Texts a client sends: accents, emoji, other scripts, digits beyond ASCII, days, times, identifiers. */
const PROBES = [
  '', 'a', 'Thé vert', 'Crème brûlée à 1 500 FCFA', '🍵 𝄞', '😀', '中文', 'ﻼ', ' ', '\u00a0', '\u3000', '\ufeff', '\u200b', ' a ', '\ta\n',
  'a\u0000b', '\u0000', '12:30', '24:00', '١٢:٣٠', '2026-11', '2026-13', '٢٠٢٦-١١', '2026-11-21', '٢٠٢٦-١١-٢١', '0000-01-01', '0001-01-01',
  '2024-02-29', '2100-02-29', '2026-11-21T08:30:00Z', '2026-11-21T08:30:00.123+01:00', '2026-11-21T08:30:00', '0000-01-01T00:00:00Z',
  '0b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', '0B1F2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', '00000000-0000-0000-0000-000000000000',
];

t.test('every pattern of the document compiles without the u flag, with it, and in Python, and uses no syntax another validator reads otherwise', async (t) => {
  const patterns = [...patternsOf(doc)];
  t.ok(patterns.length >= 8, `${patterns.length} distinct patterns`);
  const python = inPython(patterns.map((pattern) => ({ pattern, texts: [] })));
  patterns.forEach((pattern, index) => {
    t.doesNotThrow(() => new RegExp(pattern), `${JSON.stringify(pattern)} compiles without the u flag`);
    t.doesNotThrow(() => new RegExp(pattern, 'u'), 'and with it');
    t.notOk(python[index]!.error, `and in Python${python[index]!.error ? `: ${python[index]!.error}` : ''}`);
    for (const [syntax, why] of UNPORTABLE) t.notOk(syntax.test(pattern), `${JSON.stringify(pattern)} holds no ${why}`);
  });
});

t.test('every pattern of the document gives one verdict without the u flag, with it and in Python: emoji, accents, digits beyond ASCII', async (t) => {
  const patterns = [...patternsOf(doc)];
  const python = inPython(patterns.map((pattern) => ({ pattern, texts: PROBES })));
  const disagreements: string[] = [];
  patterns.forEach((pattern, index) => {
    const [plain, unicode] = [new RegExp(pattern), new RegExp(pattern, 'u')];
    PROBES.forEach((text, at) => {
      const verdicts = [plain.test(text), unicode.test(text), python[index]!.matches[at]];
      if (new Set(verdicts).size > 1) disagreements.push(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}: ${verdicts.join(', ')}`);
    });
  });
  t.strictSame(disagreements, [], 'no text is read otherwise by another engine');
});

t.test('the document\'s text patterns refuse exactly what the server refuses: a NUL, and white space alone as trim() counts it', async (t) => {
  const [storable, filled] = [new RegExp(TEXT_PATTERNS.storable), new RegExp(TEXT_PATTERNS.filled)];
  const required = requiredText(100);
  // Every character of the Basic Multilingual Plane but the surrogates, alone: U+2028 and U+2029 are stated in words only.
  const characters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter((c) => !/[\ud800-\udfff]/.test(c));
  const inWordsOnly = new Set(['\u2028', '\u2029']);
  const misread = characters.filter((c) => !inWordsOnly.has(c) && (storable.test(c) !== Text.safeParse(c).success || filled.test(c) !== required.safeParse(c).success));
  t.strictSame(misread.map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase()}`), [], 'no character alone is read otherwise by the document than by the server');
  for (const c of inWordsOnly) t.notOk(required.safeParse(c).success, `U+${c.charCodeAt(0).toString(16).toUpperCase()} alone is blank to the server, as API_DESCRIPTION says`);
  const [inPythonStorable, inPythonFilled] = inPython([TEXT_PATTERNS.storable, TEXT_PATTERNS.filled].map((pattern) => ({ pattern, texts: characters })));
  const refusedIn = (verdicts: boolean[]) => characters.filter((_, index) => !verdicts[index]).join('');
  t.equal(refusedIn(inPythonStorable!.matches), characters.filter((c) => !storable.test(c)).join(''), 'Python refuses the same characters as the storable pattern');
  t.equal(refusedIn(inPythonFilled!.matches), characters.filter((c) => !filled.test(c)).join(''), 'and the same as the filled pattern');
  for (const text of ['Thé vert', 'Crème brûlée', '🍵 𝄞', '中文', '  Awa  ']) {
    t.ok(Text.safeParse(text).success && required.safeParse(text).success, `the server takes ${JSON.stringify(text)}`);
    t.ok(storable.test(text) && filled.test(text) && new RegExp(TEXT_PATTERNS.filled, 'u').test(text), 'and so does the document, with or without the u flag');
  }
});

/** The schema the document states for each zod schema, written by the same generator as the service's document. */
function documented(schemas: Record<string, z.ZodType>): Record<string, { pattern?: string }> {
  const probe = new OpenAPIHono();
  const route = createRoute({ method: 'post', path: '/probe', request: { body: { content: { 'application/json': { schema: z.object(schemas) } } } }, responses: { 204: { description: 'Nothing.' } } });
  probe.openapi(route, (c) => c.body(null, 204));
  const body = probe.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'probe', version: '1' } }).paths!['/probe']!.post!.requestBody as any;
  return body.content['application/json'].schema.properties;
}

t.test('the document\'s day, time and UUID patterns accept exactly what the server accepts, in JavaScript and in Python', async (t) => {
  const run = propertyRun(20_261_127, 400);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const year = fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 4, 100, 400, 1900, 2000, 2024, 2100, 2400, 9999));
  const day = fc.tuple(year, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
  const time = fc
    .tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.constantFrom('', '.5', '.123456'), fc.constantFrom('Z', 'z', '+01:00', '-23:59', '+24:00', ''))
    .map(([h, m, s, fraction, offset]) => `T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${fraction}${offset}`);
  const uuid = fc.oneof(fc.uuid(), fc.uuid().map((id) => id.toUpperCase()), fc.stringMatching(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/));
  const days = fc.sample(day, { seed: run.seed, numRuns: run.runs });
  const times = fc.sample(fc.tuple(day, time).map(([d, at]) => d + at), { seed: run.seed, numRuns: run.runs });
  const uuids = fc.sample(uuid, { seed: run.seed, numRuns: run.runs });
  const servers: Record<string, z.ZodType> = { IsoDate, IsoDateTime, Timestamp, Uuid };
  const texts: Record<string, string[]> = { IsoDate: days, IsoDateTime: times, Timestamp: times, Uuid: uuids };
  const schemas = documented(servers);
  const names = Object.keys(servers);
  const python = inPython(names.map((name) => ({ pattern: schemas[name]!.pattern!, texts: texts[name]! })));
  t.comment(`fast-check seed ${run.seed}: ${run.runs} texts for each of ${names.join(', ')}`);
  names.forEach((name, index) => {
    const pattern = new RegExp(schemas[name]!.pattern!);
    const misread = texts[name]!.filter((text, at) => {
      const server = servers[name]!.safeParse(text).success;
      return pattern.test(text) !== server || python[index]!.matches[at] !== server;
    });
    t.strictSame(misread, [], `${name}: the document's pattern, in JavaScript and in Python, says what the server says`);
    t.ok(texts[name]!.some((text) => servers[name]!.safeParse(text).success), `${name}: some texts are accepted`);
  });
});

t.test('the document\'s JSON text holds no control character and no line separator, and its patterns name a NUL only to exclude it', async (t) => {
  const text = await (await fetch(`${api.baseUrl}/openapi.json`)).text();
  t.notOk(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text), 'no raw control character or line separator');
  const nulElsewhere = [...patternsOf(doc)].filter((pattern) => pattern.replaceAll('[^\\x00', '').includes('\\x00'));
  t.strictSame(nulElsewhere, [], 'a pattern names a NUL only as the character a class excludes, `[^\\x00...]`');
});

/**
 * Rules that tie several inputs together, which JSON Schema cannot state: each operation's
 * description states them instead. A request the document allows may break only these.
 */
const CROSS_FIELD_RULES = new Set([
  'Must be on or after from.',
  'Keys must be unique.',
  'Thresholds must be unique.',
  'Option names must be unique.',
  'Values must be unique within an option.',
  'Must equal counted_cash_xaf: both are the cash counted.',
  'Must be at most 72 bytes.',
  'Required with from.',
  'Required with to.',
  'Give month, or from and to, not both.',
  'Give after or cursor, not both.',
  'Must equal partner_id when both are given.',
  'Required when ids is absent.',
]);

/** The zod schemas the server validates each part of a request with, from the same routes that produce the document. */
const routes = createApp({ config: api.config, sql: api.appSql, appKey: api.runtime.appKey, log: createLogger('silent'), clientAddress: () => undefined })
  .openAPIRegistry.definitions;

function validatorsOf(op: Operation): { part: 'path' | 'query' | 'headers' | 'body'; schema: z.ZodType }[] {
  const route = routes.find((d: any) => d.type === 'route' && d.route.method === op.method && d.route.path === op.path) as any;
  const request = route?.route.request ?? {};
  return [
    ...(request.params ? [{ part: 'path' as const, schema: request.params }] : []),
    ...(request.query ? [{ part: 'query' as const, schema: request.query }] : []),
    ...(request.headers ? [{ part: 'headers' as const, schema: request.headers }] : []),
    // A body that is a file (PUT /shop/logo's image) has no schema to validate: its handler reads its bytes.
    ...(request.body?.content['application/json'] ? [{ part: 'body' as const, schema: request.body.content['application/json'].schema }] : []),
  ];
}

const PUSHED: Record<string, z.ZodType> = { SyncSale: PushedSale, SyncCustomer: PushedCustomer, SyncExpense: PushedExpense, SyncCashMovement: PushedCashMovement };

t.test('every request the document allows passes the server\'s validation: the document states every rule the validators check', async (t) => {
  const run = propertyRun(20_261_123, 60);
  const validator = documentValidator(doc);
  const ctx = { doc, pools: new Map<string, string[]>() };
  const refusals = new Map<string, string>();
  let checked = 0;
  for (const op of operationsOf(doc).filter((o) => o.path.startsWith('/api/v1/'))) {
    const validators = validatorsOf(op);
    const body = bodySchema(op);
    for (const plan of fc.sample(requestOf(ctx, op), { seed: run.seed, numRuns: run.runs })) {
      if (body && plan.body !== undefined) {
        const problems = validator.problems(body, plan.body);
        if (problems.length) throw new Error(`the generator strayed from the document: ${op.name} ${problems.join('; ')}`);
      }
      const parts: [string, z.ZodType, unknown][] = validators.map(({ part, schema }) => [part, schema, part === 'body' ? plan.body : plan[part]]);
      // A pushed record is checked on its own against the component the body's array names as its items.
      for (const [entity, records] of Object.entries((plan.body ?? {}) as Record<string, unknown[]>)) {
        const component: string | undefined = deref(doc, body!).properties?.[entity]?.items?.$ref?.replace('#/components/schemas/', '');
        const record = component === undefined ? undefined : PUSHED[component];
        if (record) records.forEach((item, index) => parts.push([`body.${entity}.${index}`, record, item]));
      }
      for (const [part, schema, value] of parts) {
        if (part === 'body' && value === undefined) continue;
        checked++;
        const result = schema.safeParse(value);
        const issues = result.success ? [] : result.error.issues.filter((issue) => !CROSS_FIELD_RULES.has(issue.message));
        for (const issue of issues) {
          const key = `${op.name} ${part}.${issue.path.join('.')}: ${issue.message}`;
          if (!refusals.has(key)) refusals.set(key, JSON.stringify(value).slice(0, 300));
        }
      }
    }
  }
  t.comment(`fast-check seed ${run.seed}: ${checked} request parts the document allows, checked against the validators`);
  t.strictSame([...refusals].map(([key, value]) => `${key} (${value})`), [], 'no request the document allows is refused by a rule it does not state');
});
