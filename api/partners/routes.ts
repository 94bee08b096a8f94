/**
 * A sales partner's own pages (CONTRACT section 11): its headline totals, the shops it referred,
 * the commission lines it earned and the payouts that paid them. Only a partner token passes
 * (`requireKind('partner')`); what it reads of a shop is its name, signup date and subscription
 * state, through the referred_shops view.
 * The administrators' side is admin-routes.ts; the rules are in queries.ts and
 * db/functions/partners/.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireKind } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, ListQuery, many, one, pickErrors } from '../schemas.ts';
import { listLines, listPayouts, listReferrals, partnerDashboard } from './queries.ts';
import { CommissionLine, PartnerCommissionQuery, PartnerDashboard, PartnerPayout, Referral } from './schemas.ts';

const partners: MiddlewareHandler<AppEnv>[] = [authenticate, requireKind('partner')];
const tags = ['Partners'];
export const TimeKey = z.tuple([CursorAt, z.uuid()]);

const dashboard = createRoute({
  method: 'get',
  path: '/partner/dashboard',
  tags,
  operationId: 'getPartnerDashboard',
  summary: 'Headline totals for the partner (partner token)',
  description:
    'Its terms, its referred shops by subscription state (a shop is `active` while a paid subscription runs, else `trial` while its trial runs, ' +
    'else `expired`), and its commissions by status: `pending` for 14 days after the payment (the refund window), then `payable`, then `paid`.',
  security: bearer,
  middleware: partners,
  responses: { 200: jsonResponse('The totals.', one(PartnerDashboard)), ...pickErrors(401, 403) },
});

const referrals = createRoute({
  method: 'get',
  path: '/partner/referrals',
  tags,
  operationId: 'listPartnerReferrals',
  summary: 'Referred shops with commission earned on each (partner token)',
  description: 'Newest signup first. Of a shop, only its name, signup date and subscription state; nothing else of any shop is readable by a partner.',
  security: bearer,
  middleware: partners,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('Referred shops.', many(Referral)), ...pickErrors(401, 403) },
});

const commissions = createRoute({
  method: 'get',
  path: '/partner/commissions',
  tags,
  operationId: 'listPartnerCommissions',
  summary: 'Individual commission lines (partner token)',
  description:
    'The partner\'s own lines, newest first; `from` and `to` are UTC days of accrual, `payout_id` keeps the lines one of its payouts paid. A shop_id ' +
    'that is not one of its referred shops, or a payout_id not its own, lists nothing. A paid line carries its payout (`payout_id`, `payout_reference`, `paid_at`).',
  security: bearer,
  middleware: partners,
  request: { query: PartnerCommissionQuery },
  responses: { 200: jsonResponse('Commission lines.', many(CommissionLine)), ...pickErrors(401, 403) },
});

const payouts = createRoute({
  method: 'get',
  path: '/partner/payouts',
  tags,
  operationId: 'listPartnerPayouts',
  summary: 'Payouts of the partner\'s commissions (partner token)',
  description:
    'The partner\'s own payouts, newest first: each time an administrator recorded paying it, the reference of the transfer, how many lines and how ' +
    'much (its lines: GET /partner/commissions with its `payout_id`). Another partner\'s payouts are never listed.',
  security: bearer,
  middleware: partners,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('Payouts.', many(PartnerPayout)), ...pickErrors(401, 403) },
});

export const partnerRoutes = newRouter()
  .openapi(dashboard, async (c) => c.json({ data: await partnerDashboard(c.var.tx) }, 200))
  .openapi(referrals, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const { rows, nextCursor } = page(await listReferrals(c.var.tx, limit, decodeCursor(cursor, TimeKey)), limit, (row) => [row.cursorAt, row.referral.shop_id]);
    return c.json({ data: rows.map((row) => row.referral), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(commissions, async (c) => {
    const { limit, cursor, shop_id, payout_id, ...filter } = c.req.valid('query');
    const before = decodeCursor(cursor, TimeKey);
    const found = await listLines(c.var.tx, { ...filter, shopId: shop_id, payoutId: payout_id, partnerId: c.var.caller.userId }, limit, before);
    const { rows, nextCursor } = page(found, limit, (row) => [row.cursorAt, row.line.id]);
    return c.json({ data: rows.map((row) => row.line), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(payouts, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const found = await listPayouts(c.var.tx, { partnerId: c.var.caller.userId }, limit, decodeCursor(cursor, TimeKey));
    const { rows, nextCursor } = page(found, limit, (row) => [row.cursorAt, row.payout.id]);
    return c.json({ data: rows.map((row) => row.payout), meta: { next_cursor: nextCursor } }, 200);
  });
