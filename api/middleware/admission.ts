import type { Context, MiddlewareHandler } from 'hono';
import { isRecheck } from './auth.ts';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import type { AdmissionObserver } from '../metrics/registry.ts';

export interface AdmissionOptions {
  /** How many requests use the database at once: the pool's connections. */
  capacity: number;
  /** How many of them one shop's requests may be at once (DB_SHOP_SHARE). */
  shopShare: number;
  /** The longest wait for a place (DB_ACQUIRE_TIMEOUT_MS). */
  waitMs: number;
  /** Whose share a request counts against: its shop (or device, or address) as `shop:<id>`..., undefined for none. */
  keyOf: (c: Context<AppEnv>) => Promise<string | undefined>;
  observer?: AdmissionObserver;
}

interface Waiter {
  key: string | undefined;
  admit: () => void;
}

/** Seconds a request refused for its shop's share is told to wait: the share frees as soon as one of its requests ends. */
export const SHOP_SHARE_RETRY_AFTER_S = 1;

/**
 * At most as many requests use the database at once as the pool has connections, and at most
 * `shopShare` of them are one shop's: a shop whose tills push hundreds of sales at once can never
 * take every connection, and the other shops' requests go ahead of its extra ones. A request that
 * cannot start waits, in order of arrival, for at most `waitMs`: then 429 `rate_limited` when its own
 * shop holds its share while the pool has room for other shops (Retry-After: 1), else 503
 * `service_unavailable` (the pool is full). A request that is admitted always finds a connection, and holds its place until its answer
 * is written (or, past the request's deadline, until its handler has really finished; a streamed answer, until its body is sent).
 *
 * The share is per process, like the pool; requests with no key (no credentials) count against the
 * pool only.
 */
export function admission(options: AdmissionOptions): MiddlewareHandler<AppEnv> {
  const { capacity, shopShare, waitMs, keyOf, observer } = options;
  let inUse = 0;
  const held = new Map<string, number>();
  const waiting: Waiter[] = [];
  const roomFor = (key: string | undefined) => inUse < capacity && (key === undefined || (held.get(key) ?? 0) < shopShare);
  const take = (key: string | undefined) => {
    inUse++;
    if (key !== undefined) held.set(key, (held.get(key) ?? 0) + 1);
  };
  const release = (key: string | undefined) => {
    inUse--;
    if (key !== undefined) {
      const left = held.get(key)! - 1;
      if (left === 0) held.delete(key);
      else held.set(key, left);
    }
    // The first waiters (in order of arrival) whose shop has room take the places freed.
    for (let i = 0; i < waiting.length && inUse < capacity; ) {
      const waiter = waiting[i]!;
      if (roomFor(waiter.key)) {
        waiting.splice(i, 1);
        take(waiter.key);
        waiter.admit();
      } else i++;
    }
  };
  const admit = (key: string | undefined): Promise<void> => {
    // Whoever waits is blocked by a full pool or by its own shop's share: one with room goes first.
    if (roomFor(key)) {
      take(key);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(waiter), 1);
        // Its own shop's share held it back only if the pool has room for others'.
        const ownShare = key !== undefined && (held.get(key) ?? 0) >= shopShare && inUse < capacity;
        observer?.refused(ownShare ? 'shop_share' : 'pool_wait');
        reject(ownShare ? errors.rateLimited(SHOP_SHARE_RETRY_AFTER_S) : errors.serviceUnavailable());
      }, waitMs);
      waiting.push(waiter);
    });
  };
  observer?.observePool(() => ({ busy: inUse, waiting: waiting.length }));
  return async (c, next) => {
    // A read run again after its cached caller proved stale already holds its request's place.
    if (isRecheck(c.req.raw)) return next();
    const key = await keyOf(c);
    await admit(key);
    try {
      await next();
    } finally {
      // An answer streamed from its transaction (api/middleware/streaming.ts) holds its connection until its body is sent: its place too.
      const ended = c.var.answerEnded;
      if (ended) void ended.then(() => release(key));
      else release(key);
    }
  };
}
