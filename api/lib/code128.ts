/**
 * Code 128 (code set B) as SVG, for loyalty cards printed by the shop. Set B covers printable ASCII,
 * which is what card numbers are printed with.
 */

/** Bar and space widths of the 107 symbols, in modules; the stop symbol has a final bar of 2. */
export const PATTERNS = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];

export const START_B = 104;
export const STOP = 106;

/** The symbol values of `text` in set B with its check symbol, start and stop; null when a character is outside printable ASCII. */
export function code128Symbols(text: string): number[] | null {
  const values: number[] = [];
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch.length !== 1 || code < 32 || code > 126) return null;
    values.push(code - 32);
  }
  const check = values.reduce((sum, value, index) => sum + value * (index + 1), START_B) % 103;
  return [START_B, ...values, check, STOP];
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!);
}

/** A self-contained SVG of the barcode with the text under it; null when the text cannot be encoded. */
export function code128Svg(text: string, options: { module?: number; height?: number } = {}): string | null {
  const symbols = code128Symbols(text);
  if (!symbols) return null;
  const module = options.module ?? 2;
  const height = options.height ?? 60;
  const quiet = 10 * module;
  const bars: string[] = [];
  let x = quiet;
  for (const symbol of symbols) {
    [...PATTERNS[symbol]!].forEach((width, index) => {
      const w = Number(width) * module;
      if (index % 2 === 0) bars.push(`<rect x="${x}" y="0" width="${w}" height="${height}"/>`);
      x += w;
    });
  }
  const width = x + quiet;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 18}" viewBox="0 0 ${width} ${height + 18}">` +
    `<rect width="100%" height="100%" fill="#fff"/><g fill="#000">${bars.join('')}</g>` +
    `<text x="${width / 2}" y="${height + 14}" font-family="monospace" font-size="12" text-anchor="middle">${escapeXml(text)}</text></svg>`
  );
}
