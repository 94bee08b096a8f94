/**
 * The receipt as an e-mail, laid out for a phone first: most customers read their mail on a screen
 * of 360 to 414 px, where the A4 invoice's seven columns were cut off. One column at most 480 px
 * wide and fluid below it; each amount at the end of its line (a two-cell row: the label wraps, the
 * amount never does); 15-16 px type. Every style the layout needs is inline, since mail clients
 * often drop a `<style>` block; nothing is fetched (no image, font or link). The A4 invoice travels
 * as an attachment, for the customer's accounts.
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { escapeHtml } from '../lib/html.ts';
import { formatDateTime, formatQuantity, formatXaf, groupDigits, LABELS, vatRateLabel, lineGross, paragraphs, type ReceiptLocale } from './format.ts';
import { discountParts, paymentsMade, standing } from './layout.ts';
import { invoicePdf, pdfFileName } from './pdf.ts';
import { renderText } from './text.ts';

/** The content id of the shop's logo, attached as an inline part that the HTML shows as `<img src="cid:shop-logo">`. */
export const LOGO_CID = 'shop-logo';

/** The widest the message's column grows: a phone's width, centred on a wider screen. */
export const EMAIL_MAX_WIDTH_PX = 480;

const FONT = "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const STYLE = {
  body: 'margin:0;padding:0;background:#f2f2f2;',
  column: `width:100%;max-width:${EMAIL_MAX_WIDTH_PX}px;margin:0 auto;background:#ffffff;`,
  inner: `padding:16px;font-family:${FONT};font-size:16px;line-height:1.45;color:#111111;overflow-wrap:anywhere;word-break:break-word;`,
  shop: 'margin:0 0 4px;font-size:20px;line-height:1.25;font-weight:bold;',
  title: 'margin:16px 0 4px;font-size:18px;line-height:1.3;font-weight:bold;',
  heading: 'margin:16px 0 4px;font-size:16px;font-weight:bold;',
  small: 'margin:0;font-size:14px;color:#444444;',
  para: 'margin:0;',
  banner: 'margin:12px 0;padding:8px;border:2px solid #b00020;color:#b00020;font-size:18px;font-weight:bold;text-align:center;',
  table: 'width:100%;border-collapse:collapse;',
  label: 'padding:3px 8px 3px 0;vertical-align:top;text-align:left;overflow-wrap:anywhere;word-break:break-word;',
  amount: 'padding:3px 0;vertical-align:top;text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums;',
  item: 'padding:8px 0 0;vertical-align:top;text-align:left;font-weight:bold;overflow-wrap:anywhere;word-break:break-word;',
  rule: 'border:0;border-top:1px solid #dddddd;margin:12px 0;height:0;',
  footer: 'margin:16px 0 0;font-size:15px;text-align:center;color:#333333;',
} as const;

/** A row of the message: a label and, at the line's end, its amount. */
export interface Row {
  label: string;
  amount?: string;
  indent?: boolean;
  strong?: boolean;
  large?: boolean;
  /** A line's name, alone on its row, above its quantity and amount. */
  item?: boolean;
  note?: boolean;
}

export function rowsTable(rows: Row[]): string {
  const cells = rows.map((row) => {
    const emphasis = `${row.strong ? 'font-weight:bold;' : ''}${row.large ? 'font-size:19px;' : ''}${row.note ? 'font-size:14px;color:#444444;' : ''}`;
    if (row.item) return `<tr><td colspan="2" style="${STYLE.item}">${escapeHtml(row.label)}</td></tr>`;
    const label = `<td style="${STYLE.label}${row.indent ? 'padding-left:12px;' : ''}${emphasis}">${escapeHtml(row.label)}</td>`;
    const amount = `<td style="${STYLE.amount}${emphasis}">${escapeHtml(row.amount ?? '')}</td>`;
    return `<tr>${label}${amount}</tr>`;
  });
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="${STYLE.table}">${cells.join('')}</table>`;
}

export const para = (text: string, style: string = STYLE.para) => `<p style="${style}">${escapeHtml(text)}</p>`;
export const rule = `<hr style="${STYLE.rule}">`;

/** `Label : value` in French, `Label: value` in English. */
const labelled = (label: string, value: string, locale: ReceiptLocale) => `${label}${locale === 'fr' ? ' :' : ':'} ${value}`;

/** The invoice's attachment file name: `facture-1042.pdf`, `invoice-1042.pdf`, as GET /sales/{id}/invoice?format=pdf names it. */
export const invoiceFileName = (receiptNo: number, locale: ReceiptLocale) => pdfFileName('invoice', receiptNo, locale);

/** The message's subject, and the HTML page's title: `Reçu n° 1042 - Boutique Awa`. */
export const receiptEmailSubject = (input: ReceiptInput, locale: ReceiptLocale) => `${LABELS[locale].receiptNo} ${input.sale.receipt_no} - ${input.shop.name}`;

/**
 * The receipt e-mail's HTML part: one self-contained page. `logoCid`: the content id of the shop's
 * logo attached as an inline part, shown above the shop's name (mail clients block remote images,
 * and a data: URL is dropped by many of them).
 */
export function renderReceiptEmail(input: ReceiptInput, locale: ReceiptLocale, logoCid: string | null = null): string {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const xaf = (amount: number) => formatXaf(amount, locale);
  const methods = paymentLabels(locale, shop.payment_method_labels);
  const tz = shop.timezone;
  const parts: string[] = [];

  if (logoCid) parts.push(`<img src="cid:${escapeHtml(logoCid)}" alt="" style="display:block;max-width:160px;max-height:64px;margin:0 0 8px;border:0;">`);
  parts.push(para(shop.name, STYLE.shop));
  const place = [shop.address, shop.city].filter(Boolean).join(', ');
  if (place) parts.push(para(place, STYLE.small));
  if (shop.phone) parts.push(para(`${t.phone} ${shop.phone}`, STYLE.small));
  if (shop.email) parts.push(para(shop.email, STYLE.small));
  if (shop.tax_id) parts.push(para(`${t.taxId} ${shop.tax_id}`, STYLE.small));
  if (shop.trade_register_no) parts.push(para(`${t.tradeRegister} ${shop.trade_register_no}`, STYLE.small));
  for (const line of paragraphs(shop.receipt_header)) parts.push(para(line, STYLE.small));

  parts.push(`<h1 style="${STYLE.title}">${escapeHtml(`${t.receiptNo} ${sale.receipt_no}`)}</h1>`);
  parts.push(para(labelled(t.date, formatDateTime(sale.created_at, tz), locale)));
  if (sale.cashier_name) parts.push(para(labelled(t.cashier, sale.cashier_name, locale)));
  if (customer) parts.push(para(labelled(t.customer, customer.name, locale)));
  if (sale.status === 'voided') {
    const at = sale.voided_at ? ` - ${formatDateTime(sale.voided_at, tz)}` : '';
    parts.push(para(`${t.voidedSale}${at}`, STYLE.banner));
    if (sale.void_reason) parts.push(para(labelled(t.voidReason, sale.void_reason, locale)));
  }
  parts.push(rule);

  const lines: Row[] = sale.items.flatMap((item) => [
    { label: item.name, item: true },
    { label: `${formatQuantity(item.quantity, locale)} x ${xaf(item.unit_price_xaf)}`, amount: xaf(lineGross(item.quantity, item.unit_price_xaf)), indent: true },
    ...(item.discount_xaf ? [{ label: t.discount, amount: xaf(-item.discount_xaf), indent: true }] : []),
    ...(item.promotion_discount_xaf ? [{ label: t.promotion, amount: xaf(-item.promotion_discount_xaf), indent: true }] : []),
  ]);
  parts.push(rowsTable(lines), rule);

  const discounts = discountParts(sale);
  const totals: Row[] = [
    { label: t.subtotal, amount: xaf(sale.subtotal_xaf) },
    ...(discounts.lines ? [{ label: t.discounts, amount: xaf(-discounts.lines) }] : []),
    ...(discounts.promotions ? [{ label: t.promotions, amount: xaf(-discounts.promotions) }] : []),
    ...(discounts.points ? [{ label: `${t.pointsDiscount} (${groupDigits(String(sale.points_redeemed), locale)})`, amount: xaf(-discounts.points) }] : []),
    { label: t.total, amount: xaf(sale.total_xaf), strong: true, large: true },
    ...sale.vat_breakdown.flatMap((vat) => [
      { label: `${t.vat} ${vatRateLabel(vat.rate, locale)}`, amount: xaf(vat.vat_xaf) },
      { label: t.vatBase, amount: xaf(vat.base_xaf), indent: true, note: true },
    ]),
  ];
  parts.push(rowsTable(totals));

  const payments: Row[] = paymentsMade(sale).flatMap((payment) => [
    { label: methods[payment.method], amount: xaf(payment.amount_xaf) },
    ...(payment.reference ? [{ label: `${t.reference} ${payment.reference}`, indent: true, note: true }] : []),
  ]);
  if (sale.change_xaf) payments.push({ label: t.change, amount: xaf(sale.change_xaf) });
  const left = standing(input);
  if (left.settled_xaf) payments.push({ label: t.settledOnAccount, amount: xaf(left.settled_xaf) });
  if (left.due_xaf) payments.push({ label: t.balanceDue, amount: xaf(left.due_xaf), strong: true });
  if (payments.length) parts.push(`<h2 style="${STYLE.heading}">${escapeHtml(t.payments)}</h2>`, rowsTable(payments));

  const points: Row[] = [
    ...(left.points_earned ? [{ label: t.pointsEarned, amount: groupDigits(String(left.points_earned), locale) }] : []),
    ...(left.points_redeemed ? [{ label: t.pointsRedeemed, amount: groupDigits(String(left.points_redeemed), locale) }] : []),
  ];
  if (points.length) parts.push(rule, rowsTable(points));

  if (sale.refunds.length > 0) {
    const state = sale.status === 'refunded' ? t.refunded : sale.status === 'partially_refunded' ? t.partiallyRefunded : t.refunds;
    const refunds = sale.refunds.map((refund) => ({ label: `${formatDateTime(refund.created_at, tz)} ${methods[refund.method]}`, amount: xaf(-refund.total_xaf) }));
    parts.push(`<h2 style="${STYLE.heading}">${escapeHtml(state)}</h2>`, rowsTable(refunds));
  }

  parts.push(rule, para(`${t.invoiceAttached} (${invoiceFileName(sale.receipt_no, locale)})`, STYLE.small));
  const footer = paragraphs(shop.receipt_footer);
  if (footer.length) parts.push(`<div style="${STYLE.footer}">${footer.map((line) => para(line)).join('')}</div>`);

  return emailPage(locale, receiptEmailSubject(input, locale), parts);
}

/** A phone-first e-mail's HTML part around its parts: the one column, inline styles only (the receipt's and the Z's). */
export function emailPage(locale: ReceiptLocale, title: string, parts: string[]): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="x-apple-disable-message-reformatting">',
    `<title>${escapeHtml(title)}</title>`,
    '</head>',
    `<body style="${STYLE.body}">`,
    `<div style="${STYLE.column}"><div style="${STYLE.inner}">`,
    parts.join('\n'),
    '</div></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The receipt e-mail's content: its subject; the chat-style text receipt as the text part (a mail
 * reader's font is proportional, as a chat's is); the phone-first HTML, the shop's logo above it as an
 * inline part; the A4 invoice attached as a PDF (phone mail apps preview it, and filters quarantine
 * HTML attachments).
 */
export async function receiptEmail(input: ReceiptInput, locale: ReceiptLocale, logo: ShopLogoImage | null = null) {
  const html = renderReceiptEmail(input, locale, logo ? LOGO_CID : null);
  const invoice = { filename: invoiceFileName(input.sale.receipt_no, locale), content: await invoicePdf(input, locale, logo), contentType: 'application/pdf' };
  // Attached only where the HTML shows it: an inline part nothing refers to is offered as a stray file.
  const shown = logo && html.includes(`cid:${LOGO_CID}`);
  return {
    subject: receiptEmailSubject(input, locale),
    text: renderText(input, locale, 'chat'),
    html,
    attachments: [
      invoice,
      ...(shown ? [{ filename: logo.media_type === 'image/png' ? 'logo.png' : 'logo.jpg', content: logo.content, contentType: logo.media_type, cid: LOGO_CID }] : []),
    ],
  };
}
