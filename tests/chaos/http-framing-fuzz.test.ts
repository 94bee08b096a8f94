/**
 * Malformed HTTP on raw sockets, where tests/chaos/fuzz.test.ts sends well-formed requests with bad
 * contents: random bytes in request lines, headers and bodies, oversize headers and URLs, broken
 * chunked framing, lengths that lie, bodies cut short, and text that is not UTF-8 in the body, the
 * query and the path. Every answer, the HTTP server's own included, is JSON in the CONTRACT's shape
 * with a snake_case code, an `X-Request-Id` and the CORS header, never a 5xx; every request gets an
 * answer; and the service keeps serving. Fixed seed; FC_SEED and FC_RUNS run another sample.
 */
import fc from 'fast-check';
import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { answerJson, exchange, type RawAnswer } from '../support/raw-http.ts';
import { startService } from '../support/service.ts';

const RUN = propertyRun(20_261_201, 800);

const api = await startService(t);
const port = Number(new URL(api.baseUrl).port);
const owner = await registerShop(api);
const product = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 500 }, 10);

interface Case {
  what: string;
  bytes: Buffer;
  /** Incomplete on purpose: the client's end of the connection is what the server answers. */
  truncated: boolean;
}

type Part = string | Uint8Array;
const bytesOf = (...parts: Part[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

/** The requests the faults are injected into: public and authenticated, with and without a body. */
const BASES = [
  { method: 'GET', target: '/healthz', body: undefined },
  { method: 'GET', target: '/api/v1/auth/me', body: undefined },
  { method: 'GET', target: '/api/v1/products?q=Sav', body: undefined },
  { method: 'GET', target: `/api/v1/products/${product.id}`, body: undefined },
  { method: 'GET', target: '/api/v1/sync/pull', body: undefined },
  { method: 'POST', target: '/api/v1/products', body: '{"name":"Fuzz","price_xaf":100}' },
  { method: 'POST', target: '/api/v1/customers', body: '{"name":"Awa Fuzz"}' },
  { method: 'PUT', target: '/api/v1/profile', body: '{"name":"Awa"}' },
] as const;

const base = fc.constantFrom(...BASES);
/** Bytes with neither CR nor LF: they cannot end a line, nor the headers. */
const lineBytes = (maxLength: number) => fc.uint8Array({ minLength: 1, maxLength }).map((bytes) => bytes.map((b) => (b === 10 || b === 13 ? 0x7f : b)));
const highBytes = fc.uint8Array({ minLength: 1, maxLength: 6 }).map((bytes) => bytes.map((b) => 0x80 | b));
const percentEncoded = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

function request(options: { method?: Part; target?: Part; version?: Part; separator?: string; headers?: Part[]; body?: Part; contentLength?: number | null; auth?: boolean }): Buffer {
  const { method = 'GET', target = '/healthz', version = 'HTTP/1.1', separator = ' ', headers = [], body, auth = true } = options;
  const lines: Part[] = [bytesOf(method, separator, target, separator, version), 'Host: 127.0.0.1'];
  if (auth) lines.push(`Authorization: Bearer ${owner.token}`);
  if (body !== undefined) {
    lines.push('Content-Type: application/json');
    const length = options.contentLength === undefined ? bytesOf(body).length : options.contentLength;
    if (length !== null) lines.push(`Content-Length: ${length}`);
  }
  lines.push(...headers);
  return bytesOf(...lines.flatMap((line) => [line, '\r\n']), '\r\n', body ?? '');
}

const requestLine: fc.Arbitrary<Case> = fc
  .record({
    base,
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'get', 'FOO', 'GE T', 'G\u0000T'), lineBytes(8)),
    splice: lineBytes(6),
    at: fc.nat(),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'http/1.1', '', 'HTTP/1.1 extra', 'HTTP/01.1'),
    separator: fc.constantFrom(' ', '  ', '\t'),
    mutate: fc.constantFrom('method', 'target', 'version', 'separator'),
  })
  .map(({ base, method, splice, at, version, separator, mutate }) => {
    const position = at % (base.target.length + 1);
    const target = bytesOf(base.target.slice(0, position), splice, base.target.slice(position));
    return {
      what: `request line (${mutate})`,
      truncated: false,
      bytes: request({
        method: mutate === 'method' ? method : base.method,
        target: mutate === 'target' ? target : base.target,
        version: mutate === 'version' ? version : 'HTTP/1.1',
        separator: mutate === 'separator' ? separator : ' ',
        body: base.body,
      }),
    };
  });

const headerLine: fc.Arbitrary<Part> = fc.oneof(
  fc.tuple(lineBytes(12), fc.uint8Array({ maxLength: 30 })).map(([name, value]) => bytesOf(name, ': ', value.map((b) => (b === 10 || b === 13 ? 0x20 : b)))),
  fc.tuple(fc.constantFrom('X-Note', 'Accept-Language', 'X-Request-Id', 'Content-Type', 'Authorization', 'Origin'), lineBytes(40)).map(([name, value]) => bytesOf(name, ': ', value)),
  fc.constantFrom(
    'no colon here',
    ' folded continuation',
    'Content-Length: 7',
    'Content-Length: -1',
    'Content-Length: 1e3',
    'Transfer-Encoding: gzip',
    'Transfer-Encoding: chunked, identity',
    'Host: second.example',
    'Expect: 100-continue',
    'Expect: teapot',
    'Connection: Upgrade',
    ': empty name',
    'X-Bare: a\rb',
  ),
);

const headers: fc.Arbitrary<Case> = fc.record({ base, extra: fc.array(headerLine, { minLength: 1, maxLength: 4 }) }).map(({ base, extra }) => ({
  what: 'header lines',
  truncated: false,
  bytes: request({ method: base.method, target: base.target, body: base.body, headers: extra }),
}));

const oversize: fc.Arbitrary<Case> = fc
  .record({ base, size: fc.integer({ min: 15_000, max: 90_000 }), where: fc.constantFrom('header', 'url') })
  .map(({ base, size, where }) => ({
    what: `oversize ${where} (${size} bytes)`,
    truncated: false,
    bytes:
      where === 'header'
        ? request({ method: base.method, target: base.target, body: base.body, headers: [`X-Padding: ${'a'.repeat(size)}`] })
        : request({ method: 'GET', target: `/api/v1/sync/pull?since=${'%C3%A9'.repeat(Math.ceil(size / 6))}` }),
  }));

const CHUNKED_BODIES: [string, Part, boolean][] = [
  ['valid', '1f\r\n{"name":"Fuzz","price_xaf":100}\r\n0\r\n\r\n', false],
  ['a size that is not hexadecimal', 'zz\r\n{}\r\n0\r\n\r\n', false],
  ['a chunk longer than its size', '2\r\n{"name":"x"}\r\n0\r\n\r\n', false],
  ['no CRLF after the data', '2\r\n{}XX0\r\n\r\n', false],
  ['a negative size', '-1\r\n{}\r\n0\r\n\r\n', false],
  ['a size past 64 bits', 'fffffffffffffffffffff\r\n{}\r\n0\r\n\r\n', false],
  ['chunk extensions over the limit', `2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, false],
  ['a bare LF after the size', '2\n{}\r\n0\r\n\r\n', false],
  ['no last chunk', '2\r\n{}\r\n', true],
  ['cut inside a chunk', '10\r\n{"name', true],
];

const chunked: fc.Arbitrary<Case> = fc
  .record({ target: fc.constantFrom('/api/v1/products', '/api/v1/auth/login', '/api/v1/sync/push'), body: fc.constantFrom(...CHUNKED_BODIES), alsoLength: fc.boolean() })
  .map(({ target, body: [what, body, truncated], alsoLength }) => ({
    what: `chunked: ${what}${alsoLength ? ', with a Content-Length too' : ''}`,
    truncated: truncated && !alsoLength,
    bytes: request({ method: 'POST', target, body, contentLength: alsoLength ? 5 : null, headers: ['Transfer-Encoding: chunked'] }),
  }));

const bodyNotUtf8: fc.Arbitrary<Case> = fc
  .record({ target: fc.constantFrom('/api/v1/products', '/api/v1/customers', '/api/v1/sync/push', '/api/v1/auth/login'), bytes: highBytes, at: fc.constantFrom('value', 'key', 'outside') })
  .map(({ target, bytes, at }) => {
    const body =
      at === 'value' ? bytesOf('{"name":"a', bytes, 'b","price_xaf":100}') : at === 'key' ? bytesOf('{"na', bytes, 'me":"a","price_xaf":100}') : bytesOf('{"name":"a"}', bytes);
    return { what: `body bytes ${Buffer.from(bytes).toString('hex')} in a ${at}`, truncated: false, bytes: request({ method: 'POST', target, body }) };
  });

const urlNotUtf8: fc.Arbitrary<Case> = fc
  .record({ bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }), where: fc.constantFrom('/api/v1/products/', '/api/v1/products?q=', '/api/v1/sync/pull?since=', '/api/v1/device-pairings/', '/api/v1/customers?', '/healthz?') })
  .map(({ bytes, where }) => ({ what: `${where}${percentEncoded(bytes)}`, truncated: false, bytes: request({ target: `${where}${percentEncoded(bytes)}` }) }));

const lengthLies: fc.Arbitrary<Case> = fc.record({ base: fc.constantFrom(...BASES.filter((b) => b.body)), by: fc.integer({ min: -20, max: 40 }).filter((n) => n !== 0) }).map(({ base, by }) => ({
  what: `Content-Length off by ${by}`,
  // A longer declared length waits for bytes that never come: the connection's end says so.
  truncated: by > 0,
  bytes: request({ method: base.method, target: base.target, body: base.body, contentLength: Math.max(0, Buffer.byteLength(base.body!) + by) }),
}));

const garbage: fc.Arbitrary<Case> = fc.record({ method: fc.constantFrom('GET ', 'POST ', ''), bytes: lineBytes(200) }).map(({ method, bytes }) => ({
  what: `${method || 'no method, '}random bytes, cut short`,
  truncated: true,
  bytes: bytesOf(method, bytes),
}));

const malformed = fc.oneof(requestLine, headers, oversize, chunked, bodyNotUtf8, urlNotUtf8, lengthLies, garbage);

/** What is wrong with an answer, measured against CONTRACT sections 2 and 16; none when it follows them. */
function problemsOf(answer: RawAnswer): string[] {
  const problems: string[] = [];
  if (!(answer.status >= 200 && answer.status < 500)) problems.push(`status ${answer.status}`);
  if (answer.status < 400) return problems;
  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? '')) problems.push(`Content-Type ${answer.headers['content-type']}`);
  const body = answerJson(answer);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [...problems, `a body that is no JSON object: ${JSON.stringify(answer.body.toString('latin1').slice(0, 100))}`];
  const extra = Object.keys(body).filter((key) => !['message', 'code', 'errors'].includes(key));
  if (extra.length) problems.push(`keys beyond message, code and errors: ${extra.join(', ')}`);
  if (typeof body.message !== 'string' || !body.message) problems.push('no message');
  if (typeof body.code !== 'string' || !/^[a-z]+(_[a-z]+)*$/.test(body.code)) problems.push(`no snake_case code: ${body.code}`);
  if (!answer.headers['x-request-id']) problems.push('no X-Request-Id');
  if (answer.headers['access-control-allow-origin'] !== '*') problems.push('no CORS header');
  if ((answer.status === 429 || answer.status === 503) && !/^\d+$/.test(answer.headers['retry-after'] ?? '')) problems.push('no Retry-After');
  return problems;
}

t.test('every malformed request is answered, in the CONTRACT\'s shape, never with a 5xx, and the service keeps serving', async (t) => {
  const statuses = new Map<string, number>();
  const property = fc.asyncProperty(malformed, async ({ what, bytes, truncated }) => {
    const answers = await exchange(port, bytes, { truncated });
    if (!answers.length) throw new Error(`${what}: no answer`);
    for (const answer of answers) {
      const problems = problemsOf(answer);
      if (problems.length) throw new Error(`${what}: ${answer.status} ${problems.join('; ')}`);
      const key = `${answer.status} ${answerJson(answer)?.code ?? ''}`.trim();
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
  });
  await checkProperty(t, property, RUN, 'malformed requests', 60_000);
  t.comment([...statuses].sort().map(([key, n]) => `${key}: ${n}`).join(', '));

  t.equal((await api.raw('GET', '/healthz')).status, 200, 'the service still answers');
  const me = await api.request('GET', '/auth/me', { token: owner.token });
  t.equal(me.status, 200, 'and serves its users');
  const sale = await api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 500 }] } });
  t.equal(sale.status, 201, 'a sale still records');
});
