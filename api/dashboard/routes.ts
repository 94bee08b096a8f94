import { createRoute, z } from '@hono/zod-openapi';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, one, pickErrors, Timestamp } from '../schemas.ts';
import { findCurrentShop } from '../shop/queries.ts';
import { SubscriptionStatus } from '../shop/schemas.ts';
import { stockSummary } from '../stock/queries.ts';
import { customerSummary } from '../credit/queries.ts';
import { purchasesSummary } from '../purchases/queries.ts';
import { zReportOf } from '../reports/z.ts';
import { countStaffByRole } from '../users/queries.ts';

const DAY_MS = 86_400_000;

const Dashboard = z
  .object({
    generated_at: Timestamp,
    shop: z.object({
      name: z.string(),
      subscription_status: SubscriptionStatus,
      trial_ends_at: Timestamp,
      subscription_ends_at: Timestamp.nullable(),
      days_left: z.number().int().openapi({ description: 'Whole days until writes need a subscription; 0 once ended.' }),
    }),
    staff: z.object({ owner: z.number().int(), manager: z.number().int(), cashier: z.number().int(), total: z.number().int() }),
    stock: z.object({
      products: z.number().int().openapi({ description: 'Products in the catalogue.' }),
      low_stock: z.number().int().openapi({ description: 'Tracked products at or below their reorder level.' }),
      stock_value_xaf: z.number().int().openapi({ description: 'On-hand x last cost over tracked products.' }),
    }),
    sales_today: z
      .object({
        count: z.number().int().openapi({ description: 'Sales of the shop\'s calendar day less the voids made today.' }),
        total_xaf: z.number().int().openapi({ description: 'Their total, VAT included, less the voids made today.' }),
        refunded_xaf: z.number().int().openapi({ description: 'Refunds made today.' }),
        net_xaf: z.number().int().openapi({ description: 'total_xaf - refunded_xaf: the Z\'s net_total_xaf.' }),
      })
      .openapi({ description: 'Today\'s Z (GET /reports/z), in short: the same figures, from the same code.' }),
    customers: z.object({
      customers: z.number().int(),
      owing: z.number().int().openapi({ description: 'Customers with a balance.' }),
      receivables_xaf: z.number().int().openapi({ description: 'What customers owe in all.' }),
      points_outstanding: z.number().int().openapi({ description: 'Loyalty points held, not yet redeemed.' }),
    }),
    purchases: z.object({
      today_count: z.number().int().openapi({ description: 'Purchases received today (shop calendar).' }),
      today_total_xaf: z.number().int(),
      payables_xaf: z.number().int().openapi({ description: 'What the shop owes suppliers: what remains of every purchase not fully paid.' }),
      open_purchases: z.number().int().openapi({ description: 'Purchases not fully paid.' }),
    }),
  })
  .openapi('Dashboard', {
    example: {
      generated_at: '2026-11-21T17:42:08.311Z',
      shop: { name: 'Boutique Mama Ngono', subscription_status: 'active', trial_ends_at: '2026-03-14T09:12:40.000Z', subscription_ends_at: '2026-12-14T09:12:40.000Z', days_left: 23 },
      staff: { owner: 1, manager: 1, cashier: 3, total: 5 },
      stock: { products: 412, low_stock: 7, stock_value_xaf: 8_465_300 },
      sales_today: { count: 86, total_xaf: 412_650, refunded_xaf: 4_500, net_xaf: 408_150 },
      customers: { customers: 238, owing: 14, receivables_xaf: 186_400, points_outstanding: 12_730 },
      purchases: { today_count: 2, today_total_xaf: 356_000, payables_xaf: 1_240_000, open_purchases: 5 },
    },
  });

const getDashboard = createRoute({
  method: 'get',
  path: '/dashboard',
  tags: ['Dashboard'],
  operationId: 'getDashboard',
  summary: 'The shop at a glance (manager or owner)',
  description:
    'Headline figures of the caller\'s shop, computed when asked (no cache): the subscription and the whole days left before writes need one, the staff by role, ' +
    'today\'s sales in the shop\'s time zone (the same figures as `GET /reports/z` for today, from the same code), the catalogue and its stock value at last cost, ' +
    'what customers owe and the loyalty points they hold, and today\'s purchases with what the shop owes its suppliers. Cashiers get a 403.',
  security: bearer,
  middleware: [authenticate, requireRole('manager')] as const,
  responses: { 200: jsonResponse('Headline figures.', one(Dashboard)), ...pickErrors(401, 403) },
});

export const dashboardRoutes = newRouter().openapi(getDashboard, async (c) => {
  const { tx } = c.var;
  const shop = (await findCurrentShop(tx))!;
  const staff = await countStaffByRole(tx);
  const stock = await stockSummary(tx);
  const customers = await customerSummary(tx);
  const today = await zReportOf(tx, undefined);
  const sales = {
    count: today.sales.count - today.voids.count,
    total_xaf: today.sales.total_xaf - today.voids.total_xaf,
    refunded_xaf: today.refunds.total_xaf,
    net_xaf: today.net_total_xaf,
  };
  const purchases = await purchasesSummary(tx);
  const now = Date.now();
  const activeUntil = Math.max(Date.parse(shop.trial_ends_at), shop.subscription_ends_at ? Date.parse(shop.subscription_ends_at) : 0);
  return c.json(
    {
      data: {
        generated_at: new Date(now).toISOString(),
        shop: {
          name: shop.name,
          subscription_status: shop.subscription_status,
          trial_ends_at: shop.trial_ends_at,
          subscription_ends_at: shop.subscription_ends_at,
          days_left: Math.max(0, Math.ceil((activeUntil - now) / DAY_MS)),
        },
        staff: { ...staff, total: staff.owner + staff.manager + staff.cashier },
        sales_today: sales,
        stock,
        customers,
        purchases,
      },
    },
    200,
  );
});
