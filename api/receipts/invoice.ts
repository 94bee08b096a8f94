/**
 * The invoice as one self-contained HTML page for the browser's print dialogue: inline CSS only,
 * no link, script, image or font fetched from anywhere (the page works offline and leaks nothing),
 * `@page` sized A4 or A3. Every text from the shop, the customer or the sale is HTML-escaped.
 */
import type { ReceiptInput } from '../sales/schemas.ts';
import { formatDateTime, formatQuantity, formatRate, formatXaf, LABELS, lineGross, paragraphs, type ReceiptLocale } from './format.ts';
import { discountParts } from './layout.ts';

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
.footer { margin-top: 2em; text-align: center; color: #333; }
.ref { margin-top: 1em; color: #777; font-size: .8em; text-align: center; }
@media print {
  html { background: none; }
  .page { width: auto; max-width: none; min-height: 0; margin: 0; padding: 0; }
  th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;
}

const cell = (value: string, numeric = false) => `<td${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</td>`;
const head = (value: string, numeric = false) => `<th${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</th>`;
const totalRow = (label: string, value: string, grand = false) =>
  `<tr${grand ? ' class="grand"' : ''}><td>${escapeHtml(label)}</td><td class="num">${escapeHtml(value)}</td></tr>`;

export function renderInvoice(input: ReceiptInput, format: InvoiceFormat, locale: ReceiptLocale): string {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const labelled = (label: string, value: string) => `<p><span class="label">${escapeHtml(label + colon)}</span> ${escapeHtml(value)}</p>`;
  const line = (value: string) => `<p>${escapeHtml(value)}</p>`;
  const title = `${t.invoiceNo} ${sale.receipt_no}`;

  const seller = [
    `<h1>${escapeHtml(shop.name)}</h1>`,
    ...[shop.address, shop.city].filter((v): v is string => Boolean(v)).map(line),
    shop.phone ? labelled(t.phone, shop.phone) : '',
    shop.email ? labelled(t.email, shop.email) : '',
    shop.tax_id ? labelled(t.taxId, shop.tax_id) : '',
    ...paragraphs(shop.receipt_header).map(line),
  ];
  const meta = [
    `<h1>${escapeHtml(t.invoice)}</h1>`,
    line(title),
    labelled(t.date, formatDateTime(sale.created_at, shop.timezone)),
    sale.cashier_name ? labelled(t.cashier, sale.cashier_name) : '',
    sale.status === 'partially_refunded' ? line(t.partiallyRefunded) : sale.status === 'refunded' ? line(t.refunded) : '',
  ];
  const buyer = customer
    ? [
        `<section class="party"><p class="label">${escapeHtml(t.customer)}</p>`,
        `<p><strong>${escapeHtml(customer.name)}</strong></p>`,
        customer.phone ? labelled(t.phone, customer.phone) : '',
        customer.email ? labelled(t.email, customer.email) : '',
        '</section>',
      ]
    : [];
  const voided =
    sale.status === 'voided'
      ? [
          `<div class="void">${escapeHtml(t.voidedSale)}${sale.voided_at ? ` &mdash; ${escapeHtml(formatDateTime(sale.voided_at, shop.timezone))}` : ''}</div>`,
          sale.void_reason ? labelled(t.voidReason, sale.void_reason) : '',
        ]
      : [];

  const items = sale.items.map((item, index) => {
    const discount = item.discount_xaf + item.promotion_discount_xaf;
    const amount = lineGross(item.quantity, item.unit_price_xaf) - discount;
    return (
      '<tr>' +
      cell(String(index + 1), true) +
      cell(item.name) +
      cell(formatQuantity(item.quantity, locale), true) +
      cell(formatXaf(item.unit_price_xaf), true) +
      cell(discount ? formatXaf(-discount) : '', true) +
      cell(formatRate(item.vat_rate, locale), true) +
      cell(formatXaf(amount), true) +
      '</tr>'
    );
  });

  const discounts = discountParts(sale);
  const totalBase = sale.vat_breakdown.reduce((sum, vat) => sum + vat.base_xaf, 0);
  const totalVat = sale.vat_breakdown.reduce((sum, vat) => sum + vat.vat_xaf, 0);
  const totals = [
    totalRow(t.subtotal, formatXaf(sale.subtotal_xaf)),
    discounts.lines ? totalRow(t.discounts, formatXaf(-discounts.lines)) : '',
    discounts.promotions ? totalRow(t.promotions, formatXaf(-discounts.promotions)) : '',
    discounts.points ? totalRow(`${t.pointsDiscount} (${sale.points_redeemed})`, formatXaf(-discounts.points)) : '',
    totalRow(t.totalExclVat, formatXaf(totalBase)),
    totalRow(t.totalVat, formatXaf(totalVat)),
    totalRow(t.totalInclVat, formatXaf(sale.total_xaf), true),
  ];

  const vatRows = sale.vat_breakdown.map(
    (vat) => '<tr>' + cell(formatRate(vat.rate, locale)) + cell(formatXaf(vat.base_xaf), true) + cell(formatXaf(vat.vat_xaf), true) + cell(formatXaf(vat.total_xaf), true) + '</tr>',
  );

  const payments = sale.payments
    .filter((payment) => payment.kind === 'payment')
    .map((payment) => '<tr>' + cell(t.methods[payment.method]) + cell(payment.reference ?? '') + cell(formatXaf(payment.amount_xaf), true) + '</tr>');
  const settlement = [
    sale.change_xaf ? totalRow(t.change, formatXaf(sale.change_xaf)) : '',
    sale.credit_xaf ? totalRow(t.customerCredit, formatXaf(sale.credit_xaf)) : '',
    sale.points_earned ? totalRow(t.pointsEarned, String(sale.points_earned)) : '',
    sale.points_redeemed ? totalRow(t.pointsRedeemed, String(sale.points_redeemed)) : '',
  ].filter(Boolean);

  const refunds = sale.refunds.map(
    (refund) =>
      '<tr>' + cell(formatDateTime(refund.created_at, shop.timezone)) + cell(t.methods[refund.method]) + cell(refund.reason ?? '') + cell(formatXaf(-refund.total_xaf), true) + '</tr>',
  );

  const body = [
    '<div class="page">',
    `<header class="top"><div>${seller.join('')}</div><div class="title">${meta.join('')}</div></header>`,
    ...buyer,
    ...voided,
    '<table class="lines">',
    `<thead><tr>${head('#', true)}${head(t.item)}${head(t.quantity, true)}${head(t.unitPrice, true)}${head(t.discount, true)}${head(t.vat, true)}${head(t.amount, true)}</tr></thead>`,
    `<tbody>${items.join('')}</tbody>`,
    '</table>',
    `<table class="totals"><tbody>${totals.join('')}</tbody></table>`,
    vatRows.length
      ? `<h2>${escapeHtml(t.vatBreakdown)}</h2><table class="vat"><thead><tr>${head(t.vatRate)}${head(t.vatBase, true)}${head(t.vat, true)}${head(t.totalInclVat, true)}</tr></thead><tbody>${vatRows.join('')}</tbody></table>`
      : '',
    payments.length || settlement.length ? `<h2>${escapeHtml(t.payments)}</h2>` : '',
    payments.length
      ? `<table class="payments"><thead><tr>${head(t.method)}${head(t.reference)}${head(t.amount, true)}</tr></thead><tbody>${payments.join('')}</tbody></table>`
      : '',
    settlement.length ? `<table class="totals"><tbody>${settlement.join('')}</tbody></table>` : '',
    refunds.length ? `<h2>${escapeHtml(t.refunds)}</h2><table class="refunds"><tbody>${refunds.join('')}</tbody></table>` : '',
    `<footer class="footer">${paragraphs(shop.receipt_footer).map(line).join('')}</footer>`,
    `<p class="ref">${escapeHtml(`${t.saleRef}${colon} ${sale.id}`)}</p>`,
    '</div>',
  ];

  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`${title} - ${shop.name}`)}</title>`,
    `<style>${css(format)}</style>`,
    '</head>',
    `<body>${body.filter(Boolean).join('\n')}</body>`,
    '</html>',
    '',
  ].join('\n');
}
