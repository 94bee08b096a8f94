import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../env.ts';
import { isRecheck } from '../middleware/auth.ts';
import type { AppMetrics } from './registry.ts';

/** The label of a request no route answered (an unknown path, a method the path does not take, a CORS preflight). */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route that answered, as it was declared (`/api/v1/sales/:id`), never the path asked for: a
 * label bounded by the code, not by what clients send. Middleware is declared for every method
 * (`ALL`); the route of the handler is the last of the others.
 */
export function routeTemplate(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return UNMATCHED_ROUTE;
}

/** Methods a client may send are any token: the label keeps the standard ones and calls the rest `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Times every request and counts those in flight, into `metrics`, which the request's handlers then
 * reach as `c.var.metrics` (the rate limits count their refusals there). A read run again after its
 * cached caller proved stale is the same request: counted once, by its first run.
 */
export function observeRequests(metrics: AppMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('metrics', metrics);
    if (isRecheck(c.req.raw)) return next();
    const started = performance.now();
    metrics.requestsInFlight.inc();
    try {
      await next();
    } finally {
      metrics.requestsInFlight.dec();
      const method = METHODS.has(c.req.method) ? c.req.method : 'other';
      metrics.requestDuration.observe({ method, route: routeTemplate(c), status: String(c.res.status) }, (performance.now() - started) / 1000);
    }
  };
}
