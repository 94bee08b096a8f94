import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { enqueueJob } from '../lib/jobs.ts';
import { beforeTransaction, authenticate, requireActiveSubscription, requireRole, validInput } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { loadReceiptInput } from '../sales/queries.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import { bearer, emailAddress, jsonResponse, Locale, one, pickErrors, refusals } from '../schemas.ts';
import { findShopLogo, findShopLogoContent, findShopLogoStamp } from '../shop/queries.ts';
import { renderCreditNote } from './credit-note.ts';
import { renderEscPos } from './escpos.ts';
import { ESCPOS_RECEIPT } from './examples.ts';
import { renderInvoice } from './invoice.ts';
import { COLUMNS, type PaperWidth } from './layout.ts';
import { MAX_LOGO_DOTS_HIGH, receiptLogoRaster, TALLEST_LOGO, WIDEST_LOGO } from './logo-raster.ts';
import { creditNotePdf, invoicePdf, pdfFileName, pdfHeaders, receiptPdf } from './pdf.ts';
import { HTML_PAGE_OR_PDF, INVOICE_CSP, InvoiceQuery, LocaleQuery, PDF_FILE, RefundParam, SaleParam, TextQuery, TextReceipt } from './schemas.ts';
import { receiptPageLink, recordReceiptPageLink } from './share-routes.ts';
import { RECEIPT_LINK_DAYS } from './share.ts';
import { renderText } from './text.ts';

/** The job that e-mails a receipt (worker/tasks/sale__email_receipt.ts). */
export const EMAIL_RECEIPT_TASK = 'sale__email_receipt';

const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const senders: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier'), requireActiveSubscription];

const tags = ['Receipts'];

const ReceiptQuery = z.object({
  // An integer in the document, as `width` in the answer: a query string's `58` is the text "58".
  width: z
    .enum(['58', '80'])
    .default('80')
    .transform((value): PaperWidth => (value === '58' ? 58 : 80))
    .openapi({
      type: 'integer',
      enum: [58, 80],
      default: 80,
      param: { name: 'width', in: 'query' },
      description: 'Paper width in mm: 58 prints 32 columns, 80 prints 48. Default 80.',
    }),
  locale: LocaleQuery,
});

const EscPosReceipt = z
  .object({
    format: z.literal('escpos'),
    width: z.union([z.literal(58), z.literal(80)]).openapi({ type: 'integer', enum: [58, 80] }),
    columns: z.union([z.literal(32), z.literal(48)]).openapi({ type: 'integer', enum: [32, 48] }),
    base64: z.string().openapi({
      description:
        'The bytes to send to the printer as they are: ESC @, code page WPC1252 (ESC t 16, text in Windows-1252), the shop\'s logo as a raster ' +
        'image (GS v 0, centred with ESC a 1) when it prints, the shop header, lines, totals, ' +
        'VAT per rate, payments and change, the tax authority\'s certification when the shop certifies (its state, or its number, time, signature in ' +
        'font B with ESC M 1 and QR code), the link to the sale\'s page as a QR code (GS ( k, model 2; none on a voided sale\'s), the footer, a feed ' +
        'and a partial cut (GS V 66 0).',
    }),
  })
  .openapi('EscPosReceipt', { example: ESCPOS_RECEIPT });

const EmailReceiptBody = z
  .object({
    email: emailAddress(160).nullable().optional().openapi({ description: 'Where to send it; the sale\'s customer\'s address when omitted.' }),
    locale: Locale.nullable().optional().openapi({ description: 'fr or en; the shop\'s language when omitted.' }),
  })
  .openapi('EmailReceiptBody', { example: { email: 'jp.mbarga@example.cm', locale: 'fr' } });

const EmailReceiptQueued = z
  .object({
    queued: z.literal(true),
    already_sent: z.literal(false),
    email: z.string().openapi({ description: 'The address the receipt goes to.' }),
  })
  .openapi('EmailReceiptQueued', { example: { queued: true, already_sent: false, email: 'awa.ndiaye@example.cm' } });

const EmailReceiptAlreadySent = z
  .object({
    queued: z.literal(false),
    already_sent: z.literal(true),
    email: z.string().openapi({ description: 'The address it was sent to.' }),
    sent_at: z.string().openapi({ format: 'date-time', description: 'When it was queued for sending (the sale itself, or an earlier request).' }),
  })
  .openapi('EmailReceiptAlreadySent', { example: { queued: false, already_sent: true, email: 'awa.ndiaye@example.cm', sent_at: '2026-11-21T13:05:02.000Z' } });

const receiptRoute = createRoute({
  method: 'get',
  path: '/sales/{sale_id}/receipt',
  tags,
  operationId: 'getSaleReceipt',
  summary: 'The receipt as ESC/POS bytes for a thermal printer (any shop user)',
  description:
    'Base64 of the printer\'s bytes for 58 mm (32 columns) or 80 mm (48 columns) paper. Dates are day/month/year and 24-hour time in the shop\'s ' +
    'time zone; amounts read `12 500 FCFA`. A voided sale prints VOIDED / ANNULÉ at the top and the bottom. The QR code is a short link to the ' +
    'sale\'s page (as POST /sales/{sale_id}/share answers `url`), the same at every print (a reprint gives the same bytes), working ' +
    `${RECEIPT_LINK_DAYS} days from the sale: a customer scans it for the invoice and its PDF. ` +
    'A sale the tax authority certified (CONTRACT section 14) also prints the authority\'s number, the time it certified, its signature and its ' +
    'QR code, each code then under a caption ("Vérification DGI", "Votre facture en ligne"); before it did, "En attente de certification"; ' +
    'after a rejection, "Facture non certifiée". A reprint renders the sale as it is now, so it carries the number once the authority answered. ' +
    'The shop\'s logo (PUT /shop/logo) heads the receipt as a one-bit raster image (GS v 0 at normal density, dithered, centred): at most 60 % ' +
    `of the printed line (230 dots of 384 on 58 mm paper, 346 of 576 on 80 mm), never wider than the logo's own pixels, at most ${MAX_LOGO_DOTS_HIGH} ` +
    `dots (2 cm) high. The receipt prints without it when it is a JPEG (no JPEG decoder on the server; documents and pages still show it), an ` +
    `interlaced PNG, more than ${WIDEST_LOGO} times as wide as high (a strip too thin to read) or more than ${TALLEST_LOGO} times as high as wide ` +
    '(a column that costs paper).',
  security: bearer,
  middleware: readers,
  request: { params: SaleParam, query: ReceiptQuery },
  responses: { 200: jsonResponse('The receipt\'s bytes.', one(EscPosReceipt)), ...pickErrors(401, 403, 404) },
});

const receiptPdfRoute = createRoute({
  method: 'get',
  path: '/sales/{sale_id}/receipt/pdf',
  tags,
  operationId: 'getSaleReceiptPdf',
  summary: 'The receipt as a PDF on its paper roll (any shop user)',
  description:
    'The printer\'s receipt as a PDF 58 or 80 mm wide and as long as the receipt: the same lines as the ESC/POS bytes, in a monospace font (embedded) ' +
    'whose 32 or 48 columns span the printer\'s 48 or 72 mm, bold and centred where the printer prints them so, the same QR code. For a shop without ' +
    'a thermal printer, or to keep a copy. Named `recu-1042.pdf` / `receipt-1042.pdf`.',
  security: bearer,
  middleware: readers,
  request: { params: SaleParam, query: ReceiptQuery },
  responses: { 200: PDF_FILE, ...pickErrors(401, 403, 404) },
});

const textReceiptRoute = createRoute({
  method: 'get',
  path: '/sales/{sale_id}/receipt/text',
  tags,
  operationId: 'getSaleReceiptText',
  summary: 'The receipt as plain text for sharing (any shop user)',
  description: 'The same receipt as the printer\'s, returned rather than sent: for a chat by default (`style=chat`), or 32 columns wide (`style=fixed`).',
  security: bearer,
  middleware: readers,
  request: { params: SaleParam, query: TextQuery },
  responses: { 200: jsonResponse('The receipt\'s text.', one(TextReceipt)), ...pickErrors(401, 403, 404) },
});

const emailReceiptRoute = createRoute({
  method: 'post',
  path: '/sales/{sale_id}/receipt/email',
  tags,
  operationId: 'emailSaleReceipt',
  summary: 'E-mail the receipt (any shop user)',
  description:
    'Answers at once; a job sends the message, retried while the mail server fails: the receipt laid out for a phone (one column, at most 480 px ' +
    'wide) as the HTML part, the text receipt as the text part, the A4 invoice attached as a PDF (`facture-<receipt_no>.pdf` / `invoice-<receipt_no>.pdf`); ' +
    'from the shop\'s name, answers to the shop\'s e-mail (else its owner\'s). The body may be omitted: ' +
    'the receipt then goes to the customer\'s address, in the shop\'s language. With neither a given address nor a customer\'s: 422 `email_required` on `email`. ' +
    'A receipt already sent to the same address (whatever its case) in the last minute, by the sale itself (a customer with an e-mail) or by an ' +
    'earlier request, is not sent again: 200 with `already_sent: true` and when it was sent. Two requests at once send one.',
  security: bearer,
  middleware: senders,
  request: { params: SaleParam, body: { content: { 'application/json': { schema: EmailReceiptBody } }, required: false } },
  responses: {
    200: jsonResponse('Already sent to this address within the last minute: nothing queued.', one(EmailReceiptAlreadySent)),
    202: jsonResponse('Queued.', one(EmailReceiptQueued)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(422, { email_required: { on: 'email', meaning: 'No address was given and the sale has no customer with an e-mail.' } }),
  },
});

const invoiceRoute = createRoute({
  method: 'get',
  path: '/sales/{sale_id}/invoice',
  tags,
  operationId: 'getSaleInvoice',
  summary: 'The invoice as one printable HTML page, or as an A4 PDF (any shop user)',
  description:
    'A self-contained page for the browser\'s print dialogue: inline CSS with `@page` sized A4 or A3, no external request of any kind (no link, ' +
    'script or font; the shop\'s logo inline), the shop\'s legal details and tax id, the customer, the lines, the VAT breakdown per rate, the totals and the payments; ' +
    'in a shop that certifies, the tax authority\'s number, signature and QR code (an inline SVG) or the certification\'s state, and a voided sale\'s certified void. ' +
    'With `format=pdf`, the same document as an A4 PDF (`application/pdf`, fonts embedded, the lines\' header repeated on every page, "Page x / y" at each foot), ' +
    'shown inline as `facture-1042.pdf` / `invoice-1042.pdf`.',
  security: bearer,
  middleware: readers,
  request: { params: SaleParam, query: InvoiceQuery },
  responses: {
    200: HTML_PAGE_OR_PDF,
    ...pickErrors(401, 403, 404),
  },
});

const creditNoteRoute = createRoute({
  method: 'get',
  path: '/sales/{sale_id}/refunds/{refund_id}/credit-note',
  tags,
  operationId: 'getRefundCreditNote',
  summary: 'A refund\'s credit note (avoir) as one printable HTML page, or as an A4 PDF (any shop user)',
  description:
    'The same self-contained page as the invoice (inline CSS, `@page` A4 or A3, no external request), titled "Avoir n° 3" / "Credit note no. 3" ' +
    'after the refund\'s `credit_note_no` (gap-free per shop). It names the invoice it corrects (the sale\'s receipt number and date, ' +
    '"Facture n° 1042 du 21/11/2026 10:14"), the shop\'s legal details and the customer as the invoice prints them, the lines given back ' +
    '(quantity, unit price, the refunded share of the line\'s discounts, amount), the VAT given back per rate (base and VAT), the total, ' +
    'the refund\'s method and reason, and the total in words ("Arrêté le présent avoir à la somme de..."); in a shop that certifies, the ' +
    'credit note\'s own certification and the authority number of the invoice it corrects. ' +
    'With `format=pdf`, the same document as an A4 PDF, shown inline as `avoir-3.pdf` / `credit-note-3.pdf`. ' +
    'A refund that is not of this sale, or a sale of another shop, is a 404.',
  security: bearer,
  middleware: readers,
  request: { params: RefundParam, query: InvoiceQuery },
  responses: {
    200: HTML_PAGE_OR_PDF,
    ...pickErrors(401, 403, 404),
  },
});

/**
 * Records that the sale's receipt goes to `email`, unless it went there within the last minute:
 * answers null when the caller is to queue it, else when it was queued. One statement, so that two
 * requests at once cannot both claim it: the second waits on the first's row and sees it recent.
 */
async function claimReceiptEmail(tx: Tx, saleId: string, email: string): Promise<Date | null> {
  const [claimed] = await tx`
    insert into receipt_emails (sale_id, email) values (${saleId}, lower(${email}))
    on conflict (shop_id, sale_id, email) do update set queued_at = now() where receipt_emails.queued_at < now() - interval '1 minute'
    returning queued_at`;
  if (claimed) return null;
  const [last] = await tx<{ queued_at: Date }[]>`select queued_at from receipt_emails where sale_id = ${saleId} and email = lower(${email})`;
  return last!.queued_at;
}

/** The shop's logo as the printer's raster on this paper (logo-raster.ts): its bytes are read only when the raster is not made already. */
async function printedLogo(tx: Tx, paper: PaperWidth): Promise<Uint8Array | null> {
  const logo = await findShopLogoStamp(tx);
  return logo && receiptLogoRaster(logo, paper, () => findShopLogoContent(tx, logo.sha256));
}

async function receiptInput(tx: Tx, saleId: string): Promise<ReceiptInput> {
  const input = await loadReceiptInput(tx, saleId);
  if (!input) throw errors.notFound();
  return input;
}

export const receiptRoutes = newRouter()
  .openapi(
    receiptRoute,
    // The QR code's link is recorded before the read-only request transaction opens (share-routes.ts).
    beforeTransaction(
      (c) => recordReceiptPageLink(c, validInput(c, 'param', SaleParam).sale_id),
      async (c) => {
        const { sale_id } = c.req.valid('param');
        const { width, locale } = c.req.valid('query');
        const input = await receiptInput(c.var.tx, sale_id);
        const bytes = renderEscPos(input, width, locale ?? input.shop.locale, receiptPageLink(c, sale_id), await printedLogo(c.var.tx, width));
        return c.json({ data: { format: 'escpos' as const, width, columns: COLUMNS[width], base64: Buffer.from(bytes).toString('base64') } }, 200);
      },
    ),
  )
  .openapi(
    receiptPdfRoute,
    // The printed receipt's QR code, on the PDF too.
    beforeTransaction(
      (c) => recordReceiptPageLink(c, validInput(c, 'param', SaleParam).sale_id),
      async (c) => {
        const { sale_id } = c.req.valid('param');
        const { width, locale: asked } = c.req.valid('query');
        const input = await receiptInput(c.var.tx, sale_id);
        const locale = asked ?? input.shop.locale;
        const pdf = await receiptPdf(input, width, locale, receiptPageLink(c, sale_id));
        return c.body(new Uint8Array(pdf), 200, pdfHeaders(pdfFileName('receipt', input.sale.receipt_no, locale)));
      },
    ),
  )
  .openapi(textReceiptRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const { locale, style } = c.req.valid('query');
    const input = await receiptInput(c.var.tx, sale_id);
    return c.json({ data: { format: 'text' as const, style, text: renderText(input, locale ?? input.shop.locale, style) } }, 200);
  })
  .openapi(emailReceiptRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { tx, caller } = c.var;
    const input = await receiptInput(tx, sale_id);
    const email = body.email ?? input.customer?.email ?? null;
    if (!email) throw invalidField('email', 'Give an e-mail address: this sale has no customer with one.', 'email_required');
    const locale = body.locale ?? input.shop.locale;
    const sentAt = await claimReceiptEmail(tx, sale_id, email);
    if (sentAt) return c.json({ data: { queued: false as const, already_sent: true as const, email, sent_at: sentAt.toISOString() } }, 200);
    await enqueueJob(tx, EMAIL_RECEIPT_TASK, { sale_id, shop_id: caller.shopId!, email, locale });
    return c.json({ data: { queued: true as const, already_sent: false as const, email } }, 202);
  })
  .openapi(invoiceRoute, async (c) => {
    const { sale_id } = c.req.valid('param');
    const { format, locale: asked } = c.req.valid('query');
    const input = await receiptInput(c.var.tx, sale_id);
    const locale = asked ?? input.shop.locale;
    const logo = await findShopLogo(c.var.tx);
    if (format === 'pdf') return c.body(new Uint8Array(await invoicePdf(input, locale, logo)), 200, pdfHeaders(pdfFileName('invoice', input.sale.receipt_no, locale)));
    c.header('Content-Security-Policy', INVOICE_CSP);
    return c.html(renderInvoice(input, format, locale, logo), 200);
  })
  .openapi(creditNoteRoute, async (c) => {
    const { sale_id, refund_id } = c.req.valid('param');
    const { format, locale: asked } = c.req.valid('query');
    const input = await receiptInput(c.var.tx, sale_id);
    const refund = input.sale.refunds.find((candidate) => candidate.id === refund_id);
    if (!refund) throw errors.notFound();
    const locale = asked ?? input.shop.locale;
    const logo = await findShopLogo(c.var.tx);
    if (format === 'pdf') {
      return c.body(new Uint8Array(await creditNotePdf(input, refund, locale, logo)), 200, pdfHeaders(pdfFileName('credit_note', refund.credit_note_no, locale)));
    }
    c.header('Content-Security-Policy', INVOICE_CSP);
    return c.html(renderCreditNote(input, refund, format, locale, logo), 200);
  });
