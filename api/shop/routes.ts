import { createRoute } from '@hono/zod-openapi';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, one, pickErrors } from '../schemas.ts';
import { findCurrentShop, updateCurrentShop } from './queries.ts';
import { ShopRecord, UpdateShopBody } from './schemas.ts';

const getShop = createRoute({
  method: 'get',
  path: '/shop',
  tags: ['Shop'],
  summary: 'The shop\'s details and settings',
  description: 'Any shop user may read the settings a till needs (receipt texts, VAT default, negative stock).',
  security: bearer,
  middleware: [authenticate, requireRole('cashier')] as const,
  responses: {
    200: jsonResponse('The shop.', one(ShopRecord)),
    ...pickErrors(401, 403),
  },
});

const putShop = createRoute({
  method: 'put',
  path: '/shop',
  tags: ['Shop'],
  summary: 'Change the shop\'s details and settings (owner)',
  description: 'Every field is optional; only those sent change.',
  security: bearer,
  middleware: [authenticate, requireRole('owner'), requireActiveSubscription] as const,
  request: { body: jsonBody(UpdateShopBody) },
  responses: {
    200: jsonResponse('The shop as saved.', one(ShopRecord)),
    ...pickErrors(400, 401, 402, 403, 413, 422),
  },
});

export const shopRoutes = newRouter()
  .openapi(getShop, async (c) => c.json({ data: (await findCurrentShop(c.var.tx))! }, 200))
  .openapi(putShop, async (c) => c.json({ data: await updateCurrentShop(c.var.tx, c.req.valid('json')) }, 200));
