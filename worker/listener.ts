import type { WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

export interface RunnerPools {
  /** A pool for one runner's jobs (`pgPool` of graphile-worker's run()): its LISTEN client alone comes from `listenUrl`. Both pools pass through `guard` (error handlers). */
  open(config: pg.PoolConfig & { application_name: string }): pg.Pool;
  /** The pools of the LISTEN clients, one per runner, to end with the runners' own. */
  listeners(): pg.Pool[];
}

/**
 * The worker's LISTEN on a direct connection (WORKER_LISTEN_DATABASE_URL, DATABASE_URL when unset),
 * its jobs wherever DATABASE_URL points (PgBouncer in transaction mode, say). A LISTEN through such
 * a pooler listens on a server connection handed to other clients at once: no notification comes
 * back, and jobs start only when polled.
 *
 * graphile-worker 0.17.3 has no option for it: each runner takes its LISTEN client from the pool it
 * is given, `pgPool.connect(listenForChanges)` (callback form), right after emitting its documented
 * event `pool:listen:connecting`, also before every reconnection, and synchronously (dist/main.js,
 * runTaskListInternal). Every other checkout goes through `pgPool.connect()` (helpers.js) or
 * `pgPool.query()`. So the runner's pool is a pg.Pool whose one connect() that follows that event,
 * and only one made with a callback, is served by a pool of its own on `listenUrl` (one client per
 * runner); nothing runs between the event and that call. Should a later graphile-worker part them,
 * `pool:listen:success` reports the listener outside that pool, and jobs still start by polling.
 * The events are the ones given to both runners: whichever runner emits, its own pool connects next.
 */
export function runnerPools(events: WorkerEvents, listenUrl: string, log: Logger, guard: (pool: pg.Pool) => void): RunnerPools {
  let listenerNext = false;
  const direct = new WeakSet<pg.PoolClient>();
  const listeners: pg.Pool[] = [];
  events.on('pool:listen:connecting', () => {
    listenerNext = true;
  });
  events.on('pool:listen:success', ({ client }) => {
    if (!direct.has(client)) log.warn('the worker\'s LISTEN client does not come from WORKER_LISTEN_DATABASE_URL: jobs start when polled');
  });

  class RunnerPool extends pg.Pool {
    constructor(
      config: pg.PoolConfig,
      private readonly listener: pg.Pool,
    ) {
      super(config);
    }

    override connect(): Promise<pg.PoolClient>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
      if (!callback) return super.connect();
      if (!listenerNext) return super.connect(callback);
      listenerNext = false;
      this.listener.connect((error, client, done) => {
        if (client) direct.add(client);
        callback(error, client, done);
      });
    }
  }

  return {
    open(config) {
      const listener = new pg.Pool({ ...config, connectionString: listenUrl, max: 1, application_name: `${config.application_name}-listen` });
      listeners.push(listener);
      const pool = new RunnerPool(config, listener);
      guard(listener);
      guard(pool);
      return pool;
    },
    listeners: () => listeners,
  };
}
