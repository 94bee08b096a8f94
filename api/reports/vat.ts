/**
 * GET /reports/vat-declaration (CONTRACT section 9): the monthly VAT declaration, read from the
 * journal (4431 collected, 4452 deductible) with the credit carried month after month (4449) and the
 * 19.25% split into its 17.5% principal and 10% council surtax (CAC). The figures:
 * report_vat_declaration in db/functions/reports/period_reports.sql.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { newRouter } from '../router.ts';
import { bearer, businessDate, BusinessDate, jsonResponse, one, pickErrors, Text, TO_NOT_BEFORE_FROM, toNotBeforeFrom } from '../schemas.ts';
import { VAT_DECLARATION } from './examples.ts';
import { MAX_PERIOD_DAYS, readers, tags } from './period.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

const Xaf = z.number().int();

/** YYYY-MM, year 0001 to 9999 (digits as `[0-9]`: `\d` is any Unicode digit to Python and Rust, which read the document too). */
const MONTH = /^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])$/;
/** A month declared is a business date: from 2000-01 (BUSINESS_DAY_FROM, api/schemas.ts), as the document's pattern says. */
const MONTH_FROM_2000 = /^[2-9][0-9]{3}-(0[1-9]|1[0-2])$/;

const VatQuery = z
  .object({
    month: Text.regex(MONTH, 'Must be a month, YYYY-MM.')
      .refine((month) => month >= '2000-01', { message: 'Must be 2000-01 or later.', when: (payload) => payload.issues.length === 0 })
      .optional()
      .openapi({
        pattern: MONTH_FROM_2000.source,
        param: { name: 'month', in: 'query' },
        description: 'The month declared (`YYYY-MM`), 2000-01 or later (an earlier one is a 422). Default: the previous month, the one to file.',
        example: '2026-10',
      }),
    from: businessDate('Instead of `month`: first day (with `to`).').optional().openapi({ param: { name: 'from', in: 'query' } }),
    to: businessDate('Instead of `month`: last day, included (with `from`).').optional().openapi({ param: { name: 'to', in: 'query' } }),
  })
  .superRefine((q, ctx) => {
    if (q.month !== undefined && (q.from !== undefined || q.to !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['month'], message: 'Give month, or from and to, not both.' });
    } else if (q.from !== undefined && q.to === undefined) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'Required with from.' });
    } else if (q.to !== undefined && q.from === undefined) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'Required with to.' });
    } else if (BusinessDate.safeParse(q.from).success && BusinessDate.safeParse(q.to).success && !toNotBeforeFrom(q)) {
      ctx.addIssue({ code: 'custom', ...TO_NOT_BEFORE_FROM() });
    }
  });

const RateLine = z.object({
  rate: z.number(),
  base_xaf: Xaf.openapi({ description: 'The amount excluding VAT the VAT was computed on.' }),
  vat_xaf: Xaf,
  principal_xaf: Xaf.openapi({ description: 'Of the VAT, the principal: 17.5/19.25 of it at 19.25%, rounded; all of it at another rate.' }),
  cac_xaf: Xaf.openapi({ description: 'Of the VAT, the council surtax (centimes additionnels communaux): the rest at 19.25%; 0 at another rate.' }),
});
const Side = z.object({ vat_xaf: Xaf, principal_xaf: Xaf, cac_xaf: Xaf, per_rate: z.array(RateLine) });

const MonthDeclaration = z.object({
  month: z.string().openapi({ example: '2026-10' }),
  from: z.string().openapi({ format: 'date', description: 'The month\'s first day, or the period\'s when it starts later.' }),
  to: z.string().openapi({ format: 'date', description: 'The month\'s last day, or the period\'s when it ends earlier.' }),
  collected: Side.openapi({ description: 'VAT collected: sales less voids and refunds (journal 4431), per rate.' }),
  deductible: Side.openapi({ description: 'Deductible VAT: purchases less returns (journal 4452), per purchase rate.' }),
  credit_brought_forward_xaf: Xaf.openapi({ description: 'The VAT credit carried from the previous month (4449).' }),
  vat_due_xaf: Xaf.openapi({ description: 'collected - deductible - credit brought forward, when positive; else 0.' }),
  credit_carried_forward_xaf: Xaf.openapi({ description: 'When that is negative, the credit carried to the next month (4449); else 0.' }),
  nil: z.boolean().openapi({ description: 'No VAT collected nor deductible: a nil declaration, still to be filed.' }),
});

export const VatDeclaration = z
  .object({
    from: z.string().openapi({ format: 'date' }),
    to: z.string().openapi({ format: 'date' }),
    collected_xaf: Xaf,
    deductible_xaf: Xaf,
    credit_brought_forward_xaf: Xaf.openapi({ description: 'The credit carried into the period\'s first month.' }),
    vat_due_xaf: Xaf.openapi({ description: 'The VAT due of the period\'s months, summed.' }),
    credit_carried_forward_xaf: Xaf.openapi({ description: 'The credit carried out of its last month.' }),
    months: z.array(MonthDeclaration).openapi({ description: 'One declaration per calendar month of the period, in order, nil months included.' }),
  })
  .openapi('VatDeclaration', { example: VAT_DECLARATION });

const vatRoute = createRoute({
  method: 'get',
  path: '/reports/vat-declaration',
  tags,
  operationId: 'getVatDeclaration',
  summary: 'The monthly VAT declaration (manager or owner)',
  description: [
    'The monthly form\'s logic: VAT collected (4431), deductible VAT (4452), the credit brought forward from the previous month, then the VAT due or the credit carried forward (4449).',
    'It reads the journal (posted by sales, voids, refunds, purchases and their returns), so it equals the journal to the franc; the credit is carried month after month from the shop\'s first day.',
    'The 19.25% rate is split into its 17.5% principal and the 10% council surtax (CAC) on each side. A month without activity answers a nil declaration.',
    '`month=YYYY-MM` (default: the previous month); or `from` and `to` (both; days of the shop\'s time zone, both included): one declaration per month of the period,',
    'its first and last months cut to it, the credit carried into it worked out from the shop\'s first day (days of its first month before `from` as a period of their own).',
    `\`month\` with \`from\` or \`to\` is a 422 on month; \`from\` without \`to\` a 422 on to (and the reverse); \`to\` before \`from\` a 422 on to; a month after the current one a 422 on month,`,
    `\`from\` after today a 422 on from; a period longer than ${MAX_PERIOD_DAYS} days a 422 on to.`,
    MAY_LAG,
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: VatQuery },
  responses: { 200: jsonResponse('The declaration.', one(VatDeclaration)), ...pickErrors(401, 403) },
});

export const vatRoutes = newRouter().openapi(
  vatRoute,
  fromReplica(async (c) => {
    const { month, from, to } = c.req.valid('query');
    const [row] = await c.var.tx<{ report: z.infer<typeof VatDeclaration> }[]>`
      select report_vat_declaration(p.from_day, p.to_day, p.upto) as report
        from report_vat_period(${month ? `${month}-01` : null}::date, ${from ?? null}::date, ${to ?? null}::date) p`;
    return c.json({ data: row!.report }, 200);
  }),
);
