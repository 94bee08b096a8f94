/**
 * What an A4 document prints, decided once for both of its renderings: the HTML page for a browser's
 * print dialogue (document-html.ts) and the PDF (pdf.ts). A document (the sale's invoice, a refund's
 * credit note, a quote) describes itself as a `PrintedDocument`; `layoutDocument` turns it and the shop
 * into every text the page prints, already formatted and in order (`DocumentLayout`). A renderer only
 * places those texts: the two can never disagree on a word or an amount.
 *
 * What an accountant in Douala expects, and so every document prints (issue 31):
 * - the seller's legal mentions under its name: legal form and capital ("SARL au capital de
 *   1 000 000 FCFA"), NIU and RCCM, tax regime and tax centre; the customer's NIU and RCCM;
 * - VAT per rate, Cameroon's 19.25 % split into its VAT of 17.5 % and the CAC; an exempt line says
 *   "Exonéré", not "0 %";
 * - totals that read downwards: the gross amount and the discounts only when there are discounts,
 *   then Total HT, Total TVA and Total TTC (the grand total); after it, each credit note and the net;
 * - the total in words, except on a voided document (it no longer stands for any sum);
 * - where to pay (bank details, mobile money merchant number) and, on a credit sale, the terms and
 *   the due date; lines to sign on.
 * A column no line fills (the discount of a sale without discounts) is left out.
 *
 * A certified record (CONTRACT section 14) prints the tax authority's data in a block of its own after
 * the totals (certification.ts says what): the state, or the number, the time, the signature and the
 * authority's QR code.
 */
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import type { PrintedCertification } from './certification.ts';
import { CAMEROON_VAT, cameroonVatParts, formatDateTime, formatQuantity, formatRate, formatXaf, groupDigits, LABELS, lineGross, paragraphs, vatRateLabel, type ReceiptLocale } from './format.ts';

export type DocumentShop = ReceiptInput['shop'];
export type DocumentCustomer = ReceiptInput['customer'];

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
  /** Kept on one line (amounts, quantities): the column is as wide as its widest cell. */
  nowrap?: boolean;
}

/** A row of a table; a named one is styled apart (the VAT's 17.5 % and CAC parts under 19.25 %). */
export type TableRow = string[] | { name: string; cells: string[] };

export interface Table {
  name: string;
  columns: Column[];
  rows: TableRow[];
}

/**
 * What a document prints after its totals (the invoice's payments and refunds, the quote's note). A
 * heading opens a block that runs to the next heading, a text not right under a heading is a block of
 * its own, and no block is split across pages; a table followed by totals prints them side by side.
 */
export type Section =
  | { kind: 'heading'; text: string }
  | ({ kind: 'table' } & Table)
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

/** A box to sign in: its title and the lines under it ("Date :", "Signature :"). */
export interface SignatureBox {
  title: string;
  lines: string[];
}

export interface PrintedDocument {
  /** The document's kind, large in the title block: "Facture", "Devis / Proforma". */
  kind: string;
  /** "Facture n° 1042": under the kind, the title of the browser's tab and the foot of every printed page. */
  number: string;
  /** The rest of the title block: the date, who made it, its state, the due date. */
  details: (Field | string)[];
  /** Stamped under the title: whether the invoice is paid. */
  stamp?: { text: string; tone: 'paid' | 'unpaid' | 'partly_paid' } | null;
  /** A document that no longer stands (a voided sale, an expired quote) says so across the page. */
  banner: { text: string; at: string | null; details: Field[] } | null;
  customer: DocumentCustomer;
  lines: PrintedLine[];
  subtotal_xaf: number;
  /** Each kind of discount on its own row, under the gross amount; a zero one is left out. */
  discounts: { label: string; amount_xaf: number }[];
  total_xaf: number;
  /** Rows under the grand total: each credit note (negative) and what is left, the net. */
  after_total?: Total[];
  /** The sentence with the amount in words that closes the document; null prints none (a voided invoice). */
  total_in_words: string | null;
  vat_breakdown: SaleRecord['vat_breakdown'];
  sections: Section[];
  /** Boxes to sign in, side by side at the end (the customer's for a credit sale; "Bon pour accord" on a quote). */
  signatures?: SignatureBox[];
  /** Whether the shop's receipt footer prints: not on a quote (its "ni reprises ni échangées" is about goods sold). */
  shop_footer: boolean;
  /** The tax authority's certification of the invoice or credit note; none on a quote, nor in a shop that does not certify. */
  certification?: PrintedCertification | null;
}

/** Everything the page prints, formatted, in order. */
export interface DocumentLayout {
  locale: ReceiptLocale;
  /** The browser tab's title and the PDF's: "Facture n° 1042 - Boutique Awa". */
  title: string;
  kind: string;
  number: string;
  /** The foot of every page, left: "Boutique Awa - Facture n° 1042"; right: "Page x / y". */
  page_foot: string;
  page_word: string;
  seller: { name: string; lines: (Field | string)[] };
  details: (Field | string)[];
  stamp: PrintedDocument['stamp'];
  banner: { text: string; details: Field[] } | null;
  buyer: { heading: string; name: string; lines: Field[] } | null;
  lines: Table;
  vat: (Table & { heading: string }) | null;
  totals: Total[];
  words: string | null;
  /** After the words: what the tax authority certified, or that it has not yet. */
  certification: PrintedCertification | null;
  sections: Section[];
  signatures: SignatureBox[];
  /** "Règlement": where the customer pays (bank, mobile money). */
  pay_to: { heading: string; lines: Field[] } | null;
  footer: string[];
}

/** "SARL au capital de 1 000 000 FCFA", "SARL", or null when the shop gave neither. */
function legalForm(shop: DocumentShop, locale: ReceiptLocale): string | null {
  const capital = shop.share_capital_xaf != null ? `${LABELS[locale].capital} ${formatXaf(shop.share_capital_xaf, locale)}` : null;
  const form = [shop.legal_form, capital].filter(Boolean).join(' ');
  return form || null;
}

export function layoutDocument(document: PrintedDocument, shop: DocumentShop, locale: ReceiptLocale): DocumentLayout {
  const t = LABELS[locale];
  const xaf = (amount: number) => formatXaf(amount, locale);
  const field = (label: string, value: string | null | undefined): Field[] => (value ? [{ label, value }] : []);

  const seller = {
    name: shop.name,
    lines: [
      ...[legalForm(shop, locale), shop.address, shop.city].filter((value): value is string => Boolean(value)),
      ...field(t.phone, shop.phone),
      ...field(t.email, shop.email),
      ...field(t.taxId, shop.tax_id),
      ...field(t.tradeRegister, shop.trade_register_no),
      ...field(t.taxRegime, shop.tax_regime),
      ...field(t.taxCentre, shop.tax_centre),
      ...paragraphs(shop.receipt_header),
    ],
  };
  const { customer } = document;
  const buyer = customer
    ? {
        heading: t.customer,
        name: customer.name,
        lines: [
          ...field(t.phone, customer.phone),
          ...field(t.email, customer.email),
          ...field(t.address, customer.address),
          ...field(t.taxId, customer.tax_id),
          ...field(t.tradeRegister, customer.trade_register_no),
        ],
      }
    : null;
  const banner = document.banner
    ? { text: document.banner.at ? `${document.banner.text} - ${formatDateTime(document.banner.at, shop.timezone)}` : document.banner.text, details: document.banner.details }
    : null;

  const discounted = document.lines.some((line) => line.discount_xaf + line.promotion_discount_xaf !== 0);
  const lineColumns: Column[] = [
    { label: '#', numeric: true },
    { label: t.item },
    { label: t.quantity, numeric: true, nowrap: true },
    { label: t.unitPrice, numeric: true, nowrap: true },
    ...(discounted ? [{ label: t.discount, numeric: true, nowrap: true }] : []),
    { label: t.vat, numeric: true, nowrap: true },
    { label: t.amount, numeric: true, nowrap: true },
  ];
  const lineRows = document.lines.map((line, index) => {
    const discount = line.discount_xaf + line.promotion_discount_xaf;
    return [
      String(index + 1),
      line.name,
      formatQuantity(line.quantity, locale),
      xaf(line.unit_price_xaf),
      ...(discounted ? [discount ? xaf(-discount) : ''] : []),
      vatRateLabel(line.vat_rate, locale),
      xaf(lineGross(line.quantity, line.unit_price_xaf) - discount),
    ];
  });

  // Cameroon's 19.25 % shows its VAT of 17.5 % and its CAC (10 % of that VAT) under it.
  const vatRows: TableRow[] = document.vat_breakdown.flatMap((vat) => {
    const row = [vatRateLabel(vat.rate, locale), xaf(vat.base_xaf), xaf(vat.vat_xaf), xaf(vat.total_xaf)];
    if (vat.rate !== CAMEROON_VAT.rate) return [row];
    const parts = cameroonVatParts(vat.vat_xaf);
    return [
      row,
      { name: 'part', cells: [`${t.vatPartOf} ${formatRate(CAMEROON_VAT.vatRate, locale)}`, '', xaf(parts.vat_xaf), ''] },
      { name: 'part', cells: [`${t.cacPartOf} ${formatRate(CAMEROON_VAT.cacRate, locale)} (${t.ofTheVat})`, '', xaf(parts.cac_xaf), ''] },
    ];
  });
  const vat = vatRows.length
    ? {
        heading: t.vatBreakdown,
        name: 'vat',
        columns: [{ label: t.vatRate }, { label: t.vatBase, numeric: true, nowrap: true }, { label: t.vat, numeric: true, nowrap: true }, { label: t.totalInclVat, numeric: true, nowrap: true }],
        rows: vatRows,
      }
    : null;

  const discounts = document.discounts.filter((discount) => discount.amount_xaf);
  const totals: Total[] = [
    ...(discounts.length ? [{ label: t.grossInclVat, value: xaf(document.subtotal_xaf) }, ...discounts.map((d) => ({ label: d.label, value: xaf(-d.amount_xaf) }))] : []),
    { label: t.totalExclVat, value: xaf(document.vat_breakdown.reduce((sum, v) => sum + v.base_xaf, 0)) },
    { label: t.totalVat, value: xaf(document.vat_breakdown.reduce((sum, v) => sum + v.vat_xaf, 0)) },
    { label: t.totalInclVat, value: xaf(document.total_xaf), grand: !document.after_total?.length },
    ...(document.after_total ?? []),
  ];

  const payTo = [...field(t.bank, shop.bank_details), ...field(t.momoMerchant, shop.momo_merchant_no)];
  const number = document.number;
  return {
    locale,
    title: `${number} - ${shop.name}`,
    kind: document.kind,
    number,
    page_foot: `${shop.name} - ${number}`,
    page_word: t.page,
    seller,
    details: document.details,
    stamp: document.stamp ?? null,
    banner,
    buyer,
    lines: { name: 'lines', columns: lineColumns, rows: lineRows },
    vat,
    totals,
    words: document.total_in_words,
    certification: document.certification ?? null,
    sections: document.sections,
    signatures: document.signatures ?? [],
    pay_to: payTo.length ? { heading: t.payTo, lines: payTo } : null,
    footer: document.shop_footer ? paragraphs(shop.receipt_footer) : [],
  };
}

/** Loyalty points as documents print them: grouped by three (`1 250`, `1,250`). */
export const formatPoints = (points: number, locale: ReceiptLocale) => groupDigits(String(points), locale);
