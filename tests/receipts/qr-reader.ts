import { inflateSync } from 'node:zlib';

/**
 * QR codes read back from what the documents draw, with nothing of the code that drew them: the
 * modules of an inline SVG (api/receipts/qr.ts) or of a PDF's squares (pdfmake's `qr` nodes), decoded
 * as ISO/IEC 18004 says. Enough of a reader for what documents print: versions 1 to 10, error
 * correction M, numeric, alphanumeric and byte segments. It reads clean symbols only: it corrects no
 * error, it checks that there is none (every block's Reed-Solomon syndromes are zero, the format
 * information is a valid code word).
 */

/** Level M, per version: error correction codewords per block and the number of blocks (ISO/IEC 18004 table 9). */
const LEVEL_M: Record<number, [number, number]> = { 1: [10, 1], 2: [16, 1], 3: [26, 1], 4: [18, 2], 5: [24, 2], 6: [16, 4], 7: [18, 4], 8: [22, 4], 9: [22, 5], 10: [26, 5] };

/** Centres of the alignment patterns, per version (ISO/IEC 18004 annex E). */
const ALIGNMENT: Record<number, number[]> = { 1: [], 2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34], 7: [6, 22, 38], 8: [6, 24, 42], 9: [6, 26, 46], 10: [6, 28, 50] };

const MASKS: ((row: number, col: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1, generator 2.
const EXP = new Array<number>(512);
const LOG = new Array<number>(256);
for (let i = 0, x = 1; i < 255; i++, x = x & 0x80 ? ((x << 1) ^ 0x11d) & 0xff : x << 1) {
  EXP[i] = x;
  LOG[x] = i;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
const gfMul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!);

/** The 15 bits of the format information of `ecc` (M is 0) and `mask`, BCH-coded and masked. */
function formatBits(ecc: number, mask: number): number {
  const data = (ecc << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | rem) ^ 0x5412;
}

function functionModules(size: number, version: number): boolean[][] {
  const fn = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const mark = (top: number, left: number, height: number, width: number) => {
    for (let r = top; r < top + height; r++) for (let c = left; c < left + width; c++) fn[r]![c] = true;
  };
  // The finders with their separators and the format information beside them (and the dark module).
  mark(0, 0, 9, 9);
  mark(0, size - 8, 9, 8);
  mark(size - 8, 0, 8, 9);
  mark(6, 0, 1, size);
  mark(0, 6, size, 1);
  const centres = ALIGNMENT[version]!;
  for (const r of centres) {
    for (const c of centres) {
      const first = centres[0]!;
      const last = centres[centres.length - 1]!;
      if ((r === first && c === first) || (r === first && c === last) || (r === last && c === first)) continue;
      mark(r - 2, c - 2, 5, 5);
    }
  }
  if (version >= 7) {
    mark(0, size - 11, 6, 3);
    mark(size - 11, 0, 3, 6);
  }
  return fn;
}

/** The text a QR symbol carries; throws on anything but a clean level-M symbol of version 1 to 10. */
export function decodeQr(modules: boolean[][]): string {
  const size = modules.length;
  const version = (size - 17) / 4;
  if (!LEVEL_M[version] || modules.some((row) => row.length !== size)) throw new Error(`not a QR symbol of version 1 to 10: ${size} modules`);
  const dark = (r: number, c: number) => modules[r]![c]!;

  let format = 0;
  const formatAt: [number, number][] = [
    ...[0, 1, 2, 3, 4, 5].map((r) => [r, 8] as [number, number]),
    [7, 8], [8, 8], [8, 7],
    ...[9, 10, 11, 12, 13, 14].map((i) => [8, 14 - i] as [number, number]),
  ];
  formatAt.forEach(([r, c], bit) => {
    if (dark(r, c)) format |= 1 << bit;
  });
  const mask = [0, 1, 2, 3, 4, 5, 6, 7].find((m) => formatBits(0, m) === format);
  if (mask === undefined) throw new Error(`format information ${format.toString(2)} is not level M`);

  const fn = functionModules(size, version);
  const bits: number[] = [];
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      const r = upward ? size - 1 - vert : vert;
      for (const c of [right, right - 1]) {
        if (!fn[r]![c]) bits.push(dark(r, c) !== MASKS[mask]!(r, c) ? 1 : 0);
      }
    }
  }
  const codewords = Array.from({ length: Math.floor(bits.length / 8) }, (_, i) => bits.slice(i * 8, i * 8 + 8).reduce((byte, bit) => (byte << 1) | bit, 0));

  // Blocks are interleaved codeword by codeword; the short blocks lack the last data codeword of the long ones.
  const [ecLength, count] = LEVEL_M[version]!;
  const shortLength = Math.floor(codewords.length / count);
  const shortBlocks = count - (codewords.length % count);
  const blocks: number[][] = Array.from({ length: count }, () => []);
  let next = 0;
  for (let i = 0; i <= shortLength; i++) {
    for (let b = 0; b < count; b++) {
      if (i === shortLength - ecLength && b < shortBlocks) continue;
      blocks[b]!.push(codewords[next++]!);
    }
  }
  const data: number[] = [];
  blocks.forEach((block, b) => {
    for (let i = 0; i < ecLength; i++) {
      const syndrome = block.reduce((sum, codeword) => gfMul(sum, EXP[i]!) ^ codeword, 0);
      if (syndrome !== 0) throw new Error(`block ${b} does not check: syndrome ${i} is ${syndrome}`);
    }
    data.push(...block.slice(0, block.length - ecLength));
  });

  let position = 0;
  const stream = data.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((shift) => (byte >> shift) & 1));
  const read = (n: number) => {
    let value = 0;
    for (let i = 0; i < n; i++) value = (value << 1) | stream[position++]!;
    return value;
  };
  let text = '';
  while (stream.length - position >= 4) {
    const mode = read(4);
    if (mode === 0) break;
    if (mode === 1) {
      let length = read(version < 10 ? 10 : 12);
      for (; length >= 3; length -= 3) text += String(read(10)).padStart(3, '0');
      if (length === 2) text += String(read(7)).padStart(2, '0');
      if (length === 1) text += String(read(4));
    } else if (mode === 2) {
      let length = read(version < 10 ? 9 : 11);
      for (; length >= 2; length -= 2) {
        const pair = read(11);
        text += ALPHANUMERIC[Math.floor(pair / 45)]! + ALPHANUMERIC[pair % 45]!;
      }
      if (length === 1) text += ALPHANUMERIC[read(6)]!;
    } else if (mode === 4) {
      const length = read(version < 10 ? 8 : 16);
      text += new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from({ length }, () => read(8)));
    } else throw new Error(`segment mode ${mode}`);
  }
  return text;
}

/** The symbols drawn by the inline SVGs of a page, each as its modules (quiet zone cut off), in page order. */
export function svgQrSymbols(html: string): boolean[][][] {
  return [...html.matchAll(/<svg class="qr"[^>]*viewBox="0 0 (\d+) \1"[^>]*>([\s\S]*?)<\/svg>/g)].map(([, side, body]) => {
    const grid = Array.from({ length: Number(side) }, () => new Array<boolean>(Number(side)).fill(false));
    const path = /<path fill="#000" d="([^"]*)"/.exec(body!)![1]!;
    for (const [, x, y, run] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
      for (let i = 0; i < Number(run); i++) grid[Number(y)]![Number(x) + i] = true;
    }
    return crop(grid);
  });
}

/** The grid cut to its dark modules' bounding box: a symbol's finders mark three of its corners. */
function crop(grid: boolean[][]): boolean[][] {
  const rows = grid.map((row, r) => (row.includes(true) ? r : -1)).filter((r) => r >= 0);
  const cols = grid[0]!.map((_, c) => (grid.some((row) => row[c]) ? c : -1)).filter((c) => c >= 0);
  const [top, left] = [rows[0]!, cols[0]!];
  const side = Math.max(rows.at(-1)! - top, cols.at(-1)! - left) + 1;
  return Array.from({ length: side }, (_, r) => Array.from({ length: side }, (_, c) => Boolean(grid[top + r]?.[left + c])));
}

/**
 * The symbols a PDF draws the way pdfmake draws a `qr` node: a white square (the symbol's area), then
 * each dark module a black square inside it, all of one size. Read from the page's content streams
 * (inflated), in drawing order.
 */
export function pdfQrSymbols(pdf: Uint8Array): boolean[][][] {
  const raw = Buffer.from(pdf);
  const text = raw.toString('latin1');
  const contents: string[] = [];
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = match.index! + match[0].length;
    try {
      contents.push(inflateSync(raw.subarray(start, text.indexOf('endstream', start))).toString('latin1'));
    } catch {
      // Not a deflated stream (an image, a font): no drawing in it.
    }
  }
  const squares = [...contents.join('\n').matchAll(/(-?[\d.]+) (-?[\d.]+) ([\d.]+) ([\d.]+) re\s+\/DeviceRGB cs\s+([\d.]+) ([\d.]+) ([\d.]+) scn/g)]
    .map(([, x, y, w, h, red, green, blue]) => ({ x: Number(x), y: Number(y), w: Number(w), h: Number(h), white: red === '1' && green === '1' && blue === '1', black: red === '0' && green === '0' && blue === '0' }))
    .filter((square) => square.w === square.h);
  const symbols: boolean[][][] = [];
  for (let i = 0; i < squares.length; i++) {
    const area = squares[i]!;
    const module = squares[i + 1];
    if (!area.white || !module?.black || module.w >= area.w) continue;
    const side = Math.round(area.w / module.w);
    const grid = Array.from({ length: side }, () => new Array<boolean>(side).fill(false));
    let j = i + 1;
    for (; j < squares.length; j++) {
      const dark = squares[j]!;
      if (!dark.black || dark.w !== module.w || dark.x < area.x || dark.y < area.y || dark.x >= area.x + area.w || dark.y >= area.y + area.w) break;
      grid[Math.round((dark.y - area.y) / module.w)]![Math.round((dark.x - area.x) / module.w)] = true;
    }
    symbols.push(grid);
    i = j - 1;
  }
  return symbols;
}
