/**
 * What every receipt, invoice and quote prints the same way: amounts, quantities, rates, dates,
 * the words in both languages, and text fitted to a paper's columns.
 *
 * Decisions: amounts carry no decimals and are grouped by three the way each language writes
 * numbers: a plain space in French (`12 500 FCFA`, `-1 500 FCFA`), a comma in English
 * (`12,500 FCFA`); quantities and rates take a decimal comma in French and a point in English
 * (`1 234,5` / `1,234.5`). Dates are day/month/year and a 24-hour clock in both languages
 * (`21/11/2026 14:05`), in the shop's own time zone: a till's clock and the receipt agree, and no
 * AM/PM has to fit on a 32-column line.
 */
import type { SaleMethod } from '../sales/schemas.ts';

export type ReceiptLocale = 'fr' | 'en';
export type PaymentMethod = (typeof SaleMethod.options)[number];

const GROUP_SEPARATOR: Record<ReceiptLocale, string> = { fr: ' ', en: ',' };
export const DECIMAL_MARK: Record<ReceiptLocale, string> = { fr: ',', en: '.' };

/** Digits grouped by three the way `locale` writes them: `149 750` / `149,750`. Documents, mails and error messages all use it. */
export const groupDigits = (digits: string, locale: ReceiptLocale) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, GROUP_SEPARATOR[locale]);

/** Integer XAF: `12 500 FCFA`, `0 FCFA`, `-1 500 FCFA` in French; `12,500 FCFA` in English. */
export function formatXaf(amount: number, locale: ReceiptLocale): string {
  const rounded = Math.round(amount);
  const sign = rounded < 0 ? '-' : '';
  return `${sign}${groupDigits(String(Math.abs(rounded)), locale)} FCFA`;
}

/** A number with at most `places` decimals and no trailing zeros: `1 234,5` in French, `1,234.5` in English. */
function formatDecimal(value: number, places: number, locale: ReceiptLocale): string {
  const fixed = Math.abs(value).toFixed(places);
  const [whole, fraction = ''] = fixed.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const sign = value < 0 && Number(fixed) !== 0 ? '-' : '';
  return `${sign}${groupDigits(whole!, locale)}${trimmed ? DECIMAL_MARK[locale] + trimmed : ''}`;
}

/** Quantities: up to 3 decimals, no trailing zeros (`2`, `1,5` / `1.5`, `0,125`, `1 234,5` / `1,234.5`). */
export function formatQuantity(quantity: number, locale: ReceiptLocale): string {
  return formatDecimal(quantity, 3, locale);
}

/** A rate as documents print it: a 0 % line is exempt (`Exonéré` / `Exempt`), as an accountant reads it; else formatRate. */
export function vatRateLabel(rate: number, locale: ReceiptLocale): string {
  return rate === 0 ? LABELS[locale].exempt : formatRate(rate, locale);
}

/** VAT rates: `19,25 %` in French, `19.25%` in English. */
export function formatRate(rate: number, locale: ReceiptLocale): string {
  return locale === 'fr' ? `${formatDecimal(rate, 2, locale)} %` : `${formatDecimal(rate, 2, locale)}%`;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(timezone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timezone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    try {
      format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone: timezone });
    } catch {
      // PostgreSQL knows a few zone names the JS runtime may not: print UTC rather than fail a receipt.
      format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' });
    }
    dateFormats.set(timezone, format);
  }
  return format;
}

/** `21/11/2026 14:05` in the shop's time zone, whatever the language. */
export function formatDateTime(at: string | Date, timezone: string): string {
  const parts = Object.fromEntries(dateFormat(timezone).formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  return `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}`;
}

/**
 * A calendar day (`2026-12-31`, as PostgreSQL sends a `date`) as `31/12/2026`, whatever the
 * language: the shop's own day, so no time zone applies.
 */
export function formatDate(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(day);
  return match ? `${match[3]}/${match[2]}/${match[1]}` : day;
}

/** round(quantity x unit price), half away from zero, computed on integers so 0.005-style ties never drift. */
export function lineGross(quantity: number, unitPriceXaf: number): number {
  const product = BigInt(Math.round(quantity * 1000)) * BigInt(Math.round(unitPriceXaf));
  const negative = product < 0n;
  const magnitude = negative ? -product : product;
  const rounded = (magnitude + 500n) / 1000n;
  return Number(negative ? -rounded : rounded);
}

/**
 * Cameroon's 19.25 % is a VAT of 17.5 % plus the CAC (centimes additionnels communaux), 10 % of that
 * VAT: 17.5 x 1.1 = 19.25. An accountant books them apart, so the VAT of a 19.25 % line splits into
 * its CAC, round(vat x 1.75 / 19.25) = round(vat / 11) half away from zero, and the VAT proper, the
 * rest: the two parts always sum to the VAT amount printed.
 */
export const CAMEROON_VAT = { rate: 19.25, vatRate: 17.5, cacRate: 10 } as const;

export function cameroonVatParts(vatXaf: number): { vat_xaf: number; cac_xaf: number } {
  const magnitude = Math.abs(vatXaf);
  const cacMagnitude = Math.floor((2 * magnitude + 11) / 22);
  const cac = vatXaf < 0 ? -cacMagnitude : cacMagnitude;
  return { vat_xaf: vatXaf - cac, cac_xaf: cac };
}

export interface Labels {
  invoice: string;
  invoiceAttached: string;
  receiptNo: string;
  invoiceNo: string;
  date: string;
  cashier: string;
  customer: string;
  phone: string;
  email: string;
  taxId: string;
  item: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  promotion: string;
  pointsDiscount: string;
  vatRate: string;
  amount: string;
  subtotal: string;
  discounts: string;
  promotions: string;
  total: string;
  totalExclVat: string;
  totalVat: string;
  totalInclVat: string;
  vat: string;
  vatBase: string;
  vatBreakdown: string;
  payments: string;
  method: string;
  reference: string;
  change: string;
  customerCredit: string;
  pointsEarned: string;
  pointsRedeemed: string;
  refunds: string;
  voided: string;
  voidedSale: string;
  voidReason: string;
  partiallyRefunded: string;
  refunded: string;
  saleRef: string;
  quote: string;
  quoteNo: string;
  validUntil: string;
  quoteDeclined: string;
  quoteExpired: string;
  quoteConverted: string;
  note: string;
  quoteNotice: string;
  quoteRef: string;
  balanceDue: string;
  signature: string;
  tradeRegister: string;
  address: string;
  paid: string;
  unpaid: string;
  balanceDueShort: string;
  settledOnAccount: string;
  vatPartOf: string;
  cacPartOf: string;
  ofTheVat: string;
  page: string;
  creditNote: string;
  creditNoteNo: string;
  originalInvoice: string;
  dated: string;
  refund: string;
  refundReason: string;
  refundRef: string;
  exempt: string;
  grossInclVat: string;
  creditNoteLine: string;
  netAfterCreditNotes: string;
  capital: string;
  taxRegime: string;
  taxCentre: string;
  payTo: string;
  bank: string;
  momoMerchant: string;
  paymentTerms: string;
  days: (n: number) => string;
  dueDate: string;
  approval: string;
  approvalLines: string[];
  shopSignature: string;
  certificationNo: string;
  certifiedAt: string;
  certificationPending: string;
  invoiceNotCertified: string;
  creditNoteNotCertified: string;
  voidCertified: string;
  authorityCheck: string;
  salePageLink: string;
}

/** Every word a receipt, an invoice, a quote, a credit note or a receipt e-mail prints, in both languages. */
export const LABELS: Record<ReceiptLocale, Labels> = {
  fr: {
    invoice: 'Facture',
    invoiceAttached: 'La facture est jointe à ce message.',
    receiptNo: 'Reçu n°',
    invoiceNo: 'Facture n°',
    date: 'Date',
    cashier: 'Caissier',
    customer: 'Client',
    phone: 'Tél.',
    email: 'E-mail',
    taxId: 'NIU',
    item: 'Désignation',
    quantity: 'Qté',
    unitPrice: 'Prix TTC',
    discount: 'Remise',
    promotion: 'Promotion',
    pointsDiscount: 'Remise points',
    vatRate: 'Taux TVA',
    amount: 'Montant',
    subtotal: 'Sous-total',
    discounts: 'Remises',
    promotions: 'Promotions',
    total: 'TOTAL',
    totalExclVat: 'Total HT',
    totalVat: 'Total TVA',
    totalInclVat: 'Total TTC',
    vat: 'TVA',
    vatBase: 'Base HT',
    vatBreakdown: 'Détail de la TVA',
    payments: 'Paiements',
    method: 'Moyen de paiement',
    reference: 'Réf.',
    change: 'Monnaie rendue',
    customerCredit: 'Crédit client',
    pointsEarned: 'Points gagnés',
    pointsRedeemed: 'Points utilisés',
    refunds: 'Remboursements',
    voided: 'ANNULÉ',
    voidedSale: 'VENTE ANNULÉE',
    voidReason: 'Motif',
    partiallyRefunded: 'Remboursé en partie',
    refunded: 'Remboursé',
    saleRef: 'Réf. vente',
    quote: 'Devis / Proforma',
    quoteNo: 'Devis n°',
    validUntil: 'Valable jusqu\'au',
    quoteDeclined: 'Devis refusé',
    quoteExpired: 'Devis expiré',
    quoteConverted: 'Devis converti en vente',
    note: 'Note',
    quoteNotice: 'Ce devis n\'est pas une facture. Il ne réserve aucun stock.',
    quoteRef: 'Réf. devis',
    balanceDue: 'Reste dû (compte client)',
    signature: 'Signature du client',
    tradeRegister: 'RCCM',
    address: 'Adresse',
    paid: 'Payée',
    unpaid: 'Non payée',
    balanceDueShort: 'Reste dû',
    settledOnAccount: 'Réglé depuis sur le compte client',
    vatPartOf: 'dont TVA',
    cacPartOf: 'dont CAC',
    ofTheVat: 'de la TVA',
    page: 'Page',
    creditNote: 'Avoir',
    creditNoteNo: 'Avoir n°',
    originalInvoice: 'Facture d\'origine',
    dated: 'du',
    refund: 'Remboursement',
    refundReason: 'Motif',
    refundRef: 'Réf. remboursement',
    exempt: 'Exonéré',
    grossInclVat: 'Montant brut TTC',
    creditNoteLine: 'Avoir n°',
    netAfterCreditNotes: 'Net après avoirs',
    capital: 'au capital de',
    taxRegime: 'Régime fiscal',
    taxCentre: 'Centre des impôts',
    payTo: 'Règlement',
    bank: 'Banque',
    momoMerchant: 'Mobile money',
    paymentTerms: 'Conditions de paiement',
    days: (n) => (n === 0 ? 'comptant' : `${n} jours`),
    dueDate: 'Échéance',
    approval: 'Bon pour accord',
    approvalLines: ['Date :', 'Nom, signature et cachet du client :'],
    shopSignature: 'Signature et cachet du vendeur',
    certificationNo: 'N° de certification',
    certifiedAt: 'Date de certification',
    certificationPending: 'En attente de certification',
    invoiceNotCertified: 'Facture non certifiée',
    creditNoteNotCertified: 'Avoir non certifié',
    voidCertified: 'Annulation certifiée',
    authorityCheck: 'Vérification DGI',
    salePageLink: 'Votre facture en ligne',
  },
  en: {
    invoice: 'Invoice',
    invoiceAttached: 'The invoice is attached to this message.',
    receiptNo: 'Receipt no.',
    invoiceNo: 'Invoice no.',
    date: 'Date',
    cashier: 'Cashier',
    customer: 'Customer',
    phone: 'Tel.',
    email: 'E-mail',
    taxId: 'NIU',
    item: 'Item',
    quantity: 'Qty',
    unitPrice: 'Unit price incl. VAT',
    discount: 'Discount',
    promotion: 'Promotion',
    pointsDiscount: 'Points discount',
    vatRate: 'VAT rate',
    amount: 'Amount',
    subtotal: 'Subtotal',
    discounts: 'Discounts',
    promotions: 'Promotions',
    total: 'TOTAL',
    totalExclVat: 'Total excl. VAT',
    totalVat: 'Total VAT',
    totalInclVat: 'Total incl. VAT',
    vat: 'VAT',
    vatBase: 'Base excl. VAT',
    vatBreakdown: 'VAT breakdown',
    payments: 'Payments',
    method: 'Payment method',
    reference: 'Ref.',
    change: 'Change',
    customerCredit: 'Customer credit',
    pointsEarned: 'Points earned',
    pointsRedeemed: 'Points redeemed',
    refunds: 'Refunds',
    voided: 'VOIDED',
    voidedSale: 'SALE VOIDED',
    voidReason: 'Reason',
    partiallyRefunded: 'Partially refunded',
    refunded: 'Refunded',
    saleRef: 'Sale ref.',
    quote: 'Proforma invoice',
    quoteNo: 'Proforma no.',
    validUntil: 'Valid until',
    quoteDeclined: 'Proforma declined',
    quoteExpired: 'Proforma expired',
    quoteConverted: 'Proforma converted into a sale',
    note: 'Note',
    quoteNotice: 'This proforma invoice is not an invoice and reserves no stock.',
    quoteRef: 'Quote ref.',
    balanceDue: 'Balance due (customer account)',
    signature: 'Customer signature',
    tradeRegister: 'RCCM',
    address: 'Address',
    paid: 'Paid',
    unpaid: 'Unpaid',
    balanceDueShort: 'Balance due',
    settledOnAccount: 'Settled since on the customer account',
    vatPartOf: 'of which VAT',
    cacPartOf: 'of which CAC',
    ofTheVat: 'of the VAT',
    page: 'Page',
    creditNote: 'Credit note',
    creditNoteNo: 'Credit note no.',
    originalInvoice: 'Original invoice',
    dated: 'of',
    refund: 'Refund',
    refundReason: 'Reason',
    refundRef: 'Refund ref.',
    exempt: 'Exempt',
    grossInclVat: 'Gross amount incl. VAT',
    creditNoteLine: 'Credit note no.',
    netAfterCreditNotes: 'Net after credit notes',
    capital: 'with a share capital of',
    taxRegime: 'Tax regime',
    taxCentre: 'Tax centre',
    payTo: 'Payment details',
    bank: 'Bank',
    momoMerchant: 'Mobile money',
    paymentTerms: 'Payment terms',
    days: (n) => (n === 0 ? 'cash' : `${n} days`),
    dueDate: 'Due date',
    approval: 'Accepted',
    approvalLines: ['Date:', 'Customer\'s name, signature and stamp:'],
    shopSignature: 'Seller\'s signature and stamp',
    certificationNo: 'Certification no.',
    certifiedAt: 'Certified on',
    certificationPending: 'Pending certification',
    invoiceNotCertified: 'Invoice not certified',
    creditNoteNotCertified: 'Credit note not certified',
    voidCertified: 'Void certified',
    authorityCheck: 'Tax authority check',
    salePageLink: 'Your invoice online',
  },
};

/**
 * Text as a printer or a chat message can show it: composed accents (NFC, so `é` is one character
 * and one byte in Windows-1252), every kind of space a plain space, no control character (a
 * product name must never smuggle a printer command).
 */
export function cleanText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\p{Zs}/gu, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Length in printed columns: one per code point. */
export const columnsOf = (text: string) => [...text].length;

/** Text split on its own line breaks, each paragraph cleaned; empty paragraphs dropped. */
export function paragraphs(text: string | null | undefined): string[] {
  if (!text) return [];
  return text.split(/\r\n|\r|\n/).map(cleanText).filter((line) => line.length > 0);
}

/** Each word joined to the one before it (with its space) where `glue` says so and the two still fit one line. */
function joinWhere(words: string[], width: number, glue: (last: string, word: string) => boolean): string[] {
  const joined: string[] = [];
  for (const word of words) {
    const last = joined[joined.length - 1];
    if (last !== undefined && glue(last, word) && columnsOf(last) + 1 + columnsOf(word) <= width) joined[joined.length - 1] = `${last} ${word}`;
    else joined.push(word);
  }
  return joined;
}

/**
 * The words of a text as wrapping may break it: what reads as one thing stays one word, spaces
 * included, as long as it fits a line: first the digit groups of a number or a phone number
 * (`12 500`, `+237 677 12 34 56`), then what a lone slash joins (`12 / m`, `1 500 FCFA / sac`).
 */
function unbreakableWords(text: string, width: number): string[] {
  const numbers = joinWhere(text.split(' ').filter(Boolean), width, (last, word) => /^\+?\d+(?: \d{1,3})*$/.test(last) && /^\d{1,3}(?:[.,]\d+)?$/.test(word));
  return joinWhere(numbers, width, (last, word) => word === '/' || last.endsWith(' /'));
}

/**
 * Words wrapped to `width` columns (unbreakableWords says what a word is); a word longer than a line
 * is cut across lines. Never returns a line longer than `width`; an empty text is one empty line.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current: string[] = [];
  for (const word of unbreakableWords(cleanText(text), width)) {
    let chars = [...word];
    const room = width - current.length - (current.length > 0 ? 1 : 0);
    if (chars.length <= room) {
      if (current.length > 0) current.push(' ');
      current.push(...chars);
      continue;
    }
    if (current.length > 0) lines.push(current.join(''));
    current = [];
    while (chars.length > width) {
      lines.push(chars.slice(0, width).join(''));
      chars = chars.slice(width);
    }
    current = chars;
  }
  if (current.length > 0 || lines.length === 0) lines.push(current.join(''));
  return lines;
}

/** Text centred in `width` columns (left padding only), wrapped first when too long. */
export function centre(text: string, width: number): string[] {
  return wrap(text, width).map((line) => ' '.repeat(Math.floor((width - columnsOf(line)) / 2)) + line);
}

/**
 * A label on the left and a value right-aligned on the same line. When both do not fit, the label
 * wraps and the value goes on the label's last line if it fits there, else on a line of its own.
 */
export function row(label: string, value: string, width: number, indent = 0): string[] {
  const pad = ' '.repeat(indent);
  const valueColumns = columnsOf(value);
  const labelLines = wrap(label, width - indent).map((line) => pad + line);
  const last = labelLines[labelLines.length - 1]!;
  if (valueColumns >= width) return [...labelLines, ...wrap(value, width)];
  if (columnsOf(last) + 1 + valueColumns <= width) {
    labelLines[labelLines.length - 1] = last + ' '.repeat(width - columnsOf(last) - valueColumns) + value;
    return labelLines;
  }
  return [...labelLines, ' '.repeat(width - valueColumns) + value];
}

/** `Label : value` in French, `Label: value` in English, wrapped. */
export function field(label: string, value: string, locale: ReceiptLocale, width: number): string[] {
  return wrap(`${label}${locale === 'fr' ? ' :' : ':'} ${value}`, width);
}
