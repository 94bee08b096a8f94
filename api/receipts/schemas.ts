import { z } from '@hono/zod-openapi';
import { Locale, Uuid } from '../schemas.ts';
import { TEXT_RECEIPT } from './examples.ts';

/** What the receipt and invoice routes share, the authenticated ones (routes.ts) and the shared links' (share-routes.ts). */

export const SaleParam = z.object({ sale_id: Uuid.openapi({ param: { name: 'sale_id', in: 'path' } }) });

export const RefundParam = SaleParam.extend({ refund_id: Uuid.openapi({ param: { name: 'refund_id', in: 'path' } }) });

export const LocaleQuery = Locale.optional().openapi({ param: { name: 'locale', in: 'query' }, description: 'fr or en; the shop\'s language when omitted.' });

export const InvoiceQuery = z.object({
  format: z.enum(['a4', 'a3', 'pdf']).default('a4').openapi({
    param: { name: 'format', in: 'query' },
    description: '`a4` (default) or `a3`: the printable HTML page, its print CSS sized to that paper. `pdf`: the A4 document as a PDF file, fonts embedded.',
  }),
  locale: LocaleQuery,
});

export const TextQuery = z.object({
  locale: LocaleQuery,
  style: z.enum(['chat', 'fixed']).default('chat').openapi({
    param: { name: 'style', in: 'query' },
    description:
      '`chat` (default, for WhatsApp or SMS, whose fonts are proportional): no column padding, each amount at the end of its line, totals in ' +
      '*bold*. `fixed`: the printer\'s 32 columns, for a monospace block or a printer.',
  }),
});

export const TextReceipt = z
  .object({
    format: z.literal('text'),
    style: z.enum(['chat', 'fixed']),
    text: z.string().openapi({ description: 'The receipt, lines separated by \\n, no control characters.' }),
  })
  .openapi('TextReceipt', { example: TEXT_RECEIPT });

/** The 200 answer of the printable documents (invoice, credit note, quote, shared invoice): the page itself. */
export const HTML_PAGE = { description: 'The HTML page itself (not JSON).', content: { 'text/html': { schema: z.string() } } };

const PDF_CONTENT = { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } };

/** The 200 answer of a PDF document: the file, shown inline under its name (pdf.ts, `pdfHeaders`). */
export const PDF_FILE = { description: 'The PDF file itself (not JSON), `Content-Disposition: inline` with its file name.', content: PDF_CONTENT };

/** The 200 answer of a document that is a page or, with `format=pdf`, a PDF file. */
export const HTML_PAGE_OR_PDF = {
  description: 'The HTML page itself (not JSON); with `format=pdf`, the A4 PDF file, `Content-Disposition: inline` with its file name.',
  content: { ...HTML_PAGE.content, ...PDF_CONTENT },
};

/** The invoice may only style itself: even a name that slipped past escaping could fetch nothing. */
export const INVOICE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
