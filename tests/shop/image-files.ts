import { crc32, deflateSync } from 'node:zlib';

/**
 * Real PNG and JPEG files, written byte by byte as their specifications lay them out (the W3C PNG
 * specification; ITU-T T.81 with Exif), so that a test holds a valid file of any size and shape, and
 * can damage one exactly where it means to.
 */

const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
};

// ---------------------------------------------------------------------------------------------
// PNG

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A chunk: its length, its type, its data and the CRC of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), typed, u32(crc32(typed))]);
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [
  [0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2],
] as const;

export interface PngOptions {
  width: number;
  height: number;
  /** 0 grey, 2 RGB (the default), 3 palette, 4 grey and alpha, 6 RGBA. */
  colourType?: number;
  depth?: number;
  interlaced?: boolean;
  /** The scanlines as the image data holds them (filter bytes included); by default every row unfiltered, pixels of one colour. */
  scanlines?: Buffer;
  /** Chunks placed after IHDR (tEXt, a filler...). */
  extraChunks?: Buffer[];
}

/** The scanlines of an image: each row's filter byte (0, none) then its pixels, for every pass when interlaced. */
export function pngScanlines({ width, height, colourType = 2, depth = 8, interlaced = false }: PngOptions): Buffer {
  const bitsPerPixel = CHANNELS[colourType]! * depth;
  const row = (pixels: number) => {
    const bytes = Buffer.alloc(1 + Math.ceil((pixels * bitsPerPixel) / 8), 0x5a);
    bytes[0] = 0;
    return bytes;
  };
  const rows: Buffer[] = [];
  if (!interlaced) for (let y = 0; y < height; y++) rows.push(row(width));
  else {
    for (const [x0, y0, dx, dy] of ADAM7) {
      const pixels = Math.ceil((width - x0) / dx);
      if (pixels <= 0) continue;
      for (let y = y0; y < height; y += dy) rows.push(row(pixels));
    }
  }
  return Buffer.concat(rows);
}

export function png(options: PngOptions): Buffer {
  const { width, height, colourType = 2, depth = 8, interlaced = false } = options;
  const header = Buffer.concat([u32(width), u32(height), Buffer.from([depth, colourType, 0, 0, interlaced ? 1 : 0])]);
  const palette = colourType === 3 ? [pngChunk('PLTE', Buffer.from([0xc0, 0x30, 0x20, 0xff, 0xff, 0xff]))] : [];
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    ...(options.extraChunks ?? []),
    ...palette,
    pngChunk('IDAT', deflateSync(options.scanlines ?? pngScanlines(options))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG of exactly `size` bytes: a private ancillary chunk of filler brings it there. */
export function pngOfSize(size: number, width = 300, height = 120): Buffer {
  const bare = png({ width, height });
  return png({ width, height, extraChunks: [pngChunk('prVt', Buffer.alloc(size - bare.length - 12, 0x20))] });
}

// ---------------------------------------------------------------------------------------------
// JPEG: one grey component, a flat 8x8 block per 8x8 pixels, coded with one-bit Huffman codes.

const segment = (marker: number, body: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16(body.length + 2), body]);

export interface JpegOptions {
  width: number;
  height: number;
  /** The start-of-frame marker: 0xC0 baseline (the default), 0xC1 extended, 0xC3 lossless, 0xC9 arithmetic... */
  frame?: number;
  precision?: number;
  /** An Exif APP1 segment with this Orientation tag (1 to 8). */
  orientation?: number;
  /** The scan's entropy-coded data; by default a flat block for each 8 x 8 pixels. */
  entropy?: Buffer;
}

/** An APP1 Exif segment holding only the Orientation tag, big-endian. */
function exif(orientation: number): Buffer {
  const directory = Buffer.concat([u16(1), u16(0x0112), u16(3), u32(1), u16(orientation), u16(0), u32(0)]);
  const tiff = Buffer.concat([Buffer.from('MM', 'latin1'), u16(42), u32(8), directory]);
  return segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]));
}

/** Each block "0" then "0" (no change of DC, end of block), the last byte padded with 1 bits. */
function flatBlocks(width: number, height: number): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = '00'.repeat(blocks).padEnd(Math.ceil((blocks * 2) / 8) * 8, '1');
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
}

export function jpeg({ width, height, frame = 0xc0, precision = 8, orientation, entropy = flatBlocks(width, height) }: JpegOptions): Buffer {
  const jfif = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const quantisation = segment(0xdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)]));
  const start = segment(frame, Buffer.concat([Buffer.from([precision]), u16(height), u16(width), Buffer.from([1, 1, 0x11, 0])]));
  // One code each, "0": a DC difference of category 0, and the AC end of block: every block the same grey.
  const huffman = (tableClass: number) => segment(0xc4, Buffer.from([tableClass << 4, 1, ...new Array(15).fill(0), 0x00]));
  const scan = segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0]));
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]), jfif, ...(orientation ? [exif(orientation)] : []), quantisation, start, huffman(0), huffman(1), scan, entropy, Buffer.from([0xff, 0xd9]),
  ]);
}
