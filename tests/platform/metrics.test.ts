/**
 * Metrics (CONTRACT section 16): GET /metrics on the web port and on the worker's WORKER_METRICS_PORT,
 * Prometheus text for the holder of METRICS_TOKEN only, a 404 where the setting is unset.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../api/logger.ts';
import { registerShop, uniqueEmail, waitFor } from '../support/fixtures.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { freePort, launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const TOKEN = 'metrics-token-for-the-tests-0123';
const api = await startService(t, { METRICS_TOKEN: TOKEN });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, name, labels, value] = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      return { name: name!, labels: Object.fromEntries([...(labels ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!])), value: Number(value) };
    });
}

/** The value of the sample named so whose labels include `labels`; undefined when there is none. */
function valueOf(all: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return all.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function scrape(): Promise<Sample[]> {
  const reply = await api.raw('GET', '/metrics', { headers: bearer(TOKEN) });
  if (reply.status !== 200) throw new Error(`scrape failed: ${reply.status}`);
  return samples(String(reply.body));
}

const UNAUTHENTICATED = { message: 'Unauthenticated.', code: 'unauthenticated' };

t.test('without METRICS_TOKEN, GET /metrics is a 404 as any unknown path, token or not', async (t) => {
  const app = createApp({ config: { ...api.config, METRICS_TOKEN: undefined }, sql: api.appSql, appKey: TEST_APP_KEY, log: createLogger('silent'), clientAddress: () => '127.0.0.1' });
  const unknown = await app.request('/no/such/path');
  for (const headers of [{}, bearer(TOKEN)]) {
    const reply = await app.request('/metrics', { headers });
    t.equal(reply.status, 404);
    t.same(await reply.json(), await unknown.clone().json());
  }
});

t.test('GET /metrics is a 401 unauthenticated without the token, with another, or with a user\'s token', async (t) => {
  const shop = await registerShop(api);
  for (const headers of [{}, bearer('not-the-metrics-token-0123456789'), bearer(`${TOKEN}x`), bearer(shop.token), { authorization: TOKEN }]) {
    const reply = await api.raw('GET', '/metrics', { headers });
    t.equal(reply.status, 401, JSON.stringify(headers));
    t.same(reply.body, UNAUTHENTICATED);
  }
});

t.test('with the token: Prometheus text, every request timed under its route template and status, never its path', async (t) => {
  const shop = await registerShop(api);
  const missing = randomUUID();
  for (let i = 0; i < 2; i++) t.equal((await api.request('GET', `/products/${missing}`, { token: shop.token })).status, 404);
  t.equal((await api.raw('GET', '/healthz')).status, 200);
  t.equal((await api.raw('GET', `/no/such/${missing}`)).status, 404);
  const reply = await api.raw('GET', '/metrics', { headers: bearer(TOKEN) });
  t.equal(reply.status, 200);
  t.match(reply.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = String(reply.body);
  t.match(text, '# TYPE http_request_duration_seconds histogram');
  const all = samples(text);
  t.equal(valueOf(all, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/products/:id', status: '404' }), 2, 'by route template and status');
  t.equal(valueOf(all, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/products/:id', status: '404', le: '+Inf' }), 2, 'with buckets');
  t.ok(valueOf(all, 'http_request_duration_seconds_sum', { method: 'GET', route: '/api/v1/products/:id', status: '404' })! > 0);
  t.ok(valueOf(all, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status: '200' })! >= 1);
  t.ok(valueOf(all, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })! >= 1, 'a path no route answers is `unmatched`');
  t.notMatch(text, missing, 'no label carries a path as it was asked');
  t.ok(valueOf(all, 'process_cpu_user_seconds_total') !== undefined, 'and the process\'s own metrics');
});

t.test('the requests being answered are counted in flight, the scrape itself included', async (t) => {
  const body = JSON.stringify({ note: 'still on its way' });
  const slow = httpRequest(`${api.baseUrl}/no/such/path`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
  const answered = new Promise<number>((resolve, reject) => {
    slow.on('response', (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    slow.on('error', reject);
  });
  slow.write(body.slice(0, 5));
  // The body is read before anything else runs: the request stays in flight until it has all come.
  await waitFor(async () => valueOf(await scrape(), 'http_requests_in_flight') === 2, 'the slow request in flight');
  slow.end(body.slice(5));
  t.equal(await answered, 404);
  t.equal(valueOf(await scrape(), 'http_requests_in_flight'), 1, 'the scrape alone once it is answered');
});

t.test('a rate-limit refusal is counted under the name of its limit', async (t) => {
  const before = await scrape();
  t.equal(valueOf(before, 'http_rate_limited_total', { limit: 'forgotPasswordPerEmail' }), 0, 'every limit counted from zero');
  const email = uniqueEmail('limited');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await api.request('POST', '/auth/forgot-password', { body: { email } })).status);
  t.same(statuses, [200, 200, 200, 200, 200, 429], '5 an hour per e-mail');
  const after = await scrape();
  t.equal(valueOf(after, 'http_rate_limited_total', { limit: 'forgotPasswordPerEmail' }), 1);
  t.equal(valueOf(after, 'http_rate_limited_total', { limit: 'publicPerAddress' }), valueOf(before, 'http_rate_limited_total', { limit: 'publicPerAddress' }), 'not another limit');
});

t.test('the pool\'s connections and the admission\'s refusals are series from the start', async (t) => {
  const all = await scrape();
  for (const name of ['db_pool_connections_busy', 'db_pool_connections_waiting']) t.type(valueOf(all, name), 'number', name);
  for (const reason of ['pool_wait', 'shop_share']) t.equal(valueOf(all, 'http_admission_refusals_total', { reason }), 0, reason);
});

t.test('the worker serves its own metrics on WORKER_METRICS_PORT, with the same token', async (t) => {
  const port = await freePort();
  const worker = launch(t, 'worker/main.ts', {
    DATABASE_URL: api.runtime.ownerUrl,
    APP_KEY: TEST_APP_KEY,
    LOG_LEVEL: 'info',
    METRICS_TOKEN: TOKEN,
    WORKER_METRICS_PORT: String(port),
    SMTP_URL: undefined,
    DATA_DIR: await mkdtemp(path.join(tmpdir(), 'pos-worker-metrics-')),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker');
  const workerScrape = async () => {
    const response = await fetch(`${url}/metrics`, { headers: bearer(TOKEN) });
    if (response.status !== 200) throw new Error(`worker scrape failed: ${response.status}`);
    return samples(await response.text());
  };

  await t.test('401 without the token or with another, 404 on any other path', async (t) => {
    for (const headers of [{}, bearer('not-the-metrics-token-0123456789')]) {
      const response = await fetch(`${url}/metrics`, { headers });
      t.equal(response.status, 401);
      t.same(await response.json(), UNAUTHENTICATED);
    }
    const elsewhere = await fetch(`${url}/healthz`, { headers: bearer(TOKEN) });
    t.equal(elsewhere.status, 404);
    t.same(await elsewhere.json(), { message: 'Not found.', code: 'not_found' });
    const response = await fetch(`${url}/metrics`, { headers: bearer(TOKEN) });
    t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  });

  await t.test('the queue: jobs due and not locked, and how long the oldest has waited, by task', async (t) => {
    // A task no runner takes: its jobs wait for ever, due for 90 seconds already.
    await api.ownerSql`select graphile_worker.add_job('metrics__never_taken', '{}'::json, run_at := now() - interval '90 seconds')`;
    await api.ownerSql`select graphile_worker.add_job('metrics__never_taken', '{}'::json, run_at := now() - interval '10 seconds')`;
    await api.ownerSql`select graphile_worker.add_job('metrics__never_taken', '{}'::json, run_at := now() + interval '1 hour')`;
    const all = await workerScrape();
    t.equal(valueOf(all, 'jobs_queue_depth', { task: 'metrics__never_taken' }), 2, 'the two due, not the one to come');
    const age = valueOf(all, 'jobs_oldest_age_seconds', { task: 'metrics__never_taken' })!;
    t.ok(age >= 90 && age < 150, `the oldest waited 90 s (${age})`);
    t.equal(valueOf(all, 'jobs_queue_depth', { task: 'mail__prune_sent' }), 0, 'a task with nothing waiting is 0');
  });

  await t.test('jobs by outcome, and how long each ran', async (t) => {
    await api.ownerSql`select graphile_worker.add_job('mail__prune_sent', '{}'::json)`;
    // A payload the task refuses: once with no attempt left (failed), once with attempts left (error).
    await api.ownerSql`select graphile_worker.add_job('stock__negative_alert', '{}'::json, max_attempts := 1)`;
    await api.ownerSql`select graphile_worker.add_job('stock__negative_alert', '{"shop_id": "x"}'::json, max_attempts := 5)`;
    const all = await waitFor(async () => {
      const now = await workerScrape();
      const done = valueOf(now, 'jobs_total', { task: 'mail__prune_sent', outcome: 'success' }) === 1 && valueOf(now, 'jobs_total', { task: 'stock__negative_alert', outcome: 'error' }) !== undefined;
      return done && now;
    }, 'the jobs run');
    t.equal(valueOf(all, 'jobs_duration_seconds_count', { task: 'mail__prune_sent' }), 1, 'its duration observed');
    t.ok(valueOf(all, 'jobs_duration_seconds_sum', { task: 'mail__prune_sent' })! > 0);
    t.equal(valueOf(all, 'jobs_total', { task: 'stock__negative_alert', outcome: 'failed' }), 1, 'the job with no attempt left failed');
    t.equal(valueOf(all, 'jobs_total', { task: 'stock__negative_alert', outcome: 'success' }), undefined);
  });

  await t.test('the last heartbeat', async (t) => {
    const beat = valueOf(await workerScrape(), 'worker_last_heartbeat_timestamp_seconds')!;
    t.ok(Math.abs(Date.now() / 1000 - beat) < 30, `a beat in the last seconds (${beat})`);
  });

  await t.test('closed when the worker stops', async (t) => {
    worker.child.kill('SIGTERM');
    t.equal(await worker.exited, 0);
    await t.rejects(fetch(`${url}/metrics`, { headers: bearer(TOKEN) }));
  });
});
