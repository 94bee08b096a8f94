import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import { accountRoutes } from './account/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { adminRoutes } from './partners/admin-routes.ts';
import { partnerRoutes } from './partners/routes.ts';
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
import { shareRoutes } from './receipts/share-routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { promotionRoutes } from './promotions/routes.ts';
import { purchaseRoutes } from './purchases/routes.ts';
import { quoteRoutes } from './quotes/routes.ts';
import { saleRoutes } from './sales/routes.ts';
import { newRouter } from './router.ts';
import { shiftRoutes } from './shifts/routes.ts';
import { shopRoutes } from './shop/routes.ts';
import { stockRoutes } from './stock/routes.ts';
import { supplierRoutes } from './suppliers/routes.ts';
import { syncRoutes } from './sync/routes.ts';
import { userRoutes } from './users/routes.ts';
import { installValidationMessages } from './validation.ts';
import { admission } from './middleware/admission.ts';
import { shareKey } from './middleware/auth.ts';
import { answerWithin } from './middleware/deadline.ts';
import { readBodyFirst } from './middleware/body.ts';
import { observeRequests, routeTemplate } from './metrics/http.ts';
import { createAppMetrics } from './metrics/registry.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { clientAddress, LIMITS } from './middleware/rate-limit.ts';

export const API_PREFIX = '/api/v1';

/**
 * One JSON line per request, with its id, the route that answered it (its template), the shop and
 * user once authentication named them, and the client's address (as the rate limits read it); never
 * its body or headers.
 */
const logRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const log = c.var.deps.log.child({ req_id: c.var.requestId });
  c.set('log', log);
  await next();
  const scope = c.var.transactionScope;
  log.info(
    {
      method: c.req.method,
      path: c.req.path,
      route: routeTemplate(c),
      status: c.res.status,
      ms: Math.round(performance.now() - started),
      shop_id: c.var.caller?.shopId ?? c.var.device?.shopId ?? scope?.shopId ?? null,
      user_id: c.var.caller?.userId ?? scope?.userId ?? null,
      address: clientAddress(c),
    },
    'request',
  );
};

/**
 * The methods the app answers on a path (GET brings HEAD), for a 405's `Allow` header: a path that
 * exists answered with another method is a 405, not a 404. Read from the app's routes on first use.
 */
function allowedMethods(app: OpenAPIHono<AppEnv>): (path: string) => string[] {
  let routes: { method: string; pattern: RegExp }[] | undefined;
  return (path) => {
    routes ??= app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({
        method: route.method,
        pattern: new RegExp(`^${route.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`),
      }));
    const methods = new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

/** The decisions every operation shares, stated once in the OpenAPI document. */
const API_DESCRIPTION = [
  'Multi-tenant, offline-capable point-of-sale back end. Money is integer XAF (`*_xaf`), prices include VAT.',
  '',
  '**Envelope.** One record answers `{"data": {...}}`, a list `{"data": [...], "meta": {"next_cursor": string|null}}` ' +
    '(`limit` 1 to 200, default 50; `cursor` opaque, from `meta.next_cursor`). Creation answers 201, deletion 204 with no body. ' +
    'Errors answer `{"message", "code", "errors"?}`; `errors` keys are dotted input paths (`items.0.quantity`). ' +
    'Bodies over 1 MiB are refused with 413 (sync push: 8 MiB). Every answer carries `X-Request-Id` (taken from the request when given).',
  '',
  '**Language.** Error messages (`message` and those of `errors`) follow the caller: the authenticated user\'s `locale` (`fr` or `en`, ' +
    '`fr` by default), else the request\'s `Accept-Language` (the first of French and English by q-value; `fr-CM` is French), else English, ' +
    'the texts of the examples; a 401 follows the request alone. `code` never changes. Numbers are written the caller\'s way (`Seulement 46 en stock.`, ' +
    '`149 750 FCFA` / `149,750 FCFA`). `Content-Language` says which language an error is in.',
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
  '',
  '**Transport.** Bodies are JSON (`Content-Type: application/json`); another type on a body that is there is a 415 `unsupported_media_type` ' +
    '(an empty body is no body, whatever its type). Another method on a path that exists is a 405 `method_not_allowed` with the path\'s methods in `Allow`. ' +
    'The whole body is read before the operation starts, so every answer leaves a kept-alive connection usable (a 413 closes it: `Connection: close`). ' +
    'Kept-alive connections stay open 65 s idle. A request must arrive whole within 120 s.',
  '',
  '**Unavailable.** When the database cannot be reached (a restart, a failover) or has no connection free in time, an operation answers ' +
    '503 `service_unavailable` with `Retry-After`: retry it as it was (a sale with the same `id`, or the same `Idempotency-Key`, is recorded once). ' +
    'Every operation is answered within 45 s whatever the database does (`REQUEST_DEADLINE_MS`): past it, 503, and the operation itself may still ' +
    'complete, which the retry then finds. While the service shuts down, answers say `Connection: close`: the next request opens a new connection, to another instance.',
  '',
  '**Fair share.** One shop\'s requests use at most a share of a server process\'s database connections at once (60 % by default, `DB_SHOP_SHARE`): ' +
    'a shop\'s further requests wait their turn behind its own, never in front of other shops\', and after 5 s answer 429 `rate_limited` with ' +
    '`Retry-After: 1`. A till pushing a large backlog in parallel is slowed, not refused for long: retry after the given seconds.',
].join('\n');

/** The document's tags, in the order a client developer meets them, each saying what its operations are for. */
const TAGS = [
  { name: 'Account', description: 'Register a shop (its owner\'s account and a 30-day trial), log in and out, reset a forgotten password, read and edit one\'s own profile and password. Login and register answer the bearer token every other operation takes.' },
  { name: 'Shop', description: 'The shop\'s settings: name, address, taxpayer and trade-register numbers, VAT, receipt texts, payment-method labels (MTN MoMo, Orange Money...), cashier limits, negative stock. Read by every user; changed by the owner.' },
  { name: 'Staff', description: 'The shop\'s users and their roles (owner, manager, cashier). Managers create, change and remove cashiers only; the owner manages everyone.' },
  { name: 'Dashboard', description: 'The shop at a glance for its managers and owner, in one answer: subscription and days left, staff, today\'s sales (the Z in short), stock, what customers owe and what is owed to suppliers.' },
  { name: 'Catalogue', description: 'Categories, products (price including VAT, cost, VAT rate, barcode, stock tracking), their options and variants (size, colour), and barcodes generated for products without one.' },
  { name: 'Stock', description: 'On-hand quantities and the ledger of movements behind them: adjustments to a counted figure, stocktakes counted and committed, batches with expiry dates, and the stock alerts (low stock, expiry).' },
  { name: 'Customers', description: 'The shop\'s customers: contact details, tax id and address for invoices, credit ceiling, loyalty card number.' },
  { name: 'Credit', description: 'Sales on account: each customer\'s statement, the payments that settle what they owe, and who owes what.' },
  { name: 'Loyalty', description: 'Points earned on what customers pay and redeemed at the till, loyalty cards, the tiers that multiply points, and the programme\'s report.' },
  { name: 'Promotions', description: 'Percentage and fixed-amount promotions on products or categories, by dates, days and hours; the best single promotion applies per line.' },
  { name: 'Sales', description: 'The till\'s sales: recorded in one transaction (prices, VAT, payments, stock, points, journal, receipt number), read, voided, refunded, and loyalty points credited afterwards.' },
  { name: 'Receipts', description: 'What a customer takes away: the receipt (ESC/POS, text for printers or chat), the A4 invoice, the receipt e-mailed, and signed 7-day links to share them without a token.' },
  { name: 'Quotes', description: 'Quotes (pro forma invoices) for a customer, valid until a date, printable, marked sent or declined, and turned into a sale at the quote\'s prices when accepted.' },
  { name: 'Shifts', description: 'A cashier\'s shift: opened with a float, cash put in or taken out, closed with the cash counted against the cash expected.' },
  { name: 'Expenses', description: 'Money the shop spends outside purchases (rent, transport, electricity): cash spent today comes out of the caller\'s open shift.' },
  { name: 'Suppliers and purchases', description: 'Suppliers and the goods bought from them: purchases received into stock at their cost (with batches), supplier invoices paid in parts, goods returned, and what is owed to each supplier.' },
  { name: 'Reports', description: 'Figures for the owner and the accountant: the daily Z, sales summary, margins, analytics, losses, the monthly VAT declaration, stock valuation and low stock, receivables, price overrides.' },
  { name: 'Devices', description: 'Tills paired with the shop: a manager issues a short pairing code, the till claims it and receives its own device token; devices are listed and revoked.' },
  { name: 'Sync', description: 'Offline tills: pull what changed since a cursor (products, customers, settings...) and push the sales, customers, expenses and cash movements recorded offline, each idempotent by its id.' },
  { name: 'Billing', description: 'The shop\'s own subscription to this service: the plans, the subscription and its charges, a plan paid by mobile money and the charge\'s status.' },
  { name: 'Partners', description: 'Resellers who bring shops: their referrals and the commissions earned on those shops\' subscription payments. For partner accounts only.' },
  { name: 'Administration', description: 'The service\'s own administrators: partners and the payment of their commissions. No shop operation is open to them.' },
  { name: 'Operations', description: 'For the people who run the service: liveness and readiness probes for a load balancer or an orchestrator (no token), and metrics for Prometheus (the metrics token).' },
];

/** The whole HTTP API, the same on Node and on Deno. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  installValidationMessages();
  const app = new OpenAPIHono<AppEnv>();
  const metrics = createAppMetrics({ limits: Object.keys(LIMITS), processMetrics: deps.config.METRICS_TOKEN !== undefined });
  app.use(requestId());
  // Browser tills are served from their own origin; tokens travel in headers, never cookies.
  app.use(cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Pairing-Secret'], exposeHeaders: ['X-Request-Id'], maxAge: 86400 }));
  app.use(async (c, next) => {
    c.set('deps', deps);
    c.set('redispatch', async (request) => app.fetch(request, c.env));
    await next();
  });
  app.use(observeRequests(metrics));
  app.use(logRequests);
  app.use(readBodyFirst);
  app.use(`${API_PREFIX}/*`, answerWithin(deps.config.REQUEST_DEADLINE_MS));
  app.use(
    `${API_PREFIX}/*`,
    admission({
      capacity: deps.sql.options.max,
      shopShare: Math.min(deps.config.DB_SHOP_SHARE, deps.sql.options.max),
      waitMs: deps.config.DB_ACQUIRE_TIMEOUT_MS,
      keyOf: shareKey,
      observer: metrics.admission,
    }),
  );
  app.onError(handleError);
  const allowedOn = allowedMethods(app);
  app.notFound((c) => {
    const allow = allowedOn(c.req.path);
    // A route of this method said "not found" itself (an unknown asset): that is a 404.
    if (!allow.length || allow.includes(c.req.method)) return handleError(errors.notFound(), c);
    c.header('Allow', allow.join(', '));
    return handleError(errors.methodNotAllowed(), c);
  });

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
    .route('/', shareRoutes)
    .route('/', shiftRoutes)
    .route('/', expenseRoutes)
    .route('/', supplierRoutes)
    .route('/', purchaseRoutes)
    .route('/', quoteRoutes)
    .route('/', alertRoutes)
    .route('/', deviceRoutes)
    .route('/', syncRoutes)
    .route('/', reportRoutes)
    .route('/', billingRoutes)
    .route('/', partnerRoutes)
    .route('/', adminRoutes);

  app.route('/', healthRoutes);
  app.route('/', metricsRoutes);
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
    tags: TAGS,
  });
  return app;
}
