import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { ExpenseRecord } from './schemas.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export interface ExpenseRow extends Omit<ExpenseRecord, 'spent_at' | 'deleted_at' | 'created_at' | 'updated_at'> {
  spent_at: Date;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

export function toExpenseRecord({ cursor_at: _, ...row }: ExpenseRow): ExpenseRecord {
  return {
    ...row,
    spent_at: row.spent_at.toISOString(),
    deleted_at: iso(row.deleted_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const expenseColumns = (tx: Tx) => tx`
  e.id, e.category, e.amount_xaf, e.payment_method, e.description, e.spent_at, e.shift_id, e.user_id,
  e.deleted_at, e.deleted_by, e.created_at, e.updated_at, ${tx.unsafe(CURSOR_AT('e.spent_at'))} as cursor_at`;

/** Records an expense and posts it (expense_record: attached to the caller's open shift when paid in cash now). */
export async function recordExpense(
  tx: Tx,
  expense: {
    id?: string;
    category: ExpenseRecord['category'];
    amount_xaf: number;
    payment_method: ExpenseRecord['payment_method'];
    description: string | null;
    spent_on: string | null;
  },
): Promise<ExpenseRecord> {
  const [row] = await tx<ExpenseRow[]>`
    select ${expenseColumns(tx)}
      from expense_record(${expense.category}, ${expense.amount_xaf}, ${expense.payment_method}, ${expense.description}, ${expense.spent_on}::date,
                          ${expense.id ?? null}::uuid) e`;
  return toExpenseRecord(row!);
}

/** Marks an expense deleted and reverses its journal entry (expense_delete: 404 when absent or already deleted). */
export async function deleteExpense(tx: Tx, id: string): Promise<void> {
  await tx`select expense_delete(${id})`;
}

/** Expenses newest first by the day spent, optionally of one category, between two days of the shop's calendar. */
export async function listExpenses(
  tx: Tx,
  filter: { category?: ExpenseRecord['category'] | undefined; from?: string | undefined; to?: string | undefined; include_deleted?: boolean | undefined },
  limit: number,
  before: readonly [string, string] | null,
): Promise<ExpenseRow[]> {
  return tx<ExpenseRow[]>`
    select ${expenseColumns(tx)}
      from expenses e join shops sh on sh.id = e.shop_id
     where e.shop_id = app_shop_id()
       ${filter.include_deleted ? tx`` : tx`and e.deleted_at is null`}
       ${filter.category ? tx`and e.category = ${filter.category}` : tx``}
       ${filter.from ? tx`and e.spent_at >= (${filter.from}::date)::timestamp at time zone sh.timezone` : tx``}
       ${filter.to ? tx`and e.spent_at < (${filter.to}::date + 1)::timestamp at time zone sh.timezone` : tx``}
       ${before ? tx`and (e.spent_at, e.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by e.spent_at desc, e.id desc
     limit ${limit + 1}`;
}
