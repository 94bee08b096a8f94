import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { LINK_RULES, sharedAddresses } from '../receipts/share-routes.ts';
import { newShareToken, recordSharedLink, SHARE_LINK_DAYS, shareExpiry } from '../receipts/share.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, one, pickErrors, Timestamp } from '../schemas.ts';
import { SHARED_QUOTE_LINKS } from './examples.ts';
import { findQuote } from './queries.ts';
import { QuoteParam } from './schemas.ts';

/** Any shop user shares a quote, as a sale (CONTRACT section 8: quotes are every user's). */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];

const SharedQuoteLinks = z
  .object({
    url: z.string().openapi({ description: 'The link to send: the quote\'s page for a phone (total, lines, the PDF button). With a 20-word message it fits one SMS.' }),
    pdf_url: z.string().openapi({ description: 'The quote as an A4 PDF.' }),
    document_url: z.string().openapi({ description: 'The quote as the printable A4 HTML page (`?format=a3` for A3), as GET /quotes/{quote_id}/document.' }),
    expires_at: Timestamp.openapi({ description: `When the links stop working: ${SHARE_LINK_DAYS} days after they were made.` }),
  })
  .openapi('SharedQuoteLinks', { example: SHARED_QUOTE_LINKS });

const shareRoute = createRoute({
  method: 'post',
  path: '/quotes/{quote_id}/share',
  tags: ['Quotes'],
  operationId: 'shareQuote',
  summary: 'A short link to the quote\'s page, to send by WhatsApp or SMS (any shop user)',
  description:
    'Answers links that open the quote\'s page for a phone, its PDF and its printable page, without a bearer token, at `/s/{token}` as a sale\'s ' +
    '(POST /sales/{sale_id}/share). A quote in any state may be shared and its page always shows that state: a declined or expired quote says so ' +
    'above everything else, and a converted one stays readable with "accepted, invoiced on..." (what the customer agreed to stays at hand). ' +
    `A deleted quote's links answer 404. ${LINK_RULES} Every call makes a new link.`,
  security: bearer,
  middleware: readers,
  request: { params: QuoteParam },
  responses: { 201: jsonResponse('The links.', one(SharedQuoteLinks)), ...pickErrors(401, 403, 404) },
});

export const quoteShareRoutes = newRouter().openapi(shareRoute, async (c) => {
  const { quote_id } = c.req.valid('param');
  if (!(await findQuote(c.var.tx, quote_id))) throw errors.notFound();
  const token = newShareToken();
  const expiresAt = shareExpiry();
  await recordSharedLink(c.var.tx, token, { quoteId: quote_id }, expiresAt);
  const { url, pdf_url, print_url } = sharedAddresses(c, token);
  return c.json({ data: { url, pdf_url, document_url: print_url, expires_at: expiresAt.toISOString() } }, 201);
});
