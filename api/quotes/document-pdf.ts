/** The quote's document ("Devis / Proforma", document.ts) as an A4 PDF, laid out as every document is (api/receipts/pdf.ts). */
import { layoutDocument } from '../receipts/document.ts';
import type { ReceiptLocale } from '../receipts/format.ts';
import { renderDocumentPdf } from '../receipts/pdf.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { quoteDocument, type QuoteDocumentInput } from './document.ts';

export function quotePdf(input: QuoteDocumentInput, locale: ReceiptLocale, logo: ShopLogoImage | null): Promise<Buffer> {
  return renderDocumentPdf(layoutDocument(quoteDocument(input, locale), input.shop, locale), logo);
}
