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
import { certificationRoutes } from './fiscal/certification-routes.ts';
import { fiscalRoutes } from './fiscal/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { loyaltyRoutes } from './loyalty/routes.ts';
import { productRoutes } from './products/routes.ts';
import { receiptRoutes } from './receipts/routes.ts';
import { shareRoutes, sharedPageRoutes } from './receipts/share-routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { promotionRoutes } from './promotions/routes.ts';
import { purchaseRoutes } from './purchases/routes.ts';
import { quoteRoutes } from './quotes/routes.ts';
import { quoteShareRoutes } from './quotes/share-routes.ts';
import { saleRoutes } from './sales/routes.ts';
import { newRouter } from './router.ts';
import { shiftRoutes } from './shifts/routes.ts';
import { shopRoutes } from './shop/routes.ts';
import { logoRoutes } from './shop/logo.ts';
import { stockRoutes } from './stock/routes.ts';
import { supplierRoutes } from './suppliers/routes.ts';
import { syncRoutes } from './sync/routes.ts';
import { userRoutes } from './users/routes.ts';
import { installValidationMessages } from './validation.ts';
import { closeRequestBodies } from './strict-inputs.ts';
import { registerErrorAnswers } from './docs/error-answers.ts';
import { admission } from './middleware/admission.ts';
import { shareKey } from './middleware/auth.ts';
import { answerWithin } from './middleware/deadline.ts';
import { readBodyFirst } from './middleware/body.ts';
import { limitHeaderSize } from './middleware/header-size.ts';
import { refuseUndecodableUrl } from './middleware/percent-encoding.ts';
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
  '**Errors.** Each error answer of each operation lists the codes it can carry there, with what each means, and its schema narrows `code` ' +
    'to them (over `ErrorResponse`); a 422\'s examples name inputs of that operation. `default` is what any operation may answer besides: ' +
    '500 `server_error`, what the HTTP server answers by itself (400 `bad_request`, 408 `request_timeout`, 431 `headers_too_large`), ' +
    'and a body refused as it is read, even by an operation that takes none (400 `malformed_json`, 413 `payload_too_large`). Every answer carries `X-Request-Id`, every error answer `Content-Language`, every 429 and 503 `Retry-After` (seconds). ' +
    'A 405 `method_not_allowed` answers a method a path has no operation for, with the path\'s methods in `Allow` (`Allow: GET, HEAD, POST`): ' +
    'stated here once, since no operation of the document can answer it.',
  '',
  '**Strict inputs.** A body field or a query parameter the operation does not know is a 422 `validation_failed` on its dotted path ' +
    '(`items.0.foo`, `dat`) with the message `Unknown field.`, answered with the request\'s other validation errors: a typo is never ' +
    'taken as "not given". Request bodies say so with `additionalProperties: false`; an operation without query parameters takes none. ' +
    'A sync push is the exception, its body (`SyncPush`) and its records (`SyncSale`, `SyncCustomer`, `SyncExpense`, `SyncCashMovement`) ' +
    'with all they hold: a till updated before the server may send fields and kinds of records this version does not know, and a sale that ' +
    'happened is never refused for them, so they are accepted and ignored (`additionalProperties: true`).',
  '',
  '**Language.** Error messages (`message` and those of `errors`) follow the caller: the authenticated user\'s `locale` (`fr` or `en`, ' +
    '`fr` by default), else the request\'s `Accept-Language` (the first of French and English by q-value; `fr-CM` is French), else English, ' +
    'the texts of the examples; a 401 follows the request alone. `code` never changes. Numbers are written the caller\'s way (`Seulement 46 en stock.`, ' +
    '`149 750 FCFA` / `149,750 FCFA`). `Content-Language` says which language an error is in.',
  '',
  '**Text, e-mail, flags.** A text input takes any Unicode text but a NUL (U+0000) or an unpaired UTF-16 surrogate (JSON `"\\ud800"`), ' +
    'each a 422 on its key. A required text is trimmed and must keep a character that is not white space, as JavaScript\'s `trim()` counts it: ' +
    'ASCII white space, U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. The schemas\' `pattern`s read alike ' +
    'in every JSON Schema validator (ECMA-262 without the `u` flag, Python, Rust, PCRE: no `\\u` escape, no lookaround, digits as `[0-9]`, ' +
    'white space beyond ASCII written as itself); what they cannot state that way is stated here alone: the unpaired surrogate, and U+2028 and U+2029 as white space. ' +
    'Their `$` is the end of the text, as in ECMA-262 (Python\'s `re.search` also lets it match before a final line feed, which the server refuses in a time or a day). ' +
    'An e-mail address is what `format: email` means (RFC 5321, as ajv-formats checks it): a dot-atom local part (`jp.mbarga+caisse@...`), ' +
    'then two or more hostname labels of at most 63 letters, digits and hyphens, none starting or ending with a hyphen; no quoted local part, ' +
    'no address literal; at most 254 characters. A boolean query parameter (`?active=true`) takes `true` or `false`, and `1` or `0` as well.',
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
    '10 failed logins per e-mail in 15 minutes; 5 forgot-password requests per e-mail an hour; 10 registrations per e-mail an hour. ' +
    'Each window starts with its first request; a refusal\'s `Retry-After` is the seconds left in it.',
  '',
  '**Browsers.** CORS is open to any origin: tokens travel in headers, never in cookies.',
  '',
  '**Transport.** Bodies are JSON (`Content-Type: application/json`) in UTF-8: one that is not valid JSON, or not UTF-8, is a 400 `malformed_json`; ' +
    'another type on a body that is there is a 415 `unsupported_media_type` ' +
    '(an empty body is no body, whatever its type). Another method on a path that exists is a 405 `method_not_allowed` with the path\'s methods in `Allow`. ' +
    'The whole body is read before the operation starts, so every answer leaves a kept-alive connection usable (a 413 closes it: `Connection: close`). ' +
    'Kept-alive connections stay open 65 s idle. A request must arrive whole within 120 s, else 408 `request_timeout`. ' +
    'A query or path parameter whose percent-encoding does not decode to UTF-8 (`?q=%FF`) is a 422 on its name. ' +
    'The request line and headers may take 16 KiB: more is a 431 `headers_too_large`. A request that cannot be read as HTTP/1.1 ' +
    '(its request line, a header, its chunked framing, a path with a backslash, its Host) is a 400 `bad_request`. These answers too are JSON in the error shape, ' +
    'with `X-Request-Id`; a 400 `bad_request`, a 408 and a 431 past 64 KiB come from the HTTP server itself, in English, and but for a bad path or Host ' +
    'close the connection (`Connection: close`).',
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

/**
 * The service is not published under an open licence (package.json: private). An SPDX `identifier` is
 * OpenAPI 3.1's; @hono/zod-openapi types doc31's configuration as 3.0's, hence a constant, not a literal.
 */
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

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
  { name: 'Fiscal', description: 'The shop\'s fiscal chain: every sale, void, refund, sealed Z and monthly or yearly closing chained by SHA-256 hashes as it commits, the check of the chain against the records as they are now, the closings with their perpetual totals, and archives signed with Ed25519 that anyone can verify offline.' },
  { name: 'Certification', description: 'Certified invoicing with the tax authority (CONTRACT section 14): the shop\'s credentials at Benin\'s e-MECeF or Cote d\'Ivoire\'s FNE (or the simulator), the records sent in chain order after each sale commits (a sale never waits for the authority), what was certified, rejected or waits, and the owner\'s word on a lost answer.' },
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
  app.use(cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Pairing-Secret'], exposeHeaders: ['X-Request-Id', 'Retry-After', 'Content-Language'], maxAge: 86400 }));
  app.use(async (c, next) => {
    c.set('deps', deps);
    c.set('redispatch', async (request) => app.fetch(request, c.env));
    await next();
  });
  app.use(observeRequests(metrics));
  app.use(logRequests);
  app.use(limitHeaderSize);
  app.use(readBodyFirst);
  app.use(refuseUndecodableUrl);
  const admit = admission({
    capacity: deps.sql.options.max,
    shopShare: Math.min(deps.config.DB_SHOP_SHARE, deps.sql.options.max),
    waitMs: deps.config.DB_ACQUIRE_TIMEOUT_MS,
    keyOf: shareKey,
    observer: metrics.admission,
  });
  // The API and the shared links' pages (/s/{token}, outside the prefix so that a link fits an SMS) use the database.
  for (const path of [`${API_PREFIX}/*`, '/s/*']) {
    app.use(path, answerWithin(deps.config.REQUEST_DEADLINE_MS));
    app.use(path, admit);
  }
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
    .route('/', logoRoutes)
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
    .route('/', quoteShareRoutes)
    .route('/', alertRoutes)
    .route('/', deviceRoutes)
    .route('/', syncRoutes)
    .route('/', reportRoutes)
    .route('/', fiscalRoutes)
    .route('/', certificationRoutes)
    .route('/', billingRoutes)
    .route('/', partnerRoutes)
    .route('/', adminRoutes);

  app.route('/', healthRoutes);
  app.route('/', metricsRoutes);
  app.route('/', docsRoutes);
  app.route('/', sharedPageRoutes);
  app.route(API_PREFIX, v1);

  registerErrorAnswers(app.openAPIRegistry);
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
  // Strict inputs: every object a request body holds is closed in the document (api/strict-inputs.ts).
  const generateDocument = app.getOpenAPI31Document;
  app.getOpenAPI31Document = (...args) => closeRequestBodies(generateDocument(...args));
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Point-of-sale API',
      version: '1.0.0',
      license: LICENSE,
      contact: { name: 'The operator of this point-of-sale service' },
      description: API_DESCRIPTION,
    },
    servers: [{ url: '/' }],
    tags: TAGS,
  });
  return app;
}
