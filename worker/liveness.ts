import type { WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';

/** How often a process beats for its workers, and how long without a beat makes a worker gone. */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER = '30 seconds';

export interface Liveness {
  /** Beats once now (also frees the jobs of workers gone); answers the ids whose jobs were freed. */
  beat(): Promise<string[]>;
  /** Stops beating and forgets this process's workers (a stopped worker holds no job). */
  stop(): Promise<void>;
}

/**
 * Keeps this process's workers marked alive and frees the jobs of workers that are gone
 * (worker_heartbeat, db/functions/worker/): graphile-worker 0.17 would leave a killed worker's job
 * locked for 4 hours; here it runs again within a minute. A beat that fails (the database is away)
 * is logged and the next one tries again. `events` must be the emitter given to graphile-worker's
 * run(), subscribed before it starts, so that no worker is missed.
 */
export function keepWorkersAlive(pool: pg.Pool, events: WorkerEvents, log: Logger): Liveness {
  const live = new Set<string>();
  // Every id this process has had: its rows go when it stops.
  const mine = new Set<string>();
  let beating: Promise<string[]> | undefined;
  const beat = async () => {
    const { rows } = await pool.query<{ gone: string[] }>('select worker_heartbeat($1::text[], $2::interval) as gone', [[...live], STALE_AFTER]);
    const gone = rows[0]!.gone;
    if (gone.length) log.warn({ workers: gone }, 'jobs of workers gone freed');
    return gone;
  };
  const beatLogged = () => (beating ??= beat().finally(() => (beating = undefined))).catch((error: Error) => {
    log.error({ error: error.message }, 'worker heartbeat failed');
    return [];
  });
  events.on('worker:create', ({ worker }) => {
    live.add(worker.workerId);
    mine.add(worker.workerId);
    void beatLogged();
  });
  events.on('worker:stop', ({ worker }) => {
    live.delete(worker.workerId);
  });
  const timer = setInterval(() => void beatLogged(), HEARTBEAT_MS);
  timer.unref();
  return {
    beat: beatLogged,
    async stop() {
      clearInterval(timer);
      await beating?.catch(() => {});
      live.clear();
      await pool.query('delete from worker_heartbeats where worker_id = any($1::text[])', [[...mine]]).catch(() => {});
    },
  };
}
