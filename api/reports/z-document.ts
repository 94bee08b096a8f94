/**
 * The sealed Z as its owner reads it (worker/tasks/report__email_z.ts): a phone-first e-mail (HTML
 * and text) and the same figures as an A4 PDF attached for the accountant. Pure functions of the
 * stored Z and the shop: every part reads the same sections (zSections), so the mail and its PDF
 * can never disagree.
 *
 * Decisions: a count never shares a cell with an amount ("4 ventes" | "937 900 FCFA"), since
 * "4, 937 900" reads as a decimal; voids and refunds are printed negative, as the net total takes
 * them off; the day is the shop's (dd/mm/yyyy); a stored Z is read leniently (StoredZ): a part an
 * older Z lacks, or holds in another shape, is left out rather than failing the mail.
 */
import { z } from 'zod';
import type { Content, TableCell } from 'pdfmake/interfaces.js';
import { imageDataUrl, type PdfDefinition } from '../lib/pdf.ts';
import { paymentLabels } from '../lib/payment-labels.ts';
import { emailPage, rowsTable, STYLE as EMAIL_STYLE, type Row, para, rule } from '../receipts/email.ts';
import { CAMEROON_VAT, cameroonVatParts, cleanText, formatDate, formatDateTime, formatRate, formatXaf, groupDigits, LABELS, type ReceiptLocale } from '../receipts/format.ts';
import { escapeHtml } from '../lib/html.ts';
import { moneyTakenIn } from './z.ts';

/** A part of a stored Z that is absent, or not in the shape expected, reads as absent. */
const part = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const Count = z.object({ count: z.number(), total_xaf: z.number() });
const Amounts = z.array(z.object({ method: z.string(), amount_xaf: z.number() }));

/** A Z as z_reports stores it, whatever release sealed it. */
export const StoredZ = z.object({
  z_no: z.number(),
  date: z.string(),
  timezone: part(z.string()),
  sealed_at: part(z.string()),
  first_receipt_no: part(z.number()),
  last_receipt_no: part(z.number()),
  sales: part(Count),
  late_sales: part(Count),
  voids: part(Count),
  refunds: part(Count),
  net_total_xaf: part(z.number()),
  vat_xaf: part(z.number()),
  net_xaf: part(z.number()),
  vat_per_rate: part(z.array(z.object({ rate: z.number(), base_xaf: z.number(), vat_xaf: z.number(), total_xaf: z.number() }))),
  payments: part(Amounts),
  settlements: part(Amounts),
  cash_movements: part(z.object({ count: z.number(), in_xaf: z.number(), out_xaf: z.number() })),
  expenses: part(z.object({ count: z.number(), total_xaf: z.number(), per_method: part(z.record(z.string(), z.number())) })),
  cashiers: part(z.array(z.object({ name: z.string().nullable(), sales_count: z.number(), total_xaf: z.number() }))),
  grand_total_xaf: part(z.number()),
});
export type StoredZ = z.infer<typeof StoredZ>;

/** What of the shop the Z shows. */
export interface ZShop {
  name: string;
  address: string | null;
  city: string | null;
  phone: string | null;
  tax_id: string | null;
  trade_register_no: string | null;
  payment_method_labels: Record<string, string> | null;
}

/** The shop's logo: its bytes and pixel size. */
export interface ZLogo {
  media_type: string;
  width: number;
  height: number;
  content: Buffer;
}

type Noun = readonly [one: string, many: string];

const TEXT = {
  fr: {
    title: (z: StoredZ) => `Z n° ${groupDigits(String(z.z_no), 'fr')} du ${formatDate(z.date)}`,
    subject: (shop: string, z: StoredZ) => `${shop} : ${TEXT.fr.title(z)}`,
    sealedAt: (at: string) => `Scellé le ${at}`,
    firstReceipt: 'Premier reçu',
    lastReceipt: 'Dernier reçu',
    receiptNo: (no: number) => `n° ${groupDigits(String(no), 'fr')}`,
    day: 'Activité du jour',
    sales: ['vente', 'ventes'],
    lateSales: (count: string) => `dont ${count} (jours déjà clos)`,
    late: ['vente tardive', 'ventes tardives'],
    voids: ['annulation', 'annulations'],
    refunds: ['remboursement', 'remboursements'],
    netTotal: 'Total net TTC',
    moneyTakenIn: 'Encaissements',
    totalTakenIn: 'Total encaissé',
    settlements: 'dont règlements des comptes clients',
    credit: 'Vendu à crédit sur les comptes clients (non encaissé)',
    vat: 'TVA',
    exempt: 'Ventes exonérées de TVA',
    cashiers: 'Par caissier',
    unnamedCashier: 'Caissier non identifié',
    expensesAndCash: 'Dépenses et caisse',
    expenses: ['dépense', 'dépenses'],
    cashIn: 'Entrées de caisse',
    cashOut: 'Sorties de caisse',
    grandTotal: 'Grand total cumulé (tous les Z)',
    attached: (file: string) => `Le Z complet est joint en PDF (${file}).`,
    sealed: 'Un Z scellé ne change plus : une vente annulée ou remboursée après coup compte dans le Z du jour où elle l\'est.',
  },
  en: {
    title: (z: StoredZ) => `Z no. ${groupDigits(String(z.z_no), 'en')} of ${formatDate(z.date)}`,
    subject: (shop: string, z: StoredZ) => `${shop}: ${TEXT.en.title(z)}`,
    sealedAt: (at: string) => `Sealed on ${at}`,
    firstReceipt: 'First receipt',
    lastReceipt: 'Last receipt',
    receiptNo: (no: number) => `no. ${groupDigits(String(no), 'en')}`,
    day: 'The day\'s business',
    sales: ['sale', 'sales'],
    lateSales: (count: string) => `of which ${count} (days already closed)`,
    late: ['late sale', 'late sales'],
    voids: ['void', 'voids'],
    refunds: ['refund', 'refunds'],
    netTotal: 'Net total incl. VAT',
    moneyTakenIn: 'Money taken in',
    totalTakenIn: 'Total taken in',
    settlements: 'of which payments on customer accounts',
    credit: 'Sold on credit to customer accounts (not taken in)',
    vat: 'VAT',
    exempt: 'Sales exempt from VAT',
    cashiers: 'Per cashier',
    unnamedCashier: 'Unidentified cashier',
    expensesAndCash: 'Expenses and cash',
    expenses: ['expense', 'expenses'],
    cashIn: 'Cash paid in',
    cashOut: 'Cash paid out',
    grandTotal: 'Cumulative grand total (every Z)',
    attached: (file: string) => `The full Z is attached as a PDF (${file}).`,
    sealed: 'A sealed Z never changes: a sale voided or refunded later counts in the Z of the day it is.',
  },
} as const satisfies Record<ReceiptLocale, unknown>;

/** A count and its noun: `1 vente`, `4 ventes`, `1 234 ventes`; in French 0 and 1 take the singular. */
function counted(count: number, [one, many]: Noun, locale: ReceiptLocale): string {
  const singular = locale === 'fr' ? Math.abs(count) < 2 : count === 1;
  return `${groupDigits(String(count), locale)} ${singular ? one : many}`;
}

/** The mail's subject: `Boutique Awa : Z n° 12 du 21/11/2026`, `Boutique Awa: Z no. 12 of 21/11/2026`. */
export const zEmailSubject = (shop: ZShop, z: StoredZ, locale: ReceiptLocale) => TEXT[locale].subject(cleanText(shop.name), z);

/** The PDF's file name: `z-12-2026-11-21.pdf`. */
export const zPdfFileName = (z: StoredZ) => `z-${z.z_no}-${z.date}.pdf`;

/** A titled list of rows; a section with no row is not shown. */
interface ZSection {
  title?: string;
  rows: Row[];
}

/** The Z's figures, in the order an owner reads them, each part present only when the stored Z has it. */
function zSections(z: StoredZ, shop: ZShop, locale: ReceiptLocale): ZSection[] {
  const t = TEXT[locale];
  const xaf = (amount: number) => formatXaf(amount, locale);
  const methods: Record<string, string> = paymentLabels(locale, shop.payment_method_labels);
  const method = (key: string) => methods[key] ?? key;

  const receipts: Row[] = [
    ...(z.first_receipt_no != null ? [{ label: t.firstReceipt, amount: t.receiptNo(z.first_receipt_no) }] : []),
    ...(z.last_receipt_no != null ? [{ label: t.lastReceipt, amount: t.receiptNo(z.last_receipt_no) }] : []),
  ];

  const day: Row[] = [
    ...(z.sales ? [{ label: counted(z.sales.count, t.sales, locale), amount: xaf(z.sales.total_xaf) }] : []),
    ...(z.late_sales?.count ? [{ label: t.lateSales(counted(z.late_sales.count, t.late, locale)), amount: xaf(z.late_sales.total_xaf), indent: true, note: true }] : []),
    ...(z.voids ? [{ label: counted(z.voids.count, t.voids, locale), amount: xaf(-z.voids.total_xaf) }] : []),
    ...(z.refunds ? [{ label: counted(z.refunds.count, t.refunds, locale), amount: xaf(-z.refunds.total_xaf) }] : []),
    ...(z.net_total_xaf != null ? [{ label: t.netTotal, amount: xaf(z.net_total_xaf), strong: true, large: true }] : []),
  ];

  const money: Row[] = [];
  if (z.payments) {
    const taken = moneyTakenIn({ payments: z.payments, settlements: z.settlements ?? [] });
    money.push(...taken.map((row) => ({ label: method(row.method), amount: xaf(row.amount_xaf) })));
    money.push({ label: t.totalTakenIn, amount: xaf(taken.reduce((sum, row) => sum + row.amount_xaf, 0)), strong: true });
    const settled = (z.settlements ?? []).reduce((sum, row) => sum + row.amount_xaf, 0);
    if (settled) money.push({ label: t.settlements, amount: xaf(settled), indent: true, note: true });
    const credit = z.payments.filter((row) => row.method === 'credit').reduce((sum, row) => sum + row.amount_xaf, 0);
    if (credit) money.push({ label: t.credit, amount: xaf(credit) });
  }

  const l = LABELS[locale];
  const vat: Row[] = (z.vat_per_rate ?? [])
    .filter((rate) => rate.total_xaf !== 0 || rate.vat_xaf !== 0)
    .flatMap((rate): Row[] => {
      if (rate.rate === 0) return [{ label: t.exempt, amount: xaf(rate.total_xaf) }];
      const rows: Row[] = [{ label: `${l.vat} ${formatRate(rate.rate, locale)}`, amount: xaf(rate.vat_xaf) }];
      if (rate.rate === CAMEROON_VAT.rate) {
        const parts = cameroonVatParts(rate.vat_xaf);
        rows.push(
          { label: `${l.vatPartOf} ${formatRate(CAMEROON_VAT.vatRate, locale)}`, amount: xaf(parts.vat_xaf), indent: true },
          { label: `${l.cacPartOf} ${formatRate(CAMEROON_VAT.cacRate, locale)} (${l.ofTheVat})`, amount: xaf(parts.cac_xaf), indent: true },
        );
      }
      rows.push({ label: l.vatBase, amount: xaf(rate.base_xaf), indent: true, note: true });
      return rows;
    });
  if (z.vat_xaf != null) vat.push({ label: l.totalVat, amount: xaf(z.vat_xaf), strong: true });
  if (z.net_xaf != null) vat.push({ label: l.totalExclVat, amount: xaf(z.net_xaf) });

  const cashiers: Row[] = (z.cashiers ?? []).map((cashier) => ({
    label: `${cashier.name ?? t.unnamedCashier} (${counted(cashier.sales_count, t.sales, locale)})`,
    amount: xaf(cashier.total_xaf),
  }));

  const expenses: Row[] = [];
  if (z.expenses) {
    expenses.push({ label: counted(z.expenses.count, t.expenses, locale), amount: xaf(z.expenses.total_xaf) });
    const perMethod = Object.entries(z.expenses.per_method ?? {}).filter(([, amount]) => amount !== 0);
    expenses.push(...perMethod.sort(([a], [b]) => a.localeCompare(b)).map(([key, amount]) => ({ label: method(key), amount: xaf(amount), indent: true, note: true })));
  }
  if (z.cash_movements) {
    if (z.cash_movements.in_xaf) expenses.push({ label: t.cashIn, amount: xaf(z.cash_movements.in_xaf) });
    if (z.cash_movements.out_xaf) expenses.push({ label: t.cashOut, amount: xaf(-z.cash_movements.out_xaf) });
  }

  const total: Row[] = z.grand_total_xaf != null ? [{ label: t.grandTotal, amount: xaf(z.grand_total_xaf), strong: true }] : [];

  return [
    { rows: receipts },
    { title: t.day, rows: day },
    { title: t.moneyTakenIn, rows: money },
    { title: l.vat, rows: vat },
    { title: t.cashiers, rows: cashiers },
    { title: t.expensesAndCash, rows: expenses },
    { rows: total },
  ].filter((section) => section.rows.length > 0);
}

/** `Scellé le 22/11/2026 00:10`, in the shop's time zone, when the stored Z says when. */
function sealedLine(z: StoredZ, locale: ReceiptLocale): string | null {
  return z.sealed_at ? TEXT[locale].sealedAt(formatDateTime(z.sealed_at, z.timezone ?? 'UTC')) : null;
}

/** The logo's size in the mail, within 200 x 80 px, never enlarged. */
function logoSize(logo: ZLogo): { width: number; height: number } {
  const scale = Math.min(1, 200 / logo.width, 80 / logo.height);
  return { width: Math.max(1, Math.round(logo.width * scale)), height: Math.max(1, Math.round(logo.height * scale)) };
}

/** The content id of the logo's inline part, as the HTML names it (`<img src="cid:logo">`). */
export const LOGO_CID = 'logo';

/** The Z e-mail's HTML part: one self-contained page, the logo (when the shop has one) as an inline part. */
export function renderZEmailHtml(z: StoredZ, shop: ZShop, locale: ReceiptLocale, logo: ZLogo | null): string {
  const t = TEXT[locale];
  const parts: string[] = [];
  if (logo) {
    const size = logoSize(logo);
    parts.push(`<img src="cid:${LOGO_CID}" alt="" width="${size.width}" height="${size.height}" style="display:block;border:0;margin:0 0 8px;">`);
  }
  parts.push(para(shop.name, EMAIL_STYLE.shop));
  parts.push(`<h1 style="${EMAIL_STYLE.title}">${escapeHtml(t.title(z))}</h1>`);
  const sealed = sealedLine(z, locale);
  if (sealed) parts.push(para(sealed, EMAIL_STYLE.small));
  for (const section of zSections(z, shop, locale)) {
    parts.push(section.title ? `<h2 style="${EMAIL_STYLE.heading}">${escapeHtml(section.title)}</h2>` : rule, rowsTable(section.rows));
  }
  parts.push(rule, para(t.attached(zPdfFileName(z)), EMAIL_STYLE.small), para(t.sealed, `${EMAIL_STYLE.small}margin-top:8px;`));
  return emailPage(locale, zEmailSubject(shop, z, locale), parts);
}

/** The Z e-mail's text part: a row is `label : amount` (`label: amount` in English), one per line. */
export function renderZEmailText(z: StoredZ, shop: ZShop, locale: ReceiptLocale): string {
  const t = TEXT[locale];
  const colon = locale === 'fr' ? ' :' : ':';
  const lines = [shop.name, t.title(z)];
  const sealed = sealedLine(z, locale);
  if (sealed) lines.push(sealed);
  for (const section of zSections(z, shop, locale)) {
    lines.push('', ...(section.title ? [section.title.toUpperCase()] : []));
    lines.push(...section.rows.map((row) => `${row.indent ? '  ' : ''}${row.label}${row.amount ? `${colon} ${row.amount}` : ''}`));
  }
  lines.push('', t.attached(zPdfFileName(z)), t.sealed, '');
  return lines.join('\n');
}

/** The sealed Z as an A4 PDF: the shop, its logo and identifiers, the same sections as the mail, page x / y. */
export function zPdfDefinition(z: StoredZ, shop: ZShop, locale: ReceiptLocale, logo: ZLogo | null): PdfDefinition {
  const t = TEXT[locale];
  const l = LABELS[locale];
  const header: Content[] = [];
  // pdfmake's fit would enlarge a small logo: the box is never bigger than the image.
  if (logo) header.push({ image: imageDataUrl(logo.media_type, logo.content), fit: [Math.min(180, logo.width), Math.min(70, logo.height)], margin: [0, 0, 0, 8] });
  header.push({ text: shop.name, fontSize: 18, bold: true });
  const details = [
    [shop.address, shop.city].filter(Boolean).join(', '),
    shop.phone ? `${l.phone} ${shop.phone}` : '',
    shop.tax_id ? `${l.taxId} ${shop.tax_id}` : '',
    shop.trade_register_no ? `${l.tradeRegister} ${shop.trade_register_no}` : '',
  ].filter(Boolean);
  if (details.length) header.push({ text: details.join('\n'), fontSize: 9, color: '#444444', margin: [0, 2, 0, 0] });
  header.push({ text: t.title(z), fontSize: 15, bold: true, margin: [0, 14, 0, 2] });
  const sealed = sealedLine(z, locale);
  if (sealed) header.push({ text: sealed, fontSize: 9, color: '#444444' });

  const cell = (row: Row, text: string, amount: boolean): TableCell => ({
    text,
    ...(amount ? { alignment: 'right' as const, noWrap: true } : { margin: [row.indent ? 12 : 0, 0, 0, 0] as [number, number, number, number] }),
    ...(row.strong ? { bold: true } : {}),
    ...(row.large ? { fontSize: 12 } : {}),
    ...(row.note ? { fontSize: 9, color: '#444444' } : {}),
  });
  const sections: Content[] = zSections(z, shop, locale).flatMap((section): Content[] => [
    ...(section.title ? [{ text: section.title, bold: true, fontSize: 11.5, margin: [0, 10, 0, 3] as [number, number, number, number] }] : [{ text: '', margin: [0, 6, 0, 0] as [number, number, number, number] }]),
    {
      table: { widths: ['*', 'auto'], body: section.rows.map((row) => [cell(row, row.label, false), cell(row, row.amount ?? '', true)]) },
      layout: {
        hLineWidth: (i, node) => (i === 0 || i === node.table.body.length ? 0 : 0.5),
        vLineWidth: () => 0,
        hLineColor: () => '#dddddd',
        paddingLeft: () => 0,
        paddingRight: (i) => (i === 0 ? 8 : 0),
        paddingTop: () => 1.5,
        paddingBottom: () => 1.5,
      },
    },
  ]);

  return {
    pageSize: 'A4',
    pageMargins: [48, 40, 48, 48],
    info: { title: zEmailSubject(shop, z, locale), author: shop.name },
    defaultStyle: { fontSize: 10, lineHeight: 1.15 },
    footer: (currentPage, pageCount) => ({ text: `${l.page} ${currentPage} / ${pageCount}`, alignment: 'center', fontSize: 9, color: '#444444', margin: [0, 16, 0, 0] }),
    content: [...header, ...sections, { text: t.sealed, fontSize: 9, color: '#444444', margin: [0, 18, 0, 0] }],
  };
}
