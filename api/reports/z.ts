/**
 * GET /reports/z: the business day's Z (CONTRACT section 9), live for a day not sealed yet, the stored
 * one once the nightly task (worker/tasks/report__seal_z.ts) sealed it. The figures are computed in
 * one SQL function (db/functions/reports/z_report.sql), also what sealing stores.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import { invalidField } from '../errors.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, businessDate, jsonResponse, one, pickErrors, Uuid } from '../schemas.ts';
import { PaymentMethod } from '../credit/schemas.ts';
import { SaleMethod } from '../sales/schemas.ts';
import { Z_REPORT } from './examples.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

const readers = [authenticate, requireRole('manager')];

const Count = z.object({ count: z.number().int(), total_xaf: z.number().int() });
const CountVat = Count.extend({ vat_xaf: z.number().int() });

/** An amount per method a sale is paid with, `credit` (on a customer's account) included. */
export const MethodAmount = z.object({ method: SaleMethod, amount_xaf: z.number().int() });
/** An amount per method money is paid with (a customer's payment on its account, an expense): no `credit`. */
export const PaidAmount = z.object({ method: PaymentMethod, amount_xaf: z.number().int() });

/**
 * Not every method: the Z lists those some expense of the day used (db/functions/reports/z_report.sql),
 * and a sealed Z is answered as it was stored, never rewritten.
 */
const ExpensesPerMethod = z
  .object(Object.fromEntries(PaymentMethod.options.map((method) => [method, z.number().int().optional()])) as Record<z.infer<typeof PaymentMethod>, z.ZodOptional<z.ZodNumber>>)
  .openapi({ description: 'Per method the expenses were paid with: only the methods used that day (an absent method is 0), as the sealed Z stores them.' });

export const ZReport = z
  .object({
    date: z.string().openapi({ format: 'date', description: 'The business day, in the shop\'s time zone.' }),
    timezone: z.string(),
    sealed: z.boolean().openapi({ description: 'True once the nightly task sealed the day: the figures then never change.' }),
    z_no: z.number().int().nullable().openapi({ description: 'Sequential per shop, given at sealing to each day that saw any activity; null otherwise.' }),
    sealed_at: z.string().nullable(),
    first_receipt_no: z.number().int().nullable(),
    last_receipt_no: z.number().int().nullable(),
    sales: CountVat.extend({ gross_xaf: z.number().int(), discounts_xaf: z.number().int() }).openapi({
      description: 'The sales reported in this day: made that day (voided since or not), plus the late ones. `total_xaf` includes VAT.',
    }),
    late_sales: Count.openapi({
      description: 'Of the sales, those made on an earlier day already sealed, pushed since by an offline till: reported here, their own day\'s Z unchanged.',
    }),
    voids: CountVat.openapi({ description: 'Sales voided this day (whatever day they were made).' }),
    refunds: CountVat.openapi({ description: 'Refunds made this day.' }),
    net_total_xaf: z.number().int().openapi({ description: 'sales - voids - refunds, VAT included.' }),
    vat_xaf: z.number().int().openapi({ description: 'VAT collected net of voids and refunds: what the journal credits 4431 for the day.' }),
    net_xaf: z.number().int().openapi({ description: 'Net excluding VAT: what the journal credits 701 (sales) for the day.' }),
    vat_per_rate: z.array(z.object({ rate: z.number(), base_xaf: z.number().int(), vat_xaf: z.number().int(), total_xaf: z.number().int() })),
    payments: z.array(MethodAmount).openapi({
      description: 'Per method: the day\'s sales\' payments net of change, less what the day\'s refunds and voids gave back. `credit`: put on customers\' accounts.',
    }),
    settlements: z.array(PaidAmount).openapi({
      description:
        'Per method: what customers paid on their accounts this day (POST /customers/{id}/payments). Money taken in per method is `payments` ' +
        'without `credit` (sold on the accounts, not money) plus `settlements`; `payments` already nets refunds and voids.',
    }),
    cash_movements: z.object({ count: z.number().int(), in_xaf: z.number().int(), out_xaf: z.number().int() }),
    expenses: z.object({ count: z.number().int(), total_xaf: z.number().int(), per_method: ExpensesPerMethod }),
    cashiers: z.array(z.object({ user_id: Uuid.nullable(), name: z.string().nullable(), sales_count: z.number().int(), total_xaf: z.number().int() })),
    grand_total_xaf: z.number().int().openapi({ description: 'Cumulative net_total_xaf of every Z of the shop up to and including this day.' }),
  })
  .openapi('ZReport', { example: Z_REPORT });
export type ZReport = z.infer<typeof ZReport>;

const ZQuery = z.object({
  date: businessDate('The business day (`YYYY-MM-DD`, shop time zone); default today. Not after today.').optional().openapi({ param: { name: 'date', in: 'query' } }),
});

const zRoute = createRoute({
  method: 'get',
  path: '/reports/z',
  tags: ['Reports'],
  operationId: 'getZReport',
  summary: 'The Z (daily closing report) of a business day (manager or owner)',
  description:
    'A business day is a calendar day of the shop\'s time zone. Until the day is sealed the figures are live; after local midnight the nightly task ' +
    '(report__seal_z) seals it and this answers the stored Z (`sealed: true`, `z_no`, `grand_total_xaf`), which never changes. A sale, expense or ' +
    'cash movement pushed by an offline till for a day already sealed is reported in the next Z (`late_sales`). Sales are by the day they were ' +
    'reported in, voids and refunds by the day they were made. A day after today is a 422 on `date`. ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: ZQuery },
  responses: { 200: jsonResponse('The Z.', one(ZReport)), ...pickErrors(401, 403) },
});

/** The Z of a day of the caller's shop (today when none is given). */
export async function zReportOf(tx: Tx, date: string | undefined): Promise<ZReport> {
  const [row] = await tx<{ report: ZReport | null; future: boolean }[]>`
    select case when d.day > d.today then null else z_report_for(d.day) end as report, d.day > d.today as future
      from (select coalesce(${date ?? null}::date, (now() at time zone s.timezone)::date) as day, (now() at time zone s.timezone)::date as today
              from shops s where s.id = app_shop_id()) d`;
  if (row!.future) throw invalidField('date', 'Cannot be after today.');
  return row!.report!;
}

export const zReportRoutes = newRouter().openapi(
  zRoute,
  fromReplica(async (c) => c.json({ data: await zReportOf(c.var.tx, c.req.valid('query').date) }, 200)),
);

/** Amounts per method, as a Z or a stored Z (worker/tasks/report__email_z.ts) lists them. */
type Amounts = readonly { method: string; amount_xaf: number }[];

/**
 * Money taken in per method (CONTRACT section 12): the day's payments (refunds and voids netted) less
 * what was sold on the customers' accounts, plus what they paid on them. Methods in the Z's order.
 */
export function moneyTakenIn(z: { payments: Amounts; settlements: Amounts }): { method: string; amount_xaf: number }[] {
  const taken = new Map<string, number>();
  for (const { method, amount_xaf } of [...z.payments, ...z.settlements]) {
    if (method !== 'credit') taken.set(method, (taken.get(method) ?? 0) + amount_xaf);
  }
  return [...taken].sort(([a], [b]) => a.localeCompare(b)).map(([method, amount_xaf]) => ({ method, amount_xaf }));
}
