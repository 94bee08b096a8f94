import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, pickErrors } from '../schemas.ts';
import { EXPIRING_ALERT, LOW_STOCK_ALERT } from './examples.ts';
import { expiringBatches, stockAlerts } from './queries.ts';
import { Alert, AlertsQuery, Expiring, ExpiringQuery } from './schemas.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

/** Stock alerts and expiring batches are a manager's reading (issue 13). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager')];
const tags = ['Stock'];

const expiring = createRoute({
  method: 'get',
  path: '/reports/expiring',
  tags,
  operationId: 'listExpiringBatches',
  summary: 'Batches nearing expiry, expired ones included (manager or owner)',
  description:
    'Batches with stock left whose expiry date is at most `within_days` days from today in the shop\'s time zone, already expired ones included ' +
    '(negative `days_left`), soonest first, then by name. `value_xaf` is what the batch holds at the unit cost it was received at (excluding VAT), ' +
    'rounded half away from zero; `meta.total_value_xaf` sums them. Batches of deleted products or variants are left out; batches without an expiry ' +
    'date never expire. Not paginated: a shop holds few dated batches within a window. ' +
    MAY_LAG,
  security: bearer,
  middleware: readers,
  request: { query: ExpiringQuery },
  responses: { 200: jsonResponse('Expiring batches.', Expiring), ...pickErrors(401, 403) },
});

const alerts = createRoute({
  method: 'get',
  path: '/alerts',
  tags,
  operationId: 'listStockAlerts',
  summary: 'Stock alerts, most urgent first (manager or owner)',
  description:
    'Kinds, in this order: `negative_stock` (on hand below 0: also e-mailed when it happens), `expired` (a batch with stock whose expiry date is past, ' +
    '`days_left` < 0), `out_of_stock` (on hand 0), `expiring` (a batch with stock expiring today to `expiring_days` days from today, `days_left` 0 to ' +
    '`expiring_days`, soonest first), `low_stock` (0 < on hand <= a reorder level above 0), `dead_stock` (stock and no sale for `dead_days` days: ' +
    '`last_sold_at` is the last sale, null when never sold, and then the item counts from its creation). Within a kind, by name. Days are calendar days ' +
    'of the shop\'s time zone. Tracked, active, not deleted items only; a product with variants is judged per variant (each against the product\'s ' +
    'reorder level) and its own row is not listed. An item may appear under several kinds (low on stock and holding an expiring batch). `quantity` is the ' +
    'on hand, or for a batch what it holds. At most `limit` alerts (capped at 500). The owners and managers also receive the expired, expiring, ' +
    'out-of-stock and dead-stock alerts once a day by e-mail when there is something to say.',
  security: bearer,
  middleware: readers,
  request: { query: AlertsQuery },
  responses: {
    200: jsonResponse('Alerts.', z.object({ data: z.array(Alert) }).openapi({ example: { data: [EXPIRING_ALERT, LOW_STOCK_ALERT] } })),
    ...pickErrors(401, 403),
  },
});

export const alertRoutes = newRouter()
  .openapi(
    expiring,
    fromReplica(async (c) => {
      const { within_days } = c.req.valid('query');
      const { rows, asOf } = await expiringBatches(c.var.tx, within_days);
      return c.json({ data: rows, meta: { within_days, as_of: asOf, total_value_xaf: rows.reduce((sum, row) => sum + row.value_xaf, 0) } }, 200);
    }),
  )
  .openapi(alerts, async (c) => {
    const { dead_days, expiring_days, limit } = c.req.valid('query');
    return c.json({ data: await stockAlerts(c.var.tx, dead_days, expiring_days, limit) }, 200);
  });
