import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, pickErrors } from '../schemas.ts';
import { expiringBatches, stockAlerts } from './queries.ts';
import { Alert, AlertsQuery, Expiring, ExpiringQuery } from './schemas.ts';

/** Stock alerts and expiring batches are a manager's reading (issue 13). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const tags = ['Stock'];

const expiring = createRoute({
  method: 'get',
  path: '/reports/expiring',
  tags,
  summary: 'Batches nearing expiry, expired ones included (manager or owner)',
  description: 'Batches with stock left whose expiry date is at most `within_days` days from today in the shop\'s time zone, soonest first, valued at their unit cost.',
  security: bearer,
  middleware: readers,
  request: { query: ExpiringQuery },
  responses: { 200: jsonResponse('Expiring batches.', Expiring), ...pickErrors(401, 403, 422) },
});

const alerts = createRoute({
  method: 'get',
  path: '/alerts',
  tags,
  summary: 'Stock alerts, most urgent first (manager or owner)',
  description:
    'Kinds, in this order: `negative_stock` (on hand below 0: also e-mailed when it happens), `expired` (a batch past its date with stock), ' +
    '`out_of_stock` (on hand 0), `expiring` (a batch expiring within `expiring_days`, soonest first), `low_stock` (0 < on hand <= a reorder level above 0), ' +
    '`dead_stock` (stock and no sale for `dead_days` days; an item never sold counts from its creation). Tracked, active items only; a product with ' +
    'variants is judged per variant. At most `limit` alerts. The owners and managers also receive them once a day by e-mail when there is something to say.',
  security: bearer,
  middleware: readers,
  request: { query: AlertsQuery },
  responses: { 200: jsonResponse('Alerts.', z.object({ data: z.array(Alert) })), ...pickErrors(401, 403, 422) },
});

export const alertRoutes = newRouter()
  .openapi(expiring, async (c) => {
    const { within_days } = c.req.valid('query');
    const { rows, asOf } = await expiringBatches(c.var.tx, within_days);
    return c.json({ data: rows, meta: { within_days, as_of: asOf, total_value_xaf: rows.reduce((sum, row) => sum + row.value_xaf, 0) } }, 200);
  })
  .openapi(alerts, async (c) => {
    const { dead_days, expiring_days, limit } = c.req.valid('query');
    return c.json({ data: await stockAlerts(c.var.tx, dead_days, expiring_days, limit) }, 200);
  });
