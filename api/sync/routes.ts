import { createRoute, type z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { callerLocale } from '../lib/locale.ts';
import { authenticate, authenticateDevice, authenticateDeviceEach, authenticateEach, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, pickErrors, refusals } from '../schemas.ts';
import { clockCorrectionRoutes } from './clock-corrections.ts';
import { readSince, writeCursor } from './cursor.ts';
import { applyRecord, PUSH_ORDER, type Pusher } from './push.ts';
import { entityPage, syncHorizon } from './queries.ts';
import {
  ENTITIES,
  PullQuery,
  PullResponse,
  PUSH_MAX_RECORDS,
  PUSH_MAX_SALES,
  PushBody,
  PushedCashMovement,
  PushedCustomer,
  PushedExpense,
  PushedSale,
  PushResponse,
  type PushResult,
} from './schemas.ts';

const tags = ['Sync'];

const PULL_DESCRIPTION =
  'Records changed since `since`, per entity, in pages of `limit` per entity. Call again with `since=<cursor>` while any `has_more` is true. ' +
  'Deleted records come back once with `deleted_at` set (a till that starts from nothing receives no deletion older than its first pull). ' +
  'The cursor is safe against transactions that commit out of order: rows are stamped with their transaction id and a pull serves only ' +
  'transactions that have ended, so a change committed while a till pulls reaches it on its next pull. ' +
  'Entities: categories, products, product options, variants, customers, promotions, loyalty tiers, sales (with `include_sales`) and quotes ' +
  '(so an offline till can show a customer their quote). A cursor from before quotes were served starts quotes from the beginning.';

const PUSH_DESCRIPTION =
  'Offline records, each with the till\'s UUID; one result per record in the order applied: customers (so that sales may name a customer ' +
  'created offline), then sales, expenses and cash movements, each in the order sent. Each record applies on its own, in its own ' +
  'transaction: a bad one is `rejected` with its `code` and `errors` and the others still apply; a push cut off halfway is pushed again. ' +
  'Unlike every other body, fields and kinds of records this version does not know are accepted and ignored, never a 422: a till ' +
  'updated before the server may send them, and a sale that happened is never refused for them. ' +
  'Pushing a record twice applies it once (`duplicate`). ' +
  'Sales go through the same procedure as `POST /sales` with the offline rules: never refused for stock (stock may go negative, which ' +
  'e-mails a stock alert to the owners and managers) nor for subscription state or credit ceiling, nor for the till\'s clock: `created_at` is kept, ' +
  'unless plainly wrong (see `GET /sync/clock-corrections`); receipt numbers follow the push order; a sale id already recorded answers `duplicate` with its receipt ' +
  'number. A sale pushed by a device carries that device; one pushed with a bearer token names one of the shop\'s devices (one revoked ' +
  'since included) or none: another shop\'s or an unknown one is `rejected` with `validation_failed` on `device_id`. ' +
  'A line whose product or variant was deleted since, or whose product was given variants since, is kept as a free line at the ' +
  'till\'s price (no stock moves); a customer deleted since is restored; points redeemed beyond what the customer still has are redeemed ' +
  'up to it and the rest of their value becomes a line discount (the sale keeps the total paid). Customers are merged by id: an update whose `updated_at` is older than the server\'s record is `rejected` with code `stale` ' +
  'and the server\'s `record`; setting a credit ceiling needs a manager. Expenses need a manager; cash movements go to the open shift of ' +
  'the record\'s user. On /device/sync/push records name their user with `user_id` (the till\'s logged-in staff); on /sync/push it ' +
  `defaults to the bearer. No Idempotency-Key is needed (nor stored): records are idempotent by their ids. At most ${PUSH_MAX_SALES} sales and ${PUSH_MAX_RECORDS} records in all, and 8 MiB: beyond, 413.`;

const deviceAuth = [{ deviceAuth: [] }];

/** `pullAuth` opens the request's transaction (a pull reads in one); `pushAuth` does not (a push commits record by record). */
function routesAt(
  prefix: '/device/sync' | '/sync',
  pullAuth: MiddlewareHandler<AppEnv>[],
  pushAuth: MiddlewareHandler<AppEnv>[],
  security: Record<string, string[]>[],
) {
  const who = prefix === '/sync' ? ' (any shop user, bearer token)' : ' (device credentials: `Authorization: Device <token>`)';
  // A device's 401 (`device_unauthenticated`) comes with its authentication (api/router.ts).
  const unauthenticated = prefix === '/sync' ? pickErrors(401, 403) : {};
  return {
    pull: createRoute({
      method: 'get',
      path: `${prefix}/pull`,
      tags,
      operationId: prefix === '/sync' ? 'pullSync' : 'pullDeviceSync',
      summary: `Pull the shop's records changed since a cursor${who}`,
      description: PULL_DESCRIPTION,
      security,
      middleware: pullAuth,
      request: { query: PullQuery },
      responses: {
        200: jsonResponse('One page per entity, and the cursor to continue from.', PullResponse),
        ...unauthenticated,
        ...refusals(422, { validation_failed: '`since` is neither a cursor of this service nor an ISO-8601 date-time, or another parameter is malformed.' }),
      },
    }),
    push: createRoute({
      method: 'post',
      path: `${prefix}/push`,
      tags,
      operationId: prefix === '/sync' ? 'pushSync' : 'pushDeviceSync',
      summary: `Push records made offline${who}`,
      description: PUSH_DESCRIPTION,
      security,
      middleware: pushAuth,
      request: { body: jsonBody(PushBody) },
      responses: {
        200: jsonResponse('One result per record.', PushResponse),
        ...unauthenticated,
        ...pickErrors(400),
        ...refusals(422, { validation_failed: 'The body is not an object of record arrays. A bad record is no 422: it is `rejected` in its result, and the others still apply.' }),
        ...refusals(413, { payload_too_large: `The body is over 8 MiB, or holds more than ${PUSH_MAX_SALES} sales or more than ${PUSH_MAX_RECORDS} records.` }),
      },
    }),
  };
}

const device = routesAt('/device/sync', [authenticateDevice], [authenticateDeviceEach], deviceAuth);
const user = routesAt('/sync', [authenticate, requireRole('cashier')], [authenticateEach, requireRole('cashier')], bearer);

async function pull(c: Context<AppEnv>, query: z.infer<typeof PullQuery>) {
  const { tx } = c.var;
  const horizon = await syncHorizon(tx);
  const cursor = readSince(query.since, horizon);
  const pages = await Promise.all(
    ENTITIES.map((entity) =>
      entity === 'sales' && !query.include_sales
        ? { records: [], hasMore: false, next: cursor.positions.sales }
        : entityPage(tx, entity, cursor.positions[entity], horizon, query.limit, cursor.changedSince),
    ),
  );
  const data: Record<string, object[]> = {};
  const hasMore: Record<string, boolean> = {};
  ENTITIES.forEach((entity, i) => {
    data[entity] = pages[i]!.records;
    hasMore[entity] = pages[i]!.hasMore;
    cursor.positions[entity] = pages[i]!.next;
  });
  return { data, has_more: hasMore, cursor: writeCursor(cursor) } as z.infer<typeof PullResponse>;
}

async function push(c: Context<AppEnv>, body: z.infer<typeof PushBody>, pusher: Pusher) {
  const total = PUSH_ORDER.reduce((sum, entity) => sum + (body[entity]?.length ?? 0), 0);
  if ((body.sales?.length ?? 0) > PUSH_MAX_SALES || total > PUSH_MAX_RECORDS) throw errors.payloadTooLarge();
  const results: PushResult[] = [];
  for (const entity of PUSH_ORDER) {
    for (const record of body[entity] ?? []) {
      // Answered 503 at its deadline already (api/middleware/deadline.ts): what is applied stays, the rest waits for the till's next push.
      if (c.var.pastDeadline?.()) throw errors.serviceUnavailable();
      results.push(await applyRecord(c.var.deps.sql, pusher, entity, record, c.var.log));
    }
  }
  return { data: { results } };
}

const tillOf = (c: Context<AppEnv>): Pusher => ({ shopId: c.var.device!.shopId, deviceId: c.var.device!.id, userId: null, role: null, locale: callerLocale(c), requestId: c.var.requestId });
const userOf = (c: Context<AppEnv>): Pusher => ({
  shopId: c.var.caller.shopId!,
  deviceId: null,
  userId: c.var.caller.userId,
  role: c.var.caller.role,
  locale: callerLocale(c),
  requestId: c.var.requestId,
});

export const syncRoutes = newRouter()
  .openapi(device.pull, async (c) => c.json(await pull(c, c.req.valid('query')), 200))
  .openapi(user.pull, async (c) => c.json(await pull(c, c.req.valid('query')), 200))
  .openapi(device.push, async (c) => c.json(await push(c, c.req.valid('json'), tillOf(c)), 200))
  .openapi(user.push, async (c) => c.json(await push(c, c.req.valid('json'), userOf(c)), 200))
  .route('/', clockCorrectionRoutes);

// The push body's arrays name these components by reference (`records` in ./schemas.ts: each record is checked on its own): defined here.
syncRoutes.openAPIRegistry.register('SyncSale', PushedSale);
syncRoutes.openAPIRegistry.register('SyncCustomer', PushedCustomer);
syncRoutes.openAPIRegistry.register('SyncExpense', PushedExpense);
syncRoutes.openAPIRegistry.register('SyncCashMovement', PushedCashMovement);
