/**
 * The receipt as ESC/POS bytes for a 58 or 80 mm thermal printer (Epson and the many printers
 * that speak its command set).
 *
 * Text is sent in Windows-1252 after selecting that code page (ESC t 16), so French accents print;
 * a character outside it prints as `?`. The link to the sale's shared page is printed as a QR code
 * (GS ( k, model 2, error correction M): a customer's phone opens the invoice and its PDF from it.
 * The receipt number is printed in clear at the top. The shop's logo, when it prints on the paper,
 * heads the receipt as a raster image (GS v 0, made by logo-raster.ts), centred above the shop's name.
 * A certified sale's receipt also prints the tax authority's QR code, captioned as the link's is, and
 * the authority's signature in font B (ESC M 1), the printer's smaller one.
 */
import type { ReceiptInput } from '../sales/schemas.ts';
import { wrap, type ReceiptLocale } from './format.ts';
import { COLUMNS, receiptLayout, type PaperWidth } from './layout.ts';
import { PRINTER_DOTS } from './logo-raster.ts';
import { qrModules } from './qr.ts';

const ESC = 0x1b;
const GS = 0x1d;
const LF = 0x0a;

/** ESC t 16: Windows-1252 (WPC1252) in Epson's code page table. */
export const CODE_PAGE_WPC1252 = 16;

/** Windows-1252's bytes 0x80 to 0x9F; the rest of 0xA0 to 0xFF is Latin-1, the same code points. */
const CP1252_HIGH: Record<number, number> = {
  0x20ac: 0x80, 0x201a: 0x82, 0x0192: 0x83, 0x201e: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
  0x02c6: 0x88, 0x2030: 0x89, 0x0160: 0x8a, 0x2039: 0x8b, 0x0152: 0x8c, 0x017d: 0x8e, 0x2018: 0x91,
  0x2019: 0x92, 0x201c: 0x93, 0x201d: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02dc: 0x98,
  0x2122: 0x99, 0x0161: 0x9a, 0x203a: 0x9b, 0x0153: 0x9c, 0x017e: 0x9e, 0x0178: 0x9f,
};

const QUESTION_MARK = 0x3f;

/**
 * Text in Windows-1252, one byte per character: control characters and anything the code page
 * lacks become `?`, so a product name can never reach the printer as a command.
 */
export function encodeWindows1252(text: string): Uint8Array {
  const bytes: number[] = [];
  for (const ch of text.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff)) bytes.push(code);
    else bytes.push(CP1252_HIGH[code] ?? QUESTION_MARK);
  }
  return Uint8Array.from(bytes);
}

/** Module size of the QR code in dots: 6 keeps a 40-character link about 2.2 cm wide on either paper. */
const QR_MODULE_DOTS = 6;

/** The quiet zone a reader needs on each side of the symbol, in modules (ISO/IEC 18004). */
const QR_QUIET_ZONE = 4;

/**
 * The module size that fits the symbol and its quiet zone across the printed line: 6 dots while it
 * fits (any payload up to about 180 characters, the authorities' 66 to 80 among them, on 58 mm paper),
 * smaller for a longer one rather than a code the printer silently drops for being wider than its line.
 * The printer chooses the symbol's version; ours (the smallest that holds the payload in one segment)
 * is never smaller than the printer's, so the size holds.
 */
function qrModuleDots(data: string, width: PaperWidth): number {
  const modules = qrModules(data).length + 2 * QR_QUIET_ZONE;
  return Math.max(1, Math.min(QR_MODULE_DOTS, Math.floor(PRINTER_DOTS[width] / modules)));
}

function qrCode(data: string, width: PaperWidth): number[] {
  const payload = [...encodeWindows1252(data)];
  const stored = payload.length + 3;
  const fn = (bytes: number[]) => [GS, 0x28, 0x6b, bytes.length & 0xff, bytes.length >> 8, ...bytes];
  return [
    ...fn([0x31, 0x41, 0x32, 0x00]), // model 2
    ...fn([0x31, 0x43, qrModuleDots(data, width)]), // module size
    ...fn([0x31, 0x45, 0x31]), // error correction M
    GS, 0x28, 0x6b, stored & 0xff, stored >> 8, 0x31, 0x50, 0x30, ...payload, // store the data
    ...fn([0x31, 0x51, 0x30]), // print it
  ];
}

/**
 * `pageLink`: the sale's shared page, printed as the QR code (none without it; see receiptLayout).
 * `logo`: the GS v 0 command of the shop's logo for this paper (receiptLogoRaster), printed first.
 */
export function renderEscPos(input: ReceiptInput, width: PaperWidth, locale: ReceiptLocale, pageLink?: string, logo?: Uint8Array | null): Uint8Array {
  const columns = COLUMNS[width];
  const bytes: number[] = [ESC, 0x40, ESC, 0x74, CODE_PAGE_WPC1252];
  let centred = false;
  let bold = false;
  let tall = false;
  let small = false;
  const align = (on: boolean) => {
    if (on !== centred) bytes.push(ESC, 0x61, on ? 1 : 0);
    centred = on;
  };
  const emphasis = (on: boolean) => {
    if (on !== bold) bytes.push(ESC, 0x45, on ? 1 : 0);
    bold = on;
  };
  const height = (on: boolean) => {
    if (on !== tall) bytes.push(GS, 0x21, on ? 0x01 : 0x00);
    tall = on;
  };
  const font = (smaller: boolean) => {
    if (smaller !== small) bytes.push(ESC, 0x4d, smaller ? 1 : 0);
    small = smaller;
  };
  const line = (text: string) => bytes.push(...encodeWindows1252(text), LF);

  if (logo) {
    // The printer centres the raster's whole bytes; logo-raster.ts centres the logo within them.
    align(true);
    for (const byte of logo) bytes.push(byte);
  }
  for (const block of receiptLayout(input, columns, locale, pageLink)) {
    if (block.kind === 'qr') {
      emphasis(false);
      height(false);
      font(false);
      align(true);
      if (block.caption) wrap(block.caption, columns).forEach(line);
      bytes.push(...qrCode(block.data, width), LF);
      continue;
    }
    align(block.centred ?? false);
    emphasis(block.bold ?? false);
    height(block.tall ?? false);
    font(block.small ?? false);
    line(block.text);
  }
  align(false);
  emphasis(false);
  height(false);
  font(false);
  // A blank margin under the footer, then GS V 66 0: feed to the cutting position and cut partially.
  bytes.push(ESC, 0x64, 3, GS, 0x56, 0x42, 0x00);
  return Uint8Array.from(bytes);
}
