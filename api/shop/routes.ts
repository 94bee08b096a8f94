import { createRoute } from '@hono/zod-openapi';
import { assertCertifiableRate } from '../fiscal/certification-queries.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, one, pickErrors, refusals } from '../schemas.ts';
import { findCurrentShop, updateCurrentShop } from './queries.ts';
import { ShopRecord, UpdateShopBody } from './schemas.ts';

const getShop = createRoute({
  method: 'get',
  path: '/shop',
  tags: ['Shop'],
  operationId: 'getShop',
  summary: 'The shop\'s details and settings',
  description:
    'Any shop user may read the settings a till needs: receipt header and footer, default VAT rate, negative stock, the names of the payment methods, ' +
    'loyalty rates, cashier limits, time zone, and the subscription (status and end dates). Partners and administrators have no shop: 403.',
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
  operationId: 'updateShop',
  summary: 'Change the shop\'s details and settings (owner)',
  description:
    'The owner only (a manager gets a 403). Every field is optional; only those sent change. `payment_method_labels` is merged into the shop\'s names ' +
    '(a method sent as null gets its default back). An unknown IANA `timezone` is a 422 on `timezone`. Tills receive the new settings on their next pull.',
  security: bearer,
  middleware: [authenticate, requireRole('owner'), requireActiveSubscription] as const,
  request: { body: jsonBody(UpdateShopBody) },
  responses: {
    200: jsonResponse('The shop as saved.', one(ShopRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, {
      unmapped_vat_rate: {
        on: 'default_vat_rate',
        meaning: 'The shop certifies its sales and its tax authority has no tax group for this VAT rate (GET /fiscal/certification lists them).',
      },
    }),
  },
});

export const shopRoutes = newRouter()
  .openapi(getShop, async (c) => c.json({ data: (await findCurrentShop(c.var.tx))! }, 200))
  .openapi(putShop, async (c) => {
    const body = c.req.valid('json');
    await assertCertifiableRate(c.var.tx, c.var.deps.config, body.default_vat_rate, 'default_vat_rate');
    return c.json({ data: await updateCurrentShop(c.var.tx, body) }, 200);
  });
