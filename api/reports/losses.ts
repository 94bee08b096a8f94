/**
 * GET /reports/losses (CONTRACT section 9): stock lost and found at cost as the journal posted it
 * (adjustments by reason, expired goods written off, stocktake variances) and the cash shortages of
 * the shifts closed in the period. The figures: report_losses in db/functions/reports/period_reports.sql.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, one, pickErrors, Timestamp, Uuid } from '../schemas.ts';
import { LOSSES } from './examples.ts';
import { OptionalPeriod, PERIOD_RULES, periodReport, readers, tags } from './period.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

const Xaf = z.number().int();

export const LossesReport = z
  .object({
    from: z.string().openapi({ format: 'date' }),
    to: z.string().openapi({ format: 'date' }),
    stock: z.object({
      lost_xaf: Xaf.openapi({ description: 'Stock written off at cost (journal 6031 debited against 31), adjustments and stocktakes.' }),
      gained_xaf: Xaf.openapi({ description: 'Stock found at cost (31 debited against 6031).' }),
      net_loss_xaf: Xaf.openapi({ description: 'lost_xaf - gained_xaf.' }),
      adjustments: z.object({
        count: z.number().int(),
        lost_xaf: Xaf,
        gained_xaf: Xaf,
        by_reason: z
          .array(
            z.object({
              reason: z.string().nullable().openapi({ description: 'As typed (reasons differing only by case are one); null: none given.' }),
              count: z.number().int(),
              quantity_lost: z.number(),
              quantity_gained: z.number(),
              lost_xaf: Xaf,
              gained_xaf: Xaf,
            }),
          )
          .openapi({ description: 'Manual adjustments (POST /products/{id}/adjust) per reason, largest loss first.' }),
      }),
      expired: z
        .object({ count: z.number().int(), quantity: z.number(), lost_xaf: Xaf })
        .openapi({ description: 'Of the adjustments, the write-offs whose reason says the goods expired ("expiré", "périmé", "expired"...): also in by_reason.' }),
      stocktakes: z
        .array(z.object({ stocktake_id: Uuid, note: z.string().nullable(), committed_at: Timestamp, lost_xaf: Xaf, gained_xaf: Xaf }))
        .openapi({ description: 'Each stocktake committed in the period whose variance changed the stock\'s value, at cost as posted: its losses net of its gains (one of the two is 0). A stocktake whose losses and gains cancel out posts nothing and is not listed.' }),
    }),
    cash: z.object({
      shortages_xaf: Xaf.openapi({ description: 'Cash missing at the close of the shifts closed in the period (counted below expected).' }),
      overages_xaf: Xaf.openapi({ description: 'Cash in excess at their close.' }),
      shifts_closed: z.number().int(),
      cashiers: z
        .array(z.object({ user_id: Uuid, name: z.string().nullable(), shifts: z.number().int(), shortages_xaf: Xaf, overages_xaf: Xaf }))
        .openapi({ description: 'Per cashier who closed a shift in the period, largest shortage first.' }),
      shifts: z
        .array(
          z.object({
            shift_id: Uuid,
            user_id: Uuid,
            name: z.string().nullable(),
            closed_at: Timestamp,
            expected_cash_xaf: Xaf.nullable(),
            counted_cash_xaf: Xaf.nullable(),
            difference_xaf: Xaf.nullable().openapi({ description: 'counted - expected: negative, a shortage.' }),
          }),
        )
        .openapi({ description: 'The shifts closed with a difference, in the order they were closed.' }),
    }),
  })
  .openapi('LossesReport', { example: LOSSES });

const lossesRoute = createRoute({
  method: 'get',
  path: '/reports/losses',
  tags,
  operationId: 'getLossesReport',
  summary: 'Stock lost at cost and cash shortages (manager or owner)',
  description:
    'Stock written off and found at cost as the journal posted it (so it equals the journal\'s 6031 for adjustments and stocktakes): manual adjustments by reason, ' +
    'expired goods (adjustments whose reason says so) apart, each stocktake\'s variance; and the cash shortages and overages of the shifts closed in the period, per cashier. ' +
    'Without `from` and `to`: the last 30 days; only `from`: to today; only `to`: the 30 days ending then. ' + PERIOD_RULES + ' ' + MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: OptionalPeriod },
  responses: { 200: jsonResponse('The losses.', one(LossesReport)), ...pickErrors(401, 403) },
});

export const lossesRoutes = newRouter().openapi(
  lossesRoute,
  fromReplica(async (c) => {
    const { from, to } = c.req.valid('query');
    return c.json({ data: await periodReport<z.infer<typeof LossesReport>>(c.var.tx, 'report_losses', from, to) }, 200);
  }),
);
