/**
 * The pages a shared link opens on a customer's phone (issue 31): one column, as wide as the screen up
 * to 600 px, the system font at 16 px. What the customer came for comes first, on the first screen of
 * any phone: the shop, the document's number and date, then a card with the total in large type, the
 * balance due of a credit sale and the button to download the PDF. Then the lines as blocks (the name
 * on its own lines, "quantity x unit price" and the amount under it), the VAT, the payments, the
 * refunds, the tax authority's certification (certification.ts: its state, or its number, signature and
 * QR code as an inline SVG) and the shop's footer.
 *
 * Nothing scrolls sideways from 320 px up: every text may break anywhere (a 120-character name
 * without a space, a footer of one long word), an amount never breaks but always has a line to
 * itself if it needs one. Like the printed documents, a page is self-contained (inline CSS, the logo
 * as a data: URL, nothing fetched) and every text from the shop, the customer or the record is
 * HTML-escaped, here.
 *
 * The words are this page's own, in French and English: the printed documents' labels are theirs.
 */
import { imageDataUrl } from '../lib/pdf.ts';
import { paymentLabels } from '../lib/payment-labels.ts';
import type { QuoteDocumentInput } from '../quotes/document.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { escapeHtml } from '../lib/html.ts';
import { printedCertification, type PrintedCertification } from './certification.ts';
import { qrSvg } from './qr.ts';
import { formatDate, formatDateTime, formatQuantity, formatRate, formatXaf, groupDigits, LABELS, lineGross, paragraphs, type ReceiptLocale } from './format.ts';
import { discountParts, paymentsMade, receiptLayout, standing, COLUMNS } from './layout.ts';

/** The page's own words; every other one is the documents' (LABELS), so that the page and the invoice never say it two ways. */
const WORDS = {
  fr: {
    total: 'Total',
    downloadPdf: 'Télécharger le PDF',
    viewReceipt: 'Voir le reçu',
    viewInvoice: 'Voir la facture',
    items: 'Articles',
    vatIncluded: 'TVA incluse',
    quoteConverted: 'Devis accepté, facturé le',
  },
  en: {
    total: 'Total',
    downloadPdf: 'Download PDF',
    viewReceipt: 'View the receipt',
    viewInvoice: 'View the invoice',
    items: 'Items',
    vatIncluded: 'VAT included',
    quoteConverted: 'Accepted, invoiced on',
  },
} as const satisfies Record<ReceiptLocale, Record<string, string>>;

const words = (locale: ReceiptLocale) => ({ ...LABELS[locale], ...WORDS[locale] });

type Words = ReturnType<typeof words>;

/** A label and its amount on one line; the amount goes under the label when both do not fit. */
interface Row {
  label: string;
  /** Smaller, under the label: a payment's reference, a refund's reason. */
  detail?: string;
  amount: string;
  strong?: boolean;
}

interface PageLine {
  name: string;
  quantity: number;
  unit_price_xaf: number;
  discount_xaf: number;
  promotion_discount_xaf: number;
}

/** What a phone page shows, in its order. */
interface PhoneDocument {
  /** "Facture n° 1042": the heading and the tab's title. */
  title: string;
  details: string[];
  /** A quote that no longer stands says so above everything else: declined or expired as a warning, accepted as good news. */
  banner: { text: string; tone: 'good' | 'warning' } | null;
  total_xaf: number;
  /** The balance due of a credit sale not yet settled: in the summary card, under the total. */
  due_xaf: number;
  /** Paid, refunded...: in the summary card when nothing is due. */
  state: { text: string; tone: 'good' | 'neutral' } | null;
  links: { label: string; href: string }[];
  lines: PageLine[];
  totals: Row[];
  sections: { heading: string; rows: Row[]; notes?: string[] }[];
  /** The tax authority's certification of the sale; none on a quote. */
  certification: PrintedCertification | null;
  notes: string[];
}

export interface SalePageLinks {
  pdf: string;
  receipt: string;
}

export interface QuotePageLinks {
  pdf: string;
}

export interface ReceiptPageLinks {
  pdf: string;
  page: string;
}

const CSS = `
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; background: #f2f3f5; color-scheme: light; }
body { margin: 0; color: #16181d; font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; overflow-wrap: anywhere; word-break: break-word; }
main { max-width: 600px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.25rem; margin: .25rem 0 .125rem; }
h2 { font-size: 1rem; margin: 0 0 .5rem; color: #3b4049; }
p { margin: 0; }
.logo { display: block; width: auto; height: auto; max-width: 100%; max-height: 64px; margin-bottom: 8px; }
.shop { font-weight: 600; }
.muted { color: #5b616b; font-size: .9375rem; }
.banner { margin-top: 12px; padding: 10px 12px; border-radius: 8px; background: #fdecea; color: #8a1c12; font-weight: 600; }
.banner.good { background: #e8f5e9; color: #1b5e20; }
.card { margin-top: 12px; padding: 16px; border-radius: 12px; background: #fff; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.summary .total-label { color: #5b616b; font-size: .9375rem; text-transform: uppercase; letter-spacing: .04em; }
.summary .total { font-size: clamp(1.75rem, 9vw, 2.5rem); font-weight: 700; line-height: 1.15; font-variant-numeric: tabular-nums; }
.summary .due { margin-top: 8px; padding: 8px 10px; border-radius: 8px; background: #fff4e5; color: #7a4100; display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 12px; font-weight: 600; }
.summary .state { margin-top: 8px; font-weight: 600; color: #3b4049; }
.summary .state.good { color: #1b6e20; }
.button { display: block; margin-top: 14px; padding: 12px 16px; min-height: 48px; border-radius: 10px; background: #0b57d0; color: #fff; font-weight: 600; text-align: center; text-decoration: none; }
.link { display: block; margin-top: 10px; text-align: center; color: #0b57d0; }
ul.lines { list-style: none; margin: 0; padding: 0; }
ul.lines li { padding: 10px 0; border-bottom: 1px solid #e6e8eb; }
ul.lines li:first-child { padding-top: 0; }
.name { font-weight: 600; }
.row { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: 0 12px; }
.row > .label { flex: 1 1 auto; min-width: 0; }
.row > .amount { margin-left: auto; white-space: nowrap; font-variant-numeric: tabular-nums; }
.row .detail { display: block; color: #5b616b; font-size: .875rem; }
.row.minor { color: #5b616b; font-size: .9375rem; }
.row.strong { font-weight: 700; font-size: 1.0625rem; }
.rows .row + .row { margin-top: 6px; }
.totals { margin-top: 10px; padding-top: 10px; border-top: 1px solid #c9cdd3; }
.notes p + p { margin-top: 6px; }
footer { margin: 16px 0 8px; text-align: center; color: #5b616b; font-size: .875rem; }
footer p + p { margin-top: 4px; }
.certification .state { font-weight: 600; }
.certification .signature { margin-top: 4px; color: #5b616b; font-size: .8125rem; }
.certification figure { margin: 12px 0 0; text-align: center; color: #5b616b; font-size: .875rem; }
.certification svg.qr { display: block; width: min(60vw, 220px); height: auto; margin: 6px auto 0; }
.paper { margin-top: 12px; padding: 16px 8px; background: #fff; border-radius: 4px; font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace;
  font-size: min(16px, calc((100vw - 48px) / 19.5)); line-height: 1.3; white-space: pre-wrap; }
.paper .l { min-height: 1.3em; }
.paper .c { text-align: center; }
.paper .b { font-weight: 700; }
.paper .t { padding: .2em 0; }
.paper .s { font-size: .75em; }
`;

const colonOf = (locale: ReceiptLocale) => (locale === 'fr' ? ' :' : ':');

function rowHtml(row: Row, kind = ''): string {
  const label = `<span class="label">${escapeHtml(row.label)}${row.detail ? `<span class="detail">${escapeHtml(row.detail)}</span>` : ''}</span>`;
  const classes = ['row', kind, row.strong ? 'strong' : ''].filter(Boolean).join(' ');
  return `<div class="${classes}">${label}<span class="amount">${escapeHtml(row.amount)}</span></div>`;
}

function pageHtml(locale: ReceiptLocale, title: string, shopName: string, body: string[]): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // A shared link is the customer's alone: no search engine keeps it, no phone number detection restyles an amount.
    '<meta name="robots" content="noindex, nofollow">',
    '<meta name="format-detection" content="telephone=no">',
    `<title>${escapeHtml(`${title} - ${shopName}`)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    `<body><main>${body.filter(Boolean).join('\n')}</main></body>`,
    '</html>',
    '',
  ].join('\n');
}

function shopFooter(shop: ReceiptInput['shop'], w: Words, locale: ReceiptLocale): string {
  const colon = colonOf(locale);
  const lines = [
    ...paragraphs(shop.receipt_footer),
    [shop.address, shop.city].filter(Boolean).join(', '),
    shop.phone ? `${w.phone} ${shop.phone}` : '',
    shop.tax_id ? `${w.taxId}${colon} ${shop.tax_id}` : '',
    shop.trade_register_no ? `${w.tradeRegister}${colon} ${shop.trade_register_no}` : '',
  ].filter(Boolean);
  return lines.length ? `<footer>${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}</footer>` : '';
}

function logoHtml(logo: ShopLogoImage | null): string {
  if (!logo) return '';
  return `<img class="logo" src="${imageDataUrl(logo.media_type, logo.content)}" width="${logo.width}" height="${logo.height}" alt="">`;
}

function phonePage(document: PhoneDocument, shop: ReceiptInput['shop'], logo: ShopLogoImage | null, locale: ReceiptLocale): string {
  const w = words(locale);
  const xaf = (amount: number) => formatXaf(amount, locale);
  const paragraph = (text: string, name?: string) => `<p${name ? ` class="${name}"` : ''}>${escapeHtml(text)}</p>`;

  const header = [
    '<header>',
    logoHtml(logo),
    paragraph(shop.name, 'shop'),
    `<h1>${escapeHtml(document.title)}</h1>`,
    ...document.details.map((detail) => paragraph(detail, 'muted')),
    '</header>',
  ].join('');

  const summary = [
    '<section class="card summary">',
    paragraph(w.total, 'total-label'),
    `<p class="total" id="total">${escapeHtml(xaf(document.total_xaf))}</p>`,
    document.due_xaf > 0 ? `<p class="due" id="balance-due"><span>${escapeHtml(w.balanceDueShort)}</span><span>${escapeHtml(xaf(document.due_xaf))}</span></p>` : '',
    document.state ? `<p class="state ${document.state.tone}">${escapeHtml(document.state.text)}</p>` : '',
    // `download` would save the file without showing it on some phones: opened, the phone's viewer offers both.
    `<a class="button" id="pdf" href="${escapeHtml(document.links[0]!.href)}">${escapeHtml(document.links[0]!.label)}</a>`,
    ...document.links.slice(1).map((link) => `<a class="link" href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`),
    '</section>',
  ].join('');

  const lines = document.lines.map((line) => {
    const quantity = `${formatQuantity(line.quantity, locale)} x ${xaf(line.unit_price_xaf)}`;
    return [
      '<li>',
      paragraph(line.name, 'name'),
      rowHtml({ label: quantity, amount: xaf(lineGross(line.quantity, line.unit_price_xaf)) }),
      line.discount_xaf ? rowHtml({ label: w.discount, amount: xaf(-line.discount_xaf) }, 'minor') : '',
      line.promotion_discount_xaf ? rowHtml({ label: w.promotion, amount: xaf(-line.promotion_discount_xaf) }, 'minor') : '',
      '</li>',
    ].join('');
  });
  const itemsCard = [
    '<section class="card">',
    `<h2>${escapeHtml(`${w.items} (${document.lines.length})`)}</h2>`,
    `<ul class="lines">${lines.join('')}</ul>`,
    `<div class="rows totals">${document.totals.map((row) => rowHtml(row)).join('')}</div>`,
    '</section>',
  ].join('');

  const sections = document.sections.map((section) =>
    [
      '<section class="card">',
      `<h2>${escapeHtml(section.heading)}</h2>`,
      section.rows.length ? `<div class="rows">${section.rows.map((row) => rowHtml(row)).join('')}</div>` : '',
      section.notes?.length ? `<div class="notes">${section.notes.map((note) => paragraph(note)).join('')}</div>` : '',
      '</section>',
    ].join(''),
  );

  const { certification } = document;
  const certified = certification
    ? [
        '<section class="card certification" id="certification">',
        ...certification.lines.map((entry) => (typeof entry === 'string' ? paragraph(entry, 'state') : paragraph(`${entry.label}${colonOf(locale)} ${entry.value}`))),
        certification.signature ? paragraph(certification.signature, 'signature') : '',
        certification.qr ? `<figure><figcaption>${escapeHtml(certification.qr.caption)}</figcaption>${qrSvg(certification.qr.data)}</figure>` : '',
        '</section>',
      ].join('')
    : '';

  return pageHtml(locale, document.title, shop.name, [
    header,
    document.banner ? paragraph(document.banner.text, document.banner.tone === 'good' ? 'banner good' : 'banner') : '',
    summary,
    itemsCard,
    ...sections,
    certified,
    document.notes.length ? `<section class="card notes">${document.notes.map((note) => paragraph(note)).join('')}</section>` : '',
    shopFooter(shop, w, locale),
  ]);
}

function vatRows(vat: SaleRecord['vat_breakdown'], w: Words, locale: ReceiptLocale): Row[] {
  return vat.map((line) => ({
    label: line.rate === 0 ? w.exempt : `${w.vat} ${formatRate(line.rate, locale)}`,
    detail: `${w.vatBase} ${formatXaf(line.base_xaf, locale)}`,
    amount: formatXaf(line.vat_xaf, locale),
  }));
}

/** The rows between the lines and the total: the subtotal only when discounts come off it. */
function totalRows(subtotal: number, discounts: { label: string; amount_xaf: number }[], total: number, w: Words, locale: ReceiptLocale): Row[] {
  const taken = discounts.filter((discount) => discount.amount_xaf);
  return [
    ...(taken.length ? [{ label: w.grossInclVat, amount: formatXaf(subtotal, locale) }] : []),
    ...taken.map((discount) => ({ label: discount.label, amount: formatXaf(-discount.amount_xaf, locale) })),
    { label: w.total, amount: formatXaf(total, locale), strong: true },
  ];
}

/** The page of a shared sale. The route never shows a voided sale's (404): the renderer does not check. */
export function renderSalePage(input: ReceiptInput, locale: ReceiptLocale, logo: ShopLogoImage | null, links: SalePageLinks): string {
  const { sale, shop, customer } = input;
  const w = words(locale);
  const colon = colonOf(locale);
  const xaf = (amount: number) => formatXaf(amount, locale);
  const left = standing(input);
  const discounts = discountParts(sale);
  const methods = paymentLabels(locale, shop.payment_method_labels);

  const payments: Row[] = [
    ...paymentsMade(sale).map((payment) => ({ label: methods[payment.method], ...(payment.reference ? { detail: `${w.reference} ${payment.reference}` } : {}), amount: xaf(payment.amount_xaf) })),
    ...(sale.change_xaf ? [{ label: w.change, amount: xaf(sale.change_xaf) }] : []),
    ...(left.settled_xaf ? [{ label: w.settledOnAccount, amount: xaf(left.settled_xaf) }] : []),
    ...(left.due_xaf ? [{ label: w.balanceDueShort, amount: xaf(left.due_xaf), strong: true }] : []),
  ];
  const refunds: Row[] = sale.refunds.map((refund) => ({
    label: `${formatDateTime(refund.created_at, shop.timezone)} ${methods[refund.method]}`,
    ...(refund.reason ? { detail: refund.reason } : {}),
    amount: xaf(-refund.total_xaf),
  }));
  const state: PhoneDocument['state'] =
    sale.status === 'refunded'
      ? { text: w.refunded, tone: 'neutral' }
      : sale.status === 'partially_refunded'
        ? { text: w.partiallyRefunded, tone: 'neutral' }
        : left.due_xaf
          ? null
          : { text: w.paid, tone: 'good' };

  return phonePage(
    {
      title: `${w.invoiceNo} ${sale.receipt_no}`,
      details: [
        formatDateTime(sale.created_at, shop.timezone),
        ...(customer ? [`${w.customer}${colon} ${customer.name}`] : []),
        ...(sale.cashier_name ? [`${w.cashier}${colon} ${sale.cashier_name}`] : []),
      ],
      banner: null,
      total_xaf: sale.total_xaf,
      due_xaf: left.due_xaf,
      state,
      links: [
        { label: w.downloadPdf, href: links.pdf },
        { label: w.viewReceipt, href: links.receipt },
      ],
      lines: sale.items,
      totals: totalRows(
        sale.subtotal_xaf,
        [
          { label: w.discounts, amount_xaf: discounts.lines },
          { label: w.promotions, amount_xaf: discounts.promotions },
          { label: `${w.pointsDiscount} (${groupDigits(String(sale.points_redeemed), locale)})`, amount_xaf: discounts.points },
        ],
        sale.total_xaf,
        w,
        locale,
      ),
      sections: [
        ...(sale.vat_breakdown.length ? [{ heading: w.vatIncluded, rows: vatRows(sale.vat_breakdown, w, locale) }] : []),
        ...(payments.length ? [{ heading: w.payments, rows: payments }] : []),
        ...(refunds.length ? [{ heading: w.refunds, rows: refunds }] : []),
      ],
      certification: printedCertification(sale.certification, 'invoice', shop.timezone, locale),
      notes: [],
    },
    shop,
    logo,
    locale,
  );
}

/** A quote that can no longer be accepted says so first; a converted one says when it became a sale. */
function quoteBanner(quote: QuoteDocumentInput['quote'], w: Words, timezone: string): PhoneDocument['banner'] {
  switch (quote.status) {
    case 'declined':
      return { text: w.quoteDeclined, tone: 'warning' };
    case 'expired':
      return { text: w.quoteExpired, tone: 'warning' };
    case 'converted':
      return { text: quote.converted_at ? `${w.quoteConverted} ${formatDateTime(quote.converted_at, timezone)}` : w.quoteConverted, tone: 'good' };
    default:
      return null;
  }
}

/** The page of a shared quote: the sale's page without payments, with its validity and what it is not. */
export function renderQuotePage(input: QuoteDocumentInput, locale: ReceiptLocale, logo: ShopLogoImage | null, links: QuotePageLinks): string {
  const { quote, shop, customer } = input;
  const w = words(locale);
  const colon = colonOf(locale);
  const note = paragraphs(quote.note);
  return phonePage(
    {
      title: `${w.quoteNo} ${quote.quote_no}`,
      details: [
        formatDateTime(quote.created_at, shop.timezone),
        `${w.validUntil} ${formatDate(quote.valid_until)}`,
        ...(customer ? [`${w.customer}${colon} ${customer.name}`] : []),
      ],
      banner: quoteBanner(quote, w, shop.timezone),
      total_xaf: quote.total_xaf,
      due_xaf: 0,
      state: null,
      links: [{ label: w.downloadPdf, href: links.pdf }],
      lines: quote.items,
      totals: totalRows(
        quote.subtotal_xaf,
        [
          { label: w.discounts, amount_xaf: quote.items.reduce((sum, item) => sum + item.discount_xaf, 0) },
          { label: w.promotions, amount_xaf: quote.items.reduce((sum, item) => sum + item.promotion_discount_xaf, 0) },
        ],
        quote.total_xaf,
        w,
        locale,
      ),
      sections: [
        ...(quote.vat_breakdown.length ? [{ heading: w.vatIncluded, rows: vatRows(quote.vat_breakdown, w, locale) }] : []),
        ...(note.length ? [{ heading: w.note, rows: [], notes: note }] : []),
      ],
      certification: null,
      notes: [w.quoteNotice],
    },
    shop,
    logo,
    locale,
  );
}

/**
 * The till receipt as a page: the printer's own lines (layout.ts) at 32 columns in a monospace font
 * sized to the screen, so that the receipt reads as printed on a 320 px phone; a line that still
 * does not fit (a wider font) wraps rather than scroll. No QR code: this page is where it leads.
 */
export function renderReceiptPage(input: ReceiptInput, locale: ReceiptLocale, links: ReceiptPageLinks): string {
  const w = words(locale);
  const lines = receiptLayout(input, COLUMNS[58], locale).flatMap((block) => {
    if (block.kind !== 'line') return [];
    const classes = ['l', block.centred ? 'c' : '', block.bold ? 'b' : '', block.tall ? 't' : '', block.small ? 's' : ''].filter(Boolean).join(' ');
    return [`<div class="${classes}">${escapeHtml(block.centred ? block.text.trim() : block.text)}</div>`];
  });
  return pageHtml(locale, `${w.receiptNo} ${input.sale.receipt_no}`, input.shop.name, [
    `<div class="paper" id="receipt">${lines.join('')}</div>`,
    `<a class="button" id="pdf" href="${escapeHtml(links.pdf)}">${escapeHtml(w.downloadPdf)}</a>`,
    `<a class="link" href="${escapeHtml(links.page)}">${escapeHtml(w.viewInvoice)}</a>`,
  ]);
}
