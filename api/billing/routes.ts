/**
 * Subscription billing (CONTRACT section 10): plans, the shop's subscription and charges, a
 * mobile-money charge to subscribe, and its confirmation. Paying is never blocked by an ended
 * subscription (no 402 here). The charge's settling, once however many confirm or poll it at the
 * same time, is one SQL function (db/functions/billing/charge_settle.sql); the worker polls every
 * pending charge too (worker/tasks/charge__poll.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { subscriptionStatus } from '../shop/queries.ts';
import { bearer, jsonBody, jsonResponse, one, pickErrors, refusals } from '../schemas.ts';
import { chargeStatus, providerFor } from './providers/index.ts';
import { billingOf, findCharge, findPlan, insertCharge, listPlans, newReference, settleCharge, toCharge } from './queries.ts';
import { Billing, Charge, Plan, ReferenceParam, SubscribeBody } from './schemas.ts';

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
    'Creates a `pending` charge of the plan\'s price and sends the request to pay to the provider (`MOBILE_MONEY_PROVIDER`; the default simulator decides by',
    'the number\'s last digit: 1 fails with `payer_declined`, 2 stays pending, any other succeeds). The payer approves on the phone; the charge is then',
    'confirmed by POST /billing/confirm/{reference} or by the worker, which polls every pending charge (first within seconds, then backing off; after 24 hours',
    'still pending it is `expired`). On success the subscription runs the plan\'s period from the later of now and its current end. Works whatever the',
    'subscription\'s state (never 402). An unknown or retired `plan_id` is a 422 on plan_id. A provider that refuses the request fails the charge at once.',
  ].join(' '),
  security: bearer,
  middleware: owners,
  request: { body: jsonBody(SubscribeBody) },
  responses: {
    202: jsonResponse('The charge, pending (or failed when the provider refused it).', one(Charge)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `plan_id` names no plan on sale.' }),
  },
});

const confirmRoute = createRoute({
  method: 'post',
  path: '/billing/confirm/{reference}',
  tags,
  operationId: 'confirmCharge',
  summary: 'Ask the provider how a charge stands, and settle it (owner)',
  description:
    'A pending charge is asked of its provider once: succeeded activates the subscription (once per charge, however many confirm or poll it at the same time), ' +
    'failed ends it with the provider\'s reason, pending leaves it (the worker keeps polling). A settled charge is answered as it is. A provider that cannot ' +
    'be reached leaves the charge pending. An unknown reference, or another shop\'s, is a 404.',
  security: bearer,
  middleware: owners,
  request: { params: ReferenceParam },
  responses: { 200: jsonResponse('The charge as it stands.', one(Charge)), ...pickErrors(401, 403, 404) },
});

export const billingRoutes = newRouter()
  .openapi(plansRoute, async (c) => c.json({ data: await listPlans(c.var.tx) }, 200))
  .openapi(billingRoute, async (c) => {
    const { shop, charges } = await billingOf(c.var.tx);
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
  .openapi(subscribeRoute, async (c) => {
    const { plan_id, method, phone } = c.req.valid('json');
    const { tx, deps } = c.var;
    const plan = await findPlan(tx, plan_id);
    if (!plan) throw invalidField('plan_id', 'This plan does not exist.');
    const provider = providerFor(deps.config, method);
    const reference = newReference();
    let charge = await insertCharge(tx, { reference, plan, method, phone, provider: provider.name });
    try {
      await provider.requestPayment({ reference, chargeId: charge.id, amountXaf: plan.price_xaf, phone, method });
    } catch (error) {
      c.var.log.warn({ reference, provider: provider.name, error: (error as Error).message }, 'the provider refused a request to pay');
      charge = await settleCharge(tx, reference, 'failed', 'provider_unavailable');
    }
    return c.json({ data: toCharge(charge) }, 202);
  })
  .openapi(confirmRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const { tx } = c.var;
    const charge = await findCharge(tx, reference);
    if (!charge) throw errors.notFound();
    if (charge.status !== 'pending') return c.json({ data: toCharge(charge) }, 200);
    let answer;
    try {
      answer = await chargeStatus(c.var.deps.config, charge);
    } catch (error) {
      c.var.log.warn({ reference, provider: charge.provider, error: (error as Error).message }, 'the provider could not be asked');
      return c.json({ data: toCharge(charge) }, 200);
    }
    const settled = await settleCharge(tx, reference, answer.status, answer.status === 'failed' ? answer.reason : null);
    return c.json({ data: toCharge(settled) }, 200);
  });
