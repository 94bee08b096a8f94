/**
 * The shop's logo as a thermal printer prints it at the top of a receipt (issue 31): a one-bit raster
 * sent with GS v 0, ESC/POS's "print raster bit image" (`1D 76 30 m xL xH yL yH d1...dk`: the width in
 * bytes, the height in dots, then each row's bytes, eight dots each from left to right, most
 * significant bit first, a 1 a black dot).
 *
 * The PNG is decoded here with node:zlib and the scanline filters of the W3C PNG specification
 * (third edition): every colour type and bit depth PUT /shop/logo takes (api/lib/images.ts), its
 * transparency (an alpha channel or a tRNS chunk) laid over the paper's white, reduced to the
 * printed size while it inflates, row by row, then dithered to black and white (Floyd-Steinberg).
 * The documents, e-mails and pages show every logo; two kinds are left off the printed receipt:
 * - a JPEG: printing one needs a JPEG decoder (Huffman tables, inverse DCT, chroma up-sampling),
 *   which the project has not, and a receipt's logo is not worth a dependency;
 * - an interlaced PNG (Adam7): its rows arrive in seven passes and none is whole before the last,
 *   so it cannot be reduced row by row as it inflates; the whole image would have to be held.
 * A logo of a shape a receipt cannot carry is left off too (printedSize).
 */
import { createInflate } from 'node:zlib';
import type { PaperWidth } from './layout.ts';

/** Dots a printer prints across the paper at 8 dots per mm (203 dpi): 48 mm of 58 mm paper, 72 mm of 80 mm. */
export const PRINTER_DOTS = { 58: 384, 80: 576 } as const satisfies Record<PaperWidth, number>;

/** The logo spans at most 60 % of the line, as a letterhead does: 230 dots on 58 mm paper, 346 on 80 mm. */
const SHARE_OF_LINE = 0.6;

/** At most 160 dots high (2 cm): the logo heads the receipt without costing a customer's worth of paper. */
export const MAX_LOGO_DOTS_HIGH = 160;

/**
 * The widest logo printed: 4 times as wide as high, 230 x 58 dots (29 x 7 mm) on 58 mm paper. Wider,
 * it prints as a strip whose letters are too thin to read.
 */
export const WIDEST_LOGO = 4;

/**
 * The tallest logo printed: 1.2 times as high as wide (a square logo cropped a little tall), at most
 * 133 x 160 dots (17 x 20 mm). Taller, it prints as a narrow column that costs more paper than it shows.
 */
export const TALLEST_LOGO = 1.2;

/** The logo's size in printer dots on this paper, or null when its shape is not printed (WIDEST_LOGO, TALLEST_LOGO). */
export function printedSize(logo: { width: number; height: number }, paper: PaperWidth): { width: number; height: number } | null {
  if (logo.width > WIDEST_LOGO * logo.height || logo.height > TALLEST_LOGO * logo.width) return null;
  // Never beyond the logo's own pixels: enlarged, it would print in blocks.
  let width = Math.min(logo.width, Math.round(PRINTER_DOTS[paper] * SHARE_OF_LINE));
  let height = Math.max(1, Math.round((width * logo.height) / logo.width));
  if (height > MAX_LOGO_DOTS_HIGH) {
    height = MAX_LOGO_DOTS_HIGH;
    width = Math.max(1, Math.round((height * logo.width) / logo.height));
  }
  return { width, height };
}

/** What the receipt route reads of the logo before its bytes: enough to skip it, or to find its raster made already. */
export interface LogoStamp {
  media_type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  sha256: string;
}

/** Rasters made, by logo and paper width, the least recently printed dropped first: a reprint decodes nothing. */
const rasters = new Map<string, Uint8Array | null>();
const RASTERS_KEPT = 64;

/**
 * The GS v 0 command printing the logo on this paper, or null when the receipt goes without it (a
 * JPEG, an interlaced PNG, a shape beyond WIDEST_LOGO or TALLEST_LOGO). `content` reads the logo's
 * bytes, called only when the raster is not made already; it answers null when the shop's logo has
 * changed since `logo` was read, and the receipt then goes without one.
 */
export async function receiptLogoRaster(logo: LogoStamp, paper: PaperWidth, content: () => Promise<Buffer | null>): Promise<Uint8Array | null> {
  if (logo.media_type !== 'image/png' || !printedSize(logo, paper)) return null;
  const key = `${logo.sha256}/${paper}`;
  const made = rasters.get(key);
  if (made !== undefined) {
    rasters.delete(key);
    rasters.set(key, made);
    return made;
  }
  const png = await content();
  if (!png) return null;
  const raster = await logoRaster(png, paper);
  rasters.set(key, raster);
  if (rasters.size > RASTERS_KEPT) rasters.delete(rasters.keys().next().value!);
  return raster;
}

/** The GS v 0 command printing this PNG on this paper, or null when it is not printed (see the top of this file). */
export async function logoRaster(png: Buffer, paper: PaperWidth): Promise<Uint8Array | null> {
  const image = readPng(png);
  if (!image || image.interlaced) return null;
  const size = printedSize(image, paper);
  if (!size) return null;
  const grey = await reducedGrey(image, size);
  return grey && rasterCommand(dither(grey, size.width, size.height), size.width, size.height);
}

// ---------------------------------------------------------------------------------------------
// PNG: the chunks a picture needs. The bytes were checked when uploaded (api/lib/images.ts, CRCs
// included); here every length is still bounded, and anything unexpected leaves the logo off.

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Channels of each colour type (greyscale, RGB, palette, grey and alpha, RGBA) and the bit depths it allows. */
const COLOUR_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** The largest side decoded, the largest PUT /shop/logo takes. */
const MAX_SIDE = 4096;

interface PngImage {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
  /** PLTE: red, green, blue for each index. */
  palette: Buffer | null;
  /** tRNS: an alpha for each palette index, or the one grey or RGB colour that is transparent (16-bit values). */
  transparency: Buffer | null;
  /** The IDAT chunks' data, one zlib stream. */
  imageData: Buffer;
}

function readPng(png: Buffer): PngImage | null {
  if (png.length < PNG_SIGNATURE.length || !png.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return null;
  let header: Pick<PngImage, 'width' | 'height' | 'depth' | 'colourType' | 'interlaced'> | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const imageData: Buffer[] = [];
  for (let at = PNG_SIGNATURE.length; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > png.length) return null;
    const body = png.subarray(at + 8, at + 8 + length);
    at += 12 + length;
    if (type === 'IHDR' && length === 13) {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8]!, colourType: body[9]!, interlaced: body[12] === 1 };
    } else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') imageData.push(body);
    else if (type === 'IEND') break;
  }
  if (!header || !COLOUR_TYPES[header.colourType]?.depths.includes(header.depth) || !imageData.length) return null;
  if (header.width === 0 || header.height === 0 || header.width > MAX_SIDE || header.height > MAX_SIDE) return null;
  if (header.colourType === 3 && !palette) return null;
  return { ...header, palette, transparency, imageData: Buffer.concat(imageData) };
}

/** `array[at] += value`, spelt out for the type checker's unchecked-index rule. */
const addTo = (array: Float32Array | Float64Array, at: number, value: number) => {
  array[at] = array[at]! + value;
};

/** At most 4 x 4 pixels are averaged into a dot: a logo reduced more than fourfold prints no differently sampled finer. */
const SAMPLES_ACROSS_DOT = 4;

/**
 * The pixels sampled along one side of the image (`pixels` long, reduced to `dots`): each dot's box
 * of pixels whole, or SAMPLES_ACROSS_DOT of them spread evenly across it. `dotOf[n]` is the dot the
 * n-th sampled pixel `at[n]` falls in; `samples[dot]` how many pixels that dot averages.
 */
function samplesAlong(pixels: number, dots: number): { at: Int32Array; dotOf: Int32Array; samples: Int32Array } {
  const at: number[] = [];
  const dotOf: number[] = [];
  const samples = new Int32Array(dots);
  for (let dot = 0; dot < dots; dot++) {
    // The pixels x with floor(x * dots / pixels) = dot.
    const first = Math.ceil((dot * pixels) / dots);
    const box = Math.ceil(((dot + 1) * pixels) / dots) - first;
    const taken = Math.min(box, SAMPLES_ACROSS_DOT);
    for (let n = 0; n < taken; n++) {
      at.push(first + (box <= SAMPLES_ACROSS_DOT ? n : Math.floor(((2 * n + 1) * box) / (2 * SAMPLES_ACROSS_DOT))));
      dotOf.push(dot);
    }
    samples[dot] = taken;
  }
  return { at: Int32Array.from(at), dotOf: Int32Array.from(dotOf), samples };
}

/**
 * The image's luminance (0 black to 255 white, transparency over white) reduced to `size`, each dot
 * the average of the pixels sampled in its box (samplesAlong). Inflated as a stream, two rows kept
 * at a time: a 4096 x 4096 logo of 16-bit RGBA (128 MiB of rows) never occupies more than its two
 * rows, the inflater's chunk and the reduced image. Every row is unfiltered, as the next row's
 * filter may refer to it; only the sampled rows are read. Null when the image data does not inflate
 * to its rows.
 */
async function reducedGrey(image: PngImage, size: { width: number; height: number }): Promise<Float32Array | null> {
  const { width, height } = image;
  const bitsPerPixel = COLOUR_TYPES[image.colourType]!.channels * image.depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  // The filters look back one whole pixel, or one byte when pixels are smaller than a byte.
  const pixelBytes = Math.max(1, bitsPerPixel >> 3);
  const byteStride = image.depth === 16 && !matchesWholeSamples(image) ? 2 : 1;
  const addRow = rowSummer(image);

  const columns = samplesAlong(width, size.width);
  const rows = samplesAlong(height, size.height);
  const grey = new Float32Array(size.width * size.height);
  const sums = new Float64Array(size.width);
  let sampledRow = 0;
  const closeDotRow = (dotRow: number) => {
    const pixels = rows.samples[dotRow]!;
    for (let dot = 0; dot < size.width; dot++) grey[dotRow * size.width + dot] = sums[dot]! / (columns.samples[dot]! * pixels);
    sums.fill(0);
  };

  let row = new Uint8Array(stride);
  let previous = new Uint8Array(stride);
  let filter = -1;
  let filled = 0;
  let y = 0;
  const inflate = createInflate({ chunkSize: 256 * 1024 });
  inflate.end(image.imageData);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length && y < height; ) {
        if (filter < 0) {
          filter = chunk[at++]!;
          continue;
        }
        const taken = Math.min(stride - filled, chunk.length - at);
        row.set(chunk.subarray(at, at + taken), filled);
        filled += taken;
        at += taken;
        if (filled < stride) continue;
        if (!unfilter(filter, row, previous, pixelBytes, byteStride)) return null;
        if (rows.at[sampledRow] === y) {
          addRow(row, sums, columns.at, columns.dotOf);
          const dotRow = rows.dotOf[sampledRow]!;
          sampledRow++;
          if (rows.dotOf[sampledRow] !== dotRow) closeDotRow(dotRow);
        }
        [row, previous] = [previous, row];
        filter = -1;
        filled = 0;
        y++;
      }
      if (y === height) break;
    }
  } catch {
    return null;
  } finally {
    inflate.destroy();
  }
  return y === height ? grey : null;
}

/**
 * Undoes a scanline's filter in place (the specification's sections 7.3 and 9), every byte or, with
 * a `stride` of 2, only the first of each pair: the filters add byte by byte without carry, so the
 * high bytes of 16-bit samples unfilter on their own. False for an unknown filter.
 */
function unfilter(filter: number, row: Uint8Array, previous: Uint8Array, pixelBytes: number, stride: 1 | 2): boolean {
  const length = row.length;
  switch (filter) {
    case 0:
      return true;
    case 1:
      for (let i = pixelBytes; i < length; i += stride) row[i] = row[i]! + row[i - pixelBytes]!;
      return true;
    case 2:
      for (let i = 0; i < length; i += stride) row[i] = row[i]! + previous[i]!;
      return true;
    case 3:
      for (let i = 0; i < pixelBytes; i += stride) row[i] = row[i]! + (previous[i]! >> 1);
      for (let i = pixelBytes; i < length; i += stride) row[i] = row[i]! + ((row[i - pixelBytes]! + previous[i]!) >> 1);
      return true;
    case 4:
      // Paeth with nothing to the left predicts the byte above.
      for (let i = 0; i < pixelBytes; i += stride) row[i] = row[i]! + previous[i]!;
      for (let i = pixelBytes; i < length; i += stride) row[i] = row[i]! + paeth(row[i - pixelBytes]!, previous[i]!, previous[i - pixelBytes]!);
      return true;
    default:
      return false;
  }
}

/**
 * The Paeth predictor: of the bytes to the left, above and above-left, the one nearest to
 * left + above - above-left (ties to the left, then above). Written without branches: on a busy
 * picture the choice goes either way at random, and a mispredicted branch per byte doubled the time.
 */
function paeth(left: number, above: number, corner: number): number {
  const towardsLeft = absolute(above - corner);
  const towardsAbove = absolute(left - corner);
  const towardsCorner = absolute(left + above - 2 * corner);
  // All ones when not the left byte, then when the corner byte rather than the one above.
  const notLeft = ((towardsAbove - towardsLeft) | (towardsCorner - towardsLeft)) >> 31;
  const isCorner = notLeft & ((towardsCorner - towardsAbove) >> 31);
  return (left & ~notLeft) | (above & notLeft & ~isCorner) | (corner & isCorner);
}

const absolute = (value: number) => (value ^ (value >> 31)) - (value >> 31);

const WHITE = 255;

/** Luma of an sRGB colour (ITU-R BT.601 weights), as a greyscale print renders it. */
const luma = (red: number, green: number, blue: number) => 0.299 * red + 0.587 * green + 0.114 * blue;

/** A colour of opacity `alpha` (0 to 1) laid over the paper's white. */
const overWhite = (grey: number, alpha: number) => grey * alpha + WHITE * (1 - alpha);

/**
 * Whether 16-bit samples are read whole: only to match tRNS's transparent grey or colour, which
 * names a 16-bit value. Otherwise a sample's high byte is its grey to within 1/256, all a print shows.
 */
const matchesWholeSamples = (image: PngImage) => image.depth === 16 && image.transparency !== null && (image.colourType === 0 || image.colourType === 2);

/** Adds a sampled row's luminance into the sums of its dots: `columns[n]` is a sampled pixel, `dotOf[n]` its dot. */
type RowSummer = (row: Uint8Array, sums: Float64Array, columns: Int32Array, dotOf: Int32Array) => void;

/** The RowSummer of the image's colour type and bit depth, chosen once per image so that each loop stays simple. */
function rowSummer(image: PngImage): RowSummer {
  const { depth, colourType, transparency } = image;
  const transparentSample = (channel: number) =>
    transparency && transparency.length >= 2 * (channel + 1) ? transparency.readUInt16BE(2 * channel) : -1;

  if (colourType === 3 || depth < 8) {
    // A palette index or a grey level, maybe several to a byte: a table gives each one's grey.
    const levels = 1 << depth;
    const greyOf = new Float64Array(levels).fill(WHITE);
    if (colourType === 3) {
      const palette = image.palette!;
      for (let index = 0; index < Math.min(levels, palette.length / 3); index++) {
        const alpha = transparency && index < transparency.length ? transparency[index]! / 255 : 1;
        greyOf[index] = overWhite(luma(palette[3 * index]!, palette[3 * index + 1]!, palette[3 * index + 2]!), alpha);
      }
    } else {
      for (let level = 0; level < levels; level++) greyOf[level] = (level * WHITE) / (levels - 1);
      const transparent = transparentSample(0);
      if (transparent >= 0 && transparent < levels) greyOf[transparent] = WHITE;
    }
    const perByte = 8 / depth;
    const mask = levels - 1;
    return (row, sums, columns, dotOf) => {
      for (let n = 0; n < columns.length; n++) {
        const x = columns[n]!;
        const shift = 8 - depth * ((x % perByte) + 1);
        addTo(sums, dotOf[n]!, greyOf[(row[(x / perByte) | 0]! >> shift) & mask]!);
      }
    };
  }

  // 8 or 16 bits a channel; a 16-bit one read by its high byte but to match tRNS.
  const step = depth >> 3;
  const whole = matchesWholeSamples(image);
  const sample = whole ? (row: Uint8Array, i: number) => (row[i]! << 8) | row[i + 1]! : (row: Uint8Array, i: number) => row[i]!;
  const scale = whole ? WHITE / 65535 : 1;
  switch (colourType) {
    case 0: {
      const transparent = transparentSample(0);
      return (row, sums, columns, dotOf) => {
        for (let n = 0; n < columns.length; n++) {
          const value = sample(row, columns[n]! * step);
          addTo(sums, dotOf[n]!, value === transparent ? WHITE : value * scale);
        }
      };
    }
    case 2: {
      const red = transparentSample(0);
      const green = transparentSample(1);
      const blue = transparentSample(2);
      return (row, sums, columns, dotOf) => {
        for (let n = 0; n < columns.length; n++) {
          const i = columns[n]! * 3 * step;
          const r = sample(row, i);
          const g = sample(row, i + step);
          const b = sample(row, i + 2 * step);
          addTo(sums, dotOf[n]!, r === red && g === green && b === blue ? WHITE : luma(r, g, b) * scale);
        }
      };
    }
    case 4:
      return (row, sums, columns, dotOf) => {
        for (let n = 0; n < columns.length; n++) {
          const i = columns[n]! * 2 * step;
          addTo(sums, dotOf[n]!, overWhite(row[i]!, row[i + step]! / 255));
        }
      };
    default:
      return (row, sums, columns, dotOf) => {
        for (let n = 0; n < columns.length; n++) {
          const i = columns[n]! * 4 * step;
          addTo(sums, dotOf[n]!, overWhite(luma(row[i]!, row[i + step]!, row[i + 2 * step]!), row[i + 3 * step]! / 255));
        }
      };
  }
}

// ---------------------------------------------------------------------------------------------
// One bit per dot.

/** Floyd-Steinberg error diffusion: greys print as a spread of dots, edges stay sharp. A 1 is a black dot. */
function dither(grey: Float32Array, width: number, height: number): Uint8Array {
  const black = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * width + x;
      const value = grey[at]!;
      const printed = value < WHITE / 2 ? 0 : WHITE;
      black[at] = printed === 0 ? 1 : 0;
      const error = value - printed;
      if (x + 1 < width) addTo(grey, at + 1, (error * 7) / 16);
      if (y + 1 < height) {
        if (x > 0) addTo(grey, at + width - 1, (error * 3) / 16);
        addTo(grey, at + width, (error * 5) / 16);
        if (x + 1 < width) addTo(grey, at + width + 1, error / 16);
      }
    }
  }
  return black;
}

const GS = 0x1d;

/**
 * GS v 0 at normal density (m = 0). The row is whole bytes: the bits left over are split white either
 * side, so that the printer, centring the bytes (ESC a 1), centres the logo itself.
 */
function rasterCommand(black: Uint8Array, width: number, height: number): Uint8Array {
  const rowBytes = Math.ceil(width / 8);
  const left = (rowBytes * 8 - width) >> 1;
  const command = new Uint8Array(8 + rowBytes * height);
  command.set([GS, 0x76, 0x30, 0x00, rowBytes & 0xff, rowBytes >> 8, height & 0xff, height >> 8]);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!black[y * width + x]) continue;
      const dot = left + x;
      const at = 8 + y * rowBytes + (dot >> 3);
      command[at] = command[at]! | (0x80 >> (dot & 7));
    }
  }
  return command;
}
