import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals } from '../schemas.ts';
import { deleteExpense, listExpenses, recordExpense, toExpenseRecord } from './queries.ts';
import { CreateExpenseBody, ExpenseListQuery, ExpenseParam, ExpenseRecord } from './schemas.ts';

/** Expenses need a manager or the owner (CONTRACT section 3). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const writers: MiddlewareHandler<AppEnv>[] = [...readers, requireActiveSubscription];
const tags = ['Expenses'];
const TimeKey = z.tuple([CursorAt, z.uuid()]);

const list = createRoute({
  method: 'get',
  path: '/expenses',
  tags,
  operationId: 'listExpenses',
  summary: 'List expenses, newest first by the day spent (manager or owner)',
  description: 'By pages (`limit`, `cursor`), filtered by category and days spent (`from`, `to`, shop time). Deleted expenses are left out unless `include_deleted=true`. Cashiers get a 403.',
  security: bearer,
  middleware: readers,
  request: { query: ExpenseListQuery },
  responses: { 200: jsonResponse('Expenses.', many(ExpenseRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/expenses',
  tags,
  operationId: 'createExpense',
  summary: 'Record an expense (manager or owner)',
  description:
    'Posts the journal: debit the expense account of the category, credit the treasury account of the method. ' +
    'Paid in cash now while the caller has an open shift, it is taken from that drawer (`shift_id`), whose expected cash goes down.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateExpenseBody) },
  responses: {
    201: jsonResponse('The expense.', one(ExpenseRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `spent_at` is after today in the shop\'s time zone.' }),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/expenses/{expense_id}',
  tags,
  operationId: 'deleteExpense',
  summary: 'Delete an expense (manager or owner)',
  description:
    'Never erased: the expense is kept, marked deleted (`deleted_at`, `deleted_by`), and a reversing journal entry is posted; ' +
    'it no longer counts against its shift\'s expected cash. An expense already deleted is a 404, like any deleted record.',
  security: bearer,
  middleware: writers,
  request: { params: ExpenseParam },
  responses: { 204: { description: 'Deleted.' }, ...pickErrors(401, 402, 403, 404) },
});

export const expenseRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filter } = c.req.valid('query');
    const before = decodeCursor(cursor, TimeKey);
    const { rows, nextCursor } = page(await listExpenses(c.var.tx, filter, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toExpenseRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    const expense = await recordExpense(c.var.tx, {
      category: body.category,
      amount_xaf: body.amount_xaf,
      payment_method: body.payment_method,
      description: body.description ?? null,
      spent_on: body.spent_at ?? null,
    });
    return c.json({ data: expense }, 201);
  })
  .openapi(remove, async (c) => {
    await deleteExpense(c.var.tx, c.req.valid('param').expense_id);
    return c.body(null, 204);
  });
