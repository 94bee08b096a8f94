import { createRoute, z } from '@hono/zod-openapi';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, many, pickErrors } from '../schemas.ts';
import { listPriceOverrides, toPriceOverrideLine } from './queries.ts';
import { PriceOverrideLine, PriceOverrideQuery } from './schemas.ts';
import { lossesRoutes } from './losses.ts';
import { periodReportRoutes } from './period.ts';
import { vatRoutes } from './vat.ts';
import { zReportRoutes } from './z.ts';
import { fromReplica, MAY_LAG } from '../lib/replica.ts';

/** Reports need a manager or the owner (CONTRACT sections 3 and 9); they read, so an ended subscription does not stop them. */
const readers = [authenticate, requireRole('manager')];
const tags = ['Reports'];

const LineKey = z.tuple([CursorAt, z.uuid(), z.number().int().min(1)]);

const priceOverrides = createRoute({
  method: 'get',
  path: '/reports/price-overrides',
  tags,
  operationId: 'listPriceOverrides',
  summary: 'Sale lines charged at another price or VAT rate than the catalogue\'s, or discounted (manager or owner)',
  description: [
    'Every sale line whose unit price or VAT rate differed from the catalogue\'s when it was recorded, or that carries a line discount,',
    'whoever made it (cashiers, managers and owners alike) and however it came (online, or offline: a till\'s sale is never refused for an override, so this is where it shows).',
    'Each line says who (cashier), where (device), when (`sold_at`), whether offline, the catalogue\'s price and VAT rate against those charged, and the discount.',
    '`from` and `to` (both required) are days in the shop\'s time zone, both included, by when the sale happened; `to` before `from` is a 422 on `to`.',
    'Newest sale first, its lines in order; paginated with `limit` and `cursor`. Voided and refunded sales stay listed.',
    'The catalogue figures are those when the server recorded the line: for an offline sale, when it was pushed, so a price changed while the till was offline shows as an override;',
    'a line whose product was deleted before the push is compared with the product\'s last figures. On an offline sale, the value of points the till redeemed beyond the customer\'s balance becomes a line discount and is listed too.',
    'Free lines (no product) have no catalogue and are never listed, nor are lines recorded before the catalogue figures were kept.',
    MAY_LAG,
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: PriceOverrideQuery },
  responses: { 200: jsonResponse('The lines, newest sale first.', many(PriceOverrideLine)), ...pickErrors(401, 403) },
});

/** The reports: each in its own file of this folder (z.ts, period.ts, losses.ts, vat.ts), mounted here. */
export const reportRoutes = newRouter()
  .openapi(
    priceOverrides,
    fromReplica(async (c) => {
      const { limit, cursor, from, to } = c.req.valid('query');
      const after = decodeCursor(cursor, LineKey);
      const { rows, nextCursor } = page(await listPriceOverrides(c.var.tx, { from, to }, limit, after), limit, (row) => [row.cursor_at, row.sale_id, row.line_no]);
      return c.json({ data: rows.map(toPriceOverrideLine), meta: { next_cursor: nextCursor } }, 200);
    }),
  )
  .route('/', zReportRoutes)
  .route('/', periodReportRoutes)
  .route('/', lossesRoutes)
  .route('/', vatRoutes);
