import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Job, WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type AppError, errorBody, errors } from '../api/errors.ts';
import { carriesMetricsToken } from '../api/metrics/token.ts';
import type { Runtime } from '../api/runtime.ts';
import type { Liveness } from './liveness.ts';

/** A scrape counts at most this many ready jobs (the oldest first): the query stays bounded however long the queue grows. */
export const READY_JOBS_COUNTED = 10_000;

/** A scrape's query waits at most this long; past it the queue's metrics are left out of that scrape. */
const QUERY_TIMEOUT_MS = 5_000;

/**
 * The ready jobs of each task (due, not locked, attempts left: what a free worker would take now)
 * and how long the oldest has been due. graphile-worker 0.17's own tables: `_private_jobs` (its
 * `is_available` is `locked_at is null and attempts < max_attempts`; `jobs_main_index` covers
 * `(priority, run_at) where is_available`) and `_private_tasks`, one row per task name. Every task
 * known to the queue has a row, with 0 when nothing of it waits.
 */
const READY_JOBS = `
  with ready as (
    select task_id, run_at
      from graphile_worker._private_jobs
     where is_available and run_at <= now()
     order by priority, run_at
     limit $1
  )
  select t.identifier as task, count(r.task_id)::int as depth,
         coalesce(extract(epoch from now() - min(r.run_at)), 0)::float8 as oldest_age_seconds
    from graphile_worker._private_tasks t
    left join ready r on r.task_id = t.id
   group by t.identifier`;

export interface WorkerMetrics {
  registry: Registry;
  /** Reads the queue into its gauges: call before each scrape. */
  readQueue(): Promise<void>;
}

/**
 * The worker's metrics, in a registry of its own: jobs by outcome and their durations (from the
 * runners' `events`), the queue as the database holds it (read at each scrape on `pool`), the last
 * heartbeat, and the process's own. `events` must be the emitter the runners were given (startWorker's).
 */
export function workerMetrics(events: WorkerEvents, liveness: Liveness, pool: pg.Pool): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const depth = new Gauge({ name: 'jobs_queue_depth', help: `Jobs due and not locked, by task (at most ${READY_JOBS_COUNTED} counted in all).`, labelNames: ['task'] as const, registers });
  const oldest = new Gauge({ name: 'jobs_oldest_age_seconds', help: 'How long the oldest job due and not locked has been waiting, by task (0 when none waits).', labelNames: ['task'] as const, registers });
  const outcomes = new Counter({
    name: 'jobs_total',
    help: 'Job attempts by task and outcome: success; error (it will be tried again); failed (its last attempt failed: given up).',
    labelNames: ['task', 'outcome'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'jobs_duration_seconds',
    help: 'Time a job attempt ran, by task, whatever its outcome.',
    labelNames: ['task'] as const,
    // Mail tasks wait for the SMTP server (SMTP_TIMEOUT_MS, 30 s by default).
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  new Gauge({
    name: 'worker_last_heartbeat_timestamp_seconds',
    help: 'When this process last recorded its heartbeat in worker_heartbeats (Unix time); absent before the first.',
    registers,
    collect() {
      const at = liveness.lastBeatAt();
      if (at !== null) this.set(at / 1000);
    },
  });

  const started = new WeakMap<Job, number>();
  events.on('job:start', ({ job }) => started.set(job, performance.now()));
  events.on('job:complete', ({ job }) => {
    const at = started.get(job);
    if (at !== undefined) duration.observe({ task: job.task_identifier }, (performance.now() - at) / 1000);
  });
  events.on('job:success', ({ job }) => outcomes.inc({ task: job.task_identifier, outcome: 'success' }));
  // A last attempt that fails is `failed` (job:failed follows job:error for it), not also `error`.
  events.on('job:error', ({ job }) => {
    if (job.attempts < job.max_attempts) outcomes.inc({ task: job.task_identifier, outcome: 'error' });
  });
  events.on('job:failed', ({ job }) => outcomes.inc({ task: job.task_identifier, outcome: 'failed' }));

  return {
    registry,
    async readQueue() {
      depth.reset();
      oldest.reset();
      // The timeout is the transaction's (`set local`): a start-up parameter would be refused by a pooler in transaction mode.
      const client = await pool.connect();
      let rows: { task: string; depth: number; oldest_age_seconds: number }[];
      try {
        await client.query('begin read only');
        await client.query(`set local statement_timeout = ${QUERY_TIMEOUT_MS}`);
        rows = (await client.query<{ task: string; depth: number; oldest_age_seconds: number }>(READY_JOBS, [READY_JOBS_COUNTED])).rows;
        await client.query('commit');
        client.release();
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      for (const row of rows) {
        depth.set({ task: row.task }, row.depth);
        oldest.set({ task: row.task }, row.oldest_age_seconds);
      }
    },
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** The CONTRACT's answers, as the API's error handler writes them (in English: no caller is known). */
const answerOf = (error: AppError) => JSON.stringify(errorBody(error, 'en'));
const NOT_FOUND = answerOf(errors.notFound());
const UNAUTHENTICATED = answerOf(errors.unauthenticated());
const SERVER_ERROR = answerOf(errors.serverError());

/**
 * `GET /metrics` on WORKER_METRICS_PORT, as web serves its own (CONTRACT section 16): Prometheus text
 * with `Authorization: Bearer <METRICS_TOKEN>`, else 401; any other path 404. Null when
 * WORKER_METRICS_PORT is unset (the configuration requires METRICS_TOKEN with it). The queue is read
 * on a connection of its own, never one of the runners'. Close it after the worker has stopped.
 */
export async function serveWorkerMetrics(
  worker: { events: WorkerEvents; liveness: Liveness },
  runtime: Pick<Runtime, 'config' | 'ownerUrl'>,
  log: Logger,
): Promise<MetricsServer | null> {
  const { WORKER_METRICS_PORT: port, METRICS_TOKEN: token } = runtime.config;
  if (port === undefined || !token) return null;
  const pool = new pg.Pool({ connectionString: runtime.ownerUrl, max: 1, application_name: 'pos-worker-metrics' });
  pool.on('error', (error) => log.warn({ error: error.message }, 'worker metrics database connection lost'));
  const metrics = workerMetrics(worker.events, worker.liveness, pool);

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://worker').pathname;
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(NOT_FOUND);
      return;
    }
    if (!carriesMetricsToken(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(UNAUTHENTICATED);
      return;
    }
    // A database away leaves the queue's series out of this scrape; the rest still answers.
    await metrics.readQueue().catch((error: Error) => log.warn({ error: error.message }, 'worker metrics: the queue could not be read'));
    const body = await metrics.registry.metrics();
    response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(request.method === 'HEAD' ? undefined : body);
  };
  const server = createServer((request, response) => {
    answer(request, response).catch((error: Error) => {
      log.error({ error: error.message }, 'worker metrics failed');
      if (response.headersSent) response.end();
      else response.writeHead(500, { 'content-type': 'application/json' }).end(SERVER_ERROR);
    });
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  log.info({ port }, 'worker metrics listening');
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await pool.end();
    },
  };
}
