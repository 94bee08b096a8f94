import { OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { authenticate, authenticateDevice, authenticateDeviceEach, authenticateEach, inRequestTransaction, requireActiveSubscription } from './middleware/auth.ts';
import { limitPublicByAddress } from './middleware/rate-limit.ts';
import { errorResponses, refusals, refusedCodes, Text } from './schemas.ts';
import { validationHook } from './validation.ts';

const AUTHENTICATION = new Set<MiddlewareHandler<AppEnv>>([authenticate, authenticateEach, authenticateDevice, authenticateDeviceEach]);

/** CONTRACT section 5: an authenticated POST honours this header (api/middleware/idempotency.ts); stated here so the document says so. */
const IdempotencyHeaders = z.object({
  'idempotency-key': Text.min(1)
    .max(200)
    .optional()
    .openapi({
      description:
        'Optional, 1 to 200 characters: the same key with the same request within 24 hours answers the stored answer; with another request 409 `idempotency_conflict`.',
    }),
});

/** The codes of the 409 and 422 that every operation giving them shares: its own codes come after, and its own meaning wins. */
const SHARED_CODES = {
  409: { idempotency_conflict: 'This Idempotency-Key was already used within 24 hours with another request.' },
  422: { validation_failed: 'An input is missing or malformed; `errors` names each failing input with its messages.' },
} as const;

/**
 * The route's answers, with its 409 and 422 listing the shared codes first (see `refusals`); a 409 or
 * 422 the route states otherwise is its own (tests/platform/openapi-docs.test.ts asks for its codes).
 */
function withSharedCodes(statuses: Set<keyof typeof errorResponses>, responses: RouteConfig['responses']): RouteConfig['responses'] {
  const merged: RouteConfig['responses'] = { ...responses };
  for (const status of [409, 422] as const) {
    const own = responses[status];
    if (!statuses.has(status) || (own && !refusedCodes(own))) continue;
    Object.assign(merged, refusals(status, { ...SHARED_CODES[status], ...refusedCodes(own) }));
  }
  return merged;
}

/**
 * The answers an operation gives whatever its handler does, read from its own definition, so that no
 * route lists them by hand and none forgets one: a body can be malformed (400), too large (413), not
 * JSON (415) or invalid (422); a path parameter names a record that may not exist (404); every
 * input can be invalid (422); authentication answers 401, the subscription check 402, the public
 * rate limit and a shop's share of the connections 429; the database can be out of reach (503). An authenticated POST also takes
 * `Idempotency-Key` (409 on a key reused with another request). The route's own entries win.
 */
function withStandardAnswers(route: RouteConfig, usesDatabase: boolean): RouteConfig {
  const middleware = [route.middleware ?? []].flat() as MiddlewareHandler<AppEnv>[];
  const request = { ...route.request };
  const statuses = new Set<keyof typeof errorResponses>();
  const add = (...more: (keyof typeof errorResponses)[]) => more.forEach((status) => statuses.add(status));
  if (route.method === 'post' && middleware.includes(authenticate)) {
    request.headers = request.headers instanceof z.ZodObject ? request.headers.extend(IdempotencyHeaders.shape) : IdempotencyHeaders;
    add(409);
  }
  if (request.body) add(400, 413, 415, 422);
  if (request.params || request.query || request.headers) add(422);
  if (request.params) add(404);
  if (middleware.some((handler) => AUTHENTICATION.has(handler))) add(401);
  if (middleware.includes(requireActiveSubscription)) add(402);
  if (middleware.includes(limitPublicByAddress)) add(429);
  // A shop's share of the database connections (api/middleware/admission.ts) is counted by its credentials.
  if (usesDatabase && middleware.some((handler) => AUTHENTICATION.has(handler))) add(429);
  if (usesDatabase) add(503);
  const standard = Object.fromEntries([...statuses].sort().map((status) => [status, errorResponses[status]]));
  return { ...route, request, responses: { ...standard, ...withSharedCodes(statuses, route.responses) } };
}

/**
 * Every domain builds its routes on one of these, so validation answers the same everywhere, every
 * operation documents the answers above (`usesDatabase: false` for the few that never touch the
 * database), and every handler of an authenticated route runs in the request's transaction
 * (`inRequestTransaction`), after its middleware and the validators: the body is read and checked
 * before a connection is taken.
 */
export function newRouter({ usesDatabase = true }: { usesDatabase?: boolean } = {}): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, handler: Parameters<typeof inRequestTransaction>[0], ...rest: unknown[]) =>
    (register as (...args: unknown[]) => unknown)(withStandardAnswers(route, usesDatabase), inRequestTransaction(handler), ...rest)) as typeof router.openapi;
  return router;
}
