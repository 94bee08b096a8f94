import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { limitPublicByAddress } from '../middleware/rate-limit.ts';
import { enterTenant, inTenant } from '../middleware/tenancy.ts';
import { quotePdf } from '../quotes/document-pdf.ts';
import { renderQuoteDocument, type QuoteDocumentInput } from '../quotes/document.ts';
import { loadQuoteDocument } from '../quotes/queries.ts';
import { newRouter } from '../router.ts';
import { findSale, loadReceiptInput } from '../sales/queries.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import { findShopLogo, type ShopLogoImage } from '../shop/queries.ts';
import { bearer, jsonResponse, one, pickErrors, refusals, Text, Timestamp } from '../schemas.ts';
import { SHARED_LINKS } from './examples.ts';
import type { ReceiptLocale } from './format.ts';
import { renderInvoice, type InvoiceFormat } from './invoice.ts';
import { invoicePdf, pdfFileName, pdfHeaders } from './pdf.ts';
import { renderQuotePage, renderReceiptPage, renderSalePage } from './phone-page.ts';
import { HTML_PAGE, HTML_PAGE_OR_PDF, INVOICE_CSP, InvoiceQuery, LocaleQuery, PDF_FILE, SaleParam, TextQuery, TextReceipt } from './schemas.ts';
import { findSharedLink, newShareToken, receiptLinkToken, recordReceiptLink, recordSharedLink, SHARE_LINK_DAYS, RECEIPT_LINK_DAYS, shareExpiry, TOKEN_LENGTH } from './share.ts';
import { renderText } from './text.ts';

const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];

const tags = ['Receipts'];

/** Where the short links live, outside /api/v1: `https://pos.example.cm/s/Ab3dE5fG7hJ9` and a 20-word message fit one SMS. */
const SHORT_LINKS = '/s';

/**
 * The service's public address: PUBLIC_BASE_URL when set (behind a proxy that ends TLS, the request's
 * own URL says http, and a till on the shop's network may reach the service by another name), else
 * the address the request came to.
 */
function publicBase(c: Context<AppEnv>): string {
  return c.var.deps.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
}

/** The addresses of one token: its page, its PDF, the sale's receipt as a page, the printable A4 page. */
export function sharedAddresses(c: Context<AppEnv>, token: string) {
  const page = `${publicBase(c)}${SHORT_LINKS}/${token}`;
  return { url: page, pdf_url: `${page}/pdf`, receipt_url: `${page}/receipt`, print_url: `${page}/print` };
}

/** The link a sale's printed receipt carries as its QR code: the same at every print (share.ts, receiptLinkToken). */
export function receiptPageLink(c: Context<AppEnv>, saleId: string): string {
  return sharedAddresses(c, receiptLinkToken(c.var.deps.appKey, saleId)).url;
}

/**
 * Records the receipt's link before the receipt is read (`beforeTransaction`): a GET's request
 * transaction is read-only, so this one insert has a short transaction of its own, in the caller's
 * shop. Every print records the same row (a conflict does nothing).
 */
export async function recordReceiptPageLink(c: Context<AppEnv>, saleId: string): Promise<void> {
  await inTenant(c.var.deps.sql, c.var.transactionScope!, (tx) => recordReceiptLink(tx, receiptLinkToken(c.var.deps.appKey, saleId), saleId));
}

const TokenParam = z.object({
  token: Text.min(1)
    .max(200)
    .openapi({ param: { name: 'token', in: 'path' }, description: `The token of a shared link: ${TOKEN_LENGTH} letters and digits (POST /sales/{sale_id}/share, POST /quotes/{quote_id}/share, a receipt's QR code).` }),
});

export const LINK_RULES =
  'A shared link needs no bearer token. A link that is unknown, expired, of a voided sale or of a sale or quote that no longer exists answers the ' +
  'same 404 `not_found`, which never says which. Links made before short links (the longer signed form, `<payload>.<signature>`) still open ' +
  `their sale's pages until they expire, ${SHARE_LINK_DAYS} days after they were made. Under /s/, a browser (whose Accept starts with ` +
  '`text/html`) gets its error as a short page in its language ("Ce lien n\'existe pas ou n\'est plus valable..."), with the same status; ' +
  'any other client gets the JSON error.';

const SharedLinks = z
  .object({
    url: z.string().openapi({ description: 'The link to send: the sale\'s page for a phone (total, balance due, lines, the PDF button). With a 20-word message it fits one SMS.' }),
    pdf_url: z.string().openapi({ description: 'The invoice as an A4 PDF.' }),
    receipt_url: z.string().openapi({ description: 'The till receipt as a page (HTML, for a phone).' }),
    invoice_url: z.string().openapi({ description: 'The invoice as the printable A4 HTML page (`?format=a3` for A3).' }),
    expires_at: Timestamp.openapi({ description: `When the links stop working: ${SHARE_LINK_DAYS} days after they were made.` }),
  })
  .openapi('SharedLinks', { example: SHARED_LINKS });

const shareRoute = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/share',
  tags,
  operationId: 'shareSale',
  summary: 'A short link to the sale\'s page, to send by WhatsApp or SMS (any shop user)',
  description:
    `Answers links that open the sale's page for a phone, its invoice as a PDF, its receipt as a page and its printable invoice, without a bearer token. ` +
    `${LINK_RULES} Each link is \`/s/{token}\` (and \`/pdf\`, \`/receipt\`, \`/print\` under it) on the service's public address (\`PUBLIC_BASE_URL\` ` +
    'when set, else the address the request came to). Every call makes a new link; each stays good until it expires or the sale is voided. ' +
    'A voided sale is a 409 `sale_already_voided`.',
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
  summary: 'The printable invoice of a shared link (public)',
  description:
    `What GET /sales/{sale_id}/invoice answers (the page, or with \`format=pdf\` the PDF), for whoever holds a sale's link (\`/s/{token}/print\` is the same). ` +
    `${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: InvoiceQuery },
  responses: {
    200: HTML_PAGE_OR_PDF,
    ...pickErrors(404, 429),
  },
});

const sharedTextReceiptRoute = createRoute({
  method: 'get',
  path: '/shared/{token}/receipt/text',
  tags,
  operationId: 'getSharedReceiptText',
  summary: 'The text receipt of a shared link, as JSON (public)',
  description: `What GET /sales/{sale_id}/receipt/text answers, for whoever holds a sale's link (\`/s/{token}/receipt\` shows it as a page). ${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: TextQuery },
  responses: { 200: jsonResponse('The receipt\'s text.', one(TextReceipt)), ...pickErrors(404, 429) },
});

const PageQuery = z.object({ locale: LocaleQuery });

const pageRoute = createRoute({
  method: 'get',
  path: `${SHORT_LINKS}/{token}`,
  tags,
  operationId: 'getSharedPage',
  summary: 'The page of a shared sale or quote, for a phone (public)',
  description:
    'One column at most 600 px wide that never scrolls sideways from 320 px up: the shop\'s logo and name, "Facture n° 1042" or "Devis n° 17" ' +
    '("Invoice no." / "Proforma invoice no."), the date, then the total in large type, the balance due of a credit sale not yet settled and ' +
    'a "Télécharger le PDF" / "Download PDF" button, all on the first screen; then the lines (name, quantity x unit price, amount), the VAT per rate, ' +
    'the payments and refunds of a sale, and the shop\'s footer. A quote declined, expired or converted into a sale is still shown, with its state above it. ' +
    `In the shop's language unless \`locale\` says otherwise. The link a receipt's QR code carries works ${RECEIPT_LINK_DAYS} days from the sale. ` +
    `${LINK_RULES} Self-contained (inline CSS, the logo inline); rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: PageQuery },
  responses: { 200: HTML_PAGE, ...pickErrors(404, 429) },
});

const pdfRoute = createRoute({
  method: 'get',
  path: `${SHORT_LINKS}/{token}/pdf`,
  tags,
  operationId: 'getSharedPdf',
  summary: 'The invoice or quote of a shared link as an A4 PDF (public)',
  description: `The sale's invoice or the quote as an A4 PDF, fonts embedded, named \`facture-1042.pdf\` / \`invoice-1042.pdf\`, \`devis-17.pdf\` / \`proforma-17.pdf\`. ${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: PageQuery },
  responses: { 200: PDF_FILE, ...pickErrors(404, 429) },
});

const receiptPageRoute = createRoute({
  method: 'get',
  path: `${SHORT_LINKS}/{token}/receipt`,
  tags,
  operationId: 'getSharedReceiptPage',
  summary: 'The till receipt of a shared sale as a page, for a phone (public)',
  description: `The printed receipt's lines as a page: 32 columns in a monospace font sized to the screen, with the PDF button. A quote's link has no receipt: 404. ${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: PageQuery },
  responses: { 200: HTML_PAGE, ...pickErrors(404, 429) },
});

const printRoute = createRoute({
  method: 'get',
  path: `${SHORT_LINKS}/{token}/print`,
  tags,
  operationId: 'getSharedPrintPage',
  summary: 'The printable A4 or A3 page of a shared sale or quote (public)',
  description:
    `What GET /sales/{sale_id}/invoice or GET /quotes/{quote_id}/document answers (the page, or with \`format=pdf\` the PDF), for whoever holds the link. ` +
    `${LINK_RULES} Rate-limited per address.`,
  middleware: [limitPublicByAddress],
  request: { params: TokenParam, query: InvoiceQuery },
  responses: { 200: HTML_PAGE_OR_PDF, ...pickErrors(404, 429) },
});

type Shared = { kind: 'sale'; input: ReceiptInput; logo: ShopLogoImage | null } | { kind: 'quote'; input: QuoteDocumentInput; logo: ShopLogoImage | null };

/**
 * The sale or quote a link names, read in its shop with no user, in one read-only transaction: the
 * link first (shared_link_find, before any shop is set), then the record in the link's shop. 404 for a
 * link unknown, expired or malformed, and for a sale voided (that is how its links are revoked) or a
 * sale or quote gone.
 */
async function openShared(c: Context<AppEnv>, token: string, withLogo: boolean): Promise<Shared> {
  const { deps } = c.var;
  const requestId = c.var.requestId;
  const shared = await inTenant(
    deps.sql,
    { shopId: null, userId: null, requestId },
    async (tx): Promise<Shared | null> => {
      const link = await findSharedLink(tx, deps.appKey, token);
      if (!link) return null;
      await enterTenant(tx, { shopId: link.shopId, userId: null, requestId });
      const logo = async () => (withLogo ? findShopLogo(tx) : null);
      if (link.saleId !== null) {
        const input = await loadReceiptInput(tx, link.saleId);
        return input && input.sale.status !== 'voided' ? { kind: 'sale', input, logo: await logo() } : null;
      }
      const input = await loadQuoteDocument(tx, link.quoteId);
      return input ? { kind: 'quote', input, logo: await logo() } : null;
    },
    { readOnly: true },
  );
  if (!shared) throw errors.notFound();
  // The token is in the address: it must not leave in a Referer, and a revoked link must not live on in a cache.
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
  return shared;
}

/** A sale's link: a quote's answers 404 where only a sale has something to show (its receipt). */
async function openSharedSale(c: Context<AppEnv>, token: string): Promise<ReceiptInput> {
  const shared = await openShared(c, token, false);
  if (shared.kind !== 'sale') throw errors.notFound();
  return shared.input;
}

const localeOf = (shared: Shared, asked: ReceiptLocale | undefined): ReceiptLocale => asked ?? shared.input.shop.locale;

/** The invoice or the quote as its printable page, or as its PDF: what the document routes answer, for a link. */
async function documentAnswer(c: Context<AppEnv>, shared: Shared, format: InvoiceFormat | 'pdf', locale: ReceiptLocale): Promise<Response> {
  if (format === 'pdf') {
    return shared.kind === 'sale'
      ? c.body(new Uint8Array(await invoicePdf(shared.input, locale, shared.logo)), 200, pdfHeaders(pdfFileName('invoice', shared.input.sale.receipt_no, locale)))
      : c.body(new Uint8Array(await quotePdf(shared.input, locale, shared.logo)), 200, pdfHeaders(pdfFileName('quote', shared.input.quote.quote_no, locale)));
  }
  c.header('Content-Security-Policy', INVOICE_CSP);
  return c.html(shared.kind === 'sale' ? renderInvoice(shared.input, format, locale, shared.logo) : renderQuoteDocument(shared.input, format, locale, shared.logo), 200);
}

/** A page's links keep the language the page was asked in. */
const inLocale = (url: string, asked: ReceiptLocale | undefined) => (asked ? `${url}?locale=${asked}` : url);


/** POST /sales/{sale_id}/share, under /api/v1, with the sale's printable and text receipt under /shared/{token} as before short links. */
export const shareRoutes = newRouter()
  .openapi(shareRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const sale = await findSale(c.var.tx, sale_id);
    if (!sale) throw errors.notFound();
    if (sale.status === 'voided') throw errors.conflict('sale_already_voided', 'This sale is voided.');
    const token = newShareToken();
    const expiresAt = shareExpiry();
    await recordSharedLink(c.var.tx, token, { saleId: sale_id }, expiresAt);
    const { url, pdf_url, receipt_url, print_url } = sharedAddresses(c, token);
    return c.json({ data: { url, pdf_url, receipt_url, invoice_url: print_url, expires_at: expiresAt.toISOString() } }, 201);
  })
  .openapi(sharedInvoiceRoute, async (c) => {
    const { token } = c.req.valid('param');
    const { format, locale } = c.req.valid('query');
    const shared = await openShared(c, token, true);
    if (shared.kind !== 'sale') throw errors.notFound();
    return documentAnswer(c, shared, format, localeOf(shared, locale));
  })
  .openapi(sharedTextReceiptRoute, async (c) => {
    const { token } = c.req.valid('param');
    const { locale, style } = c.req.valid('query');
    const input = await openSharedSale(c, token);
    return c.json({ data: { format: 'text' as const, style, text: renderText(input, locale ?? input.shop.locale, style) } }, 200);
  });

/** The short links' pages, mounted at the root of the service (api/app.ts), outside /api/v1. */
export const sharedPageRoutes = newRouter()
  .openapi(pageRoute, async (c) => {
    const { token } = c.req.valid('param');
    const asked = c.req.valid('query').locale;
    const shared = await openShared(c, token, true);
    const locale = localeOf(shared, asked);
    const { pdf_url, receipt_url } = sharedAddresses(c, token);
    c.header('Content-Security-Policy', INVOICE_CSP);
    if (shared.kind === 'sale') {
      return c.html(renderSalePage(shared.input, locale, shared.logo, { pdf: inLocale(pdf_url, asked), receipt: inLocale(receipt_url, asked) }), 200);
    }
    return c.html(renderQuotePage(shared.input, locale, shared.logo, { pdf: inLocale(pdf_url, asked) }), 200);
  })
  .openapi(pdfRoute, async (c) => {
    const { token } = c.req.valid('param');
    const shared = await openShared(c, token, true);
    return documentAnswer(c, shared, 'pdf', localeOf(shared, c.req.valid('query').locale));
  })
  .openapi(receiptPageRoute, async (c) => {
    const { token } = c.req.valid('param');
    const asked = c.req.valid('query').locale;
    const input = await openSharedSale(c, token);
    const locale = asked ?? input.shop.locale;
    const { url, pdf_url } = sharedAddresses(c, token);
    c.header('Content-Security-Policy', INVOICE_CSP);
    return c.html(renderReceiptPage(input, locale, { pdf: inLocale(pdf_url, asked), page: inLocale(url, asked) }), 200);
  })
  .openapi(printRoute, async (c) => {
    const { token } = c.req.valid('param');
    const { format, locale } = c.req.valid('query');
    const shared = await openShared(c, token, true);
    return documentAnswer(c, shared, format, localeOf(shared, locale));
  });
