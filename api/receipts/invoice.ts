/**
 * The sale's invoice (document.ts prints it, document-html.ts and pdf.ts render it): the cashier,
 * whether it is paid, the payment terms and due date of a credit sale, the payments, each credit note
 * with the lines it gave back and the net, a voided sale's mark (and its certified void), the tax
 * authority's certification.
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { printedCertification, voidCertified } from './certification.ts';
import { layoutDocument, formatPoints, type PrintedDocument, type Section, type Total } from './document.ts';
import { renderDocumentHtml, type InvoiceFormat } from './document-html.ts';
import { formatDate, formatDateTime, formatQuantity, formatXaf, LABELS, type ReceiptLocale } from './format.ts';
import { discountParts, paymentsMade, standing } from './layout.ts';
import { closingInWords } from './words.ts';

export { escapeHtml, type InvoiceFormat } from './document-html.ts';

/** The shop's calendar day of an instant, `2026-11-21`. */
function shopDay(at: string, timezone: string): string {
  const [day, month, year] = formatDateTime(at, timezone).slice(0, 10).split('/');
  return `${year}-${month}-${day}`;
}

/** A day plus whole days, on the calendar (no time zone can shift it). */
function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function invoiceDocument(input: ReceiptInput, locale: ReceiptLocale): PrintedDocument {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const xaf = (amount: number) => formatXaf(amount, locale);
  const discounts = discountParts(sale);
  const left = standing(input);
  const methods = paymentLabels(locale, shop.payment_method_labels);
  // Points are the shop's reward to a person: a business customer's invoice (it has a NIU) goes to its accountant without them.
  const business = Boolean(customer?.tax_id);

  const payments = paymentsMade(sale).map((payment) => [methods[payment.method], payment.reference ?? '', xaf(payment.amount_xaf)]);
  const settlement: Total[] = [
    sale.change_xaf ? { label: t.change, value: xaf(sale.change_xaf) } : null,
    left.settled_xaf ? { label: t.settledOnAccount, value: xaf(left.settled_xaf) } : null,
    left.due_xaf ? { label: t.balanceDue, value: xaf(left.due_xaf), grand: true } : null,
    left.points_earned && !business ? { label: t.pointsEarned, value: formatPoints(left.points_earned, locale) } : null,
    left.points_redeemed && !business ? { label: t.pointsRedeemed, value: formatPoints(left.points_redeemed, locale) } : null,
  ].filter((row) => row !== null);

  // What each credit note gave back, line by line: the item, the quantity and the amount.
  const names = new Map(sale.items.map((item) => [item.id, item.name]));
  const creditNoteName = (refund: ReceiptInput['sale']['refunds'][number]) =>
    refund.credit_note_no != null ? `${t.creditNoteLine} ${refund.credit_note_no}` : t.refund;
  const refundRows = sale.refunds.flatMap((refund) =>
    refund.items.map((part) => [
      `${creditNoteName(refund)} - ${formatDateTime(refund.created_at, shop.timezone)} - ${methods[refund.method]}`,
      names.get(part.sale_item_id) ?? '',
      formatQuantity(part.quantity, locale),
      xaf(-part.total_xaf),
    ]),
  );
  const refunded = sale.refunds.reduce((sum, refund) => sum + refund.total_xaf, 0);

  const sections: Section[] = [];
  if (payments.length || settlement.length) sections.push({ kind: 'heading', text: t.payments });
  if (payments.length) {
    sections.push({ kind: 'table', name: 'payments', columns: [{ label: t.method }, { label: t.reference }, { label: t.amount, numeric: true, nowrap: true }], rows: payments });
  }
  if (settlement.length) sections.push({ kind: 'totals', rows: settlement });
  if (refundRows.length) {
    sections.push(
      { kind: 'heading', text: t.refunds },
      {
        kind: 'table',
        name: 'refunds',
        columns: [{ label: t.creditNote }, { label: t.item }, { label: t.quantity, numeric: true, nowrap: true }, { label: t.amount, numeric: true, nowrap: true }],
        rows: refundRows,
      },
    );
  }

  // Whether it is paid, from its balance due: paid when nothing is; unpaid when nothing was paid at the till nor settled since.
  const stamp: PrintedDocument['stamp'] = left.voided
    ? null
    : !left.due_xaf
      ? { text: t.paid, tone: 'paid' }
      : sale.paid_xaf === 0 && left.settled_xaf === 0
        ? { text: t.unpaid, tone: 'unpaid' }
        : { text: `${t.balanceDueShort}${colon} ${xaf(left.due_xaf)}`, tone: 'partly_paid' };

  // What a sale still owes on the customer's account is due after the shop's payment terms, counted from the sale's day.
  const terms = left.due_xaf && shop.payment_terms_days != null ? shop.payment_terms_days : null;
  const due =
    terms === null
      ? []
      : [
          { label: t.paymentTerms, value: t.days(terms) },
          { label: t.dueDate, value: formatDate(addDays(shopDay(sale.created_at, shop.timezone), terms)) },
        ];
  const net = sale.total_xaf - refunded;
  const certifiedVoid = voidCertified(sale, locale);

  return {
    kind: t.invoice,
    number: `${t.invoiceNo} ${sale.receipt_no}`,
    details: [
      { label: t.date, value: formatDateTime(sale.created_at, shop.timezone) },
      ...(sale.cashier_name ? [{ label: t.cashier, value: sale.cashier_name }] : []),
      ...due,
      ...(sale.status === 'partially_refunded' ? [t.partiallyRefunded] : sale.status === 'refunded' ? [t.refunded] : []),
    ],
    stamp,
    banner: left.voided ? { text: t.voidedSale, at: sale.voided_at, details: [...(sale.void_reason ? [{ label: t.voidReason, value: sale.void_reason }] : []), ...(certifiedVoid ? [certifiedVoid] : [])] } : null,
    customer,
    lines: sale.items,
    subtotal_xaf: sale.subtotal_xaf,
    discounts: [
      { label: t.discounts, amount_xaf: discounts.lines },
      { label: t.promotions, amount_xaf: discounts.promotions },
      { label: `${t.pointsDiscount} (${formatPoints(sale.points_redeemed, locale)})`, amount_xaf: discounts.points },
    ],
    total_xaf: sale.total_xaf,
    after_total: refunded
      ? [
          ...sale.refunds.map((refund) => ({ label: `${creditNoteName(refund)} ${t.dated} ${formatDateTime(refund.created_at, shop.timezone).slice(0, 10)}`, value: xaf(-refund.total_xaf) })),
          { label: t.netAfterCreditNotes, value: xaf(net), grand: true },
        ]
      : [],
    // A voided invoice stands for no sum; one with credit notes closes on what is left of it.
    total_in_words: left.voided ? null : refunded ? closingInWords(net, 'invoice_net', locale) : closingInWords(sale.total_xaf, 'invoice', locale),
    vat_breakdown: sale.vat_breakdown,
    sections,
    signatures: left.on_account ? [{ title: t.signature, lines: [`${t.date}${colon}`] }] : [],
    shop_footer: true,
    certification: printedCertification(sale.certification, 'invoice', shop.timezone, locale),
  };
}

/** The invoice as the printable HTML page. */
export function renderInvoice(input: ReceiptInput, format: InvoiceFormat, locale: ReceiptLocale, logo: ShopLogoImage | null = null): string {
  return renderDocumentHtml(layoutDocument(invoiceDocument(input, locale), input.shop, locale), format, logo);
}
