/**
 * Printed A4/A3 documents as one self-contained HTML page for the browser's print dialogue: inline
 * CSS only, no link, script, image or font fetched from anywhere (the page works offline and leaks
 * nothing), `@page` sized A4 or A3. Every text from the shop, the customer or the document is
 * HTML-escaped, here and nowhere else: a document describes what it prints (`PrintedDocument`) and
 * `renderDocument` lays it out. The sale's invoice is one such document; the quote
 * (api/quotes/document.ts) is another, with the same layout.
 *
 * Printing: rows are dense enough for 30 lines on one A4 page with the header, totals, VAT and
 * payments; a longer document repeats the lines' header row on every page, and every page's foot
 * carries the document's number and "Page x / y" (CSS page-margin boxes, which Chromium prints since
 * version 131; checked by tests/receipts/invoice-print.test.ts). No block (totals, VAT breakdown,
 * payments, signature) splits across two pages.
 */
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import { CAMEROON_VAT, cameroonVatParts, formatDateTime, formatQuantity, formatRate, formatXaf, LABELS, lineGross, paragraphs, type ReceiptLocale } from './format.ts';
import { discountParts, paymentsMade, standing } from './layout.ts';
import { closingInWords } from './words.ts';

export type InvoiceFormat = 'a4' | 'a3';

export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Text as a CSS string: every character but letters, digits and spaces as a hex escape, so nothing closes the string or the style. */
const cssString = (value: string) => `"${[...value].map((ch) => (/^[A-Za-z0-9]$/.test(ch) ? ch : `\\${ch.codePointAt(0)!.toString(16).padStart(6, '0')}`)).join('')}"`;

/**
 * Each paper its own layout, not one scaled to the other: A4 is set small and dense (30 lines and
 * the totals fit one page); A3, read on a desk or a wall, gets a larger type and wider margins and
 * still holds about twice the lines of A4 on its page.
 */
const PAPER = {
  a4: { size: 'A4', width: '210mm', margin: '8mm 10mm 12mm', fontSize: '8.5pt', cell: '.18em .45em', footer: '7.5pt' },
  a3: { size: 'A3', width: '297mm', margin: '14mm 16mm 18mm', fontSize: '10.5pt', cell: '.32em .6em', footer: '9pt' },
} as const;

function css(format: InvoiceFormat, pageFoot: string, pageWord: string): string {
  const paper = PAPER[format];
  return `
@page {
  size: ${paper.size} portrait; margin: ${paper.margin};
  @bottom-left { content: ${cssString(pageFoot)}; font: ${paper.footer} "Helvetica Neue", Helvetica, Arial, sans-serif; color: #555; }
  @bottom-right { content: ${cssString(`${pageWord} `)} counter(page) " / " counter(pages); font: ${paper.footer} "Helvetica Neue", Helvetica, Arial, sans-serif; color: #555; }
}
* { box-sizing: border-box; }
html { background: #eee; }
body { margin: 0; color: #111; font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; font-size: ${paper.fontSize}; line-height: 1.15; }
.page { background: #fff; width: ${paper.width}; max-width: 100%; min-height: 100vh; margin: 0 auto; padding: ${paper.margin}; }
h1 { font-size: 1.5em; margin: 0 0 .15em; }
h2 { font-size: 1.05em; margin: .6em 0 .15em; break-after: avoid; page-break-after: avoid; }
p { margin: 0; }
.top { display: flex; justify-content: space-between; gap: 2em; }
.seller { flex: 1 1 50%; }
.title { flex: 0 1 45%; text-align: right; }
.title h1 { text-transform: uppercase; letter-spacing: .05em; }
.party { margin-top: .6em; border: 1px solid #ccc; padding: .4em .6em; text-align: left; }
.label { color: #555; }
.stamp { display: inline-block; margin-top: .3em; border: 2px solid; padding: .1em .6em; font-weight: bold; text-transform: uppercase; }
.stamp.paid { color: #1b6e20; }
.stamp.unpaid, .stamp.partly_paid { color: #b00020; }
.void { margin-top: .8em; border: 3px solid #b00020; color: #b00020; font-size: 1.4em; font-weight: bold; text-align: center; padding: .3em; }
table { width: 100%; border-collapse: collapse; margin-top: .4em; }
th, td { padding: ${paper.cell}; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th { background: #f3f3f3; border-bottom: 1px solid #999; }
.num { text-align: right; white-space: nowrap; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
.block { break-inside: avoid; page-break-inside: avoid; }
.summary { display: flex; gap: 2em; align-items: flex-start; margin-top: .6em; }
.summary > :first-child { flex: 1 1 55%; }
.summary > :last-child { flex: 1 1 45%; }
.summary h2 { margin-top: 0; }
.pair { display: flex; gap: 2em; align-items: flex-start; }
.pair > * { flex: 1 1 50%; }
table.vat tr.part td { border-bottom: none; padding-top: 0; color: #444; }
table.vat tr.part td:first-child { padding-left: 1.5em; }
table.vat td:first-child { white-space: nowrap; }
.totals .grand td { font-size: 1.15em; font-weight: bold; border-top: 2px solid #111; border-bottom: none; }
.words { margin-top: .5em; font-style: italic; }
.notice { margin-top: .8em; font-style: italic; }
.signature { margin-top: .8em; min-height: 3em; }
.footer { margin-top: .6em; text-align: center; color: #333; }
.ref { margin-top: .4em; color: #777; font-size: .8em; text-align: center; }
@media print {
  html { background: none; }
  .page { width: auto; max-width: none; min-height: 0; margin: 0; padding: 0; }
  th, .stamp { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
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

/**
 * What a document prints after its VAT breakdown (the invoice's payments and refunds, the quote's
 * note). A heading opens a block that runs to the next heading, a text not right under a heading
 * is a block of its own, and no block is split across pages; a table followed by totals prints
 * them side by side.
 */
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
  /** "Facture n° 1042": under the kind, the title of the browser's tab and the foot of every printed page. */
  number: string;
  /** The rest of the title block: the date, who made it, its state. */
  details: (Field | string)[];
  /** Stamped under the title: whether the invoice is paid. */
  stamp?: { text: string; tone: 'paid' | 'unpaid' | 'partly_paid' } | null;
  /** A document that no longer stands (a voided sale, an expired quote) says so across the page. */
  banner: { text: string; at: string | null; details: Field[] } | null;
  customer: ReceiptInput['customer'];
  lines: PrintedLine[];
  subtotal_xaf: number;
  /** Each kind of discount on its own row, under the subtotal; a zero one is left out. */
  discounts: { label: string; amount_xaf: number }[];
  total_xaf: number;
  /** The total in words that closes the document, as OHADA invoices do ("Arrêtée la présente facture à la somme de..."). */
  total_in_words: string;
  vat_breakdown: SaleRecord['vat_breakdown'];
  sections: Section[];
  reference: Field;
}

export function renderDocument(document: PrintedDocument, shop: ReceiptInput['shop'], format: InvoiceFormat, locale: ReceiptLocale): string {
  const t = LABELS[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const xaf = (amount: number) => formatXaf(amount, locale);
  const labelled = ({ label, value }: Field) => `<p><span class="label">${escapeHtml(label + colon)}</span> ${escapeHtml(value)}</p>`;
  const line = (value: string, name?: string) => `<p${name ? ` class="${name}"` : ''}>${escapeHtml(value)}</p>`;
  const cell = (value: string, numeric = false) => `<td${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</td>`;
  const head = (value: string, numeric = false) => `<th${numeric ? ' class="num"' : ''}>${escapeHtml(value)}</th>`;
  const table = (name: string, columns: Column[], rows: (string[] | { name: string; cells: string[] })[]) => {
    const header = columns.some((column) => column.label)
      ? `<thead><tr>${columns.map((column) => head(column.label ?? '', column.numeric)).join('')}</tr></thead>`
      : '';
    const body = rows.map((row) => {
      const { name: rowName, cells } = Array.isArray(row) ? { name: '', cells: row } : row;
      return `<tr${rowName ? ` class="${rowName}"` : ''}>${cells.map((value, index) => cell(value, columns[index]?.numeric)).join('')}</tr>`;
    });
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
  const blocks = (sections: Section[]) => {
    const groups: Section[][] = [];
    for (const part of sections) {
      const afterHeading = groups[groups.length - 1]?.length === 1 && groups[groups.length - 1]![0]!.kind === 'heading';
      if (part.kind === 'heading' || groups.length === 0 || (part.kind === 'text' && !afterHeading)) groups.push([part]);
      else groups[groups.length - 1]!.push(part);
    }
    return groups.map((group) => {
      const html: string[] = [];
      for (let i = 0; i < group.length; i++) {
        const part = group[i]!;
        const next = group[i + 1];
        if (part.kind === 'table' && next?.kind === 'totals') {
          html.push(`<div class="pair"><div>${section(part)}</div><div>${section(next)}</div></div>`);
          i++;
        } else html.push(section(part));
      }
      return `<section class="block">${html.join('')}</section>`;
    });
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
  const { customer, banner, stamp } = document;
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
  const meta = [
    `<h1>${escapeHtml(document.kind)}</h1>`,
    line(document.number),
    ...document.details.map((detail) => (typeof detail === 'string' ? line(detail) : labelled(detail))),
    stamp ? `<p class="stamp ${stamp.tone}">${escapeHtml(stamp.text)}</p>` : '',
    ...buyer,
  ];
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
      xaf(item.unit_price_xaf),
      discount ? xaf(-discount) : '',
      formatRate(item.vat_rate, locale),
      xaf(lineGross(item.quantity, item.unit_price_xaf) - discount),
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
    { label: t.subtotal, value: xaf(document.subtotal_xaf) },
    ...document.discounts.filter((discount) => discount.amount_xaf).map((discount) => ({ label: discount.label, value: xaf(-discount.amount_xaf) })),
    { label: t.totalExclVat, value: xaf(totalBase) },
    { label: t.totalVat, value: xaf(totalVat) },
    { label: t.totalInclVat, value: xaf(document.total_xaf), grand: true },
  ];

  // Cameroon's 19.25 % shows its VAT of 17.5 % and its CAC (10 % of that VAT) under it.
  const vatRows = document.vat_breakdown.flatMap((vat) => {
    const row = [formatRate(vat.rate, locale), xaf(vat.base_xaf), xaf(vat.vat_xaf), xaf(vat.total_xaf)];
    if (vat.rate !== CAMEROON_VAT.rate) return [row];
    const parts = cameroonVatParts(vat.vat_xaf);
    return [
      row,
      { name: 'part', cells: [`${t.vatPartOf} ${formatRate(CAMEROON_VAT.vatRate, locale)}`, '', xaf(parts.vat_xaf), ''] },
      { name: 'part', cells: [`${t.cacPartOf} ${formatRate(CAMEROON_VAT.cacRate, locale)} (${t.ofTheVat})`, '', xaf(parts.cac_xaf), ''] },
    ];
  });
  const vatColumns: Column[] = [{ label: t.vatRate }, { label: t.vatBase, numeric: true }, { label: t.vat, numeric: true }, { label: t.totalInclVat, numeric: true }];
  const vatBlock = vatRows.length ? `<div><h2>${escapeHtml(t.vatBreakdown)}</h2>${table('vat', vatColumns, vatRows)}</div>` : '<div></div>';

  const body = [
    '<div class="page">',
    `<header class="top"><div class="seller">${seller.join('')}</div><div class="title">${meta.join('')}</div></header>`,
    ...bannerLines,
    table('lines', lineColumns, lines),
    `<section class="block summary">${vatBlock}<div>${totals(totalRows)}</div></section>`,
    `<p class="block words">${escapeHtml(document.total_in_words)}</p>`,
    ...blocks(document.sections),
    `<footer class="block footer">${paragraphs(shop.receipt_footer).map((value) => line(value)).join('')}</footer>`,
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
    `<style>${css(format, `${shop.name} - ${document.number}`, t.page)}</style>`,
    '</head>',
    `<body>${body.filter(Boolean).join('\n')}</body>`,
    '</html>',
    '',
  ].join('\n');
}

/** The sale's invoice: the shared layout, with the cashier, whether it is paid, the payments, the refunds and a voided sale's mark. */
export function renderInvoice(input: ReceiptInput, format: InvoiceFormat, locale: ReceiptLocale): string {
  const { sale, shop, customer } = input;
  const t = LABELS[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const xaf = (amount: number) => formatXaf(amount, locale);
  const discounts = discountParts(sale);
  const left = standing(input);

  const methods = paymentLabels(locale, shop.payment_method_labels);
  const payments = paymentsMade(sale).map((payment) => [methods[payment.method], payment.reference ?? '', xaf(payment.amount_xaf)]);
  const settlement: Total[] = [
    sale.change_xaf ? { label: t.change, value: xaf(sale.change_xaf) } : null,
    left.settled_xaf ? { label: t.settledOnAccount, value: xaf(left.settled_xaf) } : null,
    left.due_xaf ? { label: t.balanceDue, value: xaf(left.due_xaf), grand: true } : null,
    left.points_earned ? { label: t.pointsEarned, value: String(left.points_earned) } : null,
    left.points_redeemed ? { label: t.pointsRedeemed, value: String(left.points_redeemed) } : null,
  ].filter((row) => row !== null);
  const refunds = sale.refunds.map((refund) => [formatDateTime(refund.created_at, shop.timezone), methods[refund.method], refund.reason ?? '', xaf(-refund.total_xaf)]);

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
  if (left.on_account) sections.push({ kind: 'text', name: 'signature', paragraphs: [`${t.signature}${colon}`] });

  // Whether it is paid, from its balance due: paid when nothing is; unpaid when nothing was paid at the till nor settled since.
  const stamp: PrintedDocument['stamp'] = left.voided
    ? null
    : !left.due_xaf
      ? { text: t.paid, tone: 'paid' }
      : sale.paid_xaf === 0 && left.settled_xaf === 0
        ? { text: t.unpaid, tone: 'unpaid' }
        : { text: `${t.balanceDueShort}${colon} ${xaf(left.due_xaf)}`, tone: 'partly_paid' };

  return renderDocument(
    {
      kind: t.invoice,
      number: `${t.invoiceNo} ${sale.receipt_no}`,
      details: [
        { label: t.date, value: formatDateTime(sale.created_at, shop.timezone) },
        ...(sale.cashier_name ? [{ label: t.cashier, value: sale.cashier_name }] : []),
        ...(sale.status === 'partially_refunded' ? [t.partiallyRefunded] : sale.status === 'refunded' ? [t.refunded] : []),
      ],
      stamp,
      banner: left.voided ? { text: t.voidedSale, at: sale.voided_at, details: sale.void_reason ? [{ label: t.voidReason, value: sale.void_reason }] : [] } : null,
      customer,
      lines: sale.items,
      subtotal_xaf: sale.subtotal_xaf,
      discounts: [
        { label: t.discounts, amount_xaf: discounts.lines },
        { label: t.promotions, amount_xaf: discounts.promotions },
        { label: `${t.pointsDiscount} (${sale.points_redeemed})`, amount_xaf: discounts.points },
      ],
      total_xaf: sale.total_xaf,
      total_in_words: closingInWords(sale.total_xaf, 'invoice', locale),
      vat_breakdown: sale.vat_breakdown,
      sections,
      reference: { label: t.saleRef, value: sale.id },
    },
    shop,
    format,
    locale,
  );
}
