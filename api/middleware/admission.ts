import type { MiddlewareHandler } from 'hono';
import { isRecheck } from './auth.ts';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';

/**
 * At most as many requests use the database at once as the pool has connections; the others wait
 * their turn, in order, for at most `waitMs`, then answer 503 `service_unavailable` instead of
 * queueing for ever behind a stuck database or a burst. A request that is admitted always finds a
 * connection, and holds its place until its answer is written.
 */
export function admitWithin(capacity: number, waitMs: number): MiddlewareHandler<AppEnv> {
  let inUse = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else inUse--;
  };
  const admit = (): Promise<void> => {
    if (inUse < capacity) {
      inUse++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(turn), 1);
        reject(errors.serviceUnavailable());
      }, waitMs);
      waiting.push(turn);
    });
  };
  return async (c, next) => {
    // A read run again after its cached caller proved stale already holds its request's place.
    if (isRecheck(c.req.raw)) return next();
    await admit();
    try {
      await next();
    } finally {
      release();
    }
  };
}
