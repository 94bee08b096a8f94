import { z } from '@hono/zod-openapi';
import { PaymentMethod } from '../credit/schemas.ts';
import { CREATE_EXPENSE, EXPENSE } from './examples.ts';
import { businessDate, IsoDate, ListQuery, Money, optionalText, QueryBoolean, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

export const ExpenseCategory = z.enum(['rent', 'utilities', 'salaries', 'transport', 'supplies', 'other']);

export const CreateExpenseBody = z
  .object({
    category: ExpenseCategory.openapi({
      description: 'Journal account debited: rent 6222, utilities 6052, salaries 6611, transport 6181, supplies 6047, other 6588 (SYSCOHADA).',
    }),
    amount_xaf: Money.min(1),
    payment_method: PaymentMethod.openapi({ description: 'Treasury account credited: cash 571, card and bank 521, mobile money 585.' }),
    description: optionalText(255),
    spent_at: businessDate(
      'The day it was spent, in the shop\'s time zone; not after today. Omitted, null or today: spent now, and, paid in cash, taken from the ' +
        'caller\'s open shift (its expected cash goes down). An earlier day: recorded at the start of that day and attached to no shift.',
    )
      .nullable()
      .optional(),
  })
  .openapi('CreateExpense', { example: CREATE_EXPENSE });

export const ExpenseRecord = z
  .object({
    id: Uuid,
    category: ExpenseCategory,
    amount_xaf: z.number().int(),
    payment_method: PaymentMethod,
    description: z.string().nullable(),
    spent_at: Timestamp,
    shift_id: Uuid.nullable().openapi({ description: 'The shift whose drawer paid it (cash spent during an open shift).' }),
    user_id: Uuid.nullable(),
    deleted_at: Timestamp.nullable(),
    deleted_by: Uuid.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Expense', { example: EXPENSE });
export type ExpenseRecord = z.infer<typeof ExpenseRecord>;

export const ExpenseListQuery = ListQuery.extend({
  category: ExpenseCategory.optional().openapi({ param: { name: 'category', in: 'query' } }),
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day spent, shop time.' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day spent, shop time; on or after from.' }),
  include_deleted: QueryBoolean.optional().openapi({ param: { name: 'include_deleted', in: 'query' }, description: 'Also list deleted expenses (default false).' }),
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const ExpenseParam = z.object({ expense_id: Uuid.openapi({ param: { name: 'expense_id', in: 'path' } }) });
