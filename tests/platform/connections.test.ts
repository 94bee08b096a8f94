/**
 * What clients that reuse connections (tills, browsers, Node's fetch, load balancers) rely on: a
 * kept-alive connection stays usable after any answer, refusals included, and is never closed by the
 * server while its client still counts on it.
 */
import { Agent, request } from 'node:http';
import t, { type Test } from 'tap';
import { addStaff, registerShop } from '../support/fixtures.ts';
import { FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const { port } = new URL(api.baseUrl);

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** Whether the request went out on a connection an earlier request had used. */
  reused: boolean;
}

/** One request through `agent` (keep-alive, one socket: a second request reuses the first's connection when it can). */
function send(agent: Agent, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : text, headers: res.headers, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const keptAlive = (t: Test) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  return agent;
};

// About 265 KB: far under the 1 MiB limit, far over what a socket buffers.
const largeCounts = JSON.stringify({ counts: Array.from({ length: 6_000 }, () => ({ item_id: '00000000-0000-4000-8000-000000000000', counted_quantity: 1 })) });

t.test('a request refused before its body mattered (401, 403) leaves the kept-alive connection usable', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const agent = keptAlive(t);
  const path = '/api/v1/stocktakes/00000000-0000-4000-8000-000000000000/counts';
  const forbidden = await send(agent, 'POST', path, { authorization: `Bearer ${cashier.token}`, 'content-type': 'application/json' }, largeCounts);
  t.equal(forbidden.status, 403);
  t.same(forbidden.body, FORBIDDEN);
  const next = await send(agent, 'GET', '/api/v1/auth/me', { authorization: `Bearer ${cashier.token}` });
  t.same([next.status, next.reused], [200, true], 'the next request on the same connection is answered');

  const unauthenticated = await send(agent, 'POST', path, { 'content-type': 'application/json' }, largeCounts);
  t.equal(unauthenticated.status, 401);
  const after = await send(agent, 'GET', '/healthz');
  t.same([after.status, after.reused], [200, true], 'and after a 401 too');
});

t.test('a body over the limit is refused with Connection: close, and the client simply opens a new connection', async (t) => {
  const agent = keptAlive(t);
  const tooLarge = await send(agent, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'a@b.cm', password: 'x'.repeat(1024 * 1024) }));
  t.equal(tooLarge.status, 413);
  t.equal(tooLarge.headers.connection, 'close');
  const next = await send(agent, 'GET', '/healthz');
  t.same([next.status, next.reused], [200, false], 'answered on a new connection');
});

t.test('kept-alive connections outlive the usual idle timeouts: one idle for 6 seconds still serves the next request', async (t) => {
  const agent = keptAlive(t);
  const first = await send(agent, 'GET', '/healthz');
  t.equal(first.headers['keep-alive'], 'timeout=65', 'the server tells clients it keeps connections 65 s');
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const second = await send(agent, 'GET', '/healthz');
  t.same([second.status, second.reused], [200, true], 'the connection idle for 6 s (longer than Node\'s default 5 s) was still open');
});

t.test('10,000 requests from 16 clients reusing connections with Node\'s fetch: none fails', async (t) => {
  const owner = await registerShop(api);
  let answered = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: 16 }, async (_, client) => {
      for (let i = 0; i < 625; i++) {
        try {
          // One request in ten reaches the database, the others are answered at once.
          const response = await fetch(i % 10 === 0 ? `${api.baseUrl}/api/v1/auth/me` : `${api.baseUrl}/healthz`, { headers: { authorization: `Bearer ${owner.token}` } });
          await response.arrayBuffer();
          if (response.status === 200) answered++;
          else failures.push(`status ${response.status}`);
        } catch (error) {
          failures.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
        }
        // Now and then a client pauses, so connections also sit idle between requests.
        if (i % 125 === 124 && client % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }),
  );
  t.same(failures.slice(0, 10), []);
  t.equal(answered, 10_000);
});

t.test('a body that is not JSON is a 415 unsupported_media_type in the CONTRACT\'s shape', async (t) => {
  const agent = keptAlive(t);
  const reply = await send(agent, 'POST', '/api/v1/auth/login', { 'content-type': 'text/plain' }, 'email=a@b.cm');
  t.equal(reply.status, 415);
  t.same(reply.body, { message: 'Unsupported media type: send application/json.', code: 'unsupported_media_type' });
});

t.test('an operation whose body is optional takes an empty body whatever its declared type', async (t) => {
  const agent = keptAlive(t);
  const reply = await send(agent, 'POST', '/api/v1/device-pairings', { 'content-type': 'text/plain' }, '');
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.match(reply.body, { data: { code: String } });
});
