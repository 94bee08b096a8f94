/**
 * The period reports of CONTRACT section 9: GET /reports/sales-summary, /reports/margin,
 * /reports/analytics (this file), /reports/losses (losses.ts) and /reports/vat-declaration (vat.ts).
 * Each is one SQL function of db/functions/reports/period_reports.sql reading the sealed days'
 * roll-ups (z_reports, report_facts) and computing the days not sealed yet live.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, one, pickErrors, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';
import { ANALYTICS, MARGIN, SALES_SUMMARY } from './examples.ts';
import { period } from './schemas.ts';
import { MethodAmount, PaidAmount } from './z.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

export const readers = [authenticate, requireRole('manager')];
export const tags = ['Reports'];

/** How long a period may be: three years of days. */
export const MAX_PERIOD_DAYS = 1096;

export const PERIOD_RULES =
  'Days (`YYYY-MM-DD`) of the shop\'s time zone, both included. `to` before `from` is a 422 on `to`, `from` after today a 422 on `from`, ' +
  `a period longer than ${MAX_PERIOD_DAYS} days (3 years) a 422 on \`to\`. A \`to\` after today is accepted: the days to come count for nothing.`;

/** `from` and `to` both required (sales summary). */
export const RequiredPeriod = z.object(period).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());
/** `from` and `to` optional: the last 30 days by default (margin, losses, analytics). */
export const OptionalPeriod = z
  .object({ from: period.from.optional(), to: period.to.optional() })
  .refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

const Xaf = z.number().int();
const Rate = z.number().nullable().openapi({ description: 'Margin over revenue, in percent (2 decimals); null when the revenue is 0.' });
const PeriodFields = {
  from: z.string().openapi({ format: 'date' }),
  to: z.string().openapi({ format: 'date' }),
};

export const SalesSummary = z
  .object({
    ...PeriodFields,
    totals: z.object({
      sales_count: z.number().int().openapi({ description: 'Sales reported in the period\'s Zs (voided since or not).' }),
      gross_xaf: Xaf,
      discounts_xaf: Xaf,
      sales_total_xaf: Xaf.openapi({ description: 'What those sales came to, VAT included.' }),
      voids_count: z.number().int(),
      voids_total_xaf: Xaf,
      refunds_count: z.number().int(),
      refunds_total_xaf: Xaf,
      net_total_xaf: Xaf.openapi({ description: 'sales - voids - refunds, VAT included: the sum of the days\' Z `net_total_xaf`.' }),
      vat_xaf: Xaf.openapi({ description: 'VAT collected net of voids and refunds (journal 4431).' }),
      net_xaf: Xaf.openapi({ description: 'Net excluding VAT (journal 701).' }),
      average_basket_xaf: Xaf.openapi({ description: 'sales_total_xaf / sales_count, rounded; 0 without sales.' }),
    }),
    days: z
      .array(
        z.object({
          date: z.string().openapi({ format: 'date' }),
          sales_count: z.number().int(),
          sales_total_xaf: Xaf,
          voids_total_xaf: Xaf,
          refunds_total_xaf: Xaf,
          net_total_xaf: Xaf,
          vat_xaf: Xaf,
          net_xaf: Xaf,
        }),
      )
      .openapi({ description: 'Every day of the period up to today, in order, days without sales included (zeros): each its Z\'s figures.' }),
    payments: z.array(MethodAmount).openapi({
      description: 'Per method, as the Zs: payments net of change, less what refunds and voids gave back; `credit`: put on customers\' accounts.',
    }),
    settlements: z.array(PaidAmount).openapi({
      description: 'Per method, as the Zs: what customers paid on their accounts. Money taken in: `payments` without `credit`, plus these.',
    }),
    categories: z
      .array(z.object({ category_id: Uuid.nullable(), name: z.string().nullable(), quantity: z.number(), total_xaf: Xaf, vat_xaf: Xaf, net_xaf: Xaf }))
      .openapi({ description: 'Net of voids and refunds, largest first; `category_id` null: products without a category and free lines.' }),
    cashiers: z
      .array(z.object({ user_id: Uuid.nullable(), name: z.string().nullable(), sales_count: z.number().int(), total_xaf: Xaf }))
      .openapi({ description: 'Sales made per cashier (user_id null: offline sales that named nobody), largest first.' }),
  })
  .openapi('SalesSummary', { example: SALES_SUMMARY });

const MarginLine = {
  quantity: z.number(),
  revenue_xaf: Xaf.openapi({ description: 'Sales excluding VAT, net of voids and refunds.' }),
  cost_xaf: Xaf.openapi({ description: 'Cost of goods sold: tracked goods at the cost recorded with each sale line (journal 6031); 0 for untracked ones.' }),
  margin_xaf: Xaf,
  margin_rate: Rate,
};
export const MarginReport = z
  .object({
    ...PeriodFields,
    totals: z.object({ revenue_xaf: Xaf, cost_xaf: Xaf, margin_xaf: Xaf, margin_rate: Rate }),
    products: z
      .array(z.object({ product_id: Uuid.nullable(), name: z.string().nullable(), category_id: Uuid.nullable(), tracked: z.boolean(), ...MarginLine }))
      .openapi({ description: 'Per product sold in the period, largest margin first; `product_id` null: free lines.' }),
    categories: z
      .array(z.object({ category_id: Uuid.nullable(), name: z.string().nullable(), ...MarginLine }))
      .openapi({ description: 'Per category, largest margin first; `category_id` null: without a category.' }),
  })
  .openapi('MarginReport', { example: MARGIN });

const BestSeller = z.object({ rank: z.number().int(), product_id: Uuid, name: z.string().nullable(), quantity: z.number(), total_xaf: Xaf });
const Slot = { sales_count: z.number().int(), total_xaf: Xaf };
export const AnalyticsReport = z
  .object({
    ...PeriodFields,
    sales_count: z.number().int().openapi({ description: 'Sales made in the period (voided since or not).' }),
    sales_total_xaf: Xaf,
    average_basket_xaf: Xaf.openapi({ description: 'sales_total_xaf / sales_count, rounded; 0 without sales.' }),
    best_sellers_by_quantity: z.array(BestSeller).openapi({ description: 'The 10 products sold most, net of voids and refunds.' }),
    best_sellers_by_revenue: z.array(BestSeller).openapi({ description: 'The 10 products that brought most (VAT included), net of voids and refunds.' }),
    hours: z.array(z.object({ hour: z.number().int(), ...Slot })).openapi({ description: 'The sales made per local hour, 0 to 23, all 24 listed.' }),
    weekdays: z.array(z.object({ weekday: z.number().int(), ...Slot })).openapi({ description: 'Per ISO weekday, 1 Monday to 7 Sunday, all 7 listed.' }),
    payment_mix: z
      .array(MethodAmount.extend({ share: z.number().openapi({ description: 'Percent of the money taken, 1 decimal.' }) }))
      .openapi({ description: 'Money per method, net of change, refunds and voids, largest first.' }),
  })
  .openapi('AnalyticsReport', { example: ANALYTICS });

const summaryRoute = createRoute({
  method: 'get',
  path: '/reports/sales-summary',
  tags,
  operationId: 'getSalesSummary',
  summary: 'Sales summary of a period (manager or owner)',
  description:
    'Totals, per day, per payment method, per category and per cashier. `from` and `to` are required. ' + PERIOD_RULES +
    ' Each day\'s figures are its Z\'s (GET /reports/z): the sealed Z of a sealed day, the live figures of the others, so a late sale counts in the day it was reported. ' +
    MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: RequiredPeriod },
  responses: { 200: jsonResponse('The summary.', one(SalesSummary)), ...pickErrors(401, 403) },
});

const marginRoute = createRoute({
  method: 'get',
  path: '/reports/margin',
  tags,
  operationId: 'getMarginReport',
  summary: 'Margin per product and per category (manager or owner)',
  description:
    'Revenue excluding VAT, cost of goods sold at the cost recorded with each sale line, margin and margin rate, net of voids and refunds. ' +
    'The cost is what the journal moved through 6031 for these sales: an untracked product (a service) has none, its whole revenue is margin. ' +
    'Without `from` and `to`: the last 30 days; only `from`: to today; only `to`: the 30 days ending then. ' + PERIOD_RULES + ' ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: OptionalPeriod },
  responses: { 200: jsonResponse('The margin.', one(MarginReport)), ...pickErrors(401, 403) },
});

const analyticsRoute = createRoute({
  method: 'get',
  path: '/reports/analytics',
  tags,
  operationId: 'getSalesAnalytics',
  summary: 'Best sellers, sales per hour and weekday, average basket, payment mix (manager or owner)',
  description: 'Without `from` and `to`: the last 30 days; only `from`: to today; only `to`: the 30 days ending then. ' + PERIOD_RULES + ' ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: OptionalPeriod },
  responses: { 200: jsonResponse('The analytics.', one(AnalyticsReport)), ...pickErrors(401, 403) },
});

type ReportFunction = 'report_sales_summary' | 'report_margin' | 'report_analytics' | 'report_losses' | 'report_vat_declaration';

/**
 * One report function of period_reports.sql over the period asked, resolved in the shop's calendar
 * by report_period (defaults, bounds: 422s raised there), in one statement.
 */
export async function periodReport<T>(tx: Tx, fn: ReportFunction, from: string | undefined, to: string | undefined, defaultDays = 30): Promise<T> {
  const [row] = await tx<{ report: T }[]>`
    select ${tx(fn)}(p.from_day, p.to_day, p.upto) as report from report_period(${from ?? null}::date, ${to ?? null}::date, ${defaultDays}::int) p`;
  return row!.report;
}

export const periodReportRoutes = newRouter()
  .openapi(
    summaryRoute,
    fromReplica(async (c) => {
      const { from, to } = c.req.valid('query');
      const report = await periodReport<z.infer<typeof SalesSummary>>(c.var.tx, 'report_sales_summary', from, to);
      return c.json({ data: report }, 200);
    }),
  )
  .openapi(
    marginRoute,
    fromReplica(async (c) => {
      const { from, to } = c.req.valid('query');
      const report = await periodReport<z.infer<typeof MarginReport>>(c.var.tx, 'report_margin', from, to);
      return c.json({ data: report }, 200);
    }),
  )
  .openapi(
    analyticsRoute,
    fromReplica(async (c) => {
      const { from, to } = c.req.valid('query');
      const report = await periodReport<z.infer<typeof AnalyticsReport>>(c.var.tx, 'report_analytics', from, to);
      return c.json({ data: report }, 200);
    }),
  );
