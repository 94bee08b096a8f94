import fc from 'fast-check';
import t from 'tap';
import type { z } from 'zod';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../api/logger.ts';
import { TEXT_PATTERNS } from '../../api/schemas.ts';
import { PushedCashMovement, PushedCustomer, PushedExpense, PushedSale } from '../../api/sync/schemas.ts';
import { bodySchema, deref, operationsOf, requestOf, requestSchemas, visitSchemas, type Operation } from '../support/openapi-arbitraries.ts';
import { documentValidator } from '../support/openapi-validator.ts';
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
    if (op.spec.security) expect('401', 'it needs credentials');
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

/** Formats whose own pattern (stated beside them) admits ASCII only. */
const ASCII_FORMATS = new Set(['uuid', 'email', 'date', 'date-time']);
/** Other patterns of inputs, each admitting digits and separators only. */
const ASCII_PATTERNS = new Set(['^([01]\\d|2[0-3]):[0-5]\\d$', '^(000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})-(0[1-9]|1[0-2])$']);

t.test('every text input of every operation goes through the shared text schema, which refuses NUL and lone surrogates', async (t) => {
  const storable = new RegExp(TEXT_PATTERNS.storable, 'u');
  t.notOk(storable.test('a\u0000b') || storable.test('\ud800') || storable.test('x\udc00') || storable.test('\udc00\ud800'), 'the pattern refuses them');
  t.ok(storable.test('Thé vert 🍵 𝄞'), 'and takes any other character');
  for (const pattern of ASCII_PATTERNS) t.notOk(new RegExp(pattern, 'u').test('1\u00002:00'), `${pattern} admits no NUL`);
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
        if (ASCII_FORMATS.has(s.format) && s.pattern) return;
        if (s.pattern === TEXT_PATTERNS.storable || s.pattern === TEXT_PATTERNS.filled || ASCII_PATTERNS.has(s.pattern)) return;
        strays.push(`${op.name} ${at}`);
      });
    }
  }
  t.ok(inputs > 150, `${inputs} text inputs checked`);
  t.strictSame(strays, [], 'build string inputs on Text, requiredText or optionalText (api/schemas.ts), never on a raw z.string()');
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
    ...(request.body ? [{ part: 'body' as const, schema: request.body.content['application/json'].schema }] : []),
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
      // A pushed record is checked on its own against the component the body names.
      for (const [entity, records] of Object.entries((plan.body ?? {}) as Record<string, unknown[]>)) {
        const component = deref(doc, body!).properties?.[entity]?.['x-record-schema'];
        if (component) records.forEach((record, index) => parts.push([`body.${entity}.${index}`, PUSHED[component]!, record]));
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
