import type { WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';

/** How often a process beats for its worker pools, and how long without a beat makes a pool gone. */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 30_000;

export interface LivenessTiming {
  heartbeatMs: number;
  staleAfterMs: number;
}

export interface Liveness {
  /** Beats once now (also frees the jobs of workers gone); answers the ids whose jobs were freed. */
  beat(): Promise<string[]>;
  /** When the last beat was recorded (Date.now()), null before the first: the metric `worker_last_heartbeat_timestamp_seconds`. */
  lastBeatAt(): number | null;
  /** Stops beating and forgets this process's pools (a stopped pool holds no job). */
  stop(): Promise<void>;
}

/**
 * Keeps this process's worker pools marked alive and frees the jobs of pools that are gone
 * (worker_heartbeat, db/functions/worker/): graphile-worker 0.17 would leave a killed worker's job
 * locked for 4 hours; here it runs again within a minute. graphile-worker locks a job in the name of
 * the worker POOL (`locked_by` is `workerPool.id`, see its getJobs), not of the worker inside it, so
 * pools are what beat. A beat that fails (the database is away) is logged and the next one tries
 * again. `events` must be the emitter given to graphile-worker's run(), subscribed before it starts,
 * so that no pool is missed.
 */
export function keepWorkersAlive(
  pool: pg.Pool,
  events: WorkerEvents,
  log: Logger,
  timing: LivenessTiming = { heartbeatMs: HEARTBEAT_MS, staleAfterMs: STALE_AFTER_MS },
): Liveness {
  const live = new Set<string>();
  // Every id this process has had: its rows go when it stops.
  const mine = new Set<string>();
  let beating: Promise<string[]> | undefined;
  let following: Promise<string[]> | undefined;
  let lastBeatAt: number | null = null;
  const beat = async () => {
    const { rows } = await pool.query<{ gone: string[] }>('select worker_heartbeat($1::text[], $2::interval) as gone', [
      [...live],
      `${timing.staleAfterMs} milliseconds`,
    ]);
    lastBeatAt = Date.now();
    const gone = rows[0]!.gone;
    if (gone.length) log.warn({ workers: gone }, 'jobs of workers gone freed');
    return gone;
  };
  // A beat asked for while one is under way follows it: a pool created meanwhile (a process starts
  // several) is not left out until the next interval.
  const beatOnce = (): Promise<string[]> =>
    beating
      ? (following ??= beating.catch(() => []).then(() => {
          following = undefined;
          return beatOnce();
        }))
      : (beating = beat().finally(() => (beating = undefined)));
  const beatLogged = () => beatOnce().catch((error: Error) => {
    log.error({ error: error.message }, 'worker heartbeat failed');
    return [];
  });
  events.on('pool:create', ({ workerPool }) => {
    live.add(workerPool.id);
    mine.add(workerPool.id);
    void beatLogged();
  });
  events.on('pool:release', ({ workerPool }) => {
    live.delete(workerPool.id);
  });
  const timer = setInterval(() => void beatLogged(), timing.heartbeatMs);
  timer.unref();
  return {
    beat: beatLogged,
    lastBeatAt: () => lastBeatAt,
    async stop() {
      clearInterval(timer);
      await (following ?? beating)?.catch(() => {});
      live.clear();
      await pool.query('delete from worker_heartbeats where worker_id = any($1::text[])', [[...mine]]).catch(() => {});
    },
  };
}
