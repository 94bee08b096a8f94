/**
 * What the logs say of a request: its line names the route that answered (its template), the shop
 * and user, and the client's address; and a job it queued is logged by the worker with the same
 * request id, so one search for `req_id` finds the request and what it set going.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../api/logger.ts';
import { nodeClientAddress, serveNode } from '../../api/server.ts';
import { startWorker } from '../../worker/worker.ts';
import { createCustomer, setShop } from '../sales/sale-fixtures.ts';
import { offlineSale } from '../sync/sync-fixtures.ts';
import { createProduct, registerShop, waitFor } from '../support/fixtures.ts';
import { send, startService, type Service } from '../support/service.ts';

const api = await startService(t);

/** A logger whose JSON lines the test reads. */
function capturedLog(): { log: ReturnType<typeof createLogger>; lines: () => Record<string, any>[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger('info', 'pos', sink), lines: () => lines.map((line) => JSON.parse(line)) };
}

// The app behind one proxy (TRUST_PROXY=1), its lines captured; `logged` sends to it.
const web = capturedLog();
const app = createApp({ config: { ...api.config, TRUST_PROXY: 1 }, sql: api.appSql, appKey: api.runtime.appKey, log: web.log, clientAddress: nodeClientAddress });
const server = await serveNode(app, 0, { hostname: '127.0.0.1' });
t.teardown(() => server.close(0));
const base = `http://127.0.0.1:${server.port}`;
const logged: Service = { ...api, baseUrl: base, request: (method, path, options) => send(`${base}/api/v1${path}`, method, options), raw: (method, path, options) => send(`${base}${path}`, method, options) };

const requestLine = (reqId: string) => web.lines().find((line) => line.req_id === reqId && line.msg === 'request');

t.test('a request\'s line names its route template, its shop and user, and the client\'s address', async (t) => {
  const shop = await registerShop(logged);
  const missing = randomUUID();
  const reply = await logged.request('GET', `/products/${missing}`, { token: shop.token, headers: { 'x-request-id': 'trace-read-1', 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
  t.equal(reply.status, 404);
  t.match(requestLine('trace-read-1'), {
    method: 'GET',
    path: `/api/v1/products/${missing}`,
    route: '/api/v1/products/:id',
    status: 404,
    shop_id: shop.shop.id,
    user_id: shop.user.id,
    address: '203.0.113.9',
  }, 'the address the one trusted proxy saw, as the rate limits read it');
  await logged.raw('GET', '/healthz', { headers: { 'x-request-id': 'trace-public-1' } });
  t.match(requestLine('trace-public-1'), { route: '/healthz', shop_id: null, user_id: null, address: '127.0.0.1' }, 'no credentials: no shop, no user; no proxy header: the socket\'s address');
  await logged.raw('GET', '/no/such/path', { headers: { 'x-request-id': 'trace-unknown-1' } });
  t.match(requestLine('trace-unknown-1'), { route: 'unmatched', status: 404 });
  const everything = JSON.stringify(web.lines());
  t.notOk(everything.includes(shop.token), 'never a token');
});

t.test('the jobs a request queues are logged by the worker with that request\'s id', async (t) => {
  const owner = await registerShop(logged, { locale: 'en' });
  await setShop(logged, owner, { allow_negative_stock: true });
  const customer = await createCustomer(logged, owner.token, { email: 'awa@example.cm' });
  const [forReceipt, forAlert, forPush] = [await createProduct(logged, owner.token, {}, 5), await createProduct(logged, owner.token, {}, 1), await createProduct(logged, owner.token, {}, 1)];
  const cash = [{ method: 'cash', amount_xaf: 100_000 }];

  // POST /sales on its own statement (sale_submit): the receipt e-mail.
  const receipt = await logged.request('POST', '/sales', {
    token: owner.token,
    headers: { 'x-request-id': 'trace-receipt' },
    body: { customer_id: customer.id, items: [{ product_id: forReceipt.id, quantity: 1 }], payments: cash },
  });
  t.equal(receipt.status, 201);
  // POST /sales in the request's transaction (an Idempotency-Key): a stock alert.
  const negative = await logged.request('POST', '/sales', {
    token: owner.token,
    headers: { 'x-request-id': 'trace-alert', 'idempotency-key': randomUUID() },
    body: { items: [{ product_id: forAlert.id, quantity: 3 }], payments: cash },
  });
  t.equal(negative.status, 201);
  // A sync push, each record in a transaction of its own: a stock alert.
  const pushed = await logged.request('POST', '/sync/push', { token: owner.token, headers: { 'x-request-id': 'trace-push' }, body: { sales: [offlineSale(randomUUID(), forPush.id, 2)] } });
  t.equal(pushed.status, 200);
  t.equal(pushed.body.data.results[0].status, 'applied');

  const jobs = await api.ownerSql<{ task: string; req_id: string | null; product_id: string | null }[]>`
    select k.identifier as task, j.payload ->> 'req_id' as req_id, j.payload ->> 'product_id' as product_id
      from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier in ('sale__email_receipt', 'stock__negative_alert')`;
  t.same(
    jobs.map((job) => [job.task, job.product_id, job.req_id]).sort(),
    [
      ['sale__email_receipt', null, 'trace-receipt'],
      ['stock__negative_alert', forAlert.id, 'trace-alert'],
      ['stock__negative_alert', forPush.id, 'trace-push'],
    ].sort(),
    'each job carries the id of the request that queued it',
  );

  const jobs_ = capturedLog();
  const runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: undefined, DATA_DIR: await mkdtemp(path.join(tmpdir(), 'pos-request-logs-')) } };
  const worker = await startWorker(runtime, jobs_.log);
  t.teardown(() => worker.stop());
  const workerLine = (reqId: string, msg: RegExp) => jobs_.lines().find((line) => line.req_id === reqId && msg.test(line.msg));
  for (const [reqId, task, sent] of [
    ['trace-receipt', 'sale__email_receipt', /^receipt e-mail sent$/],
    ['trace-alert', 'stock__negative_alert', /^stock alert sent$/],
    ['trace-push', 'stock__negative_alert', /^stock alert sent$/],
  ] as const) {
    t.ok(requestLine(reqId), `the API logged ${reqId}`);
    t.match(await waitFor(() => workerLine(reqId, sent), `${task} of ${reqId}`), { task }, `the task's own line carries ${reqId}`);
    t.match(await waitFor(() => workerLine(reqId, /^Completed task/), `${task} of ${reqId} completed`), { job: { task } }, 'and graphile-worker\'s line for the job');
  }
  t.notOk(JSON.stringify(jobs_.lines()).includes('awa@example.cm'), 'never the payload');
});
