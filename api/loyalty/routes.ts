import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createCustomer, findCustomer, lockCustomer, updateCustomer } from '../customers/queries.ts';
import { CustomerRecord } from '../customers/schemas.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { code128Svg } from '../lib/code128.ts';
import { CursorAt, decodeCursor, page, SINGLE_PAGE } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals, Uuid } from '../schemas.ts';
import { TIERS } from './examples.ts';
import { findCurrentShop } from '../shop/queries.ts';
import { correctPoints, listTiers, loyaltyReport, pointsHistory, replaceTiers, toEntry } from './queries.ts';
import {
  CardPrint,
  CorrectPointsBody,
  LoyaltyReport,
  PointsCorrection,
  PointsEntry,
  PointsHistoryQuery,
  RegisterCardBody,
  ReplaceTiersBody,
  ReportQuery,
  TierRecord,
} from './schemas.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

const CustomerParam = z.object({ customer_id: Uuid.openapi({ param: { name: 'customer_id', in: 'path' } }) });
const cashiers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const managers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const tags = ['Loyalty'];

const registerCard = createRoute({
  method: 'post',
  path: '/loyalty-cards/register',
  tags,
  operationId: 'registerLoyaltyCard',
  summary: 'Give a pre-printed card to a customer, or to a new customer named on the spot (any shop user)',
  description:
    'Exactly one of `customer_id` and `name` (422 otherwise). A card held by another customer is a 409 `card_taken`; a customer who had another card now holds this one. ' +
    'Answers 201 when a customer was created, 200 otherwise.',
  security: bearer,
  middleware: [...cashiers, requireActiveSubscription],
  request: { body: jsonBody(RegisterCardBody) },
  responses: {
    200: jsonResponse('The customer holding the card.', one(CustomerRecord)),
    201: jsonResponse('The new customer holding the card.', one(CustomerRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, { card_taken: 'Another customer of the shop holds this card number.' }),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, both or neither of `customer_id` and `name` are given, or `customer_id` names no customer of the shop.' }),
  },
});

const printCard = createRoute({
  method: 'get',
  path: '/customers/{customer_id}/card',
  tags,
  operationId: 'getLoyaltyCard',
  summary: 'What to print on the customer\'s loyalty card, with a Code 128 barcode as SVG (any shop user)',
  description: 'The shop\'s name, the customer\'s name, card number, points and tier, and the card number as a self-contained Code 128 SVG that scans back into `GET /customers/find-by-card`. A customer without a card is a 409 `customer_has_no_card`.',
  security: bearer,
  middleware: cashiers,
  request: { params: CustomerParam },
  responses: {
    200: jsonResponse('The card.', one(CardPrint)),
    ...pickErrors(401, 403, 404),
    ...refusals(409, { customer_has_no_card: 'The customer holds no loyalty card yet: register one first.' }),
  },
});

const correct = createRoute({
  method: 'post',
  path: '/customers/{customer_id}/points',
  tags,
  operationId: 'correctLoyaltyPoints',
  summary: 'Correct a points balance outside any sale (manager or owner)',
  description: 'Adds `delta` (signed, never 0) to the customer\'s points with an `adjust` entry in the ledger, with its reason and who made it. A correction that would make the balance negative is a 422 on `delta` (`insufficient_points`).',
  security: bearer,
  middleware: [...managers, requireActiveSubscription],
  request: { params: CustomerParam, body: jsonBody(CorrectPointsBody) },
  responses: {
    201: jsonResponse('The customer and the ledger entry.', one(PointsCorrection)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { insufficient_points: { on: 'delta', meaning: 'The correction would take the customer\'s points below zero.' } }),
  },
});

const history = createRoute({
  method: 'get',
  path: '/customers/{customer_id}/points',
  tags,
  operationId: 'listLoyaltyPoints',
  summary: 'The customer\'s points ledger, newest first (any shop user)',
  description: 'Every change of the customer\'s points: earned on a sale, redeemed at the till, corrected by a manager, reversed by a void or a refund; each signed, with its source. By pages (`limit`, `cursor`).',
  security: bearer,
  middleware: cashiers,
  request: { params: CustomerParam, query: PointsHistoryQuery },
  responses: { 200: jsonResponse('Entries.', many(PointsEntry)), ...pickErrors(401, 403, 404) },
});

const getTiers = createRoute({
  method: 'get',
  path: '/loyalty/tiers',
  tags,
  operationId: 'listLoyaltyTiers',
  summary: 'The shop\'s tier ladder, lowest first (any shop user)',
  description: 'A new shop starts with Bronze (0 points, x1), Silver (1,000, x1.25) and Gold (5,000, x1.5). A customer\'s tier follows the points earned over the last 12 months.',
  security: bearer,
  middleware: cashiers,
  responses: { 200: jsonResponse('Tiers, one page.', many(TierRecord), { data: TIERS, meta: { next_cursor: null } }), ...pickErrors(401, 403) },
});

const putTiers = createRoute({
  method: 'put',
  path: '/loyalty/tiers',
  tags,
  operationId: 'replaceLoyaltyTiers',
  summary: 'Replace the tier ladder (manager or owner)',
  description: 'The ladder sent becomes the shop\'s: 1 to 8 tiers; keys and thresholds unique; the lowest tier must start at 0 points (422 on `tiers`). Customers\' tiers follow at once; points already earned are not recomputed.',
  security: bearer,
  middleware: [...managers, requireActiveSubscription],
  request: { body: jsonBody(ReplaceTiersBody) },
  responses: { 200: jsonResponse('The new ladder, one page.', many(TierRecord), { data: TIERS, meta: { next_cursor: null } }), ...pickErrors(400, 401, 402, 403, 413) },
});

const report = createRoute({
  method: 'get',
  path: '/loyalty/report',
  tags: ['Loyalty', 'Reports'],
  operationId: 'getLoyaltyReport',
  summary: 'Points issued, redeemed and adjusted over a period; top holders; customers and points per tier (manager or owner)',
  description: 'Over the days `from` to `to` of the shop\'s calendar (default the last 30 days): points issued, redeemed, corrected and reversed; the points held now; the biggest holders; customers and points per tier. Cashiers get a 403. ' + MAY_LAG,
  security: bearer,
  middleware: managers,
  request: { query: ReportQuery },
  responses: { 200: jsonResponse('The report.', one(LoyaltyReport)), ...pickErrors(401, 403) },
});

export const loyaltyRoutes = newRouter()
  .openapi(registerCard, async (c) => {
    const { card_no, customer_id, name } = c.req.valid('json');
    const { tx } = c.var;
    if ((customer_id ? 1 : 0) + (name ? 1 : 0) !== 1) {
      throw errors.invalid({ customer_id: ['Give either customer_id or name (exactly one).'] });
    }
    if (name) return c.json({ data: await createCustomer(tx, { name, card_no }) }, 201);
    if (!(await lockCustomer(tx, customer_id!))) throw invalidField('customer_id', 'No such customer in this shop.');
    return c.json({ data: (await updateCustomer(tx, customer_id!, { card_no }))! }, 200);
  })
  .openapi(printCard, async (c) => {
    const { customer_id } = c.req.valid('param');
    const { tx } = c.var;
    const customer = await findCustomer(tx, customer_id);
    if (!customer) throw errors.notFound();
    if (!customer.card_no) throw errors.conflict('customer_has_no_card', 'This customer holds no loyalty card yet.');
    const shop = (await findCurrentShop(tx))!;
    return c.json(
      {
        data: {
          shop_name: shop.name,
          customer_id,
          customer_name: customer.name,
          card_no: customer.card_no,
          points: customer.points,
          tier: customer.tier,
          barcode: { format: 'code128' as const, svg: code128Svg(customer.card_no) },
        },
      },
      200,
    );
  })
  .openapi(correct, async (c) => {
    const { customer_id } = c.req.valid('param');
    const { delta, reason } = c.req.valid('json');
    const { tx } = c.var;
    if (!(await lockCustomer(tx, customer_id))) throw errors.notFound();
    const entry = await correctPoints(tx, customer_id, delta, reason);
    return c.json({ data: { customer: (await findCustomer(tx, customer_id))!, entry } }, 201);
  })
  .openapi(history, async (c) => {
    const { customer_id } = c.req.valid('param');
    const { limit, cursor } = c.req.valid('query');
    if (!(await findCustomer(c.var.tx, customer_id))) throw errors.notFound();
    const before = decodeCursor(cursor, z.tuple([CursorAt, z.uuid()]));
    const { rows, nextCursor } = page(await pointsHistory(c.var.tx, customer_id, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toEntry), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(getTiers, async (c) => c.json({ data: await listTiers(c.var.tx), meta: SINGLE_PAGE }, 200))
  .openapi(putTiers, async (c) => c.json({ data: await replaceTiers(c.var.tx, c.req.valid('json').tiers), meta: SINGLE_PAGE }, 200))
  .openapi(
    report,
    fromReplica(async (c) => {
      const { from, to } = c.req.valid('query');
      return c.json({ data: await loyaltyReport(c.var.tx, from, to) }, 200);
    }),
  );
