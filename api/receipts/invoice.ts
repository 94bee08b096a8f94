/**
 * Printed A4/A3 documents as one self-contained HTML page for the browser's print dialogue: inline
 * CSS only, no link, script, image or font fetched from anywhere (the page works offline and leaks
 * nothing), `@page` sized A4 or A3. Every text from the shop, the customer or the document is
 * HTML-escaped, here and nowhere else: a document describes what it prints (`PrintedDocument`) and
 * `renderDocument` lays it out. The sale's invoice is one such document; the quote
 * (api/quotes/document.ts) is another, with the same layout.
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import { formatDateTime, formatQuantity, formatRate, formatXaf, LABELS, lineGross, paragraphs, type ReceiptLocale } from './format.ts';
import { discountParts, paymentsMade } from './layout.ts';

export type InvoiceFormat = 'a4' | 'a3';

export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Paper and type sizes: A3 is A4 scaled by √2, so the page reads the same from further away. */
const PAPER = {
  a4: { size: 'A4', width: '210mm', fontSize: '10pt' },
  a3: { size: 'A3', width: '297mm', fontSize: '14pt' },
} as const;

function css(format: InvoiceFormat): string {
  const paper = PAPER[format];
  return `
@page { size: ${paper.size} portrait; margin: 14mm; }
* { box-sizing: border-box; }
html { background: #eee; }
body { margin: 0; color: #111; font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; font-size: ${paper.fontSize}; line-height: 1.35; }
.page { background: #fff; width: ${paper.width}; max-width: 100%; min-height: 100vh; margin: 0 auto; padding: 14mm; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
p { margin: 0; }
.top { display: flex; justify-content: space-between; gap: 2em; }
.title { text-align: right; }
.title h1 { text-transform: uppercase; letter-spacing: .05em; }
.party { margin-top: 1.4em; border: 1px solid #ccc; padding: .6em .8em; width: 50%; }
.label { color: #555; }
.void { margin-top: 1.2em; border: 3px solid #b00020; color: #b00020; font-size: 1.4em; font-weight: bold; text-align: center; padding: .4em; }
table { width: 100%; border-collapse: collapse; margin-top: .6em; }
th, td { padding: .35em .5em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th { background: #f3f3f3; border-bottom: 1px solid #999; }
.num { text-align: right; white-space: nowrap; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
.totals { width: 50%; margin-left: auto; }
.totals .grand td { font-size: 1.2em; font-weight: bold; border-top: 2px solid #111; border-bottom: none; }
.notice { margin-top: 1.4em; font-style: italic; }
.footer { margin-top: 2em; text-align: center; color: #333; }
.ref { margin-top: 1em; color: #777; font-size: .8em; text-align: center; }
@media print {
  html { background: none; }
  .page { width: auto; max-width: none; min-height: 0; margin: 0; padding: 0; }
  th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;
}

/** `Label : value` in French, `Label: value` in English. */
export interface Field {
  label: string;
  value: string;
}

/** A row of a totals table: a label and an amount already formatted. */
export interface Total extends Field {
  grand?: boolean;
}

/** A column of a table; the header row prints only when some column has a label. */
export interface Column {
  label?: string;
  numeric?: boolean;
}

/** What a document prints after its VAT breakdown (the invoice's payments and refunds, the quote's note). */
export type Section =
  | { kind: 'heading'; text: string }
  | { kind: 'table'; name: string; columns: Column[]; rows: string[][] }
  | { kind: 'totals'; rows: Total[] }
  | { kind: 'text'; name?: string; paragraphs: string[] };

/** A line of the document: its amount is round(quantity x unit price) less both discounts. */
export interface PrintedLine {
  name: string;
  quantity: number;
  unit_price_xaf: number;
  discount_xaf: number;
  promotion_discount_xaf: number;
  vat_rate: number;
}

export interface PrintedDocument {
  /** The document's kind, large in the title block: "Facture", "Devis / Proforma". */
  kind: string;
  /** "Facture n° 1042": under the kind, and the title of the browser's tab. */
  number: string;
  /** The rest of the title block: the date, who made it, its state. */
  details: (Field | string)[];
  /** A document that no longer stands (a voided sale, an expired quote) says so across the page. */
  banner: { text: string; at: string | null; details: Field[] } | null;
  customer: ReceiptInput['customer'];
  lines: PrintedLine[];
  subtotal_xaf: number;
  /** Each kind of discount on its own row, under the subtotal; a zero one is left out. */
  discounts: { label: string; amount_xaf: number }[];
  total_xaf: number;
  vat_breakdown: SaleRecord['vat_breakdown'];
  sections: Section[];
  reference: Field;
}

export function renderDocument(document: PrintedDocument, shop: ReceiptInput['shop'], format: InvoiceFormat, locale: ReceiptLocale): string {
  const t = LABELS[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const labelled = ({ label, value }: Field) => `<p><span class="label">${escapeHtml(label + colon)}</span> ${escapeHtml(value)}</p>`;
  const line = (value: string, name?: string) => `<p${name ? ` class="${name}"` : ''}>${escapeHtml(value)}</p>`;
  const cell = (value: string, numeric = false) => `<td${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</td>`;
  const head = (value: string, numeric = false) => `<th${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</th>`;
  const table = (name: string, columns: Column[], rows: string[][]) => {
    const header = columns.some((column) => column.label)
      ? `<thead><tr>${columns.map((column) => head(column.label ?? '', column.numeric)).join('')}</tr></thead>`
      : '';
    const body = rows.map((row) => `<tr>${row.map((value, index) => cell(value, columns[index]?.numeric)).join('')}</tr>`);
    return `<table class="${name}">${header}<tbody>${body.join('')}</tbody></table>`;
  };
  const totals = (rows: Total[]) =>
    `<table class="totals"><tbody>${rows
      .map(({ label, value, grand }) => `<tr${grand ? ' class="grand"' : ''}><td>${escapeHtml(label)}</td><td class="num">${escapeHtml(value)}</td></tr>`)
      .join('')}</tbody></table>`;
  const section = (part: Section) => {
    if (part.kind === 'heading') return `<h2>${escapeHtml(part.text)}</h2>`;
    if (part.kind === 'table') return table(part.name, part.columns, part.rows);
    if (part.kind === 'totals') return totals(part.rows);
    return part.paragraphs.map((text) => line(text, part.name)).join('');
  };

  const seller = [
    `<h1>${escapeHtml(shop.name)}</h1>`,
    ...[shop.address, shop.city].filter((v): v is string => Boolean(v)).map((value) => line(value)),
    shop.phone ? labelled({ label: t.phone, value: shop.phone }) : '',
    shop.email ? labelled({ label: t.email, value: shop.email }) : '',
    shop.tax_id ? labelled({ label: t.taxId, value: shop.tax_id }) : '',
    shop.trade_register_no ? labelled({ label: t.tradeRegister, value: shop.trade_register_no }) : '',
    ...paragraphs(shop.receipt_header).map((value) => line(value)),
  ];
  const meta = [
    `<h1>${escapeHtml(document.kind)}</h1>`,
    line(document.number),
    ...document.details.map((detail) => (typeof detail === 'string' ? line(detail) : labelled(detail))),
  ];
  const { customer, banner } = document;
  const buyer = customer
    ? [
        `<section class="party"><p class="label">${escapeHtml(t.customer)}</p>`,
        `<p><strong>${escapeHtml(customer.name)}</strong></p>`,
        customer.phone ? labelled({ label: t.phone, value: customer.phone }) : '',
        customer.email ? labelled({ label: t.email, value: customer.email }) : '',
        customer.address ? labelled({ label: t.address, value: customer.address }) : '',
        customer.tax_id ? labelled({ label: t.taxId, value: customer.tax_id }) : '',
        '</section>',
      ]
    : [];
  const bannerLines = banner
    ? [
        `<div class="void">${escapeHtml(banner.text)}${banner.at ? ` &mdash; ${escapeHtml(formatDateTime(banner.at, shop.timezone))}` : ''}</div>`,
        ...banner.details.map(labelled),
      ]
    : [];

  const lines = document.lines.map((item, index) => {
    const discount = item.discount_xaf + item.promotion_discount_xaf;
    return [
      String(index + 1),
      item.name,
      formatQuantity(item.quantity, locale),
      formatXaf(item.unit_price_xaf, locale),
      discount ? formatXaf(-discount, locale) : '',
      formatRate(item.vat_rate, locale),
      formatXaf(lineGross(item.quantity, item.unit_price_xaf) - discount, locale),
    ];
  });
  const lineColumns: Column[] = [
    { label: '#', numeric: true },
    { label: t.item },
    { label: t.quantity, numeric: true },
    { label: t.unitPrice, numeric: true },
    { label: t.discount, numeric: true },
    { label: t.vat, numeric: true },
    { label: t.amount, numeric: true },
  ];

  const totalBase = document.vat_breakdown.reduce((sum, vat) => sum + vat.base_xaf, 0);
  const totalVat = document.vat_breakdown.reduce((sum, vat) => sum + vat.vat_xaf, 0);
  const totalRows: Total[] = [
    { label: t.subtotal, value: formatXaf(document.subtotal_xaf, locale) },
    ...document.discounts.filter((discount) => discount.amount_xaf).map((discount) => ({ label: discount.label, value: formatXaf(-discount.amount_xaf, locale) })),
    { label: t.totalExclVat, value: formatXaf(totalBase, locale) },
    { label: t.totalVat, value: formatXaf(totalVat, locale) },
    { label: t.totalInclVat, value: formatXaf(document.total_xaf, locale), grand: true },
  ];

  const vatRows = document.vat_breakdown.map((vat) => [formatRate(vat.rate, locale), formatXaf(vat.base_xaf, locale), formatXaf(vat.vat_xaf, locale), formatXaf(vat.total_xaf, locale)]);
  const vatColumns: Column[] = [{ label: t.vatRate }, { label: t.vatBase, numeric: true }, { label: t.vat, numeric: true }, { label: t.totalInclVat, numeric: true }];

  const body = [
    '<div class="page">',
    `<header class="top"><div>${seller.join('')}</div><div class="title">${meta.join('')}</div></header>`,
    ...buyer,
    ...bannerLines,
    table('lines', lineColumns, lines),
    totals(totalRows),
    vatRows.length ? `<h2>${escapeHtml(t.vatBreakdown)}</h2>${table('vat', vatColumns, vatRows)}` : '',
    ...document.sections.map(section),
    `<footer class="footer">${paragraphs(shop.receipt_footer).map((value) => line(value)).join('')}</footer>`,
    `<p class="ref">${escapeHtml(`${document.reference.label}${colon} ${document.reference.value}`)}</p>`,
    '</div>',
  ];

  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`${document.number} - ${shop.name}`)}</title>`,
    `<style>${css(format)}</style>`,
    '</head>',
    `<body>${body.filter(Boolean).join('\n')}</body>`,
    '</html>',
    '',
  ].join('\n');
}

/** The sale's invoice: the shared layout, with the cashier, the payments, the refunds and a voided sale's mark. */
export function renderInvoice(input: ReceiptInput, format: InvoiceFormat, locale: ReceiptLocale): string {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const discounts = discountParts(sale);

  const methods = paymentLabels(locale, shop.payment_method_labels);
  const payments = paymentsMade(sale).map((payment) => [methods[payment.method], payment.reference ?? '', formatXaf(payment.amount_xaf, locale)]);
  const settlement: Total[] = [
    sale.change_xaf ? { label: t.change, value: formatXaf(sale.change_xaf, locale) } : null,
    sale.credit_xaf ? { label: t.balanceDue, value: formatXaf(sale.credit_xaf, locale), grand: true } : null,
    sale.points_earned ? { label: t.pointsEarned, value: String(sale.points_earned) } : null,
    sale.points_redeemed ? { label: t.pointsRedeemed, value: String(sale.points_redeemed) } : null,
  ].filter((row) => row !== null);
  const refunds = sale.refunds.map((refund) => [formatDateTime(refund.created_at, shop.timezone), methods[refund.method], refund.reason ?? '', formatXaf(-refund.total_xaf, locale)]);

  const sections: Section[] = [];
  if (payments.length || settlement.length) sections.push({ kind: 'heading', text: t.payments });
  if (payments.length) {
    sections.push({ kind: 'table', name: 'payments', columns: [{ label: t.method }, { label: t.reference }, { label: t.amount, numeric: true }], rows: payments });
  }
  if (settlement.length) sections.push({ kind: 'totals', rows: settlement });
  if (refunds.length) {
    sections.push({ kind: 'heading', text: t.refunds }, { kind: 'table', name: 'refunds', columns: [{}, {}, {}, { numeric: true }], rows: refunds });
  }
  // A sale left on the customer's account is signed for by the customer.
  if (sale.credit_xaf && sale.status !== 'voided') sections.push({ kind: 'text', name: 'signature', paragraphs: [`${t.signature}${locale === 'fr' ? ' :' : ':'}`] });

  return renderDocument(
    {
      kind: t.invoice,
      number: `${t.invoiceNo} ${sale.receipt_no}`,
      details: [
        { label: t.date, value: formatDateTime(sale.created_at, shop.timezone) },
        ...(sale.cashier_name ? [{ label: t.cashier, value: sale.cashier_name }] : []),
        ...(sale.status === 'partially_refunded' ? [t.partiallyRefunded] : sale.status === 'refunded' ? [t.refunded] : []),
      ],
      banner:
        sale.status === 'voided'
          ? { text: t.voidedSale, at: sale.voided_at, details: sale.void_reason ? [{ label: t.voidReason, value: sale.void_reason }] : [] }
          : null,
      customer,
      lines: sale.items,
      subtotal_xaf: sale.subtotal_xaf,
      discounts: [
        { label: t.discounts, amount_xaf: discounts.lines },
        { label: t.promotions, amount_xaf: discounts.promotions },
        { label: `${t.pointsDiscount} (${sale.points_redeemed})`, amount_xaf: discounts.points },
      ],
      total_xaf: sale.total_xaf,
      vat_breakdown: sale.vat_breakdown,
      sections,
      reference: { label: t.saleRef, value: sale.id },
    },
    shop,
    format,
    locale,
  );
}
