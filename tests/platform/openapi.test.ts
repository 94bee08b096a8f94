import t from 'tap';
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
    ['/healthz', 'get'],
    ['/readyz', 'get'],
  ];
  for (const [path, method] of expected) t.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
});

t.test('request bounds come from the same zod schemas that validate', async (t) => {
  const register = doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].schema;
  const schema = register.$ref ? doc.components.schemas[register.$ref.split('/').pop()] : register;
  t.equal(schema.properties.shop_name.maxLength, 160);
  t.equal(schema.properties.password.minLength, 8);
  t.same(schema.properties.phone, { type: ['string', 'null'], maxLength: 40 });
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
