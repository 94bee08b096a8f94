import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { limitPublicByAddress } from '../middleware/rate-limit.ts';
import { inTenant } from '../middleware/tenancy.ts';
import { newRouter } from '../router.ts';
import { findSale, loadReceiptInput } from '../sales/queries.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import { bearer, jsonResponse, one, pickErrors, refusals, Text, Timestamp } from '../schemas.ts';
import { SHARED_LINKS } from './examples.ts';
import { renderInvoice } from './invoice.ts';
import { SHARE_LINK_DAYS, shareExpiry, signShareToken, verifyShareToken } from './share.ts';
import { HTML_PAGE, INVOICE_CSP, InvoiceQuery, SaleParam, TextQuery, TextReceipt } from './schemas.ts';
import { renderText } from './text.ts';

const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];

const tags = ['Receipts'];

const TokenParam = z.object({
  token: Text.min(1).max(200).openapi({ param: { name: 'token', in: 'path' }, description: 'The token of a link from POST /sales/{sale_id}/share.' }),
});

const SharedLinks = z
  .object({
    url: z.string().openapi({ description: 'The link to send: the invoice page (same as invoice_url).' }),
    invoice_url: z.string().openapi({ description: 'The invoice as a printable HTML page, no token needed.' }),
    receipt_url: z.string().openapi({ description: 'The receipt as plain text (`{"data": {"format": "text", "text"}}`), no token needed.' }),
    expires_at: Timestamp.openapi({ description: `When the links stop working: ${SHARE_LINK_DAYS} days after they were made.` }),
  })
  .openapi('SharedLinks', { example: SHARED_LINKS });

const LINK_RULES =
  `A link works ${SHARE_LINK_DAYS} days, needs no token and is revoked by voiding the sale. A link that is malformed, altered, expired, ` +
  'of a voided sale or of a sale that no longer exists answers the same 404 `not_found`, which never says which.';

const shareRoute = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/share',
  tags,
  operationId: 'shareSale',
  summary: 'A signed link to the invoice and the receipt, to send by WhatsApp or SMS (any shop user)',
  description:
    `Answers links that open the sale's invoice and text receipt without a bearer token. ${LINK_RULES} ` +
    'Every call makes a new link; each stays good until it expires or the sale is voided. A voided sale is a 409 `sale_already_voided`.',
  security: bearer,
  middleware: readers,
  request: { params: SaleParam },
  responses: {
    201: jsonResponse('The links.', one(SharedLinks)),
    ...pickErrors(401, 403, 404),
    ...refusals(409, { sale_already_voided: 'The sale is voided: it can no longer be shared.' }),
  },
});

const sharedInvoiceRoute = createRoute({
  method: 'get',
  path: '/shared/{token}/invoice',
  tags,
  operationId: 'getSharedInvoice',
  summary: 'The invoice of a shared link (public)',
  description: `The page GET /sales/{sale_id}/invoice answers, for whoever holds the link. ${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: InvoiceQuery },
  responses: {
    200: HTML_PAGE,
    ...pickErrors(404, 429),
  },
});

const sharedTextReceiptRoute = createRoute({
  method: 'get',
  path: '/shared/{token}/receipt/text',
  tags,
  operationId: 'getSharedReceiptText',
  summary: 'The text receipt of a shared link (public)',
  description: `What GET /sales/{sale_id}/receipt/text answers, for whoever holds the link. ${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: TextQuery },
  responses: { 200: jsonResponse('The receipt\'s text.', one(TextReceipt)), ...pickErrors(404, 429) },
});

/**
 * The sale a link names, read in its shop with no user; 404 for a link that does not verify and for
 * a sale voided (that is how a link is revoked) or gone.
 */
async function sharedReceiptInput(c: Context<AppEnv>, token: string): Promise<ReceiptInput> {
  const { deps } = c.var;
  const claims = verifyShareToken(deps.appKey, token);
  if (!claims) throw errors.notFound();
  const input = await inTenant(deps.sql, { shopId: claims.shopId, userId: null }, (tx) => loadReceiptInput(tx, claims.saleId), { readOnly: true });
  if (!input || input.sale.status === 'voided') throw errors.notFound();
  // The token is in the address: it must not leave in a Referer, and a revoked link must not live on in a cache.
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
  return input;
}

export const shareRoutes = newRouter()
  .openapi(shareRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const sale = await findSale(c.var.tx, sale_id);
    if (!sale) throw errors.notFound();
    if (sale.status === 'voided') throw errors.conflict('sale_already_voided', 'This sale is voided.');
    const expiresAt = shareExpiry();
    const token = signShareToken(c.var.deps.appKey, { shopId: c.var.caller.shopId!, saleId: sale_id, expiresAt });
    const base = `${new URL(c.req.url).origin}${c.req.path.slice(0, c.req.path.indexOf('/sales/'))}/shared/${token}`;
    const invoiceUrl = `${base}/invoice`;
    return c.json({ data: { url: invoiceUrl, invoice_url: invoiceUrl, receipt_url: `${base}/receipt/text`, expires_at: expiresAt.toISOString() } }, 201);
  })
  .openapi(sharedInvoiceRoute, async (c) => {
    const { token } = c.req.valid('param');
    const { format, locale } = c.req.valid('query');
    const input = await sharedReceiptInput(c, token);
    c.header('Content-Security-Policy', INVOICE_CSP);
    return c.html(renderInvoice(input, format, locale ?? input.shop.locale), 200);
  })
  .openapi(sharedTextReceiptRoute, async (c) => {
    const { token } = c.req.valid('param');
    const { locale, style } = c.req.valid('query');
    const input = await sharedReceiptInput(c, token);
    return c.json({ data: { format: 'text' as const, style, text: renderText(input, locale ?? input.shop.locale, style) } }, 200);
  });
