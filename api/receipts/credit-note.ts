/**
 * A refund's credit note (avoir, CONTRACT section 13): the invoice's page (invoice.ts) titled
 * "Avoir n° 3" / "Credit note no. 3", naming the invoice it corrects as that invoice calls itself
 * ("Facture n° 1042") with its date, and printing what the refund gave back: each line's refunded
 * quantity at the sale's unit price, its amount (the line's share pro rata, as sale_refund worked it
 * out: the difference from quantity x unit price is the refunded share of the line's discounts), VAT
 * per rate, the total, the method, the reason and the total in words. Amounts are positive: the
 * document's title says they go back to the customer. Certified, it carries the authority's data and
 * the authority number of the invoice it corrects (certification.ts).
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { printedCertification } from './certification.ts';
import { layoutDocument, type PrintedDocument, type PrintedLine } from './document.ts';
import { renderDocumentHtml, type InvoiceFormat } from './document-html.ts';
import { formatDateTime, formatXaf, LABELS, lineGross, type ReceiptLocale } from './format.ts';
import { closingInWords } from './words.ts';

type SaleRefund = SaleRecord['refunds'][number];

/** The refunded lines in the sale's order, each priced so that the document's amount is what the refund gave back for it. */
function refundedLines(sale: SaleRecord, refund: SaleRefund): (PrintedLine & { total_xaf: number; vat_xaf: number })[] {
  const items = new Map(sale.items.map((item) => [item.id, item]));
  return refund.items
    .map((part) => ({ part, item: items.get(part.sale_item_id)! }))
    .sort((a, b) => a.item.line_no - b.item.line_no)
    .map(({ part, item }) => ({
      name: item.name,
      quantity: part.quantity,
      unit_price_xaf: item.unit_price_xaf,
      discount_xaf: lineGross(part.quantity, item.unit_price_xaf) - part.total_xaf,
      promotion_discount_xaf: 0,
      vat_rate: item.vat_rate,
      total_xaf: part.total_xaf,
      vat_xaf: part.vat_xaf,
    }));
}

/** VAT given back per rate, lowest rate first, as a sale's breakdown. */
function vatGivenBack(lines: ReturnType<typeof refundedLines>): SaleRecord['vat_breakdown'] {
  const perRate = new Map<number, { vat_xaf: number; total_xaf: number }>();
  for (const line of lines) {
    const sum = perRate.get(line.vat_rate) ?? { vat_xaf: 0, total_xaf: 0 };
    perRate.set(line.vat_rate, { vat_xaf: sum.vat_xaf + line.vat_xaf, total_xaf: sum.total_xaf + line.total_xaf });
  }
  return [...perRate]
    .sort(([a], [b]) => a - b)
    .map(([rate, { vat_xaf, total_xaf }]) => ({ rate, base_xaf: total_xaf - vat_xaf, vat_xaf, total_xaf }));
}

export function creditNoteDocument(input: ReceiptInput, refund: SaleRefund, locale: ReceiptLocale): PrintedDocument {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const lines = refundedLines(sale, refund);
  const methods = paymentLabels(locale, shop.payment_method_labels);

  return {
    kind: t.creditNote,
    number: `${t.creditNoteNo} ${refund.credit_note_no}`,
    details: [
      { label: t.date, value: formatDateTime(refund.created_at, shop.timezone) },
      { label: t.originalInvoice, value: `${t.invoiceNo} ${sale.receipt_no} ${t.dated} ${formatDateTime(sale.created_at, shop.timezone)}` },
    ],
    banner: null,
    customer,
    lines,
    subtotal_xaf: lines.reduce((sum, line) => sum + lineGross(line.quantity, line.unit_price_xaf), 0),
    discounts: [{ label: t.discounts, amount_xaf: lines.reduce((sum, line) => sum + line.discount_xaf, 0) }],
    total_xaf: refund.total_xaf,
    total_in_words: closingInWords(refund.total_xaf, 'credit_note', locale),
    vat_breakdown: vatGivenBack(lines),
    sections: [
      { kind: 'heading', text: t.refund },
      {
        kind: 'table',
        name: 'payments',
        columns: [{ label: t.method }, { label: t.refundReason }, { label: t.amount, numeric: true }],
        rows: [[methods[refund.method], refund.reason ?? '', formatXaf(refund.total_xaf, locale)]],
      },
    ],
    shop_footer: false,
    certification: printedCertification(refund.certification, 'credit_note', shop.timezone, locale),
  };
}

/** The credit note as the printable HTML page. */
export function renderCreditNote(input: ReceiptInput, refund: SaleRefund, format: InvoiceFormat, locale: ReceiptLocale, logo: ShopLogoImage | null = null): string {
  return renderDocumentHtml(layoutDocument(creditNoteDocument(input, refund, locale), input.shop, locale), format, logo);
}
