import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import { accountRoutes } from './account/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { categoryRoutes } from './categories/routes.ts';
import { creditRoutes } from './credit/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { deviceRoutes } from './devices/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import type { AppEnv, Deps } from './env.ts';
import { errors, handleError } from './errors.ts';
import { expenseRoutes } from './expenses/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { loyaltyRoutes } from './loyalty/routes.ts';
import { productRoutes } from './products/routes.ts';
import { receiptRoutes } from './receipts/routes.ts';
import { promotionRoutes } from './promotions/routes.ts';
import { saleRoutes } from './sales/routes.ts';
import { newRouter } from './router.ts';
import { shiftRoutes } from './shifts/routes.ts';
import { shopRoutes } from './shop/routes.ts';
import { stockRoutes } from './stock/routes.ts';
import { syncRoutes } from './sync/routes.ts';
import { userRoutes } from './users/routes.ts';
import { installValidationMessages } from './validation.ts';

export const API_PREFIX = '/api/v1';

const MiB = 1024 * 1024;
/** CONTRACT section 2: 1 MiB per body; a sync push may carry 8 MiB. */
const BODY_LIMIT = 1 * MiB;
const SYNC_PUSH_BODY_LIMIT = 8 * MiB;

const tooLarge = () => {
  throw errors.payloadTooLarge();
};
const limitBody = bodyLimit({ maxSize: BODY_LIMIT, onError: tooLarge });
const limitSyncPushBody = bodyLimit({ maxSize: SYNC_PUSH_BODY_LIMIT, onError: tooLarge });

const limitBodies: MiddlewareHandler<AppEnv> = (c, next) =>
  (c.req.path.endsWith('/sync/push') ? limitSyncPushBody : limitBody)(c, next);

/** One JSON line per request, with its id, never its body or headers. */
const logRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const log = c.var.deps.log.child({ req_id: c.var.requestId });
  c.set('log', log);
  await next();
  log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
};

/** The decisions every operation shares, stated once in the OpenAPI document. */
const API_DESCRIPTION = [
  'Multi-tenant, offline-capable point-of-sale back end. Money is integer XAF (`*_xaf`), prices include VAT.',
  '',
  '**Envelope.** One record answers `{"data": {...}}`, a list `{"data": [...], "meta": {"next_cursor": string|null}}` ' +
    '(`limit` 1 to 200, default 50; `cursor` opaque, from `meta.next_cursor`). Creation answers 201, deletion 204 with no body. ' +
    'Errors answer `{"message", "code", "errors"?}`; `errors` keys are dotted input paths (`items.0.quantity`). ' +
    'Bodies over 1 MiB are refused with 413 (sync push: 8 MiB). Every answer carries `X-Request-Id` (taken from the request when given).',
  '',
  '**Tokens.** `Authorization: Bearer <token>` from login or register. A token names a server-side session valid 30 days; ' +
    'logout, a password change (other sessions) or reset (all sessions), and removal of the user end it at once.',
  '',
  '**Roles.** `owner` (created at register), `manager`, `cashier`. Cashiers sell and read; staff, reports and stock need a manager or owner; ' +
    'shop settings, billing and roles need the owner. Managers create, change and remove cashiers only. Partners and administrators ' +
    'have no shop: shop operations answer them 403. Another shop\'s record is always a 404.',
  '',
  '**Subscription.** A shop whose 30-day trial and subscription have both ended may still read, log in, log out and edit its own ' +
    'profile; other writes answer 402 `subscription_required`.',
  '',
  '**Rate limits** (429 `rate_limited`, counted in PostgreSQL across processes): 300 public requests per address in 15 minutes; ' +
    '10 failed logins per e-mail in 15 minutes; 5 forgot-password requests per e-mail an hour; 10 registrations per e-mail an hour.',
  '',
  '**Browsers.** CORS is open to any origin: tokens travel in headers, never in cookies.',
].join('\n');

/** The whole HTTP API, the same on Node and on Deno. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  installValidationMessages();
  const app = new OpenAPIHono<AppEnv>();
  app.use(requestId());
  // Browser tills are served from their own origin; tokens travel in headers, never cookies.
  app.use(cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Pairing-Secret'], exposeHeaders: ['X-Request-Id'], maxAge: 86400 }));
  app.use(async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use(logRequests);
  app.use(limitBodies);
  app.onError(handleError);
  app.notFound((c) => handleError(errors.notFound(), c));

  const v1 = newRouter()
    .route('/', authRoutes)
    .route('/', accountRoutes)
    .route('/', shopRoutes)
    .route('/', userRoutes)
    .route('/', dashboardRoutes)
    .route('/', categoryRoutes)
    .route('/', productRoutes)
    .route('/', stockRoutes)
    .route('/', customerRoutes)
    .route('/', creditRoutes)
    .route('/', loyaltyRoutes)
    .route('/', promotionRoutes)
    .route('/', saleRoutes)
    .route('/', receiptRoutes)
    .route('/', shiftRoutes)
    .route('/', expenseRoutes)
    .route('/', deviceRoutes)
    .route('/', syncRoutes);

  app.route('/', healthRoutes);
  app.route('/', docsRoutes);
  app.route(API_PREFIX, v1);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'From POST /api/v1/auth/login or /auth/register.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'deviceAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Device <token>`: the token a pairing hands to the device once (GET /api/v1/device-pairings/{code}).',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Point-of-sale API',
      version: '1.0.0',
      description: API_DESCRIPTION,
    },
    servers: [{ url: '/' }],
  });
  return app;
}
