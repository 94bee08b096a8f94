/**
 * The quote as a printable "Devis / Proforma": the invoice's page (api/receipts/invoice.ts) with the
 * quote's number, date and validity, and what it is not (an invoice, a hold on stock). A quote takes
 * no payment, so it prints none.
 */
import { layoutDocument, type PrintedDocument, type Section } from '../receipts/document.ts';
import { renderDocumentHtml, type InvoiceFormat } from '../receipts/document-html.ts';
import { formatDate, formatDateTime, LABELS, paragraphs, type Labels, type ReceiptLocale } from '../receipts/format.ts';
import { closingInWords } from '../receipts/words.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import type { QuoteRecord } from './schemas.ts';

export interface QuoteDocumentInput {
  quote: QuoteRecord;
  shop: ReceiptInput['shop'];
  customer: ReceiptInput['customer'];
}

/** A quote that can no longer be accepted says so across the page; a draft or sent one stands. */
function statusBanner(quote: QuoteRecord, t: Labels): PrintedDocument['banner'] {
  switch (quote.status) {
    case 'declined':
      return { text: t.quoteDeclined, at: null, details: [] };
    case 'expired':
      return { text: t.quoteExpired, at: null, details: [] };
    case 'converted':
      return { text: t.quoteConverted, at: quote.converted_at, details: [] };
    default:
      return null;
  }
}

/**
 * The quote's document: no payment, none of the shop's receipt footer (its "ni reprises ni
 * échangées" is about goods sold), and a "Bon pour accord" box for the customer to sign and stamp,
 * beside the seller's.
 */
export function quoteDocument(input: QuoteDocumentInput, locale: ReceiptLocale): PrintedDocument {
  const { quote, shop, customer } = input;
  const t = LABELS[locale];

  const sections: Section[] = [];
  const note = paragraphs(quote.note);
  if (note.length) sections.push({ kind: 'heading', text: t.note }, { kind: 'text', paragraphs: note });
  sections.push({ kind: 'text', name: 'notice', paragraphs: [t.quoteNotice] });

  return {
    kind: t.quote,
    number: `${t.quoteNo} ${quote.quote_no}`,
    details: [{ label: t.date, value: formatDateTime(quote.created_at, shop.timezone) }, `${t.validUntil} ${formatDate(quote.valid_until)}`],
    banner: statusBanner(quote, t),
    customer,
    lines: quote.items,
    subtotal_xaf: quote.subtotal_xaf,
    discounts: [
      { label: t.discounts, amount_xaf: quote.items.reduce((sum, item) => sum + item.discount_xaf, 0) },
      { label: t.promotions, amount_xaf: quote.items.reduce((sum, item) => sum + item.promotion_discount_xaf, 0) },
    ],
    total_xaf: quote.total_xaf,
    total_in_words: closingInWords(quote.total_xaf, 'quote', locale),
    vat_breakdown: quote.vat_breakdown,
    sections,
    signatures: [
      { title: t.approval, lines: t.approvalLines },
      { title: t.shopSignature, lines: [] },
    ],
    shop_footer: false,
  };
}

/** The quote as the printable HTML page. */
export function renderQuoteDocument(input: QuoteDocumentInput, format: InvoiceFormat, locale: ReceiptLocale, logo: ShopLogoImage | null = null): string {
  return renderDocumentHtml(layoutDocument(quoteDocument(input, locale), input.shop, locale), format, logo);
}
