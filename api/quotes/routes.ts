import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { pdfFileName, pdfHeaders } from '../receipts/pdf.ts';
import { HTML_PAGE_OR_PDF, InvoiceQuery } from '../receipts/schemas.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, many, one, pickErrors, refusals } from '../schemas.ts';
import { findShopLogo } from '../shop/queries.ts';
import { quotePdf } from './document-pdf.ts';
import { renderQuoteDocument } from './document.ts';
import { convertQuote, createQuote, deleteQuote, findQuote, listQuotes, loadQuoteDocument, setQuoteStatus, updateQuote } from './queries.ts';
import {
  ConvertedQuote,
  ConvertQuoteBody,
  CreateQuoteBody,
  QuoteListQuery,
  QuoteParam,
  QuoteRecord,
  QuoteStatusBody,
  UpdateQuoteBody,
} from './schemas.ts';

/** Any shop user creates and converts quotes (CONTRACT section 8); writes need a live subscription. */
const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const writers: MiddlewareHandler<AppEnv>[] = [...readers, requireActiveSubscription];
const tags = ['Quotes'];
const TimeKey = z.tuple([CursorAt, z.uuid()]);

const PRICING =
  'Lines are priced by the sale\'s own procedure (sale_price_lines): the catalogue\'s price (a variant\'s own) and the product\'s VAT rate when omitted, ' +
  'the line\'s discount, then the best single promotion live today; a line\'s `total_xaf` is round(quantity x unit price) - discounts, its VAT ' +
  'round(total x rate / (100 + rate)), half away from zero; the quote\'s totals add up its lines. A cashier is held to the catalogue as on a sale ' +
  '(another price or VAT rate: 403 unless the shop\'s `cashier_price_override` is on; a line discount beyond `cashier_max_discount_percent`: 422 ' +
  '`discount_not_allowed`). A quote reserves no stock: quoting more than is on hand is fine.';

const list = createRoute({
  method: 'get',
  path: '/quotes',
  tags,
  operationId: 'listQuotes',
  summary: 'List quotes, newest first (any shop user)',
  description:
    'Each quote with its lines and VAT per rate. `status` filters on the status as shown: `expired` includes the draft and sent quotes past their `valid_until`; ' +
    '`from` and `to` are days of creation in the shop\'s time zone. Paginated: pass `meta.next_cursor` back as `cursor`.',
  security: bearer,
  middleware: readers,
  request: { query: QuoteListQuery },
  responses: { 200: jsonResponse('Quotes with their lines.', many(QuoteRecord)), ...pickErrors(401, 403) },
});

const create = createRoute({
  method: 'post',
  path: '/quotes',
  tags,
  operationId: 'createQuote',
  summary: 'Make a quote (proforma) for a customer (any shop user)',
  description:
    `${PRICING} The quote starts as \`draft\` with the shop's next \`quote_no\`; \`valid_until\` defaults to 30 days from today (shop calendar). ` +
    'The tills receive quotes by pull (`quotes`).',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateQuoteBody) },
  responses: {
    201: jsonResponse('The quote.', one(QuoteRecord)),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or names a customer, product or variant the shop does not have.',
      variant_required: { on: 'items.0.variant_id', meaning: 'The product is sold by variant: the line must name one.' },
      discount_not_allowed: { on: 'items.0.discount_xaf', meaning: 'A cashier\'s line discount beyond the shop\'s cap.' },
    }),
  },
});

const read = createRoute({
  method: 'get',
  path: '/quotes/{quote_id}',
  tags,
  operationId: 'getQuote',
  summary: 'Read a quote (any shop user)',
  description: 'A draft or sent quote past its `valid_until` shows `status: "expired"`. A deleted quote is a 404.',
  security: bearer,
  middleware: readers,
  request: { params: QuoteParam },
  responses: { 200: jsonResponse('The quote.', one(QuoteRecord)), ...pickErrors(401, 403, 404) },
});

const update = createRoute({
  method: 'put',
  path: '/quotes/{quote_id}',
  tags,
  operationId: 'updateQuote',
  summary: 'Change a draft or sent quote (any shop user)',
  description:
    'Only the fields sent change. `items`, when sent, replace every line and are priced again as on create (today\'s catalogue and promotions). ' +
    'Allowed while the quote\'s stored status is `draft` or `sent`, including one shown as expired because its date passed (a later `valid_until` ' +
    'revives it); a declined, expired (marked so) or converted quote is a 409 `quote_closed`.',
  security: bearer,
  middleware: writers,
  request: { params: QuoteParam, body: jsonBody(UpdateQuoteBody) },
  responses: {
    200: jsonResponse('The quote as saved.', one(QuoteRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { quote_closed: 'The quote is declined, marked expired or converted: it can no longer change.' }),
    ...refusals(422, {
      validation_failed: 'An input is missing or malformed, or names a customer, product or variant the shop does not have.',
      variant_required: { on: 'items.0.variant_id', meaning: 'The product is sold by variant: the line must name one.' },
      discount_not_allowed: { on: 'items.0.discount_xaf', meaning: 'A cashier\'s line discount beyond the shop\'s cap.' },
    }),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/quotes/{quote_id}',
  tags,
  operationId: 'deleteQuote',
  summary: 'Delete a draft or sent quote (any shop user)',
  description: 'As for a change: a declined, expired (marked so) or converted quote is a 409 `quote_closed`. The tills drop it on their next pull (`deleted_at`).',
  security: bearer,
  middleware: writers,
  request: { params: QuoteParam },
  responses: {
    204: { description: 'Deleted.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { quote_closed: 'The quote is declined, marked expired or converted: it can no longer be deleted.' }),
  },
});

const mark = createRoute({
  method: 'post',
  path: '/quotes/{quote_id}/status',
  tags,
  operationId: 'setQuoteStatus',
  summary: 'Mark a quote draft, sent, declined or expired, without converting it (any shop user)',
  description:
    'Any move between `draft`, `sent`, `declined` and `expired`; no sale is raised. A converted quote is a 409 `quote_closed`. A quote shown as ' +
    'expired by its date stays so whatever it is marked until its `valid_until` is moved later (PUT).',
  security: bearer,
  middleware: writers,
  request: { params: QuoteParam, body: jsonBody(QuoteStatusBody) },
  responses: {
    200: jsonResponse('The quote.', one(QuoteRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { quote_closed: 'The quote was converted into a sale: its status can no longer change.' }),
  },
});

const convert = createRoute({
  method: 'post',
  path: '/quotes/{quote_id}/convert',
  tags,
  operationId: 'convertQuote',
  summary: 'Accept the quote: raise the real sale at the quote\'s prices (any shop user)',
  description:
    'The sale procedure itself (see POST /sales) with the quote\'s lines, prices, discounts and promotions, kept even if the catalogue or the ' +
    'promotions changed since, whoever converts it (the quote was priced under its author\'s limits): stock, payments and change, a shortfall on ' +
    'the quote\'s customer\'s account within its ceiling, points, the next receipt number, the journal and the caller\'s shift. The sale carries ' +
    '`quote_id`, the quote `status: "converted"` and `sale_id`. A quote past its `valid_until` or marked expired is a 409 `quote_expired`; ' +
    'a converted or declined one a 409 `quote_closed`, so of two conversions at once one succeeds and the other is a 409. A refused sale ' +
    '(`insufficient_stock`, `payment_insufficient`, `credit_limit_exceeded`...) leaves the quote as it was. With an `Idempotency-Key` a retry ' +
    'answers the first conversion again.',
  security: bearer,
  middleware: writers,
  request: { params: QuoteParam, body: { content: { 'application/json': { schema: ConvertQuoteBody } }, required: false } },
  responses: {
    201: jsonResponse('The converted quote and its sale.', one(ConvertedQuote)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      quote_closed: 'The quote was converted already, or declined.',
      quote_expired: 'The quote is past its `valid_until`, or marked expired.',
    }),
    ...refusals(422, {
      validation_failed: 'A payment is missing or malformed, or a line of the quote names a product or variant deleted since (`items.N.product_id`, `items.N.variant_id`).',
      // The quote's own line and customer, which the request does not send: the sale procedure names them so.
      insufficient_stock: { on: 'items.0.quantity', meaning: 'A line of the quote (`items.N` as the quote lists them) asks for more than is on hand and the shop does not allow negative stock.' },
      payment_insufficient: { on: 'payments', meaning: 'The payments do not cover the total and the quote has no customer to take the rest on account.' },
      credit_limit_exceeded: { on: 'customer_id', meaning: 'The rest on the account of the quote\'s customer would pass its credit ceiling.' },
      change_without_cash: { on: 'payments', meaning: 'Payments exceed the total but no cash was given: only cash can be given back.' },
      variant_required: { on: 'items.0.variant_id', meaning: 'A line of the quote names a product that was given variants since, and no variant.' },
    }),
  },
});

const document = createRoute({
  method: 'get',
  path: '/quotes/{quote_id}/document',
  tags,
  operationId: 'getQuoteDocument',
  summary: 'The quote as one printable HTML page, or as an A4 PDF: "Devis / Proforma" (any shop user)',
  description:
    'The invoice\'s layout titled "Devis / Proforma" ("Proforma invoice" in English): the shop\'s details, the quote number, its date and validity, the ' +
    'customer, the lines, the VAT breakdown per rate and the totals. Self-contained: inline CSS with `@page` sized A4 or A3, the shop\'s logo inline, ' +
    'nothing fetched. With `format=pdf`, the same document as an A4 PDF, shown inline as `devis-12.pdf` / `proforma-12.pdf`.',
  security: bearer,
  middleware: readers,
  request: { params: QuoteParam, query: InvoiceQuery },
  responses: {
    200: HTML_PAGE_OR_PDF,
    ...pickErrors(401, 403, 404),
  },
});

/** The document may only style itself (as the invoice). */
const DOCUMENT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

async function quoteOr404(tx: Parameters<typeof findQuote>[0], id: string) {
  const quote = await findQuote(tx, id);
  if (!quote) throw errors.notFound();
  return quote;
}

export const quoteRoutes = newRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filter } = c.req.valid('query');
    const before = decodeCursor(cursor, TimeKey);
    const { rows, nextCursor } = page(await listQuotes(c.var.tx, filter, limit, before), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map((row) => row.quote), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(create, async (c) => c.json({ data: await createQuote(c.var.tx, c.req.valid('json')) }, 201))
  .openapi(read, async (c) => c.json({ data: await quoteOr404(c.var.tx, c.req.valid('param').quote_id) }, 200))
  .openapi(update, async (c) => c.json({ data: await updateQuote(c.var.tx, c.req.valid('param').quote_id, c.req.valid('json')) }, 200))
  .openapi(remove, async (c) => {
    await deleteQuote(c.var.tx, c.req.valid('param').quote_id);
    return c.body(null, 204);
  })
  .openapi(mark, async (c) => c.json({ data: await setQuoteStatus(c.var.tx, c.req.valid('param').quote_id, c.req.valid('json').status) }, 200))
  .openapi(convert, async (c) => {
    return c.json({ data: await convertQuote(c.var.tx, c.req.valid('param').quote_id, randomUUID(), c.req.valid('json') ?? {}) }, 201);
  })
  .openapi(document, async (c) => {
    const { quote_id } = c.req.valid('param');
    const { format, locale: asked } = c.req.valid('query');
    const input = await loadQuoteDocument(c.var.tx, quote_id);
    if (!input) throw errors.notFound();
    const locale = asked ?? input.shop.locale;
    const logo = await findShopLogo(c.var.tx);
    if (format === 'pdf') return c.body(new Uint8Array(await quotePdf(input, locale, logo)), 200, pdfHeaders(pdfFileName('quote', input.quote.quote_no, locale)));
    c.header('Content-Security-Policy', DOCUMENT_CSP);
    return c.html(renderQuoteDocument(input, format, locale, logo), 200);
  });
