import { z } from '@hono/zod-openapi';
import { CASH_MOVEMENT, CASH_MOVEMENT_INPUT, CLOSE_SHIFT, CURRENT_SHIFT, OPEN_SHIFT, SHIFT } from './examples.ts';
import { IsoDate, ListQuery, Money, optionalText, requiredText, Timestamp, TillCreatedAt, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

/**
 * The methods a drawer is counted by, in the order `counted_by_method` lists its counts. The order is
 * part of the public contract: never reorder it, only append.
 */
export const COUNTED_METHODS = ['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank'] as const;
export const DrawerMethod = z.enum(COUNTED_METHODS);
export type DrawerMethod = z.infer<typeof DrawerMethod>;

export const OpenShiftBody = z
  .object({ opening_float_xaf: Money.openapi({ description: 'Cash in the drawer at the start.' }) })
  .openapi('OpenShift', { example: OPEN_SHIFT });

export const CloseShiftBody = z
  .object({
    counted_cash_xaf: Money.openapi({ description: 'Cash counted in the drawer.' }),
    note: optionalText(255),
    counted_by_method: z
      .array(Money)
      .max(COUNTED_METHODS.length)
      .nullable()
      .optional()
      .openapi({
        description:
          `Counts per method, in this fixed order: ${COUNTED_METHODS.map((m, i) => `${i} = ${m}`).join(', ')}. ` +
          'A shorter list counts only the first methods; the others stay uncounted (their `counted_xaf` and `difference_xaf` are null). ' +
          'The cash count, when given, must equal `counted_cash_xaf`.',
        example: [85_000, 12_000, 0, 30_500],
      }),
  })
  .superRefine((body, ctx) => {
    const cash = body.counted_by_method?.[0];
    if (cash !== undefined && cash !== body.counted_cash_xaf) {
      ctx.addIssue({ code: 'custom', path: ['counted_by_method', 0], message: 'Must equal counted_cash_xaf: both are the cash counted.' });
    }
  })
  .openapi('CloseShift', { example: CLOSE_SHIFT });

export const CashMovementBody = z
  .object({
    direction: z.enum(['in', 'out']).openapi({ description: 'in: cash put into the drawer; out: cash taken out.' }),
    amount_xaf: Money.min(1),
    reason: requiredText(160).openapi({ description: 'Required: an unexplained withdrawal is not allowed.' }),
  })
  .openapi('CashMovementInput', { example: CASH_MOVEMENT_INPUT });

export const CashMovementRecord = z
  .object({
    id: Uuid,
    shift_id: Uuid,
    user_id: Uuid.nullable(),
    direction: z.enum(['in', 'out']),
    amount_xaf: z.number().int(),
    reason: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp.openapi({ description: 'A movement is never changed: always its created_at.' }),
    till_created_at: TillCreatedAt,
  })
  .openapi('CashMovement', { example: CASH_MOVEMENT });
export type CashMovementRecord = z.infer<typeof CashMovementRecord>;

export const MethodCount = z
  .object({
    expected_xaf: z.number().int(),
    counted_xaf: z.number().int().nullable().openapi({ description: 'Null when the method was not counted.' }),
    difference_xaf: z.number().int().nullable().openapi({ description: 'counted - expected: negative when money is missing.' }),
  })
  .openapi('MethodCount', { example: SHIFT.by_method.cash });

export const ShiftStatus = z.enum(['open', 'closed']);

export const ShiftRecord = z
  .object({
    id: Uuid,
    user_id: Uuid.openapi({ description: 'The cashier whose shift it is.' }),
    user_name: z.string().nullable(),
    status: ShiftStatus,
    opening_float_xaf: z.number().int(),
    expected_cash_xaf: z.number().int().openapi({ description: 'What the drawer should hold: stored at close; live while open.' }),
    counted_cash_xaf: z.number().int().nullable().openapi({ description: 'Null while open.' }),
    difference_xaf: z.number().int().nullable().openapi({ description: 'counted - expected; null while open.' }),
    by_method: z.record(DrawerMethod, MethodCount).nullable().openapi({ description: 'Expected, counted and difference per method, stored at close; null while open.' }),
    note: z.string().nullable(),
    opened_at: Timestamp,
    closed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Shift', { example: SHIFT });
export type ShiftRecord = z.infer<typeof ShiftRecord>;

export const ShiftTotals = z
  .object({
    opening_float_xaf: z.number().int(),
    cash_sales_xaf: z.number().int().openapi({ description: 'Cash taken for sales, less change given.' }),
    cash_refunds_xaf: z.number().int().openapi({ description: 'Cash paid back for refunds and voids: a void from the sale\'s drawer while it is open, else the voider\'s; a refund from the refunder\'s, else the sale\'s while open.' }),
    cash_settlements_xaf: z.number().int().openapi({ description: 'Cash customers paid on their accounts at this drawer (POST /customers/{id}/payments while the shift was open).' }),
    cash_in_xaf: z.number().int(),
    cash_out_xaf: z.number().int(),
    cash_expenses_xaf: z.number().int().openapi({ description: 'Expenses paid in cash from this drawer, deleted ones excluded.' }),
    cash_supplier_payments_xaf: z.number().int().openapi({ description: 'Supplier invoices paid in cash from this drawer (POST /purchases/{id}/pay).' }),
    expected_cash_xaf: z.number().int().openapi({ description: 'opening float + cash sales - cash refunds + cash settlements + cash in - cash out - cash expenses - cash supplier payments.' }),
    by_method: z.record(DrawerMethod, z.number().int()).openapi({ description: 'Expected per method: cash as above; any other method, the net of its sale payments and settlements in this shift.' }),
  })
  .openapi('ShiftTotals', { example: CURRENT_SHIFT.totals });
export type ShiftTotals = z.infer<typeof ShiftTotals>;

export const CurrentShift = ShiftRecord.extend({ totals: ShiftTotals }).openapi('CurrentShift', { example: CURRENT_SHIFT });

export const ShiftListQuery = ListQuery.extend({
  cashier: Uuid.optional().openapi({ param: { name: 'cashier', in: 'query' }, description: 'The cashier\'s user id (managers and owners; a cashier only ever sees their own).' }),
  status: ShiftStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day the shift opened on, shop time.' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day, shop time; on or after from.' }),
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());
