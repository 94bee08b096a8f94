/**
 * Subscription billing (CONTRACT sections 10 and 12): plans, the shop's subscription and charges, a
 * mobile-money charge to subscribe, its confirmation, and the providers' callbacks. Paying is never
 * blocked by an ended subscription (no 402 here). No provider is called while a transaction is open:
 * the payer check and a confirmation's question run before the request's transaction
 * (`beforeTransaction`), and the request to pay is sent by the worker once the charge has committed
 * (worker/tasks/charge__poll.ts). How a charge moves on what the provider says: ./charges.ts; its
 * settling, once however many ask at the same time: db/functions/billing/charge_settle.sql.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { callerLocale } from '../lib/locale.ts';
import { beforeTransaction, authenticate, requireRole, validInput } from '../middleware/auth.ts';
import { LIMITS, limitCallbacksByAddress } from '../middleware/rate-limit.ts';
import { inTenant } from '../middleware/tenancy.ts';
import { newRouter } from '../router.ts';
import { subscriptionStatus } from '../shop/queries.ts';
import { bearer, errorResponses, jsonBody, jsonResponse, one, pickErrors, refusals } from '../schemas.ts';
import { askProvider } from './charges.ts';
import { providerFor } from './providers/index.ts';
import { billingOf, chargeCallback, findCharge, findPendingCharge, findPlan, insertCharge, listPlans, tenantBook, toCharge } from './queries.ts';
import { Billing, CallbackParams, CallbackProviderParam, Charge, Plan, ReferenceParam, SubscribeBody } from './schemas.ts';

const shopUsers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const owners: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('owner')];
const tags = ['Billing'];

const plansRoute = createRoute({
  method: 'get',
  path: '/billing/plans',
  tags,
  operationId: 'listPlans',
  summary: 'The plans a shop may subscribe to (any shop user)',
  description: 'The plans on sale, shortest period first, each with its price in XAF and its length in days. Retired plans are not listed.',
  security: bearer,
  middleware: shopUsers,
  responses: { 200: jsonResponse('The plans, shortest period first.', one(z.array(Plan))), ...pickErrors(401, 403) },
});

const billingRoute = createRoute({
  method: 'get',
  path: '/billing',
  tags,
  operationId: 'getBilling',
  summary: 'The shop\'s subscription and its recent charges (owner)',
  description: '`status`: `active` while a paid subscription runs, else `trial` while the trial runs, else `expired` (writes then answer 402). Works whatever the state.',
  security: bearer,
  middleware: owners,
  responses: { 200: jsonResponse('The subscription.', one(Billing)), ...pickErrors(401, 403) },
});

const subscribeRoute = createRoute({
  method: 'post',
  path: '/billing/subscribe',
  tags,
  operationId: 'subscribe',
  summary: 'Ask the payer\'s phone for a mobile-money payment of a plan (owner)',
  description: [
    'First checks with the operator that the number holds an active mobile-money wallet (MTN\'s account-holder check; pawaPay\'s provider',
    'prediction): a number without one is a 422 `payer_not_found` on `phone`, and no charge is made. When the operator cannot be asked, the',
    'charge is made all the same (the operator refuses an unknown payer itself). Then creates a `pending` charge of the plan\'s price and answers',
    'at once: the request to pay is sent to the provider by the worker within seconds of the commit, never while the request\'s transaction is',
    'open (`MOBILE_MONEY_PROVIDER`, or the method\'s own; the default simulator decides by the number\'s last digit: 1 fails with',
    '`payer_declined`, 2 stays pending, any other succeeds). The payer approves on the phone; the charge is then settled by the worker, which',
    'asks the provider (first within seconds, then less often as the charge ages; a provider\'s callback brings the next question forward), or',
    'by POST /billing/confirm/{reference}. A charge fails only when the provider says so; a timeout, a network error, a 5xx or a 429 leaves it',
    'pending and it is asked again with the same reference until it settles, or expires after 24 hours. On success the subscription runs the',
    'plan\'s period from the later of now and its current end. Works whatever the subscription\'s state (never 402). An unknown or retired',
    '`plan_id` is a 422 on plan_id. The `reference` is a UUID v4 that also names the request at the provider.',
  ].join(' '),
  security: bearer,
  middleware: owners,
  request: { body: jsonBody(SubscribeBody) },
  responses: {
    202: jsonResponse('The charge, pending: the request to pay leaves once it is recorded.', one(Charge)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or `plan_id` names no plan on sale.',
      payer_not_found: { on: 'phone', meaning: 'The operator says the number holds no active mobile-money wallet; no charge was made.' },
    }),
  },
});

const confirmRoute = createRoute({
  method: 'post',
  path: '/billing/confirm/{reference}',
  tags,
  operationId: 'confirmCharge',
  summary: 'Ask the provider how a charge stands, and settle it (owner)',
  description:
    'A pending charge is asked of its provider once, before any transaction opens (a request not yet received by the provider is sent to it again, ' +
    'with the same reference): succeeded activates the subscription (once per charge, however many confirm or poll it at the same time), failed ends ' +
    'it with the provider\'s reason, anything else leaves it pending (the worker keeps asking). A timeout, a network error, a 5xx or a 429 leaves the ' +
    'charge pending. A settled charge is answered as it is. An unknown reference, or another shop\'s, is a 404.',
  security: bearer,
  middleware: owners,
  request: { params: ReferenceParam },
  responses: { 200: jsonResponse('The charge as it stands.', one(Charge)), ...pickErrors(401, 403, 404) },
});

const CALLBACK_DESCRIPTION = [
  'Where a provider says that a request moved: MTN MoMo calls the URL it was given with each request to pay (`X-Callback-Url`, sent when',
  '`PUBLIC_BASE_URL` is set: `{PUBLIC_BASE_URL}/api/v1/billing/callbacks/mtn_momo/{reference}`); pawaPay calls the one deposit callback URL set',
  'in its dashboard (`{PUBLIC_BASE_URL}/api/v1/billing/callbacks/pawapay`), naming the deposit in its body (`depositId`). What the callback',
  'says is never taken as the truth: the service answers 204 whatever it holds, and only asks the provider about that charge at once (a',
  'pending charge of that provider and reference; nothing otherwise). The answer is the same whether the reference exists or not, so it',
  'tells nothing about which do. MTN sends PUT or POST: both are taken. Limited per address',
  `(${LIMITS.callbacksPerAddress.max} a minute: 429 past it, with Retry-After; the worker asks the provider anyway, only later).`,
].join(' ');

const callbackRoute = <P extends typeof CallbackParams | typeof CallbackProviderParam>(method: 'put' | 'post', params: P) => {
  const named = params === CallbackParams;
  return createRoute({
    method,
    path: named ? '/billing/callbacks/{provider}/{reference}' : '/billing/callbacks/{provider}',
    tags,
    operationId: `chargeCallback${named ? '' : 'ByBody'}${method === 'post' ? 'Post' : ''}`,
    summary: `A provider's callback about a charge (no token)${named ? '' : ', the charge named in the body'}${method === 'post' ? ', as a POST' : ''}`,
    description: named
      ? CALLBACK_DESCRIPTION
      : `${CALLBACK_DESCRIPTION} This form reads the charge's reference from the body: pawaPay's \`depositId\` (or MTN's \`externalId\`); a body that is not JSON or names none is taken all the same.`,
    middleware: [limitCallbacksByAddress],
    request: { params },
    responses: { 204: { description: 'Taken (whatever the body and whether or not such a charge exists).' }, 429: errorResponses[429] },
  });
};

/** The charge a callback's body names, if it names one: pawaPay's `depositId`, MTN's `externalId` (our reference). */
function referenceInBody(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const named = body && typeof body === 'object' ? ((body as Record<string, unknown>).depositId ?? (body as Record<string, unknown>).externalId) : undefined;
  return typeof named === 'string' && named.length >= 1 && named.length <= 200 ? named : null;
}

/** A callback whose path names the charge: its poll is brought forward. */
async function callbackNamingTheCharge(c: Context<AppEnv>) {
  const { provider, reference } = validInput(c, 'param', CallbackParams);
  await chargeCallback(c.var.deps.sql, provider, reference);
  return c.body(null, 204);
}

/** A callback to the provider's one URL, the charge named in its body (if at all). */
async function callbackWithTheChargeInItsBody(c: Context<AppEnv>) {
  const reference = referenceInBody(await c.req.text());
  if (reference) await chargeCallback(c.var.deps.sql, validInput(c, 'param', CallbackProviderParam).provider, reference);
  return c.body(null, 204);
}

export const billingRoutes = newRouter()
  .openapi(plansRoute, async (c) => c.json({ data: await listPlans(c.var.tx) }, 200))
  .openapi(billingRoute, async (c) => {
    const { shop, charges } = await billingOf(c.var.tx, callerLocale(c));
    return c.json(
      {
        data: {
          status: subscriptionStatus(shop),
          trial_ends_at: shop.trial_ends_at.toISOString(),
          subscription_ends_at: shop.subscription_ends_at?.toISOString() ?? null,
          plan: shop.plan,
          charges,
        },
      },
      200,
    );
  })
  .openapi(
    subscribeRoute,
    beforeTransaction(
      // The payer's wallet is checked with the operator before the charge's transaction opens.
      async (c) => {
        const { method, phone } = validInput(c, 'json', SubscribeBody);
        const provider = providerFor(c.var.deps.config, method);
        const check = await provider.checkPayer(phone, method).catch((error: Error) => ({ payer: 'unknown' as const, detail: error.message }));
        if (check.payer === 'not_found') throw invalidField('phone', 'No active mobile-money account exists for this number.', 'payer_not_found');
        if (check.payer === 'unknown') c.var.log.warn({ provider: provider.name, detail: check.detail }, 'the payer could not be checked; the charge is made all the same');
      },
      async (c) => {
        const { plan_id, method, phone } = c.req.valid('json');
        const plan = await findPlan(c.var.tx, plan_id);
        if (!plan) throw invalidField('plan_id', 'This plan does not exist.');
        const charge = await insertCharge(c.var.tx, { plan, method, phone, provider: providerFor(c.var.deps.config, method).name });
        return c.json({ data: toCharge(charge, callerLocale(c)) }, 202);
      },
    ),
  )
  .openapi(
    confirmRoute,
    beforeTransaction(
      // A pending charge is asked of its provider before the confirmation's transaction opens; what it said is written in short transactions.
      async (c) => {
        const { deps, log } = c.var;
        const scope = c.var.transactionScope!;
        const charge = await inTenant(deps.sql, scope, (tx) => findPendingCharge(tx, validInput(c, 'param', ReferenceParam).reference), { readOnly: true });
        if (charge) await askProvider(charge, { config: deps.config, book: tenantBook(deps.sql, scope), log });
      },
      async (c) => {
        const charge = await findCharge(c.var.tx, c.req.valid('param').reference);
        if (!charge) throw errors.notFound();
        return c.json({ data: toCharge(charge, callerLocale(c)) }, 200);
      },
    ),
  )
  .openapi(callbackRoute('put', CallbackParams), callbackNamingTheCharge)
  .openapi(callbackRoute('post', CallbackParams), callbackNamingTheCharge)
  .openapi(callbackRoute('put', CallbackProviderParam), callbackWithTheChargeInItsBody)
  .openapi(callbackRoute('post', CallbackProviderParam), callbackWithTheChargeInItsBody);
