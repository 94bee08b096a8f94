import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import t from 'tap';
import { renderEscPos } from '../../api/receipts/escpos.ts';
import { logoRaster, MAX_LOGO_DOTS_HIGH, PRINTER_DOTS, receiptLogoRaster, type LogoStamp } from '../../api/receipts/logo-raster.ts';
import { sell } from '../sales/sale-fixtures.ts';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { jpeg, PNG_SIGNATURE, pngChunk } from '../shop/image-files.ts';
import { readEscPos, receiptInput, textLines, type EscPosEvent } from './receipt-fixtures.ts';

/**
 * The shop's logo on the printed receipt (issue 31): a PNG decoded on the server, reduced to the
 * paper, dithered to one bit and sent as a GS v 0 raster above the shop's name; a JPEG, an interlaced
 * PNG and a logo too wide or too tall for a receipt are left off.
 */

const api = await startService(t);

// ---------------------------------------------------------------------------------------------
// PNGs of any colour type, bit depth and filter, written here so that the picture is known pixel by pixel.

/** A pixel: its grey (0 black to 1 white) and its opacity (0 to 1). */
type Pixel = { grey: number; alpha?: number };
type Picture = (x: number, y: number) => Pixel;

interface PngShape {
  colourType: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** tRNS: a transparent grey or colour (types 0 and 2, the sample's value), or each palette entry's alpha (type 3). */
  transparency?: number[];
  interlaced?: boolean;
}

const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as const;

function paeth(left: number, above: number, corner: number): number {
  const p = left + above - corner;
  const [a, b, c] = [Math.abs(p - left), Math.abs(p - above), Math.abs(p - corner)];
  return a <= b && a <= c ? left : b <= c ? above : corner;
}

/**
 * The scanline as filter `filter` stores it (W3C PNG, section 7.3): what the decoder adds back.
 * Each row of the tests takes the next of the five filters, so every one is undone somewhere.
 */
function filtered(filter: number, row: Buffer, previous: Buffer, pixelBytes: number): Buffer {
  const out = Buffer.alloc(row.length + 1);
  out[0] = filter;
  for (let i = 0; i < row.length; i++) {
    const left = i >= pixelBytes ? row[i - pixelBytes]! : 0;
    const above = previous[i]!;
    const corner = i >= pixelBytes ? previous[i - pixelBytes]! : 0;
    const predicted = [0, left, above, (left + above) >> 1, paeth(left, above, corner)][filter]!;
    out[i + 1] = (row[i]! - predicted) & 0xff;
  }
  return out;
}

/**
 * A PNG of the picture in this shape. Greys are written as levels of the depth (a palette of two:
 * black and white); a pixel's opacity goes in its alpha channel, or into the transparent colour or
 * palette entry when the shape has tRNS.
 */
function pngOf(width: number, height: number, shape: PngShape, picture: Picture, palette = [0, 0, 0, 255, 255, 255]): Buffer {
  const { colourType, depth } = shape;
  const max = 2 ** depth - 1;
  const bitsPerPixel = CHANNELS[colourType] * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const pixelBytes = Math.max(1, bitsPerPixel >> 3);
  const rows: Buffer[] = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(stride);
    let bit = 0;
    const put = (value: number) => {
      if (depth === 16) row.writeUInt16BE(value, bit >> 3);
      else if (depth === 8) row[bit >> 3] = value;
      else row[bit >> 3] = row[bit >> 3]! | (value << (8 - depth - (bit & 7)));
      bit += depth;
    };
    for (let x = 0; x < width; x++) {
      const { grey, alpha = 1 } = picture(x, y);
      const level = Math.round(grey * max);
      const opacity = Math.round(alpha * max);
      if (colourType === 0) put(alpha === 0 && shape.transparency ? shape.transparency[0]! : level);
      else if (colourType === 2) for (let c = 0; c < 3; c++) put(alpha === 0 && shape.transparency ? shape.transparency[c]! : level);
      else if (colourType === 3) put(alpha === 0 && shape.transparency ? 2 : grey < 0.5 ? 0 : 1);
      else if (colourType === 4) [level, opacity].forEach(put);
      else [level, level, level, opacity].forEach(put);
    }
    rows.push(filtered(y % 5, row, previous, pixelBytes));
    previous = row;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([depth, colourType, 0, 0, shape.interlaced ? 1 : 0], 8);
  const chunks = [pngChunk('IHDR', header)];
  if (colourType === 3) chunks.push(pngChunk('PLTE', Buffer.from(shape.transparency ? [...palette, 0, 0, 0] : palette)));
  if (shape.transparency) {
    const body = colourType === 3 ? Buffer.from(shape.transparency) : Buffer.alloc(2 * shape.transparency.length);
    if (colourType !== 3) shape.transparency.forEach((value, c) => body.writeUInt16BE(value, 2 * c));
    chunks.push(pngChunk('tRNS', body));
  }
  chunks.push(pngChunk('IDAT', deflateSync(Buffer.concat(rows))), pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([PNG_SIGNATURE, ...chunks]);
}

/** Left half black, right half white. */
const halves: Picture = (x) => ({ grey: x < 100 ? 0 : 1 });
/** Halves, crossed by a diagonal band of the other colour and a white notch: rows that differ, for every filter to predict. */
const crossed: Picture = (x, y) => ({ grey: (x < 100) !== ((x + 2 * y) % 50 < 9) && !(x > 20 && x < 30 && y % 16 < 5) ? 0 : 1 });

// ---------------------------------------------------------------------------------------------
// Reading a raster back.

type Raster = Extract<EscPosEvent, { kind: 'raster' }>;

/** The receipt's GS v 0 rasters, read from its bytes. */
const rastersIn = (bytes: Uint8Array) => readEscPos(bytes).filter((event): event is Raster => event.kind === 'raster');

function rasterOf(command: Uint8Array | null): Raster {
  if (!command) throw new Error('no raster');
  const [raster, ...more] = readEscPos(command);
  if (raster?.kind !== 'raster' || more.length) throw new Error('not one GS v 0 command');
  return raster;
}

/** Whether the dot at (x, y) prints black: bit 7 of each byte is its leftmost dot. */
const isBlack = (raster: Raster, x: number, y: number) => ((raster.data[y * raster.widthBytes + (x >> 3)]! >> (7 - (x & 7))) & 1) === 1;

/** The raster as text, a row a line, `#` black: a failure shows where the picture differs. */
const drawn = (raster: Raster) =>
  Array.from({ length: raster.height }, (_, y) => Array.from({ length: raster.widthBytes * 8 }, (_, x) => (isBlack(raster, x, y) ? '#' : '.')).join('')).join('\n');

/** The picture as the raster should show it, dot for dot (a logo printed at its own size, black under half grey). */
const expected = (picture: Picture, width: number, height: number) =>
  Array.from({ length: height }, (_, y) => Array.from({ length: width }, (_, x) => (picture(x, y).grey < 0.5 && picture(x, y).alpha !== 0 ? '#' : '.')).join('')).join('\n');

const blackShare = (raster: Raster) => {
  let black = 0;
  for (let y = 0; y < raster.height; y++) for (let x = 0; x < raster.widthBytes * 8; x++) if (isBlack(raster, x, y)) black++;
  return black / (raster.height * raster.widthBytes * 8);
};

const stampOf = (png: Buffer, width: number, height: number, media_type: LogoStamp['media_type'] = 'image/png'): LogoStamp => ({
  media_type,
  width,
  height,
  sha256: createHash('sha256').update(png).digest('hex'),
});

// ---------------------------------------------------------------------------------------------

t.test('a logo half black, half white prints as GS v 0 black on the left and white on the right, dot for dot', async (t) => {
  const raster = rasterOf(await logoRaster(pngOf(200, 80, { colourType: 6, depth: 8 }, halves), 58));
  t.match(raster, { mode: 0, widthBytes: 25, height: 80 }, 'normal density, 200 dots (25 bytes) by 80: the logo at its own size');
  for (const y of [0, 39, 79]) {
    t.ok([0, 50, 99].every((x) => isBlack(raster, x, y)), `row ${y}: black on the left`);
    t.ok([100, 150, 199].every((x) => !isBlack(raster, x, y)), `row ${y}: white on the right`);
  }
  t.equal(drawn(raster), expected(halves, 200, 80), 'every dot');
});

t.test('every colour type and bit depth of PNG, through every filter, prints the same picture', async (t) => {
  const shapes: PngShape[] = [
    ...([1, 2, 4, 8, 16] as const).map((depth) => ({ colourType: 0 as const, depth })),
    { colourType: 2, depth: 8 },
    { colourType: 2, depth: 16 },
    ...([1, 2, 4, 8] as const).map((depth) => ({ colourType: 3 as const, depth })),
    { colourType: 4, depth: 8 },
    { colourType: 4, depth: 16 },
    { colourType: 6, depth: 8 },
    { colourType: 6, depth: 16 },
  ];
  const picture = expected(crossed, 200, 80);
  for (const shape of shapes) {
    const raster = rasterOf(await logoRaster(pngOf(200, 80, shape, crossed), 80));
    t.equal(drawn(raster), picture, `colour type ${shape.colourType}, ${shape.depth} bits`);
  }
});

t.test('transparency is laid over the paper\'s white: an alpha channel, a transparent grey, colour or palette entry', async (t) => {
  // Black everywhere, but transparent on the right: the right prints white.
  const clearRight: Picture = (x) => ({ grey: 0, alpha: x < 100 ? 1 : 0 });
  const picture = expected(halves, 200, 80);
  const shapes: PngShape[] = [
    { colourType: 4, depth: 8 },
    { colourType: 6, depth: 16 },
    { colourType: 0, depth: 8, transparency: [77] },
    { colourType: 0, depth: 16, transparency: [1234] },
    { colourType: 2, depth: 8, transparency: [10, 20, 30] },
    { colourType: 2, depth: 16, transparency: [1000, 2000, 3000] },
    { colourType: 3, depth: 4, transparency: [255, 255, 0] },
  ];
  for (const shape of shapes) {
    const raster = rasterOf(await logoRaster(pngOf(200, 80, shape, clearRight), 58));
    t.equal(drawn(raster), picture, `colour type ${shape.colourType}, ${shape.depth} bits${shape.colourType === 4 || shape.colourType === 6 ? '' : ', tRNS'}`);
  }
  const halfClear = rasterOf(await logoRaster(pngOf(200, 80, { colourType: 6, depth: 8 }, () => ({ grey: 0, alpha: 0.5 })), 58));
  t.ok(Math.abs(blackShare(halfClear) - 0.5) < 0.03, `black at half opacity prints as a mid grey, half its dots black (${blackShare(halfClear).toFixed(3)})`);
});

t.test('a grey prints as a spread of dots in proportion (Floyd-Steinberg), not as a block', async (t) => {
  const light = rasterOf(await logoRaster(pngOf(200, 80, { colourType: 0, depth: 8 }, () => ({ grey: 0.75 })), 58));
  t.ok(Math.abs(blackShare(light) - 0.25) < 0.03, `a light grey: a quarter of the dots black (${blackShare(light).toFixed(3)})`);
  t.ok(light.data.some((byte) => byte !== 0 && byte !== 0xff), 'black and white dots mixed within bytes');
});

t.test('the logo spans at most 60 % of the printed line (230 dots on 58 mm, 346 on 80 mm) and at most 160 dots high, never enlarged', async (t) => {
  const wide = pngOf(1200, 300, { colourType: 2, depth: 8 }, (x) => ({ grey: x < 600 ? 0 : 1 }));
  const on58 = rasterOf(await logoRaster(wide, 58));
  const on80 = rasterOf(await logoRaster(wide, 80));
  t.match(on58, { widthBytes: 29, height: 58 }, '58 mm: 230 dots in 29 bytes, 58 high (4:1)');
  t.match(on80, { widthBytes: 44, height: 87 }, '80 mm: 346 dots in 44 bytes, 87 high');
  t.ok(on58.widthBytes * 8 <= PRINTER_DOTS[58] * 0.6 + 8 && on80.widthBytes * 8 <= PRINTER_DOTS[80] * 0.6 + 8, 'within 60 % of the line');
  // The 230 dots sit in 232: one white dot either side keeps the logo centred in its bytes.
  t.ok(!isBlack(on58, 0, 10) && isBlack(on58, 1, 10) && isBlack(on58, 115, 10) && !isBlack(on58, 116, 10) && !isBlack(on58, 231, 10), 'scaled halves, centred in the bytes');

  const square = rasterOf(await logoRaster(pngOf(600, 600, { colourType: 0, depth: 8 }, halves), 80));
  t.match(square, { widthBytes: 20, height: MAX_LOGO_DOTS_HIGH }, 'a square logo: 160 x 160 dots, its height the bound');

  const small = rasterOf(await logoRaster(pngOf(64, 32, { colourType: 0, depth: 8 }, (x) => ({ grey: x < 32 ? 0 : 1 })), 80));
  t.match(small, { widthBytes: 8, height: 32 }, 'a small logo prints at its own size, not enlarged');
});

t.test('a logo of a shape a receipt cannot carry is left off: more than 4 times as wide as high, or more than 1.2 times as high as wide', async (t) => {
  const shape = { colourType: 0 as const, depth: 8 as const };
  t.equal(await logoRaster(pngOf(500, 124, shape, halves), 58), null, '500 x 124 (4.03:1): a strip too thin to read');
  t.not(await logoRaster(pngOf(500, 125, shape, halves), 58), null, '500 x 125 (4:1) prints');
  t.equal(await logoRaster(pngOf(100, 121, shape, halves), 58), null, '100 x 121: a column');
  t.not(await logoRaster(pngOf(100, 120, shape, halves), 58), null, '100 x 120 (a square cropped a little tall) prints');
  const tooWide = pngOf(500, 100, shape, halves);
  const never = async () => {
    t.fail('bytes read for a logo its size rules out');
    return tooWide;
  };
  t.equal(await receiptLogoRaster(stampOf(tooWide, 500, 100), 80, never), null, 'ruled out by its stored size, its bytes never read');
});

t.test('a JPEG or an interlaced PNG logo prints no raster', async (t) => {
  const photo = jpeg({ width: 300, height: 120 });
  const never = async () => {
    t.fail('a JPEG\'s bytes are never read');
    return photo;
  };
  t.equal(await receiptLogoRaster(stampOf(photo, 300, 120, 'image/jpeg'), 80, never), null, 'a JPEG');
  t.equal(await logoRaster(pngOf(200, 80, { colourType: 0, depth: 8, interlaced: true }, halves), 80), null, 'an interlaced PNG');
  t.equal(await logoRaster(photo, 80), null, 'JPEG bytes given as a PNG');
});

t.test('the raster heads the receipt, centred, before the shop\'s name; no logo, no raster', async (t) => {
  const logo = await logoRaster(pngOf(200, 80, { colourType: 6, depth: 8 }, halves), 58);
  const events = readEscPos(renderEscPos(receiptInput(), 58, 'fr', undefined, logo));
  const raster = events.findIndex((event) => event.kind === 'raster');
  const name = events.findIndex((event) => event.kind === 'text' && event.text.includes('Boutique Awa'));
  t.ok(raster > 0 && raster < name, 'the raster comes before the shop\'s name');
  t.same(events.slice(0, raster), [{ kind: 'init' }, { kind: 'codepage', page: 16 }, { kind: 'align', value: 1 }], 'after ESC @ and the code page, centred');
  t.equal(events.filter((event) => event.kind === 'text').length, textLines(readEscPos(renderEscPos(receiptInput(), 58, 'fr'))).length, 'the same lines as without a logo');
  t.equal(rastersIn(renderEscPos(receiptInput(), 58, 'fr')).length, 0, 'no logo, no raster');
  t.equal(rastersIn(renderEscPos(receiptInput(), 58, 'fr', undefined, null)).length, 0, 'a logo left off, no raster');
});

t.test('a reprint decodes nothing: the raster is kept per logo and paper width, the least recently printed dropped past 64', async (t) => {
  const png = pngOf(200, 80, { colourType: 2, depth: 8 }, crossed);
  const stamp = stampOf(png, 200, 80);
  let reads = 0;
  const content = async () => {
    reads++;
    return png;
  };
  const first = await receiptLogoRaster(stamp, 58, content);
  t.same(await receiptLogoRaster(stamp, 58, content), first, 'the same raster again');
  t.equal(reads, 1, 'its bytes read once');
  await receiptLogoRaster(stamp, 80, content);
  t.equal(reads, 2, 'another paper width is another raster');
  await receiptLogoRaster(stamp, 58, content);
  t.equal(reads, 2, 'the 58 mm raster printed again, after the 80 mm one');
  for (let n = 0; n < 63; n++) await receiptLogoRaster({ ...stamp, sha256: `other-${n}` }, 58, content);
  t.equal(reads, 65, '63 other logos decoded: 65 rasters made, one too many');
  await receiptLogoRaster(stamp, 58, content);
  t.equal(reads, 65, 'the 58 mm raster, printed more recently, is kept');
  await receiptLogoRaster(stamp, 80, content);
  t.equal(reads, 66, 'the 80 mm raster, the least recently printed, was dropped: decoded again');
  t.equal(await receiptLogoRaster({ ...stamp, sha256: 'replaced' }, 58, async () => null), null, 'a logo replaced since its stamp was read prints none');
  t.not(await receiptLogoRaster({ ...stamp, sha256: 'replaced' }, 58, content), null, 'and is not remembered as having none');
});

t.test('a 4096 x 4096 logo is rasterised in bounded time', async (t) => {
  // RGBA, every row Paeth-filtered: the most work per pixel a logo can ask. 64 MiB of rows, a few kilobytes compressed.
  const stride = 4096 * 4;
  const rows = Buffer.alloc((stride + 1) * 4096);
  for (let y = 0; y < 4096; y++) {
    rows[y * (stride + 1)] = 4;
    if (y % 64 < 32) rows.fill(0xff, y * (stride + 1) + 1, y * (stride + 1) + 1 + stride / 2);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(4096, 0);
  header.writeUInt32BE(4096, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const png = Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
  const started = performance.now();
  const raster = rasterOf(await logoRaster(png, 58));
  const elapsed = performance.now() - started;
  t.match(raster, { widthBytes: 20, height: 160 }, '160 x 160 dots');
  // About 0.3 s on one core; the bound leaves room for a busy test machine.
  t.ok(elapsed < 2000, `rasterised in ${Math.round(elapsed)} ms`);
});

// ---------------------------------------------------------------------------------------------
// Through the API.

async function putLogo(token: string, bytes: Buffer, contentType: string): Promise<number> {
  const reply = await fetch(`${api.baseUrl}/api/v1/shop/logo`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
  return reply.status;
}

t.test('after PUT /shop/logo, GET /sales/{id}/receipt carries the logo\'s raster, narrower on 58 mm than on 80 mm', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 2500 }, 10);
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 2500 }] });
  const rastersOf = async (width: 58 | 80) => {
    const reply = await api.request('GET', `/sales/${sale.id}/receipt?width=${width}`, { token: owner.token });
    t.equal(reply.status, 200, `${width} mm: 200`);
    return rastersIn(Buffer.from(reply.body.data.base64, 'base64'));
  };
  t.equal((await rastersOf(80)).length, 0, 'no logo, no raster');

  t.equal(await putLogo(owner.token, pngOf(600, 200, { colourType: 6, depth: 8 }, (x) => ({ grey: x < 300 ? 0 : 1 })), 'image/png'), 200, 'the logo is uploaded');
  const [on58] = await rastersOf(58);
  const [on80] = await rastersOf(80);
  t.match(on58, { widthBytes: 29, height: 77 }, '58 mm: 230 x 77 dots');
  t.match(on80, { widthBytes: 44, height: 115 }, '80 mm: 346 x 115 dots');
  t.ok(isBlack(on80!, 10, 50) && !isBlack(on80!, 340, 50), 'the logo\'s own picture: black on the left, white on the right');
  t.same(await rastersOf(58), [on58], 'a reprint prints the same raster');

  t.equal(await putLogo(owner.token, jpeg({ width: 300, height: 120 }), 'image/jpeg'), 200, 'a JPEG replaces it');
  t.equal((await rastersOf(80)).length, 0, 'a JPEG logo prints no raster');

  t.equal(await putLogo(owner.token, pngOf(600, 100, { colourType: 0, depth: 8 }, halves), 'image/png'), 200, 'a 6:1 logo replaces it');
  t.equal((await rastersOf(80)).length, 0, 'too wide for a receipt: no raster');
});
