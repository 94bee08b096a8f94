/**
 * A document's layout (document.ts) as one self-contained HTML page for the browser's print dialogue:
 * inline CSS only, no link, script or font fetched from anywhere (the page works offline and leaks
 * nothing), the shop's logo inline as a data: URL, `@page` sized A4 or A3. Every text from the shop,
 * the customer or the document is HTML-escaped, here and nowhere else.
 *
 * Printing: rows are dense enough for 30 lines on one A4 page with the header, totals, VAT and
 * payments; a longer document repeats the lines' header row on every page, and every page's foot
 * carries the document's number and "Page x / y" (CSS page-margin boxes, which Chromium prints since
 * version 131; checked by tests/receipts/invoice-print.test.ts). No block (totals, VAT breakdown,
 * payments, signatures) splits across two pages.
 */
import { escapeHtml } from '../lib/html.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import type { Column, DocumentLayout, Field, Section, TableRow, Total } from './document.ts';
import { qrSvg } from './qr.ts';

export type InvoiceFormat = 'a4' | 'a3';

export { escapeHtml };

/** Text as a CSS string: every character but letters, digits and spaces as a hex escape, so nothing closes the string or the style. */
const cssString = (value: string) => `"${[...value].map((ch) => (/^[A-Za-z0-9]$/.test(ch) ? ch : `\\${ch.codePointAt(0)!.toString(16).padStart(6, '0')}`)).join('')}"`;

/**
 * Each paper its own layout, not one scaled to the other: A4 is set small and dense (30 lines and
 * the totals fit one page); A3, read on a desk or a wall, gets a larger type and wider margins and
 * still holds about twice the lines of A4 on its page.
 */
const PAPER = {
  a4: { size: 'A4', width: '210mm', margin: '8mm 10mm 12mm', fontSize: '8.5pt', cell: '.15em .45em', footer: '7.5pt' },
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
.footer { margin-top: .6em; text-align: center; color: #333; }
.logo { display: block; max-width: 45mm; max-height: 22mm; margin-bottom: .3em; }
.closing { display: flex; gap: 2em; align-items: flex-start; margin-top: .6em; }
.closing > * { flex: 1 1 0; }
.pay-to h2 { margin-top: 0; }
.signature-box { border: 1px solid #999; padding: .3em .6em; min-height: 4.5em; }
.signature-box p { margin-bottom: 1.2em; }
.signature-box p.box-title { font-weight: bold; margin-bottom: .4em; }
.certification { display: flex; gap: 1.2em; align-items: center; margin-top: .6em; border: 1px solid #ccc; padding: .4em .6em; }
.certification figure { margin: 0; flex: 0 0 auto; text-align: center; color: #555; font-size: .9em; }
.certification svg.qr { display: block; width: 26mm; height: 26mm; margin: .2em auto 0; }
.certification .state { font-weight: bold; }
.certification .authority-signature { margin-top: .2em; font-size: .85em; color: #444; overflow-wrap: anywhere; }
@media print {
  html { background: none; }
  .page { width: auto; max-width: none; min-height: 0; margin: 0; padding: 0; }
  th, .stamp { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;
}


/** The logo as an inline image: nothing fetched, the CSP allows `img-src data:` only. */
export const logoDataUrl = (logo: ShopLogoImage) => `data:${logo.media_type};base64,${logo.content.toString('base64')}`;

export function renderDocumentHtml(layout: DocumentLayout, format: InvoiceFormat, logo: ShopLogoImage | null): string {
  const colon = layout.locale === 'fr' ? ' :' : ':';
  const labelled = ({ label, value }: Field) => `<p><span class="label">${escapeHtml(label + colon)}</span> ${escapeHtml(value)}</p>`;
  const line = (value: string, name?: string) => `<p${name ? ` class="${name}"` : ''}>${escapeHtml(value)}</p>`;
  const either = (entry: Field | string) => (typeof entry === 'string' ? line(entry) : labelled(entry));
  const cell = (value: string, column: Column | undefined) => `<td${column?.numeric ? ' class="num"' : ''}>${escapeHtml(value)}</td>`;
  const head = (column: Column) => `<th${column.numeric ? ' class="num"' : ''}>${escapeHtml(column.label ?? '')}</th>`;
  const table = (name: string, columns: Column[], rows: TableRow[]) => {
    const header = columns.some((column) => column.label) ? `<thead><tr>${columns.map(head).join('')}</tr></thead>` : '';
    const body = rows.map((row) => {
      const { name: rowName, cells } = Array.isArray(row) ? { name: '', cells: row } : row;
      return `<tr${rowName ? ` class="${rowName}"` : ''}>${cells.map((value, index) => cell(value, columns[index])).join('')}</tr>`;
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
    logo ? `<img class="logo" alt="" src="${logoDataUrl(logo)}">` : '',
    `<h1>${escapeHtml(layout.seller.name)}</h1>`,
    ...layout.seller.lines.map(either),
  ];
  const { buyer, banner, stamp } = layout;
  const party = buyer
    ? [`<section class="party"><p><span class="label">${escapeHtml(buyer.heading + colon)}</span> <strong>${escapeHtml(buyer.name)}</strong></p>`, ...buyer.lines.map(labelled), '</section>']
    : [];
  const meta = [
    `<h1>${escapeHtml(layout.kind)}</h1>`,
    line(layout.number),
    ...layout.details.map(either),
    stamp ? `<p class="stamp ${stamp.tone}">${escapeHtml(stamp.text)}</p>` : '',
    ...party,
  ];
  const { certification } = layout;
  const certified = certification
    ? [
        '<section class="block certification">',
        certification.qr ? `<figure><figcaption>${escapeHtml(certification.qr.caption)}</figcaption>${qrSvg(certification.qr.data)}</figure>` : '',
        `<div>${certification.lines.map((entry) => (typeof entry === 'string' ? line(entry, 'state') : labelled(entry))).join('')}`,
        certification.signature ? line(certification.signature, 'authority-signature') : '',
        '</div></section>',
      ].join('')
    : '';
  const vatBlock = layout.vat ? `<div><h2>${escapeHtml(layout.vat.heading)}</h2>${table('vat', layout.vat.columns, layout.vat.rows)}</div>` : '<div></div>';
  // Where to pay and the boxes to sign in share the document's last row: side by side they leave room for 30 lines on A4.
  const closing = [
    layout.pay_to ? `<div class="pay-to"><h2>${escapeHtml(layout.pay_to.heading)}</h2>${layout.pay_to.lines.map(labelled).join('')}</div>` : '',
    ...layout.signatures.map((box) => `<div class="signature-box"><p class="box-title">${escapeHtml(box.title)}</p>${box.lines.map((text) => line(text)).join('')}</div>`),
  ].filter(Boolean);

  const body = [
    '<div class="page">',
    `<header class="top"><div class="seller">${seller.join('')}</div><div class="title">${meta.join('')}</div></header>`,
    ...(banner ? [`<div class="void">${escapeHtml(banner.text)}</div>`, ...banner.details.map(labelled)] : []),
    table('lines', layout.lines.columns, layout.lines.rows),
    `<section class="block summary">${vatBlock}<div>${totals(layout.totals)}</div></section>`,
    layout.words ? `<p class="block words">${escapeHtml(layout.words)}</p>` : '',
    certified,
    ...blocks(layout.sections),
    closing.length ? `<section class="block closing">${closing.join('')}</section>` : '',
    layout.footer.length ? `<footer class="block footer">${layout.footer.map((text) => line(text)).join('')}</footer>` : '',
    '</div>',
  ];

  return [
    '<!DOCTYPE html>',
    `<html lang="${layout.locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(layout.title)}</title>`,
    `<style>${css(format, layout.page_foot, layout.page_word)}</style>`,
    '</head>',
    `<body>${body.filter(Boolean).join('\n')}</body>`,
    '</html>',
    '',
  ].join('\n');
}
