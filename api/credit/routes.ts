import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { findCustomer, lockCustomer } from '../customers/queries.ts';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, one, pickErrors, refusals, Uuid } from '../schemas.ts';
import { openDebts, receivables, settle, settlements } from './queries.ts';
import { Receivables, SettlementBody, SettlementRecord, Statement } from './schemas.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

const CustomerParam = z.object({ customer_id: Uuid.openapi({ param: { name: 'customer_id', in: 'path' } }) });
const cashiers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const tags = ['Credit'];

const statement = createRoute({
  method: 'get',
  path: '/customers/{customer_id}/statement',
  tags,
  operationId: 'getCustomerStatement',
  summary: 'Balance, ceiling, unsettled sales and settlement history (any shop user)',
  description:
    'What the customer owes (`balance_xaf`), its ceiling and what credit is left, each credit sale not yet settled (oldest first, with what remains) ' +
    'and every settlement (newest first) with the debts it paid.',
  security: bearer,
  middleware: cashiers,
  request: { params: CustomerParam },
  responses: { 200: jsonResponse('The statement.', one(Statement)), ...pickErrors(401, 403, 404) },
});

const pay = createRoute({
  method: 'post',
  path: '/customers/{customer_id}/payments',
  tags,
  operationId: 'settleCustomerBalance',
  summary: 'Record a settlement against the balance (any shop user)',
  description:
    'Allocated to the oldest unsettled sale first. Posts the journal: debit the treasury account of the method (571 cash, 521 card or bank, 585 mobile money), credit 411. ' +
    'More than the balance: 422 on `amount_xaf` with code `overpayment`. The money joins the receiver\'s open shift, if any (its expected cash counts a cash ' +
    'settlement: `cash_settlements_xaf`), and the day\'s Z shows it per method (`settlements`): it is money taken in, as the sale put on the account was not.',
  security: bearer,
  middleware: [...cashiers, requireActiveSubscription],
  request: { params: CustomerParam, body: jsonBody(SettlementBody) },
  responses: {
    201: jsonResponse('The settlement with its allocation.', one(SettlementRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { overpayment: { on: 'amount_xaf', meaning: 'The amount is more than the customer owes.' } }),
  },
});

const report = createRoute({
  method: 'get',
  path: '/reports/receivables',
  tags: ['Reports'],
  operationId: 'getReceivables',
  summary: 'Who owes what, aged 0-30, 31-60, 61-90 and over 90 days by sale date (manager or owner)',
  description:
    'Every customer who owes, largest balance first, what they owe split by the age of each unsettled credit sale (days since the sale), ' +
    'the date of their oldest unsettled sale, and the totals of the shop. ' +
    MAY_LAG,
  security: bearer,
  middleware: [authenticate, requireRole('manager')],
  responses: { 200: jsonResponse('Receivables, largest balance first.', one(Receivables)), ...pickErrors(401, 403) },
});

export const creditRoutes = newRouter()
  .openapi(statement, async (c) => {
    const { customer_id } = c.req.valid('param');
    const { tx } = c.var;
    const customer = await findCustomer(tx, customer_id);
    if (!customer) throw errors.notFound();
    return c.json(
      {
        data: {
          customer_id,
          name: customer.name,
          balance_xaf: customer.balance_xaf,
          credit_ceiling_xaf: customer.credit_ceiling_xaf,
          available_credit_xaf: Math.max(0, customer.credit_ceiling_xaf - customer.balance_xaf),
          unsettled: await openDebts(tx, customer_id),
          settlements: await settlements(tx, customer_id),
        },
      },
      200,
    );
  })
  .openapi(pay, async (c) => {
    const { customer_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { tx } = c.var;
    if (!(await lockCustomer(tx, customer_id))) throw errors.notFound();
    const paymentId = await settle(tx, customer_id, { amount_xaf: body.amount_xaf, method: body.method, note: body.note ?? null });
    const [settlement] = await settlements(tx, customer_id, paymentId);
    return c.json({ data: settlement! }, 201);
  })
  .openapi(
    report,
    fromReplica(async (c) => c.json({ data: await receivables(c.var.tx) }, 200)),
  );
