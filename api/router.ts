import { OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { authenticate, authenticateDevice, authenticateDeviceEach, authenticateEach, inRequestTransaction, requireActiveSubscription } from './middleware/auth.ts';
import { limitPublicByAddress } from './middleware/rate-limit.ts';
import { documentedAnswers } from './docs/error-answers.ts';
import { type Codes, DEVICE_UNAUTHENTICATED, STANDARD_CODES, Text } from './schemas.ts';
import { strictValidationHook, validationHook } from './validation.ts';

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

/** The query of an operation that takes none: every parameter is unknown to it. */
const NoQuery = z.object({});

/**
 * The answers an operation gives whatever its handler does, read from its own definition, so that no
 * route lists them by hand and none forgets one: a body can be malformed (400), too large (413), not
 * JSON (415) or invalid (422); a path parameter names a record that may not exist (404); every
 * input can be invalid (422); authentication answers 401, the subscription check 402, the public
 * rate limit and a shop's share of the connections 429; the database can be out of reach (503). An authenticated POST also takes
 * `Idempotency-Key` (409 on a key reused with another request). Each status answers its standard
 * codes (STANDARD_CODES; a device's 401 its own), then the codes the route's `refusals` add, whose
 * meanings win; how the document writes them out: api/docs/error-answers.ts.
 */
function withStandardAnswers(route: RouteConfig, usesDatabase: boolean): RouteConfig {
  const middleware = [route.middleware ?? []].flat() as MiddlewareHandler<AppEnv>[];
  const request = { ...route.request };
  const statuses = new Set<keyof typeof STANDARD_CODES>();
  const add = (...more: (keyof typeof STANDARD_CODES)[]) => more.forEach((status) => statuses.add(status));
  if (route.method === 'post' && middleware.includes(authenticate)) {
    request.headers = request.headers instanceof z.ZodObject ? request.headers.extend(IdempotencyHeaders.shape) : IdempotencyHeaders;
    add(409);
  }
  // Strict inputs (api/strict-inputs.ts): an operation that takes no query parameter refuses any, as a 422 on its name.
  request.query ??= NoQuery;
  if (request.body) add(400, 413, 415, 422);
  if (request.params || request.query || request.headers) add(422);
  if (request.params) add(404);
  if (middleware.some((handler) => AUTHENTICATION.has(handler))) add(401);
  if (middleware.includes(requireActiveSubscription)) add(402);
  if (middleware.includes(limitPublicByAddress)) add(429);
  // A shop's share of the database connections (api/middleware/admission.ts) is counted by its credentials.
  if (usesDatabase && middleware.some((handler) => AUTHENTICATION.has(handler))) add(429);
  if (usesDatabase) add(503);
  const device = middleware.includes(authenticateDevice) || middleware.includes(authenticateDeviceEach);
  const standard: Record<number, Codes> = Object.fromEntries([...statuses].map((status) => [status, status === 401 && device ? DEVICE_UNAUTHENTICATED : STANDARD_CODES[status]]));
  return { ...route, security: securityOf(route, middleware), request, responses: documentedAnswers({ ...route, request }, standard) };
}

/**
 * The credentials an operation takes, as the document states them: its own `security`, or `security: []`
 * (public: no credentials) when it states none and no authentication middleware guards it. An
 * authenticated route that states none is left without, for the lint (`npm run lint:openapi`) to name.
 */
function securityOf(route: RouteConfig, middleware: MiddlewareHandler<AppEnv>[]): RouteConfig['security'] {
  return route.security ?? (middleware.some((handler) => AUTHENTICATION.has(handler)) ? undefined : []);
}

/**
 * The validation hook of one route, with the schema each input it checks strictly was read against:
 * its JSON body and its query (api/strict-inputs.ts). Path parameters and headers are not strict.
 */
function strictHook(route: RouteConfig) {
  const json = route.request?.body?.content['application/json'];
  const hooks: Record<string, ReturnType<typeof strictValidationHook>> = {
    query: strictValidationHook(route.request?.query),
    json: strictValidationHook(json && 'schema' in json ? (json.schema as z.ZodType) : undefined),
  };
  return async (result: Parameters<typeof validationHook>[0], c: Context<AppEnv>) => {
    const hook = hooks[result.target ?? ''];
    return hook ? hook(result, await sentInput(c, result.target!)) : validationHook(result);
  };
}

/**
 * The input as the validator read it: the hook's `data` is zod's output, from which unknown keys are
 * gone. A body is parsed again from the text read once (api/middleware/body.ts); a required body
 * that is absent was read as `{}`.
 */
async function sentInput(c: Context<AppEnv>, target: string): Promise<unknown> {
  if (target === 'json') return c.req.json().catch(() => ({}));
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
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
  router.openapi = ((route: RouteConfig, handler: Parameters<typeof inRequestTransaction>[0]) => {
    const standard = withStandardAnswers(route, usesDatabase);
    return (register as (...args: unknown[]) => unknown)(standard, inRequestTransaction(handler), strictHook(standard));
  }) as typeof router.openapi;
  return router;
}
