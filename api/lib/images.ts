/**
 * What an uploaded image is, read from its bytes and never from what the client says it is: a PNG
 * (W3C PNG specification, third edition) or a JPEG (ITU-T T.81, with JFIF or Exif), walked from its
 * first byte to its last without reading past the end. Nothing is decoded to pixels or re-encoded.
 *
 * Beyond the format, the walk checks what the documents that print an image rely on, so that an image
 * taken here never fails one later: pdfkit decodes a PNG with transparency or interlacing itself, in a
 * zlib callback where an error escapes every handler, so every chunk's CRC is checked and the image
 * data must inflate to exactly its scanlines, each with a filter the specification defines; a JPEG
 * must have one frame pdfkit and browsers can show (8-bit, baseline or progressive, 1, 3 or 4
 * components) before its scans, and its end marker last.
 */
import { crc32, createInflate } from 'node:zlib';

export type ImageMediaType = 'image/png' | 'image/jpeg';

/** An image's kind and its size in pixels as it is shown (a JPEG's Exif orientation applied). */
export interface ImageFacts {
  media_type: ImageMediaType;
  width: number;
  height: number;
}

/**
 * Why bytes are refused: neither a PNG nor a JPEG; a PNG or JPEG that is damaged, cut short or goes
 * on after its end; a JPEG of a kind documents cannot show; an image wider or higher than allowed.
 */
export type ImageRefusal = 'not_png_or_jpeg' | 'damaged' | 'unprintable_jpeg' | 'too_large';

export type ImageReading = { image: ImageFacts } | { refused: ImageRefusal };

/**
 * The image the bytes hold, or why they are refused. `maxSide` bounds the width and the height, and is
 * checked before a PNG's image data is inflated: the work done for an image is bounded by its size.
 */
export async function readImage(bytes: Uint8Array, { maxSide }: { maxSide: number }): Promise<ImageReading> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (startsWith(data, PNG_SIGNATURE)) {
    const png = readPng(data);
    if ('refused' in png) return png;
    if (png.header.width > maxSide || png.header.height > maxSide) return { refused: 'too_large' };
    if (!(await scanlinesAreWhole(png.imageData, png.header))) return { refused: 'damaged' };
    return { image: { media_type: 'image/png', width: png.header.width, height: png.header.height } };
  }
  if (startsWith(data, JPEG_SOI)) {
    const jpeg = readJpeg(data);
    if ('refused' in jpeg) return jpeg;
    if (jpeg.image.width > maxSide || jpeg.image.height > maxSide) return { refused: 'too_large' };
    return jpeg;
  }
  return { refused: 'not_png_or_jpeg' };
}

const startsWith = (data: Buffer, prefix: Buffer) => data.length >= prefix.length && data.subarray(0, prefix.length).equals(prefix);

// ---------------------------------------------------------------------------------------------
// PNG: the signature, then chunks (length, type, data, CRC of type and data): IHDR first, PLTE
// before the image data for a palette image, the IDAT chunks one after another, IEND last.

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface PngHeader {
  width: number;
  height: number;
  /** Bits per pixel: channels times bit depth. */
  bitsPerPixel: number;
  interlaced: boolean;
  /** Colour type 3: the pixels are indexes into a PLTE chunk, which must come before the image data. */
  indexed: boolean;
}

/** Bit depths each colour type allows, and its channels (greyscale, RGB, palette, grey + alpha, RGBA). */
const COLOUR_TYPES: Record<number, { depths: number[]; channels: number }> = {
  0: { depths: [1, 2, 4, 8, 16], channels: 1 },
  2: { depths: [8, 16], channels: 3 },
  3: { depths: [1, 2, 4, 8], channels: 1 },
  4: { depths: [8, 16], channels: 2 },
  6: { depths: [8, 16], channels: 4 },
};

const PNG_MAX_INTEGER = 2 ** 31 - 1;

function readPng(data: Buffer): { header: PngHeader; imageData: Buffer } | { refused: ImageRefusal } {
  const damaged = { refused: 'damaged' as const };
  let header: PngHeader | undefined;
  let hasPalette = false;
  const imageData: Buffer[] = [];
  let previous = '';
  for (let at = PNG_SIGNATURE.length; ; ) {
    if (at + 12 > data.length) return damaged;
    const length = data.readUInt32BE(at);
    if (length > PNG_MAX_INTEGER || at + 12 + length > data.length) return damaged;
    const type = data.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return damaged;
    const body = data.subarray(at + 8, at + 8 + length);
    if (crc32(data.subarray(at + 4, at + 8 + length)) !== data.readUInt32BE(at + 8 + length)) return damaged;
    at += 12 + length;
    if ((type === 'IHDR') !== (previous === '')) return damaged;
    if (type === 'IHDR') {
      header = pngHeader(body);
      if (!header) return damaged;
    } else if (type === 'PLTE') {
      if (imageData.length || hasPalette || length === 0 || length % 3 !== 0 || length > 256 * 3) return damaged;
      hasPalette = true;
    } else if (type === 'IDAT') {
      // The image data is one zlib stream cut into consecutive IDAT chunks.
      if (imageData.length && previous !== 'IDAT') return damaged;
      if (header!.indexed && !hasPalette) return damaged;
      imageData.push(body);
    } else if (type === 'IEND') {
      if (length !== 0 || !imageData.length || at !== data.length) return damaged;
      return { header: header!, imageData: Buffer.concat(imageData) };
    } else if (isCritical(type)) {
      // A chunk a decoder must understand to show the image, and that no PNG decoder knows.
      return damaged;
    }
    previous = type;
  }
}

/** An upper-case first letter marks a chunk that is critical to showing the image. */
const isCritical = (type: string) => type.charCodeAt(0) < 0x61;

function pngHeader(body: Buffer): PngHeader | undefined {
  if (body.length !== 13) return undefined;
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [depth, colourType, compression, filter, interlace] = [body[8]!, body[9]!, body[10]!, body[11]!, body[12]!];
  const colour = COLOUR_TYPES[colourType];
  if (width === 0 || height === 0 || width > PNG_MAX_INTEGER || height > PNG_MAX_INTEGER) return undefined;
  if (!colour?.depths.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return undefined;
  return { width, height, bitsPerPixel: colour.channels * depth, interlaced: interlace === 1, indexed: colourType === 3 };
}

/** Adam7's passes: the first column and row of each, and its steps across and down. */
const ADAM7 = [
  [0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2],
] as const;

/** The length of each scanline the image data holds, in order, its filter byte included. */
function* scanlineLengths({ width, height, bitsPerPixel, interlaced }: PngHeader): Generator<number> {
  const rowLength = (pixels: number) => 1 + Math.ceil((pixels * bitsPerPixel) / 8);
  if (!interlaced) {
    for (let row = 0; row < height; row++) yield rowLength(width);
    return;
  }
  for (const [column, row, across, down] of ADAM7) {
    const pixels = Math.ceil((width - column) / across);
    const rows = Math.ceil((height - row) / down);
    if (pixels <= 0) continue;
    for (let n = 0; n < rows; n++) yield rowLength(pixels);
  }
}

/** The five filters of PNG (none, sub, up, average, Paeth): a scanline's first byte names one. */
const LAST_FILTER = 4;

/**
 * Whether the image data inflates to exactly the scanlines the header implies, each starting with a
 * known filter. Inflated as a stream and never kept: it stops at the first byte too many.
 */
async function scanlinesAreWhole(imageData: Buffer, header: PngHeader): Promise<boolean> {
  const scanlines = scanlineLengths(header);
  let left = 0;
  // Chunks of 256 KiB: a 4096 x 4096 RGBA image of 16-bit channels (128 MiB of rows) is checked in about 0.2 s.
  const inflate = createInflate({ chunkSize: 256 * 1024 });
  inflate.end(imageData);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; ) {
        if (left === 0) {
          const next = scanlines.next();
          if (next.done || chunk[at]! > LAST_FILTER) return false;
          left = next.value;
        }
        const taken = Math.min(left, chunk.length - at);
        left -= taken;
        at += taken;
      }
    }
  } catch {
    return false;
  }
  return left === 0 && scanlines.next().done === true;
}

// ---------------------------------------------------------------------------------------------
// JPEG: SOI, then segments (0xFF, a marker, a length that counts itself, the data), each scan's
// entropy-coded data after its SOS segment, EOI last.

const JPEG_SOI = Buffer.from([0xff, 0xd8]);
const EOI = 0xd9;
const SOS = 0xda;
const APP1 = 0xe1;

/** Start-of-frame markers: every 0xC0 to 0xCF but DHT (C4), JPG (C8) and DAC (CC). */
const isFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** The frames documents show: baseline, extended sequential and progressive, Huffman-coded. */
const PRINTABLE_FRAMES = new Set([0xc0, 0xc1, 0xc2]);
/** Markers that stand alone, with no length: restart markers and TEM. */
const isStandalone = (marker: number) => (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;
/** Components pdfkit gives a colour space: greyscale, YCbCr (RGB) and CMYK. */
const PRINTABLE_COMPONENTS = new Set([1, 3, 4]);

function readJpeg(data: Buffer): ImageReading {
  const damaged = { refused: 'damaged' as const };
  let frame: { width: number; height: number } | undefined;
  let orientation: number | undefined;
  let scanned = false;
  for (let at = JPEG_SOI.length; ; ) {
    if (data[at] !== 0xff) return damaged;
    // Any number of 0xFF may pad before a marker.
    while (data[at] === 0xff) at++;
    if (at >= data.length) return damaged;
    const marker = data[at++]!;
    if (marker === EOI) return scanned && at === data.length ? { image: shown(frame!, orientation) } : damaged;
    if (isStandalone(marker)) continue;
    if (marker === 0x00 || marker === 0xd8 || at + 2 > data.length) return damaged;
    const length = data.readUInt16BE(at);
    if (length < 2 || at + length > data.length) return damaged;
    const segment = data.subarray(at + 2, at + length);
    at += length;
    if (isFrame(marker)) {
      if (frame) return damaged;
      if (!PRINTABLE_FRAMES.has(marker)) return { refused: 'unprintable_jpeg' };
      if (segment.length < 6) return damaged;
      const [precision, components] = [segment[0]!, segment[5]!];
      if (segment.length !== 6 + 3 * components) return damaged;
      if (precision !== 8) return { refused: 'unprintable_jpeg' };
      if (!PRINTABLE_COMPONENTS.has(components)) return damaged;
      frame = { height: segment.readUInt16BE(1), width: segment.readUInt16BE(3) };
      // A height of 0 is given later by a DNL segment, which pdfkit and browsers do not read.
      if (frame.width === 0 || frame.height === 0) return damaged;
    } else if (marker === APP1) {
      orientation ??= exifOrientation(segment);
    } else if (marker === SOS) {
      if (!frame) return damaged;
      at = afterEntropyCodedData(data, at);
      scanned = true;
    }
  }
}

/**
 * Where a scan's entropy-coded data ends: at the first marker that is neither a stuffed 0xFF00 nor a
 * restart marker (the data's end when there is none; the walk then finds no EOI).
 */
function afterEntropyCodedData(data: Buffer, from: number): number {
  for (let at = data.indexOf(0xff, from); at >= 0; at = data.indexOf(0xff, at + 1)) {
    let next = at + 1;
    while (data[next] === 0xff) next++;
    if (next >= data.length) return data.length;
    const byte = data[next]!;
    if (byte !== 0x00 && !(byte >= 0xd0 && byte <= 0xd7)) return next - 1;
    at = next;
  }
  return data.length;
}

/** Orientations 5 to 8 turn the image a quarter: it is shown with its width and height swapped. */
const shown = (frame: { width: number; height: number }, orientation = 1): ImageFacts =>
  orientation >= 5 ? { media_type: 'image/jpeg', width: frame.height, height: frame.width } : { media_type: 'image/jpeg', ...frame };

/** The Orientation tag (0x0112) of an APP1 Exif segment's first directory, as pdfkit and browsers read it; undefined when it has none. */
function exifOrientation(segment: Buffer): number | undefined {
  if (segment.length < 14 || segment.toString('latin1', 0, 6) !== 'Exif\0\0') return undefined;
  const tiff = segment.subarray(6);
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const little = order === 'II';
  const read16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const read32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (read16(2) !== 42) return undefined;
  const directory = read32(4);
  if (directory + 2 > tiff.length) return undefined;
  const entries = read16(directory);
  for (let n = 0; n < entries; n++) {
    const entry = directory + 2 + n * 12;
    if (entry + 12 > tiff.length) return undefined;
    if (read16(entry) !== 0x0112) continue;
    const value = read16(entry + 8);
    return value >= 1 && value <= 8 ? value : undefined;
  }
  return undefined;
}
