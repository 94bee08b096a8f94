/**
 * Every answer the service sends is JSON in the CONTRACT's shape, the ones the HTTP server gives by
 * itself included (a request it cannot read, headers over its limit, a request that never ends), and
 * every 429 and 503 says when to come back (CONTRACT sections 2 and 16). Raw sockets: a client such as
 * fetch would refuse to send most of these requests.
 */
import t, { type Test } from 'tap';
import { createApp } from '../../api/app.ts';
import { createSql } from '../../api/db.ts';
import type { Deps } from '../../api/env.ts';
import { errors } from '../../api/errors.ts';
import { hasFrench, localise } from '../../api/lib/messages.ts';
import { createLogger } from '../../api/logger.ts';
import { HEADER_SECTION_LIMIT } from '../../api/middleware/header-size.ts';
import { MAX_HEADER_SIZE, nodeClientAddress, serveNode } from '../../api/server.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { createProduct, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { answerJson, exchange, RawConnection, type RawAnswer } from '../support/raw-http.ts';
import { EN } from '../support/replies.ts';
import { startService } from '../support/service.ts';

// Per-address limits read X-Forwarded-For, so that one test can exhaust an address of its own.
const api = await startService(t, { TRUST_PROXY: '1' });
const port = Number(new URL(api.baseUrl).port);
const owner = await registerShop(api);
const product = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 500 });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BAD_REQUEST = { message: 'Bad request.', code: 'bad_request' };
const HEADERS_TOO_LARGE = { message: 'Request header fields too large.', code: 'headers_too_large' };
const REQUEST_TIMEOUT = { message: 'Request timeout.', code: 'request_timeout' };
const NOT_UTF8_FR = 'Doit être un texte UTF-8 valide.';

/** The one answer to `request` on a connection of its own. */
async function answerTo(request: string | Buffer, options: { truncated?: boolean; to?: number } = {}): Promise<RawAnswer> {
  const answers = await exchange(options.to ?? port, request, { truncated: options.truncated });
  if (answers.length !== 1) throw new Error(`expected one answer, got ${answers.length}`);
  return answers[0]!;
}

/** An answer the HTTP server gave by itself: the CONTRACT's shape, every header an answer carries, and the connection closed. */
function fromTheServer(t: Test, answer: RawAnswer, status: number, body: object, what: string): void {
  t.equal(answer.status, status, `${what}: ${status}`);
  t.strictSame(answerJson(answer), body, `${what}: the CONTRACT's shape`);
  t.equal(answer.headers['content-type'], 'application/json', `${what}: Content-Type`);
  t.equal(Number(answer.headers['content-length']), answer.body.length, `${what}: Content-Length`);
  t.match(answer.headers['x-request-id'], UUID, `${what}: X-Request-Id`);
  t.equal(answer.headers['access-control-allow-origin'], '*', `${what}: CORS`);
  t.equal(answer.headers['content-language'], 'en', `${what}: Content-Language`);
  t.equal(answer.headers.connection, 'close', `${what}: Connection: close`);
}

/** The same app in front of `sql`, on its own server with its own request timeout and lifecycle. */
async function ownServer(t: Test, options: { requestTimeoutMs?: number; sql?: Deps['sql']; lifecycle?: Deps['lifecycle'] } = {}): Promise<number> {
  const app = createApp({
    config: api.config,
    sql: options.sql ?? api.appSql,
    appKey: TEST_APP_KEY,
    log: createLogger('silent'),
    clientAddress: nodeClientAddress,
    lifecycle: options.lifecycle,
  });
  const server = await serveNode(app, 0, { hostname: '127.0.0.1', requestTimeoutMs: options.requestTimeoutMs });
  t.teardown(() => server.close(0));
  return server.port;
}

const get = (target: string, headers: Record<string, string> = {}) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;

t.test('a request line and headers between 16 and 64 KiB are a 431 headers_too_large from the app, with the headers of every answer', async (t) => {
  // The issue's case: 3,000 'é' percent-encoded in a query, 18 KB of request line.
  const since = '%C3%A9'.repeat(3_000);
  const reply = await api.request('GET', `/sync/pull?since=${since}`, { token: owner.token, headers: { 'x-request-id': 'req-431', 'accept-language': 'fr' } });
  t.equal(reply.status, 431);
  t.strictSame(reply.body, { message: 'En-têtes de la requête trop volumineux.', code: 'headers_too_large' }, 'in the caller\'s language');
  t.equal(reply.headers.get('x-request-id'), 'req-431', 'the request\'s own id');
  t.equal(reply.headers.get('access-control-allow-origin'), '*');
  t.equal(reply.headers.get('content-language'), 'fr');

  const padded = await api.request('GET', '/auth/me', { headers: { 'x-padding': 'a'.repeat(40_000) } });
  t.strictSame([padded.status, padded.body], [431, HEADERS_TOO_LARGE], 'a header of 40 KB, in English with no Accept-Language');

  const under = await api.request('GET', '/auth/me', { token: owner.token, headers: { 'x-padding': 'a'.repeat(HEADER_SECTION_LIMIT - 1_000) } });
  t.equal(under.status, 200, 'under 16 KiB, the request is served');
});

t.test('a kept-alive connection answered 431 by the app serves its next request', async (t) => {
  const connection = await RawConnection.open(port);
  t.teardown(() => connection.destroy());
  const body = JSON.stringify({ name: 'Riz', price_xaf: 100 });
  connection.write(
    `POST /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n${body}`,
  );
  const refused = await connection.answer();
  t.equal(refused?.status, 431);
  t.equal(answerJson(refused!)?.code, 'headers_too_large');
  connection.write(get('/healthz'));
  t.equal((await connection.answer())?.status, 200, 'the next request on the connection is answered');
});

t.test('headers past 64 KiB are a 431 headers_too_large from the server itself, JSON, and the connection closes', async (t) => {
  const header = await answerTo(get('/api/v1/auth/me', { 'X-Padding': 'a'.repeat(MAX_HEADER_SIZE + 1_000) }));
  fromTheServer(t, header, 431, HEADERS_TOO_LARGE, 'a header of 65 KB');
  const url = await answerTo(get(`/api/v1/sync/pull?since=${'%C3%A9'.repeat(12_000)}`));
  fromTheServer(t, url, 431, HEADERS_TOO_LARGE, 'a URL of 72 KB');
  t.equal((await api.raw('GET', '/healthz')).status, 200, 'the service still serves');
});

t.test('a request the server cannot read as HTTP is a 400 bad_request, JSON, and the connection closes', async (t) => {
  const cases: [string, string, boolean?][] = [
    ['a request line that is not one', 'NOT AN HTTP REQUEST\r\n\r\n'],
    ['an unknown protocol version', 'GET /healthz HTTP/7.3\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a control character in the path', 'GET /heal\u0001thz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a header line with no colon', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n'],
    ['a space before the colon', 'GET /healthz HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n'],
    ['a NUL in a header value', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\u0000b\r\n\r\n'],
    ['Content-Length given twice, differently', 'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['Content-Length and chunked together', 'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a chunk size that is not hexadecimal', 'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['a chunk longer than its size', 'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"a":1}\r\n0\r\n\r\n'],
    ['a chunked body cut short', 'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"email"', true],
    ['headers cut short', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-No', true],
  ];
  for (const [what, request, truncated] of cases) fromTheServer(t, await answerTo(request, { truncated }), 400, BAD_REQUEST, what);
  t.equal((await api.raw('GET', '/healthz')).status, 200, 'the service still serves');
});

t.test('a request Node reads but that names no URL (a backslash in the path, a bad Host, no path) is a 400 bad_request in JSON', async (t) => {
  const cases: [string, string][] = [
    ['a backslash in the path', 'GET /api\\v1/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ['an asterisk for a path', 'GET * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a Host that is no host', 'GET /healthz HTTP/1.1\r\nHost: a b@c\r\n\r\n'],
  ];
  for (const [what, request] of cases) {
    const answer = await answerTo(request);
    t.equal(answer.status, 400, what);
    t.strictSame(answerJson(answer), BAD_REQUEST, `${what}: JSON`);
    t.equal(answer.headers['content-type'], 'application/json', `${what}: Content-Type`);
    t.match(answer.headers['x-request-id'], UUID, `${what}: X-Request-Id`);
    t.equal(answer.headers['access-control-allow-origin'], '*', `${what}: CORS`);
  }
});

t.test('an Expect the server does not know is ignored: the request is served, not a 417 with no body', async (t) => {
  const answer = await answerTo(get('/healthz', { Expect: 'something-else' }));
  t.equal(answer.status, 200);
  t.strictSame(answerJson(answer), { status: 'ok' });
});

t.test('a request that does not arrive whole within the request timeout is a 408 request_timeout in JSON', async (t) => {
  const to = await ownServer(t, { requestTimeoutMs: 1_000 });
  const started = performance.now();
  const body = await answerTo(
    `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email"`,
    { to },
  );
  fromTheServer(t, body, 408, REQUEST_TIMEOUT, 'a body that stops');
  t.ok(performance.now() - started < 4_000, 'answered soon after the timeout');
  fromTheServer(t, await answerTo('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half', { to }), 408, REQUEST_TIMEOUT, 'headers that stop');
});

t.test('every 429 carries Retry-After: a per-address limit, a per-e-mail limit', async (t) => {
  const address = '203.0.113.77';
  await api.ownerSql`insert into rate_limits (bucket, window_started_at, hits) values (${`address:${address}`}, now(), 300)`;
  const pairing = await api.request('GET', '/device-pairings/ABCDEFGH', { headers: { 'x-forwarded-for': address } });
  t.strictSame([pairing.status, pairing.body], [429, { message: 'Too many attempts.', code: 'rate_limited' }], 'the public limit');
  t.ok(Number(pairing.headers.get('retry-after')) > 800 && Number(pairing.headers.get('retry-after')) <= 900, 'what is left of its 15-minute window, started now');
  t.match(pairing.headers.get('access-control-expose-headers'), /Retry-After/, 'a browser may read it');

  const email = uniqueEmail('locked');
  await api.ownerSql`insert into rate_limits (bucket, window_started_at, hits) values (${`login-failures:${email}`}, now(), 10)`;
  const login = await api.request('POST', '/auth/login', { body: { email, password: 'wrong-password' } });
  t.equal(login.status, 429, 'the failed-login limit');
  t.ok(Number(login.headers.get('retry-after')) > 800 && Number(login.headers.get('retry-after')) <= 900, 'what is left of its 15-minute window, started now');
});

t.test('every 503 carries Retry-After: the database away, and /readyz not ready', async (t) => {
  const deadSql = createSql('postgres://nobody@127.0.0.1:1/nothing', { max: 1 });
  t.teardown(() => deadSql.end({ timeout: 0 }));
  const lifecycle = { stopping: false };
  const to = await ownServer(t, { sql: deadSql, lifecycle });

  const me = await answerTo(get('/api/v1/auth/me', { Authorization: `Bearer ${owner.token}` }), { to });
  t.equal(me.status, 503);
  t.equal(answerJson(me)?.code, 'service_unavailable');
  t.equal(me.headers['retry-after'], '1');

  const unready = await answerTo(get('/readyz'), { to });
  t.equal(unready.status, 503);
  t.strictSame(answerJson(unready), { message: 'Database unavailable.', code: 'not_ready' });
  t.equal(unready.headers['retry-after'], '5', 'the database does not answer');

  lifecycle.stopping = true;
  const stopping = await answerTo(get('/readyz'), { to });
  t.strictSame([stopping.status, answerJson(stopping)], [503, { message: 'Shutting down.', code: 'not_ready' }]);
  t.equal(stopping.headers['retry-after'], '5', 'shutting down');

  const ready = await api.raw('GET', '/readyz');
  t.equal(ready.status, 200);
  t.equal(ready.headers.get('retry-after'), null, 'a 200 says nothing of it');
});

t.test('a JSON body that is not UTF-8 is a 400 malformed_json, and nothing is stored', async (t) => {
  const [before] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from products where shop_id = ${owner.shop.id}`;
  const cases: [string, number[]][] = [
    ['a byte that starts nothing (0xFF)', [0xff]],
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding of /', [0xc0, 0xaf]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['a UTF-16 surrogate encoded in UTF-8', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ];
  for (const [what, bytes] of cases) {
    const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('b","price_xaf":100}')]);
    const reply = await fetch(`${api.baseUrl}/api/v1/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body,
    });
    t.equal(reply.status, 400, what);
    t.strictSame(await reply.json(), EN.MALFORMED_JSON, `${what}: malformed_json (read before the caller is known: English)`);
  }
  const [after] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from products where shop_id = ${owner.shop.id}`;
  t.equal(after!.n, before!.n, 'no product was created');

  const push = await fetch(`${api.baseUrl}/api/v1/sync/push`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
    body: Buffer.concat([Buffer.from('{"customers":[{"id":"6f1c2b9e-2d1f-4f7a-9b1e-3c2d1e0f9a8b","name":"Aw'), Buffer.from([0xe9]), Buffer.from('"}]}')]),
  });
  t.strictSame([push.status, await push.json()], [400, EN.MALFORMED_JSON], 'a sync push in Latin-1');

  const valid = await api.request('POST', '/products', { token: owner.token, body: { name: 'Thé 🍵 à la menthe', price_xaf: 100 } });
  t.equal(valid.status, 201, 'valid UTF-8, multi-byte characters included, is taken');
});

t.test('a query or path parameter whose percent-encoding is not UTF-8 is a 422 on its name, never searched as typed', async (t) => {
  // Checked before authentication, as a malformed body is: in the request's language.
  const french = { 'accept-language': 'fr-CM' };
  const cases: [string, string][] = [
    ['/products?q=%FF', 'q'],
    ['/customers?q=caf%E9', 'q'],
    ['/customers/find-by-card?card_no=12%C3', 'card_no'],
    ['/sync/pull?since=%ED%A0%80', 'since'],
    [`/products/%FF`, 'id'],
    [`/products/${product.id}/movements?cursor=%C0%AF`, 'cursor'],
    ['/device-pairings/ABCD%FFEF', 'code'],
  ];
  for (const [path, key] of cases) {
    const reply = await api.request('GET', path, { token: owner.token, headers: french });
    t.equal(reply.status, 422, path);
    t.equal(reply.body.code, 'validation_failed', `${path}: validation_failed`);
    t.strictSame(reply.body.errors, { [key]: [NOT_UTF8_FR] }, `${path}: on ${key}`);
  }
  const found = await api.request('GET', '/products?q=Sav%6Fn', { token: owner.token });
  t.strictSame(found.body.data?.map((p: { id: string }) => p.id), [product.id], 'valid escapes are decoded');
  t.equal((await api.request('GET', '/products?q=50%', { token: owner.token })).status, 200, 'a lone % is a character, as browsers send it');
});

t.test('the new answers\' messages have French texts', async (t) => {
  for (const error of [errors.badRequest(), errors.requestTimeout(), errors.headersTooLarge()]) {
    t.ok(hasFrench(error.message), `${error.code}: ${error.message}`);
    t.not(localise(error.message, 'fr'), error.message, `${error.code}: ${localise(error.message, 'fr')}`);
  }
  t.equal(localise('Must be valid UTF-8.', 'fr'), NOT_UTF8_FR);
});
