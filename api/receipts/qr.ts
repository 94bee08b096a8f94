/**
 * QR codes drawn by the documents themselves (the PDFs' and the pages'), with the encoder pdfmake
 * already carries for its `{ qr }` nodes (pdfmake/js/qrEnc.js, Kang Seonghoon's qr.js): the A4 PDF,
 * the receipt PDF and the HTML pages all draw the same symbol for the same payload, and no second
 * encoder is shipped. pdfmake documents no API to it: tests/receipts/certification-print.test.ts reads
 * the symbols back with a decoder of its own, so an update that moved or changed it fails there. The
 * till's printer encodes its own (escpos.ts sends the payload, GS ( k) and only sizes it from ours.
 *
 * Error correction M everywhere, as the printer's: a receipt creased in a pocket still scans.
 */
import { createRequire } from 'node:module';

/** Quiet zone around the symbol, in modules: 4 is what ISO/IEC 18004 asks. */
const QUIET_ZONE = 4;

/** Module size pdfmake draws when given no `fit`, in its units: each dark module is one square of this side. */
const ENCODER_MODULE = 5;

type QrEncoder = { measure(node: { qr: string; eccLevel: string }): { _canvas: { x: number; y: number; w: number }[] } };

let encoder: QrEncoder | null = null;

/**
 * The symbol's modules, row by row, true where dark. pdfmake's encoder answers only the rectangles it
 * draws: the first is the light background, each other a dark module.
 */
export function qrModules(data: string): boolean[][] {
  // Loaded on the first code, as pdfmake itself (api/lib/pdf.ts): a process that prints none never pays for it.
  encoder ??= (createRequire(import.meta.url)('pdfmake/js/qrEnc.js') as { default: QrEncoder }).default;
  const [background, ...dark] = encoder.measure({ qr: data, eccLevel: 'M' })._canvas;
  const size = Math.round(background!.w / ENCODER_MODULE);
  const modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  for (const rect of dark) modules[Math.round(rect.y / ENCODER_MODULE)]![Math.round(rect.x / ENCODER_MODULE)] = true;
  return modules;
}

/**
 * The QR code as an inline SVG (nothing fetched, the pages' CSP allows no image from anywhere): one
 * path of the dark runs of each row, quiet zone included, drawn crisp at any size. A screen reader
 * skips it: the caption beside it says what it is. No text of the payload is in it: nothing to escape.
 */
export function qrSvg(data: string): string {
  const modules = qrModules(data);
  const side = modules.length + 2 * QUIET_ZONE;
  const runs: string[] = [];
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let end = x;
      while (row[end + 1]) end++;
      runs.push(`M${x + QUIET_ZONE} ${y + QUIET_ZONE}h${end - x + 1}v1h-${end - x + 1}z`);
      x = end;
    }
  });
  return (
    `<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges" aria-hidden="true">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${runs.join('')}"/></svg>`
  );
}

/**
 * What a pdfmake `{ qr, fit }` node's `fit` must be for modules of `module` points: pdfmake rounds
 * a module down to whole points (fit / modules), so a `fit` of whole modules draws exactly that.
 */
export const qrFit = (data: string, module: number) => qrModules(data).length * module;
