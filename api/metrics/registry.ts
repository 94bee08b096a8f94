import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Why a request was refused a database connection (api/middleware/admission.ts): 503 `service_unavailable` either way. */
export type AdmissionRefusal = 'pool_wait' | 'shop_share';

/**
 * What the admission middleware tells the metrics: each refusal as it happens, and a reader of the
 * pool's state that each scrape calls.
 */
export interface AdmissionObserver {
  /** A request was answered 503: it waited its DB_ACQUIRE_TIMEOUT_MS for a connection (`pool_wait`), or its shop already held its DB_SHOP_SHARE (`shop_share`). */
  refused(reason: AdmissionRefusal): void;
  /** `read` answers, when called at a scrape, how many connections admitted requests hold (`busy`) and how many requests wait for one (`waiting`). */
  observePool(read: () => { busy: number; waiting: number }): void;
}

/** One app's metrics, in a registry of its own: an app never counts another's requests (tests make many apps in one process). */
export interface AppMetrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  requestsInFlight: Gauge;
  admission: AdmissionObserver;
  /** A request answered 429 `rate_limited` by the limit of that name (LIMITS, api/middleware/rate-limit.ts). */
  rateLimited(limit: string): void;
}

const REFUSALS: readonly AdmissionRefusal[] = ['pool_wait', 'shop_share'];

/**
 * The registry and its metrics. `limits` are the rate limits' names, counted from zero so that each
 * series exists before its first refusal; `processMetrics` adds prom-client's process and Node.js
 * metrics (CPU, memory, event-loop lag), once per registry, when the metrics are served at all.
 */
export function createAppMetrics({ limits, processMetrics }: { limits: readonly string[]; processMetrics: boolean }): AppMetrics {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by method, route template (`unmatched` when no route matched) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    // The request deadline is 45 s by default (REQUEST_DEADLINE_MS).
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const requestsInFlight = new Gauge({ name: 'http_requests_in_flight', help: 'Requests being answered now.', registers: [registry] });

  let readPool: (() => { busy: number; waiting: number }) | undefined;
  new Gauge({
    name: 'db_pool_connections_busy',
    help: 'Database connections held by admitted requests.',
    registers: [registry],
    collect() {
      if (readPool) this.set(readPool().busy);
    },
  });
  new Gauge({
    name: 'db_pool_connections_waiting',
    help: 'Requests waiting for a database connection.',
    registers: [registry],
    collect() {
      if (readPool) this.set(readPool().waiting);
    },
  });
  const refusals = new Counter({
    name: 'http_admission_refusals_total',
    help: 'Requests answered 503 without a database connection: waited too long (pool_wait), or their shop held its share (shop_share).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of REFUSALS) refusals.inc({ reason }, 0);
  const rateLimited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests answered 429 rate_limited, by the name of the limit.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  for (const limit of limits) rateLimited.inc({ limit }, 0);

  return {
    registry,
    requestDuration,
    requestsInFlight,
    admission: {
      refused: (reason) => refusals.inc({ reason }),
      observePool: (read) => {
        readPool = read;
      },
    },
    rateLimited: (limit) => rateLimited.inc({ limit }),
  };
}
