import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';

/**
 * Every request is answered within `ms` (REQUEST_DEADLINE_MS), whatever the database does: a server
 * that accepts connections and then never answers, a connection whose peer vanished without a reset,
 * a driver that loses a query. Past it the client gets 503 `service_unavailable` (Retry-After: 1), the
 * CONTRACT's answer for a database away, and may retry as it was: sales and pushed records are
 * idempotent by their ids, other writes by their `Idempotency-Key`.
 *
 * The operation is not abandoned: it goes on in the background until its driver returns (its
 * transaction commits or rolls back as a whole), and keeps its admission place until then, so that the
 * pool is never promised connections it no longer has. An operation made of many transactions (a sync
 * push, one per record) reads `c.var.pastDeadline()` between them and stops: the till pushes again, and
 * what was applied answers `duplicate`. The bound sits above everything that limits a
 * request on its own (DB_ACQUIRE_TIMEOUT_MS for a place, then the app role's 30 s statement_timeout),
 * so it only ever answers what nothing else would have.
 */
export function answerWithin(ms: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let expired = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(errors.serviceUnavailable());
      }, ms);
    });
    c.set('pastDeadline', () => expired);
    const operation = next();
    try {
      await Promise.race([operation, late]);
    } finally {
      clearTimeout(timer);
      if (expired) {
        c.var.log.warn({ deadline_ms: ms }, 'request past its deadline: answered 503, its operation goes on');
        // What the operation throws later is nobody's to answer now.
        operation.catch(() => undefined);
      }
    }
  };
}
