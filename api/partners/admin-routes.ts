/**
 * Platform administration of sales partners (CONTRACT sections 11 and 12): partners with their
 * referral and commission totals, their creation (with their login) and their terms, the commission
 * ledger across partners, and payouts (a paid line is final; each payout is recorded). Only an
 * administrator token passes (`requireKind('admin')`); the first administrator comes from
 * `npm run admin:create`. A partner's own pages are routes.ts.
 */
import { randomUUID } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { decodeCursor, page } from '../lib/pagination.ts';
import { hashPassword } from '../lib/password.ts';
import { authenticate, requireKind } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals } from '../schemas.ts';
import { createPartner, listLines, listPartners, listPayouts, setLineStatus, updatePartner } from './queries.ts';
import { TimeKey } from './routes.ts';
import {
  AdminCommissionQuery,
  AdminPayoutQuery,
  CommissionLine,
  CreatePartnerBody,
  DEFAULT_COMMISSION_MONTHS,
  DEFAULT_COMMISSION_RATE,
  PartnerListQuery,
  PartnerParam,
  PartnerPayout,
  PartnerRecord,
  PayBody,
  PayResult,
  UpdatePartnerBody,
} from './schemas.ts';

const admins: MiddlewareHandler<AppEnv>[] = [authenticate, requireKind('admin')];
const tags = ['Administration'];

const list = createRoute({
  method: 'get',
  path: '/admin/partners',
  tags,
  operationId: 'listPartners',
  summary: 'All partners with referral and commission totals (administrator)',
  description: 'Newest first. `active_shops`: referred shops whose paid subscription runs now.',
  security: bearer,
  middleware: admins,
  request: { query: PartnerListQuery },
  responses: { 200: jsonResponse('Partners.', many(PartnerRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/admin/partners',
  tags,
  operationId: 'createPartner',
  summary: 'Create a partner and its cross-tenant login (administrator)',
  description:
    `The partner logs in with its e-mail and password at POST /auth/login (\`user.kind\` \`partner\`, no shop). Unset terms take the defaults: ` +
    `commission_rate ${DEFAULT_COMMISSION_RATE}, commission_months ${DEFAULT_COMMISSION_MONTHS}. An e-mail any account already has, or a code another ` +
    'partner has (whatever the case), is a 422 on its key. The partner starts `active`.',
  security: bearer,
  middleware: admins,
  request: { body: jsonBody(CreatePartnerBody) },
  responses: {
    201: jsonResponse('The partner.', one(PartnerRecord)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, the e-mail is an account\'s already (`email`), or the code is another partner\'s (`code`).' }),
  },
});

const update = createRoute({
  method: 'put',
  path: '/admin/partners/{id}',
  tags,
  operationId: 'updatePartner',
  summary: 'Update a partner (administrator)',
  description:
    'Every field is optional; those given change. A new rate or number of months applies to commissions accrued from then on. A suspended partner ' +
    'accrues nothing new and refers no new shop (a shop registering with its code is kept unreferred); it may still log in and read its pages.',
  security: bearer,
  middleware: admins,
  request: { params: PartnerParam, body: jsonBody(UpdatePartnerBody) },
  responses: { 200: jsonResponse('The partner.', one(PartnerRecord)), ...pickErrors(400, 401, 403, 404, 413) },
});

const ledger = createRoute({
  method: 'get',
  path: '/admin/partner-commissions',
  tags,
  operationId: 'listPartnerCommissionLedger',
  summary: 'Commission ledger across all partners (administrator)',
  description:
    'Newest first; filters by partner (`partner_id`, or its alias `partner`: both given, they must be equal), status, payout (`payout_id`: the lines ' +
    'one payout paid), and UTC days of accrual (`from`, `to`; to on or after from). A paid line carries its payout (`payout_id`, `payout_reference`, `paid_at`).',
  security: bearer,
  middleware: admins,
  request: { query: AdminCommissionQuery },
  responses: { 200: jsonResponse('Commission lines.', many(CommissionLine)), ...pickErrors(401, 403) },
});

const pay = createRoute({
  method: 'post',
  path: '/admin/partner-commissions/pay',
  tags,
  operationId: 'payPartnerCommissions',
  summary: 'Mark commissions paid out or payable (administrator)',
  description: [
    [
      'Sets the status (default `paid`) of the lines given by `ids`, or, without ids, of `partner_id`\'s lines one step behind it: `paid` pays every',
      '`payable` line (a line still in its 14-day refund window is paid only by id), `payable` releases every `pending` one, `pending` holds back every',
      '`payable` one (a line put back to `pending` is held there: the daily task no longer makes it payable). One transaction: an unknown partner_id,',
      'an unknown id, or, when partner_id is given too, an id of another partner\'s line is a 422 on its key (`partner_id`, `ids.N`) and nothing',
      'changes; so is a `payout_reference` with another status than `paid`.',
    ],
    [
      'A `paid` line is final: no request changes it again, neither to pay it again (its `payout_reference` and `paid_at` stay its payout\'s) nor',
      'back to `pending` or `payable`. The lines named that are paid already are left as they are and listed in `unchanged`, with those the request',
      'had nothing to do to (already in the status; `pending` still changes a pending line it was not holding yet). `count`, `amount_xaf` and `lines`',
      'cover only the lines this request changed. A request naming paid and unpaid lines changes the unpaid ones (200); paying lines that are all',
      'paid already changes nothing and answers 200 with `count` 0 and every id in `unchanged` (a payout tool that pays what `amount_xaf` says pays',
      'nothing twice); asking lines that are all paid to go back to `pending` or `payable` is a 409 `commission_already_paid`. Without ids, paid',
      'lines are never among those selected, and a partner with nothing to',
      'change answers 200 with `count` 0. Requests at once change each line once: the lines are locked, and a request that waited sees what the other did.',
    ],
    [
      '`paid` records one payout per partner whose lines it paid (lines of several partners named together make one payout each, all with the',
      'reference given), in `payouts`: its reference, the administrator (`paid_by`), its lines and their total. Each line paid carries its',
      '`payout_id`, the reference (null when none was given, as the answer\'s `payout_reference`) and `paid_at`, the payout\'s time.',
    ],
  ].map((paragraph) => paragraph.join(' ')).join('\n\n'),
  security: bearer,
  middleware: admins,
  request: { body: jsonBody(PayBody) },
  responses: {
    200: jsonResponse('What changed, what was left alone, and the payouts recorded.', one(PayResult)),
    ...pickErrors(400, 401, 403, 413),
    ...refusals(409, { commission_already_paid: 'Every line named is paid, and the request asks them back to `pending` or `payable`: a paid line is final, and nothing was changed.' }),
    ...refusals(422, {
      validation_failed:
        'An input is missing or malformed, `partner_id` names no partner, an id names no line or another partner\'s (`ids.N`), or a `payout_reference` comes with another status than `paid`.',
    }),
  },
});

const payouts = createRoute({
  method: 'get',
  path: '/admin/partner-payouts',
  tags,
  operationId: 'listAllPartnerPayouts',
  summary: 'Commission payouts across all partners (administrator)',
  description:
    'Newest first; `partner_id` keeps one partner\'s. A payout is what one request to POST /admin/partner-commissions/pay paid one partner: its ' +
    'reference, the administrator who recorded it, its lines (GET /admin/partner-commissions with its `payout_id`) and their total. Payouts are never changed.',
  security: bearer,
  middleware: admins,
  request: { query: AdminPayoutQuery },
  responses: { 200: jsonResponse('Payouts.', many(PartnerPayout)), ...pickErrors(401, 403) },
});

export const adminRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filter } = c.req.valid('query');
    const found = await listPartners(c.var.tx, filter, limit, decodeCursor(cursor, TimeKey));
    const { rows, nextCursor } = page(found, limit, (row) => [row.cursorAt, row.partner.id]);
    return c.json({ data: rows.map((row) => row.partner), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    const passwordHash = await hashPassword(body.password, c.var.deps.config.BCRYPT_ROUNDS);
    return c.json({ data: await createPartner(c.var.tx, randomUUID(), body, passwordHash) }, 201);
  })
  .openapi(update, async (c) => {
    const partner = await updatePartner(c.var.tx, c.req.valid('param').id, c.req.valid('json'));
    if (!partner) throw errors.notFound();
    return c.json({ data: partner }, 200);
  })
  .openapi(ledger, async (c) => {
    const { limit, cursor, partner, partner_id, payout_id, ...filter } = c.req.valid('query');
    const found = await listLines(c.var.tx, { ...filter, partnerId: partner_id ?? partner, payoutId: payout_id }, limit, decodeCursor(cursor, TimeKey));
    const { rows, nextCursor } = page(found, limit, (row) => [row.cursorAt, row.line.id]);
    return c.json({ data: rows.map((row) => row.line), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(pay, async (c) => c.json({ data: await setLineStatus(c.var.tx, c.req.valid('json')) }, 200))
  .openapi(payouts, async (c) => {
    const { limit, cursor, partner_id } = c.req.valid('query');
    const found = await listPayouts(c.var.tx, { partnerId: partner_id }, limit, decodeCursor(cursor, TimeKey));
    const { rows, nextCursor } = page(found, limit, (row) => [row.cursorAt, row.payout.id]);
    return c.json({ data: rows.map((row) => row.payout), meta: { next_cursor: nextCursor } }, 200);
  });

