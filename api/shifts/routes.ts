import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, hasRole, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals } from '../schemas.ts';
import { CURRENT_SHIFT } from './examples.ts';
import { closeShift, currentShift, listShifts, openShift, recordCashMovement, toShiftRecord } from './queries.ts';
import {
  CashMovementBody,
  CashMovementRecord,
  CloseShiftBody,
  COUNTED_METHODS,
  CurrentShift,
  type DrawerMethod,
  OpenShiftBody,
  ShiftListQuery,
  ShiftRecord,
} from './schemas.ts';

/** CONTRACT section 3: a cashier opens and closes its own shift and records cash movements; so may managers and owners. */
const anyShopUser: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const tags = ['Shifts'];
const TimeKey = z.tuple([CursorAt, z.uuid()]);

const current = createRoute({
  method: 'get',
  path: '/shift',
  tags,
  operationId: 'getCurrentShift',
  summary: 'The caller\'s open shift with live expected cash and totals per method, or null (any shop user)',
  description:
    'Expected cash = opening float + cash sales (less change) - cash refunds and voids paid from this drawer + cash settlements taken here + cash in - cash out ' +
    '- cash expenses - cash supplier payments of this shift. A void is paid from the sale\'s drawer while it is open, else the voider\'s; a refund from the ' +
    'refunder\'s, else the sale\'s while open. Other methods: the net of their sale payments and settlements in this shift. `{"data": null}` when the caller has no open shift.',
  security: bearer,
  middleware: anyShopUser,
  responses: { 200: jsonResponse('The open shift, or null.', one(z.union([CurrentShift, z.null()]).openapi({ example: CURRENT_SHIFT }))), ...pickErrors(401, 403) },
});

const list = createRoute({
  method: 'get',
  path: '/shifts',
  tags,
  operationId: 'listShifts',
  summary: 'List shifts, newest first (a cashier sees only their own; managers and owners see all)',
  description:
    'By opening time, newest first, each with its float, expected and counted cash and their difference, and per method once closed. ' +
    'A cashier sees only their own shifts, whatever `cashier` says; managers and owners see everyone\'s and may filter by `cashier`. ' +
    '`from` and `to` are days the shift opened on, in the shop\'s time zone. Paginated: pass `meta.next_cursor` back as `cursor`.',
  security: bearer,
  middleware: anyShopUser,
  request: { query: ShiftListQuery },
  responses: { 200: jsonResponse('Shifts.', many(ShiftRecord)), ...pickErrors(401, 403) },
});

const open = createRoute({
  method: 'post',
  path: '/shift/open',
  tags,
  operationId: 'openShift',
  summary: 'Open a shift for the caller (any shop user)',
  description: 'One open shift per user: a second is a 409 `shift_already_open`, also when two opens arrive at once.',
  security: bearer,
  middleware: [...anyShopUser, requireActiveSubscription],
  request: { body: jsonBody(OpenShiftBody) },
  responses: {
    201: jsonResponse('The open shift.', one(ShiftRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, { shift_already_open: 'The caller has an open shift already: close it first.' }),
  },
});

const close = createRoute({
  method: 'post',
  path: '/shift/close',
  tags,
  operationId: 'closeShift',
  summary: 'Close the caller\'s open shift with what was counted (any shop user)',
  description:
    'Stores the expected cash, the counted cash and their difference (counted - expected), and the same per method in `by_method`. ' +
    `\`counted_by_method\` lists counts in the fixed order ${COUNTED_METHODS.join(', ')}. ` +
    'No open shift: 409 `no_open_shift`. Allowed even when the subscription has ended: a shop must always be able to close its drawer.',
  security: bearer,
  middleware: anyShopUser,
  request: { body: jsonBody(CloseShiftBody) },
  responses: {
    200: jsonResponse('The closed shift.', one(ShiftRecord)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(409, { no_open_shift: 'The caller has no open shift to close.' }),
  },
});

const cash = createRoute({
  method: 'post',
  path: '/shift/cash',
  tags,
  operationId: 'recordCashMovement',
  summary: 'Record cash put into or taken out of the drawer that is not a sale (any shop user)',
  description:
    'Drawer cash belongs to a shift: with no open shift, 409 `no_open_shift`. The movement joins the caller\'s open shift and its expected cash. ' +
    'Journal: in debits 571 (cash) and credits 588 (internal transfers); out the reverse.',
  security: bearer,
  middleware: [...anyShopUser, requireActiveSubscription],
  request: { body: jsonBody(CashMovementBody) },
  responses: {
    201: jsonResponse('The movement.', one(CashMovementRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, { no_open_shift: 'The caller has no open shift: drawer cash belongs to a shift.' }),
  },
});

/** The array of counts, in COUNTED_METHODS order, as an object keyed by method. */
function countsByMethod(counts: number[] | null | undefined): Partial<Record<DrawerMethod, number>> {
  return Object.fromEntries((counts ?? []).map((count, index) => [COUNTED_METHODS[index], count]));
}

export const shiftRoutes = newRouter()
  .openapi(current, async (c) => c.json({ data: await currentShift(c.var.tx) }, 200))
  .openapi(list, async (c) => {
    const { limit, cursor, cashier, status, from, to } = c.req.valid('query');
    const { caller, tx } = c.var;
    const before = decodeCursor(cursor, TimeKey);
    const ownOnly = !hasRole(caller, 'manager');
    if (ownOnly && cashier && cashier !== caller.userId) return c.json({ data: [], meta: { next_cursor: null } }, 200);
    const rows = await listShifts(tx, { cashier: ownOnly ? caller.userId : cashier, status, from, to }, limit, before);
    const { rows: kept, nextCursor } = page(rows, limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: kept.map(toShiftRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(open, async (c) => c.json({ data: await openShift(c.var.tx, c.req.valid('json').opening_float_xaf) }, 201))
  .openapi(close, async (c) => {
    const body = c.req.valid('json');
    const closed = await closeShift(c.var.tx, {
      counted_cash_xaf: body.counted_cash_xaf,
      note: body.note ?? null,
      counted_by_method: countsByMethod(body.counted_by_method),
    });
    return c.json({ data: closed }, 200);
  })
  .openapi(cash, async (c) => c.json({ data: await recordCashMovement(c.var.tx, c.req.valid('json')) }, 201));
