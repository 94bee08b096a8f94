/**
 * The till receipt, laid out once for a paper width: the ESC/POS bytes (escpos.ts) and the plain
 * text for sharing (text.ts) are two renderings of these same lines, so they never disagree.
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import { printedCertification, voidCertified } from './certification.ts';
import { field, formatDateTime, formatQuantity, formatRate, formatXaf, groupDigits, LABELS, lineGross, paragraphs, row, wrap, type ReceiptLocale } from './format.ts';

/**
 * One printed line (already fitted to the width; a `small` one, the authority's signature, in the
 * printer's smaller font), or a QR code: the sale's shared page, the tax authority's. A receipt that
 * carries both captions each (`caption`, a line above it), so that a customer knows which is which.
 */
export type ReceiptBlock =
  | { kind: 'line'; text: string; centred?: boolean; bold?: boolean; tall?: boolean; small?: boolean }
  | { kind: 'qr'; data: string; caption?: string };

export type PaperWidth = 58 | 80;

/** 58 mm paper prints 32 columns of the printer's font A, 80 mm paper 48. */
export const COLUMNS = { 58: 32, 80: 48 } as const satisfies Record<PaperWidth, number>;

/**
 * The payments a customer made, in the order taken (the part left on the customer's account is not
 * one of them: documents print it once, as the balance due).
 */
export const paymentsMade = (sale: SaleRecord) => sale.payments.filter((p) => p.kind === 'payment' && p.method !== 'credit');

/**
 * What a sale still shows of its points and of what it left on the customer's account, the one rule
 * for every document (till receipt, text receipt, invoice, e-mail, shared pages):
 * - the balance due is the sale's debt now: what it left on the account (refunds and a void take their
 *   part back) less what settlements paid of it since (customer_settle, oldest debts first), as
 *   loadReceiptInput reads it (`account`); without it, the sale's `credit_xaf`, nothing settled;
 * - a void gives the points back both ways and cancels that debt, so a voided sale shows none of them
 *   (nor the customer's signature) on any document.
 * `on_account`: the sale left something on the account, which the customer signs for.
 */
export function standing(input: ReceiptInput): { voided: boolean; points_earned: number; points_redeemed: number; on_account: boolean; settled_xaf: number; due_xaf: number } {
  const { sale, account } = input;
  if (sale.status === 'voided') return { voided: true, points_earned: 0, points_redeemed: 0, on_account: false, settled_xaf: 0, due_xaf: 0 };
  const charged = account ? account.charged_xaf : sale.credit_xaf;
  const settled = account ? account.settled_xaf : 0;
  return {
    voided: false,
    points_earned: sale.points_earned,
    points_redeemed: sale.points_redeemed,
    on_account: sale.credit_xaf > 0,
    settled_xaf: settled,
    due_xaf: Math.max(0, charged - settled),
  };
}

/** The lines' own discounts, the promotions and the redeemed points, summed over the sale. */
export function discountParts(sale: SaleRecord): { lines: number; promotions: number; points: number } {
  return sale.items.reduce(
    (sum, item) => ({
      lines: sum.lines + item.discount_xaf,
      promotions: sum.promotions + item.promotion_discount_xaf,
      points: sum.points + item.points_discount_xaf,
    }),
    { lines: 0, promotions: 0, points: 0 },
  );
}

/**
 * `pageLink`: the sale's shared page (share-routes.ts, `receiptPageLink`), printed as a QR code that a
 * customer scans for the invoice and its PDF; the text renderings, which nobody scans, give none. A
 * voided sale's page is gone, so its receipt prints no code.
 *
 * The tax authority's certification (certification.ts) prints after the payments and refunds: its
 * state, or its number, time, signature and QR code; a voided sale's certified void under its mark.
 */
export function receiptLayout(input: ReceiptInput, columns: number, locale: ReceiptLocale, pageLink?: string): ReceiptBlock[] {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const methods = paymentLabels(locale, shop.payment_method_labels);
  const blocks: ReceiptBlock[] = [];
  const plain = (lines: string[]) => lines.forEach((text) => blocks.push({ kind: 'line', text }));
  const centred = (text: string, style: { bold?: boolean; tall?: boolean } = {}) =>
    wrap(text, columns).forEach((line) => blocks.push({ kind: 'line', text: line, centred: true, ...style }));
  const rule = () => blocks.push({ kind: 'line', text: '-'.repeat(columns) });
  const blank = () => blocks.push({ kind: 'line', text: '' });
  const tz = shop.timezone;

  centred(shop.name, { bold: true });
  const place = [shop.address, shop.city].filter(Boolean).join(', ');
  if (place) centred(place);
  if (shop.phone) centred(`${t.phone} ${shop.phone}`);
  if (shop.tax_id) centred(`${t.taxId} ${shop.tax_id}`);
  if (shop.trade_register_no) centred(`${t.tradeRegister} ${shop.trade_register_no}`);
  for (const line of paragraphs(shop.receipt_header)) centred(line);
  rule();

  if (sale.status === 'voided') {
    centred(`*** ${t.voided} ***`, { bold: true, tall: true });
    if (sale.voided_at) centred(formatDateTime(sale.voided_at, tz));
    if (sale.void_reason) plain(field(t.voidReason, sale.void_reason, locale, columns));
    const certifiedVoid = voidCertified(sale, locale);
    if (certifiedVoid) plain(field(certifiedVoid.label, certifiedVoid.value, locale, columns));
    rule();
  }

  plain(wrap(`${t.receiptNo} ${sale.receipt_no}`, columns));
  plain(field(t.date, formatDateTime(sale.created_at, tz), locale, columns));
  if (sale.cashier_name) plain(field(t.cashier, sale.cashier_name, locale, columns));
  if (customer) plain(field(t.customer, customer.name, locale, columns));
  rule();

  for (const item of sale.items) {
    plain(wrap(item.name, columns));
    const quantityLine = `${formatQuantity(item.quantity, locale)} x ${formatXaf(item.unit_price_xaf, locale)}`;
    plain(row(quantityLine, formatXaf(lineGross(item.quantity, item.unit_price_xaf), locale), columns, 2));
    if (item.discount_xaf) plain(row(t.discount, formatXaf(-item.discount_xaf, locale), columns, 2));
    if (item.promotion_discount_xaf) plain(row(t.promotion, formatXaf(-item.promotion_discount_xaf, locale), columns, 2));
  }
  rule();

  const discounts = discountParts(sale);
  plain(row(t.subtotal, formatXaf(sale.subtotal_xaf, locale), columns));
  if (discounts.lines) plain(row(t.discounts, formatXaf(-discounts.lines, locale), columns));
  if (discounts.promotions) plain(row(t.promotions, formatXaf(-discounts.promotions, locale), columns));
  if (discounts.points) plain(row(`${t.pointsDiscount} (${groupDigits(String(sale.points_redeemed), locale)})`, formatXaf(-discounts.points, locale), columns));
  row(t.total, formatXaf(sale.total_xaf, locale), columns).forEach((text) => blocks.push({ kind: 'line', text, bold: true, tall: true }));
  rule();

  for (const vat of sale.vat_breakdown) {
    plain(row(vat.rate === 0 ? `${t.vat} ${t.exempt}` : `${t.vat} ${formatRate(vat.rate, locale)}`, formatXaf(vat.vat_xaf, locale), columns));
    plain(row(t.vatBase, formatXaf(vat.base_xaf, locale), columns, 2));
  }
  if (sale.vat_breakdown.length > 0) rule();

  for (const payment of paymentsMade(sale)) {
    plain(row(methods[payment.method], formatXaf(payment.amount_xaf, locale), columns));
    if (payment.reference) plain(wrap(`${t.reference} ${payment.reference}`, columns - 2).map((line) => `  ${line}`));
  }
  if (sale.change_xaf) plain(row(t.change, formatXaf(sale.change_xaf, locale), columns));
  const left = standing(input);
  if (left.settled_xaf) plain(row(t.settledOnAccount, formatXaf(left.settled_xaf, locale), columns));
  if (left.due_xaf) row(t.balanceDue, formatXaf(left.due_xaf, locale), columns).forEach((text) => blocks.push({ kind: 'line', text, bold: true }));

  if (left.points_earned || left.points_redeemed) {
    rule();
    if (left.points_earned) plain(row(t.pointsEarned, groupDigits(String(left.points_earned), locale), columns));
    if (left.points_redeemed) plain(row(t.pointsRedeemed, groupDigits(String(left.points_redeemed), locale), columns));
  }

  if (sale.refunds.length > 0) {
    rule();
    const state = sale.status === 'refunded' ? t.refunded : sale.status === 'partially_refunded' ? t.partiallyRefunded : t.refunds;
    plain(wrap(state, columns));
    for (const refund of sale.refunds) {
      plain(row(`${formatDateTime(refund.created_at, tz)} ${methods[refund.method]}`, formatXaf(-refund.total_xaf, locale), columns, 2));
    }
  }

  const certification = printedCertification(sale.certification, 'invoice', tz, locale);
  if (certification) {
    rule();
    for (const line of certification.lines) {
      if (typeof line === 'string') centred(line, { bold: true });
      else plain(field(line.label, line.value, locale, columns));
    }
    if (certification.signature) wrap(certification.signature, columns).forEach((text) => blocks.push({ kind: 'line', text, centred: true, small: true }));
    if (certification.qr) blocks.push({ kind: 'qr', data: certification.qr.data, caption: certification.qr.caption });
  }

  if (sale.status === 'voided') {
    rule();
    centred(`*** ${t.voided} ***`, { bold: true, tall: true });
  }

  // A sale left on the customer's account is signed for by the customer.
  if (left.on_account) {
    blank();
    blank();
    plain([`${t.signature}${locale === 'fr' ? ' :' : ':'}`, '_'.repeat(Math.min(columns, 32))]);
  }

  blank();
  if (pageLink && sale.status !== 'voided') blocks.push({ kind: 'qr', data: pageLink, ...(certification?.qr ? { caption: t.salePageLink } : {}) });
  const footer = paragraphs(shop.receipt_footer);
  if (footer.length > 0) {
    blank();
    for (const line of footer) centred(line);
  }
  return blocks;
}
