/**
 * The documents as PDF files (CONTRACT section 15), made without a browser by the engine of
 * api/lib/pdf.ts, fonts embedded:
 * - an A4 document (invoice, credit note, quote) from its layout (document.ts), printing the same
 *   texts in the same order as its HTML page (document-html.ts): the seller with its logo, the title
 *   block (details, stamp, customer), a voided document's banner, the lines, the VAT breakdown beside
 *   the totals, the words, the tax authority's certification (its QR code a pdfmake `qr` node), the
 *   sections, where to pay, the boxes to sign, the shop's footer;
 * - the till receipt on its roll (58 or 80 mm wide, as long as its content), the ESC/POS receipt's
 *   lines (layout.ts) in a monospace font so that its columns line up as the printer's.
 *
 * A4 is set as dense as the HTML page: a 30-line invoice with a customer, a VAT split and payments
 * holds on one page. A longer one breaks between rows (never inside one) and repeats the lines' header
 * row on every page; no block after the lines (totals, payments, signatures) is split across two
 * pages; every page's foot carries the document's number and "Page x / y".
 */
import type { Content, ContentTable, ContentText, CustomTableLayout, TableCell, TableCellProperties } from 'pdfmake/interfaces.js';
import { imageDataUrl, PDF_MONO_FONT, renderPdf } from '../lib/pdf.ts';
import type { ReceiptInput, SaleRecord } from '../sales/schemas.ts';
import type { ShopLogoImage } from '../shop/queries.ts';
import { creditNoteDocument } from './credit-note.ts';
import { layoutDocument, type Column, type DocumentLayout, type Field, type Section, type SignatureBox, type TableRow, type Total } from './document.ts';
import { LABELS, type ReceiptLocale } from './format.ts';
import { invoiceDocument } from './invoice.ts';
import { COLUMNS, receiptLayout, type PaperWidth } from './layout.ts';
import { qrFit } from './qr.ts';

/** The word a document's file is named after, in ASCII (a file name survives every mail client and file system). */
const FILE_WORD = {
  invoice: { fr: 'facture', en: 'invoice' },
  credit_note: { fr: 'avoir', en: 'credit-note' },
  quote: { fr: 'devis', en: 'proforma' },
  receipt: { fr: 'recu', en: 'receipt' },
} as const satisfies Record<string, Record<ReceiptLocale, string>>;

/** `facture-1042.pdf`, `credit-note-3.pdf`, `devis-12.pdf`: what a download or an attachment is called. */
export const pdfFileName = (kind: keyof typeof FILE_WORD, number: number, locale: ReceiptLocale) => `${FILE_WORD[kind][locale]}-${number}.pdf`;

/** The headers of a PDF answer: shown in the browser (inline), saved under its name (ASCII, as pdfFileName makes it: nothing to quote). */
export const pdfHeaders = (fileName: string) => ({ 'Content-Type': 'application/pdf', 'Content-Disposition': `inline; filename="${fileName}"` });

/** Points per millimetre. */
const MM = 72 / 25.4;

const A4_MARGINS = { side: 10 * MM, top: 8 * MM, bottom: 12 * MM };
const GREY = '#555555';
const RULE = '#dddddd';
const RED = '#b00020';
const STAMP_COLOUR = { paid: '#1b6e20', unpaid: RED, partly_paid: RED } as const;

/** A table's lines as the HTML page draws them: a rule under every row but the `unruled` ones, a darker one under the grey header row, no vertical line. */
function gridLayout(headed: boolean, unruled: Set<number>): CustomTableLayout {
  return {
    hLineWidth: (line) => (line === 0 || unruled.has(line - 1) ? 0 : headed && line === 1 ? 0.8 : 0.5),
    hLineColor: (line) => (headed && line === 1 ? '#999999' : RULE),
    vLineWidth: () => 0,
    paddingLeft: () => 4,
    paddingRight: () => 4,
    paddingTop: () => 1.3,
    paddingBottom: () => 1.3,
    fillColor: (row) => (headed && row === 0 ? '#f3f3f3' : null),
  };
}

/** A box drawn around one cell (the stamp, the banner, the customer, a signature). */
const boxLayout = (colour: string, width: number, padding: number): CustomTableLayout => ({
  hLineWidth: () => width,
  vLineWidth: () => width,
  hLineColor: () => colour,
  vLineColor: () => colour,
  paddingLeft: () => padding * 1.5,
  paddingRight: () => padding * 1.5,
  paddingTop: () => padding,
  paddingBottom: () => padding,
});

/**
 * About the lines of text a third of an A4 page holds: a block longer than that (a sale refunded line by
 * line, a long note) is let break across pages, since pdfmake drops whatever part of an unbreakable
 * block runs past the page it starts on.
 */
const UNBROKEN_LINES = 24;

/** Kept on one page, moved whole to the next when it does not fit at the bottom of this one, unless it holds more than `UNBROKEN_LINES` lines. */
const block = (stack: Content[], lines: number, margin: [number, number, number, number] = [0, 0, 0, 0]): Content => ({ stack, unbreakable: lines <= UNBROKEN_LINES, margin });

/** The lines a paragraph takes at about 110 characters a line. */
const paragraphLines = (texts: string[]) => texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 110)), 0);

/** The lines a part of the sections prints, roughly (a heading counts two with its space). */
function sectionLines(part: Section): number {
  if (part.kind === 'heading') return 2;
  if (part.kind === 'table') return part.rows.length + 1;
  if (part.kind === 'totals') return part.rows.length;
  return paragraphLines(part.paragraphs);
}

export function renderDocumentPdf(layout: DocumentLayout, logo: ShopLogoImage | null): Promise<Buffer> {
  const colon = layout.locale === 'fr' ? ' :' : ':';
  const labelled = ({ label, value }: Field): Content => ({ text: [{ text: `${label}${colon} `, color: GREY }, value] });
  const either = (entry: Field | string): Content => (typeof entry === 'string' ? { text: entry } : labelled(entry));
  const heading = (text: string): Content => ({ text, bold: true, fontSize: 9, margin: [0, 6, 0, 2] });

  // The column a table gives the rest of the width to is its text (the item's name); numbers take what they need, on one line.
  // The VAT table's rate labels ("dont CAC 10 % (de la TVA)") stay on one line, as the HTML page keeps them.
  const table = (name: string, columns: Column[], rows: TableRow[]): ContentTable => {
    const headed = columns.some((column) => column.label);
    const nowrap = (column: Column | undefined, index: number) => Boolean(column?.nowrap) || (name === 'vat' && index === 0);
    const cell = (text: string, column: Column | undefined, index: number): ContentText & TableCellProperties => ({
      text,
      ...(column?.numeric ? { alignment: 'right' as const } : {}),
      ...(nowrap(column, index) ? { noWrap: true } : {}),
    });
    // A part of the row above (the VAT's 17.5 % and CAC under 19.25 %): indented, lighter, no rule under it.
    const unruled = new Set<number>();
    const body: TableCell[][] = rows.map((row, index) => {
      if (Array.isArray(row)) return row.map((text, column) => cell(text, columns[column], column));
      unruled.add(index + (headed ? 1 : 0));
      return row.cells.map((text, column) => ({ ...cell(text, columns[column], column), color: '#444444', ...(column === 0 ? { margin: [8, 0, 0, 0] } : {}) }) as TableCell);
    });
    const header = headed ? [columns.map((column, index) => ({ ...cell(column.label ?? '', column, index), bold: true }))] : [];
    const widths = columns.map((column, index) => (column.numeric || nowrap(column, index) ? 'auto' : '*'));
    return {
      table: { headerRows: header.length, dontBreakRows: true, widths, body: [...header, ...body] },
      layout: gridLayout(headed, unruled),
    };
  };

  const totals = (rows: Total[]): Content => ({
    table: {
      widths: ['*', 'auto'],
      dontBreakRows: true,
      body: rows.map(({ label, value, grand }) => [
        { text: label, ...(grand ? { bold: true, fontSize: 9.5 } : {}) },
        { text: value, alignment: 'right', noWrap: true, ...(grand ? { bold: true, fontSize: 9.5 } : {}) },
      ]),
    },
    layout: {
      ...gridLayout(false, new Set()),
      hLineWidth: (line) => (line === 0 ? 0 : rows[line]?.grand ? 1.5 : rows[line - 1]?.grand ? 0 : 0.5),
      hLineColor: (line) => (rows[line]?.grand ? '#111111' : RULE),
    },
  });

  const section = (part: Section): Content => {
    if (part.kind === 'heading') return heading(part.text);
    if (part.kind === 'table') return table(part.name, part.columns, part.rows);
    if (part.kind === 'totals') return totals(part.rows);
    return { stack: part.paragraphs.map((text) => ({ text })), ...(part.name === 'notice' ? { italics: true, margin: [0, 8, 0, 0] } : {}) };
  };

  // A heading opens a block that runs to the next one; a text not right under a heading is a block of its own (as document-html.ts groups them).
  const blocks = (sections: Section[]): Content[] => {
    const groups: Section[][] = [];
    for (const part of sections) {
      const last = groups[groups.length - 1];
      const afterHeading = last?.length === 1 && last[0]!.kind === 'heading';
      if (part.kind === 'heading' || !last || (part.kind === 'text' && !afterHeading)) groups.push([part]);
      else last.push(part);
    }
    return groups.map((group) => {
      const content: Content[] = [];
      for (let i = 0; i < group.length; i++) {
        const part = group[i]!;
        const next = group[i + 1];
        if (part.kind === 'table' && next?.kind === 'totals') {
          content.push({ columns: [section(part), section(next)], columnGap: 20 });
          i++;
        } else content.push(section(part));
      }
      return block(content, group.reduce((sum, part) => sum + sectionLines(part), 0));
    });
  };

  const boxed = (content: Content[], layoutOfBox: CustomTableLayout, height?: number): ContentTable => ({
    table: { widths: ['*'], ...(height ? { heights: [height] } : {}), body: [[{ stack: content }]] },
    layout: layoutOfBox,
  });

  const seller: Content[] = [
    ...(logo ? [{ image: imageDataUrl(logo.media_type, logo.content), fit: [128, 62] as [number, number], margin: [0, 0, 0, 4] as [number, number, number, number] }] : []),
    { text: layout.seller.name, bold: true, fontSize: 12.5, margin: [0, 0, 0, 2] },
    ...layout.seller.lines.map(either),
  ];
  const { buyer, banner, stamp } = layout;
  const title: Content[] = [
    { text: layout.kind.toUpperCase(), bold: true, fontSize: 12.5, characterSpacing: 0.6, margin: [0, 0, 0, 2] },
    { text: layout.number },
    ...layout.details.map(either),
    ...(stamp
      ? [
          {
            columns: [{ width: '*', text: '' }, { width: 'auto', ...boxed([{ text: stamp.text.toUpperCase(), bold: true, color: STAMP_COLOUR[stamp.tone] }], boxLayout(STAMP_COLOUR[stamp.tone], 1.5, 1)) }],
            margin: [0, 3, 0, 0],
          } as Content,
        ]
      : []),
    ...(buyer
      ? [
          {
            ...boxed([{ text: [{ text: `${buyer.heading}${colon} `, color: GREY }, { text: buyer.name, bold: true }] }, ...buyer.lines.map(labelled)], boxLayout('#cccccc', 0.7, 3)),
            alignment: 'left',
            margin: [0, 6, 0, 0],
          } as Content,
        ]
      : []),
  ];
  const summary: Content = {
    columns: [
      // The VAT table as wide as its figures, the totals the rest: "Total TTC" then lines up with the amounts' column above.
      layout.vat ? { width: 'auto', stack: [heading(layout.vat.heading), table('vat', layout.vat.columns, layout.vat.rows)] } : { width: '*', text: '' },
      { width: layout.vat ? '*' : '45%', stack: [totals(layout.totals)], margin: [0, layout.vat ? 12 : 0, 0, 0] },
    ],
    columnGap: 20,
  };
  // The authority's QR code in modules of 2 pt (0.7 mm): 26 mm for its 66 to 80 characters, beside its number and signature
  // (which may be a token without a space: it breaks anywhere rather than run off the page).
  const { certification } = layout;
  const certified: Content[] = certification
    ? [
        block(
          [
            boxed(
              [
                {
                  columns: [
                    ...(certification.qr
                      ? [{ width: 'auto', stack: [{ text: certification.qr.caption, color: GREY, alignment: 'center' }, { qr: certification.qr.data, fit: qrFit(certification.qr.data, 2), eccLevel: 'M', alignment: 'center', margin: [0, 2, 0, 0] }] } as Content]
                      : []),
                    {
                      width: '*',
                      stack: [
                        ...certification.lines.map((entry) => (typeof entry === 'string' ? { text: entry, bold: true } : labelled(entry))),
                        ...(certification.signature ? [{ text: certification.signature, fontSize: 6.5, color: '#444444', wordBreak: 'break-all', margin: [0, 2, 0, 0] } as Content] : []),
                      ],
                    },
                  ],
                  columnGap: 12,
                },
              ],
              boxLayout('#cccccc', 0.7, 3),
            ),
          ],
          certification.qr ? 8 : certification.lines.length + 1,
          [0, 6, 0, 0],
        ),
      ]
    : [];

  const signature = (box: SignatureBox): Content =>
    boxed([{ text: box.title, bold: true, margin: [0, 0, 0, 4] }, ...box.lines.map((text) => ({ text, margin: [0, 0, 0, 14] as [number, number, number, number] }))], boxLayout('#999999', 0.7, 3), 62);

  const closing: Content[] = [
    ...(layout.pay_to ? [{ stack: [heading(layout.pay_to.heading), ...layout.pay_to.lines.map(labelled)] }] : []),
    ...layout.signatures.map(signature),
  ];

  const content: Content[] = [
    { columns: [{ width: '*', stack: seller }, { width: '45%', stack: title, alignment: 'right' }], columnGap: 20 },
    ...(banner ? [{ ...boxed([{ text: banner.text, bold: true, fontSize: 12, color: RED, alignment: 'center' }], boxLayout(RED, 2.5, 3)), margin: [0, 8, 0, 2] } as Content, ...banner.details.map(labelled)] : []),
    { ...table(layout.lines.name, layout.lines.columns, layout.lines.rows), margin: [0, 6, 0, 0] },
    block([summary], Math.max((layout.vat?.rows.length ?? 0) + 3, layout.totals.length), [0, 6, 0, 0]),
    ...(layout.words ? [block([{ text: layout.words, italics: true }], paragraphLines([layout.words]), [0, 6, 0, 0])] : []),
    ...certified,
    ...blocks(layout.sections),
    // Where to pay and the boxes to sign in share the last row, as on the HTML page.
    ...(closing.length ? [block([{ columns: closing, columnGap: 20 }], Math.max(layout.pay_to ? layout.pay_to.lines.length + 2 : 0, ...layout.signatures.map((box) => box.lines.length * 2 + 2)), [0, 8, 0, 0])] : []),
    ...(layout.footer.length ? [block(layout.footer.map((text) => ({ text, alignment: 'center', color: '#333333' })), paragraphLines(layout.footer), [0, 8, 0, 0])] : []),
  ];

  return renderPdf({
    info: { title: layout.title, author: layout.seller.name, subject: layout.number },
    pageSize: 'A4',
    pageOrientation: 'portrait',
    pageMargins: [A4_MARGINS.side, A4_MARGINS.top, A4_MARGINS.side, A4_MARGINS.bottom],
    defaultStyle: { fontSize: 8 },
    footer: (page, pages) => ({
      columns: [{ text: layout.page_foot }, { text: `${layout.page_word} ${page} / ${pages}`, alignment: 'right', width: 'auto' }],
      margin: [A4_MARGINS.side, A4_MARGINS.bottom / 2.5, A4_MARGINS.side, 0],
      fontSize: 7,
      color: GREY,
    }),
    content,
  });
}

/** The sale's invoice as an A4 PDF. */
export function invoicePdf(input: ReceiptInput, locale: ReceiptLocale, logo: ShopLogoImage | null): Promise<Buffer> {
  return renderDocumentPdf(layoutDocument(invoiceDocument(input, locale), input.shop, locale), logo);
}

/** A refund's credit note as an A4 PDF. */
export function creditNotePdf(input: ReceiptInput, refund: SaleRecord['refunds'][number], locale: ReceiptLocale, logo: ShopLogoImage | null): Promise<Buffer> {
  return renderDocumentPdf(layoutDocument(creditNoteDocument(input, refund, locale), input.shop, locale), logo);
}

/**
 * The printer's font A is 12 dots of a 203 dpi head, 1.5 mm: 32 of them span 48 mm of 58 mm paper and
 * 48 span 72 mm of 80 mm paper. Roboto Mono's characters are 0.6 em wide, so a 2.5 mm em makes the
 * PDF's columns the printer's.
 */
const RECEIPT_CHARACTER = 1.5 * MM;
const MONO_ADVANCE = 0.6;

/** The printer's font B is 9 dots wide to font A's 12. */
const SMALL_FONT = 0.75;

/** The side of the receipt's QR codes: 25 mm, or larger rather than modules under 2 pt (a long payload), never wider than the line. */
const RECEIPT_QR = 25 * MM;

function receiptQrFit(data: string, line: number): number {
  const side = qrFit(data, 1);
  const module = Math.max(1, Math.min(Math.max(2, Math.floor(RECEIPT_QR / side)), Math.floor(line / side)));
  return side * module;
}

/**
 * The till receipt as a PDF as wide as its paper roll and as long as its content: the lines of the
 * ESC/POS receipt in the same order, centred and bold where the printer centres and emphasises them,
 * double-height lines (the total) set apart, small ones (the authority's signature) in a smaller size
 * as the printer's font B, the QR codes (the sale's page when given one, the tax authority's) under
 * their captions.
 */
export function receiptPdf(input: ReceiptInput, width: PaperWidth, locale: ReceiptLocale, pageLink?: string): Promise<Buffer> {
  const columns = COLUMNS[width];
  const side = (width * MM - columns * RECEIPT_CHARACTER) / 2;
  const fontSize = RECEIPT_CHARACTER / MONO_ADVANCE;
  const content: Content[] = receiptLayout(input, columns, locale, pageLink).flatMap((line): Content[] =>
    line.kind === 'qr'
      ? [
          ...(line.caption ? [{ text: line.caption, alignment: 'center', margin: [0, 4, 0, 0] } as Content] : []),
          { qr: line.data, fit: receiptQrFit(line.data, columns * RECEIPT_CHARACTER), eccLevel: 'M', alignment: 'center', margin: [0, 4, 0, 4] },
        ]
      : [{
          // Lines come fitted to the columns: never wrapped again. A blank line keeps its height; the spaces that pad a label to its amount stay.
          text: line.text || ' ',
          noWrap: true,
          preserveLeadingSpaces: true,
          preserveTrailingSpaces: true,
          alignment: line.centred ? 'center' : 'left',
          bold: line.bold ?? false,
          ...(line.small ? { fontSize: fontSize * SMALL_FONT } : {}),
          ...(line.tall ? { margin: [0, fontSize * 0.4, 0, fontSize * 0.4] as [number, number, number, number] } : {}),
        }],
  );
  return renderPdf({
    info: { title: `${LABELS[locale].receiptNo} ${input.sale.receipt_no} - ${input.shop.name}`, author: input.shop.name },
    pageSize: { width: width * MM, height: 'auto' },
    pageMargins: [side, 4 * MM, side, 6 * MM],
    defaultStyle: { font: PDF_MONO_FONT, fontSize, lineHeight: 1.1 },
    content,
  });
}
