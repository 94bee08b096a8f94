import { Writable } from 'node:stream';
import { Hono } from 'hono';
import t from 'tap';
import { z } from 'zod';
import { createApp } from '../../api/app.ts';
import type { AppEnv } from '../../api/env.ts';
import { fromZodError, handleError, toAppError } from '../../api/errors.ts';
import { createLogger } from '../../api/logger.ts';
import { serveNode } from '../../api/server.ts';
import { installValidationMessages } from '../../api/validation.ts';
import { PASSWORD, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const shop = await registerShop(api);

t.test('a body that is not valid JSON is a 400 malformed_json', async (t) => {
  const reply = await api.request('POST', '/auth/login', { rawBody: '{"email": ' });
  t.equal(reply.status, 400);
  t.same(reply.body, { message: 'Malformed JSON.', code: 'malformed_json' });
});

t.test('a body over 1 MiB is a 413 payload_too_large', async (t) => {
  const oversized = JSON.stringify({ email: 'a@b.cm', password: 'x'.repeat(1024 * 1024) });
  const reply = await api.request('POST', '/auth/login', { rawBody: oversized });
  t.equal(reply.status, 413);
  t.same(reply.body, { message: 'Payload too large.', code: 'payload_too_large' });
});

t.test('a body of just under 1 MiB is read and validated', async (t) => {
  const body = JSON.stringify({ email: 'a@b.cm', password: 'x'.repeat(1024 * 1024 - 100) });
  const reply = await api.request('POST', '/auth/login', { rawBody: body });
  t.equal(reply.status, 422, 'validated (password too long), not refused for size');
  t.same(Object.keys(reply.body.errors), ['password']);
});

t.test('an unknown route is a 404 Not found.', async (t) => {
  for (const [method, path] of [['GET', '/api/v1/nothing-here'], ['POST', '/api/v1/shop/elsewhere'], ['GET', '/nowhere']] as const) {
    const reply = await api.raw(method, path);
    t.equal(reply.status, 404, `${method} ${path}`);
    t.same(reply.body, { message: 'Not found.', code: 'not_found' });
  }
});

t.test('another method on a path that exists is a 405 Method not allowed, with the methods it takes in Allow', async (t) => {
  for (const [method, path, allow] of [
    ['DELETE', '/api/v1/shop', 'GET, HEAD, PUT'],
    ['PATCH', '/api/v1/sales/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ['GET', '/api/v1/auth/login', 'POST'],
    ['PUT', '/healthz', 'GET, HEAD'],
  ] as const) {
    const reply = await api.raw(method, path);
    t.equal(reply.status, 405, `${method} ${path}`);
    t.same(reply.body, { message: 'Method not allowed.', code: 'method_not_allowed' });
    t.equal(reply.headers.get('allow'), allow, `${path} takes ${allow}`);
  }
});

t.test('validation failures are 422 with messages keyed by input name', async (t) => {
  const reply = await api.request('POST', '/auth/login', { body: { email: 'not-an-email' } });
  t.equal(reply.status, 422);
  t.equal(reply.body.message, 'The given data was invalid.');
  t.equal(reply.body.code, 'validation_failed');
  t.same(reply.body.errors, { email: ['Must be a valid e-mail address.'], password: ['This field is required.'] });
});

t.test('nested inputs are keyed by dotted path', async (t) => {
  installValidationMessages();
  const schema = z.object({ items: z.array(z.object({ quantity: z.number().positive() })).min(1) });
  const result = schema.safeParse({ items: [{ quantity: 1 }, { quantity: -2 }] });
  t.equal(result.success, false);
  const error = fromZodError(result.error!);
  t.equal(error.status, 422);
  t.same(error.errors, { 'items.1.quantity': ['Must be more than 0.'] });
});

t.test('a business rule raised in PL/pgSQL becomes a 422 on its input with its own code', async (t) => {
  const failure = await api.appSql`select raise_app_error(422, 'insufficient_stock', 'Not enough stock.', 'items.0.quantity')`.catch((e) => e);
  const error = toAppError(failure);
  t.equal(error.status, 422);
  t.equal(error.code, 'insufficient_stock');
  t.same(error.errors, { 'items.0.quantity': ['Not enough stock.'] });
});

t.test('a state conflict raised in PL/pgSQL becomes a 409 with its code and sentence', async (t) => {
  const failure = await api.appSql`select raise_app_error(409, 'sale_already_voided', 'This sale is already voided.')`.catch((e) => e);
  const error = toAppError(failure);
  t.equal(error.status, 409);
  t.equal(error.code, 'sale_already_voided');
  t.equal(error.message, 'This sale is already voided.');
});

t.test('anything unexpected is a 500 Server Error. with no stack or SQL', async (t) => {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.get('/boom', () => {
    throw new Error('select password_hash from users -- at file.ts:12');
  });
  const reply = await app.request('/boom');
  t.equal(reply.status, 500);
  t.same(await reply.json(), { message: 'Server Error.', code: 'server_error' });
});

t.test('every answer carries X-Request-Id, taken from the request when given', async (t) => {
  const given = await api.raw('GET', '/healthz', { headers: { 'x-request-id': 'till-42-abc' } });
  t.equal(given.headers.get('x-request-id'), 'till-42-abc');
  const generated = await api.request('GET', '/nothing');
  t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
});

t.test('logs are JSON lines with the request id and never a password or token', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const log = createLogger('debug', 'pos', sink);
  const app = createApp({ config: api.config, sql: api.appSql, appKey: api.runtime.appKey, log, clientAddress: () => '127.0.0.1' });
  const server = await serveNode(app, 0, { hostname: '127.0.0.1' });
  t.teardown(() => server.close(0));
  const response = await fetch(`http://127.0.0.1:${server.port}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'login-trace-1' },
    body: JSON.stringify({ email: shop.email, password: PASSWORD }),
  });
  const { data } = (await response.json()) as { data: { token: string } };
  await fetch(`http://127.0.0.1:${server.port}/api/v1/auth/me`, { headers: { authorization: `Bearer ${data.token}` } });
  t.ok(lines.length >= 2);
  const entries = lines.map((line) => JSON.parse(line));
  t.ok(entries.some((entry) => entry.req_id === 'login-trace-1' && entry.path === '/api/v1/auth/login' && entry.status === 200));
  const everything = lines.join('\n');
  t.notOk(everything.includes(PASSWORD), 'no password');
  t.notOk(everything.includes(data.token), 'no token');
});

t.test('browser tills on another origin may call the API (CORS), and see the request id', async (t) => {
  const preflight = await api.request('OPTIONS', '/auth/login', {
    headers: { origin: 'https://till.example.cm', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
  });
  t.equal(preflight.status, 204);
  t.equal(preflight.headers.get('access-control-allow-origin'), '*');
  t.match(preflight.headers.get('access-control-allow-headers'), /Authorization/);
  const reply = await api.request('GET', '/auth/me', { headers: { origin: 'https://till.example.cm' } });
  t.equal(reply.headers.get('access-control-allow-origin'), '*');
  t.match(reply.headers.get('access-control-expose-headers'), /X-Request-Id/);
});
