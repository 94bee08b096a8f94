import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import t from 'tap';
import type { Test } from 'tap';
import { imageDataUrl, renderPdf } from '../../api/lib/pdf.ts';
import { addStaff, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectError, FORBIDDEN, INVALID_DATA, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { jpeg, png, PNG_SIGNATURE, pngChunk, pngOfSize, pngScanlines } from './image-files.ts';

const api = await startService(t);

const KiB = 1024;
/** CONTRACT section 2's 413, in English: a body too large is refused before its token is read. */
const PAYLOAD_TOO_LARGE = { message: 'Payload too large.', code: 'payload_too_large' };
const LOGO_URL = `${api.baseUrl}/api/v1/shop/logo`;

/** The refusals of PUT /shop/logo, as a French owner reads them. */
const SAYS = {
  notAnImage: 'Doit être une image PNG ou JPEG.',
  damaged: "L'image est endommagée, tronquée ou suivie d'autres données : enregistrez-la de nouveau en PNG ou en JPEG.",
  unprintable: 'Ce JPEG ne peut pas être imprimé (12 bits, sans perte, hiérarchique ou à codage arithmétique) : enregistrez-le en JPEG ordinaire.',
  tooLarge: "L'image doit mesurer au plus 4096 pixels de large et 4096 pixels de haut.",
  elongated: "L'image est trop allongée pour un logo : sa largeur peut valoir au plus 8 fois sa hauteur, et sa hauteur au plus 8 fois sa largeur.",
  mislabelled: 'Le Content-Type ne correspond pas au contenu : envoyez un PNG en image/png et un JPEG en image/jpeg.',
  empty: "Le corps de la requête est vide : envoyez les octets de l'image.",
};

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
}

async function answerOf(response: Response): Promise<Answer> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get('content-type') ?? '').includes('json') && bytes.length > 0;
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(bytes.toString('utf8')) : undefined, bytes };
}

/** PUT /shop/logo with the image's own bytes under `contentType` (none when null). */
async function upload(token: string | undefined, bytes: Buffer, contentType: string | null = 'image/png'): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (contentType !== null) headers['content-type'] = contentType;
  return answerOf(await fetch(LOGO_URL, { method: 'PUT', headers, body: new Uint8Array(bytes) }));
}

async function download(token: string, headers: Record<string, string> = {}): Promise<Answer> {
  return answerOf(await fetch(LOGO_URL, { headers: { authorization: `Bearer ${token}`, ...headers } }));
}

async function remove(token: string): Promise<Answer> {
  return answerOf(await fetch(LOGO_URL, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }));
}

const shopLogo = async (token: string) => (await api.request('GET', '/shop', { token })).body.data.logo;

/** A 422 `invalid_image` on `logo` that says `message`. */
function expectRefused(t: Test, answer: Answer, message: string, what: string): void {
  t.equal(answer.status, 422, `${what}: 422`);
  t.strictSame(answer.body, { message: INVALID_DATA.fr, code: 'invalid_image', errors: { logo: [message] } }, `${what}: invalid_image on logo`);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

t.test('the owner uploads a PNG: the answer and GET /shop give its type, its size in pixels and in bytes', async (t) => {
  const owner = await registerShop(api);
  t.equal(await shopLogo(owner.token), null, 'a new shop has no logo');
  const image = png({ width: 300, height: 120 });
  const answer = await upload(owner.token, image);
  t.equal(answer.status, 200);
  t.match(answer.body, { data: { media_type: 'image/png', width: 300, height: 120, bytes: image.length, updated_at: String } });
  t.strictSame(Object.keys(answer.body.data).sort(), ['bytes', 'height', 'media_type', 'updated_at', 'width'], 'the ShopLogo record');
  t.strictSame(await shopLogo(owner.token), answer.body.data, 'GET /shop shows the same logo');
  const [stored] = await api.ownerSql`select media_type, width, height, sha256, content from shop_logos where shop_id = ${owner.shop.id}`;
  t.strictSame(stored, { media_type: 'image/png', width: 300, height: 120, sha256: sha256(image), content: image }, 'stored as sent, with its SHA-256');
});

t.test('GET /shop/logo answers the very bytes uploaded, their type, an ETag of their SHA-256 and 5 minutes of private caching; its ETag again is a 304', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  expectError(t, await api.request('GET', '/shop/logo', { token: cashier.token }), 404, NOT_FOUND, 'no logo yet: 404');
  const image = png({ width: 300, height: 120, colourType: 6 });
  t.equal((await upload(owner.token, image)).status, 200);
  const answer = await download(cashier.token);
  t.equal(answer.status, 200, 'a cashier reads it');
  t.ok(answer.bytes.equals(image), 'the same bytes');
  t.equal(answer.headers.get('content-type'), 'image/png');
  t.equal(answer.headers.get('etag'), `"${sha256(image)}"`);
  t.equal(answer.headers.get('cache-control'), 'private, max-age=300');
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  const same = await download(cashier.token, { 'if-none-match': `"${sha256(image)}"` });
  t.equal(same.status, 304, 'the same logo: 304');
  t.equal(same.bytes.length, 0, 'with no body');
  t.equal(same.headers.get('etag'), `"${sha256(image)}"`);
  t.equal((await download(cashier.token, { 'if-none-match': `W/"${sha256(image)}", "other"` })).status, 304, 'a weak tag in a list matches too');
  t.equal((await download(cashier.token, { 'if-none-match': `"${sha256(png({ width: 2, height: 2 }))}"` })).status, 200, 'another tag: the image');
});

t.test('a JPEG replaces the PNG, and GET /shop/logo then answers the JPEG', async (t) => {
  const owner = await registerShop(api);
  const first = await upload(owner.token, png({ width: 300, height: 120 }));
  const image = jpeg({ width: 240, height: 96 });
  const answer = await upload(owner.token, image, 'image/jpeg');
  t.equal(answer.status, 200);
  t.match(answer.body.data, { media_type: 'image/jpeg', width: 240, height: 96, bytes: image.length });
  t.ok(Date.parse(answer.body.data.updated_at) >= Date.parse(first.body.data.updated_at), 'updated_at moves on');
  t.strictSame(await shopLogo(owner.token), answer.body.data);
  const stored = await download(owner.token);
  t.equal(stored.headers.get('content-type'), 'image/jpeg');
  t.ok(stored.bytes.equals(image), 'the JPEG\'s bytes');
  t.equal((await api.ownerSql`select count(*)::int as n from shop_logos where shop_id = ${owner.shop.id}`)[0]!.n, 1, 'one logo per shop');
});

t.test('a JPEG turned a quarter by its Exif orientation is stored with its width and height as shown', async (t) => {
  const owner = await registerShop(api);
  const turned = await upload(owner.token, jpeg({ width: 300, height: 120, orientation: 6 }), 'image/jpeg');
  t.match(turned.body.data, { width: 120, height: 300 }, 'orientation 6: shown 120 x 300');
  const upright = await upload(owner.token, jpeg({ width: 300, height: 120, orientation: 1 }), 'image/jpeg');
  t.match(upright.body.data, { width: 300, height: 120 }, 'orientation 1: as stored');
});

t.test('PNGs of every colour type and depth, interlaced or not, and 1 x 1 images are taken', async (t) => {
  const owner = await registerShop(api);
  const kinds = [
    { colourType: 0, depth: 1 }, { colourType: 0, depth: 16 }, { colourType: 2, depth: 16 }, { colourType: 3, depth: 2 }, { colourType: 3, depth: 8 },
    { colourType: 4, depth: 8 }, { colourType: 6, depth: 16 },
  ];
  for (const kind of kinds) {
    for (const interlaced of [false, true]) {
      const answer = await upload(owner.token, png({ width: 37, height: 11, ...kind, interlaced }));
      t.match([answer.status, answer.body?.data], [200, { width: 37, height: 11 }], `${JSON.stringify(kind)}${interlaced ? ', interlaced' : ''}`);
    }
  }
  t.match((await upload(owner.token, png({ width: 1, height: 1 }))).body.data, { width: 1, height: 1 }, 'a 1 x 1 PNG');
  t.match((await upload(owner.token, jpeg({ width: 1, height: 1 }), 'image/jpeg')).body.data, { width: 1, height: 1 }, 'a 1 x 1 JPEG');
  t.match((await upload(owner.token, png({ width: 40, height: 30 }), 'image/png; charset=binary')).body?.data, { width: 40 }, 'parameters of the Content-Type are ignored');
});

t.test('every logo taken is one the PDF engine prints', async (t) => {
  const owner = await registerShop(api);
  for (const [image, type] of [[png({ width: 300, height: 120, colourType: 6, interlaced: true }), 'image/png'], [jpeg({ width: 300, height: 120, orientation: 6 }), 'image/jpeg']] as const) {
    t.equal((await upload(owner.token, image, type)).status, 200, type);
    const stored = await download(owner.token);
    const pdf = await renderPdf({ content: [{ image: imageDataUrl(type, stored.bytes), fit: [200, 80] }, 'Boutique'] });
    t.ok(pdf.subarray(0, 5).toString('latin1') === '%PDF-' && pdf.includes(type === 'image/png' ? '/FlateDecode' : '/DCTDecode'), `${type}: embedded in a PDF`);
  }
});

t.test('DELETE removes the logo; removing a logo the shop does not have is a 204 too', async (t) => {
  const owner = await registerShop(api);
  t.equal((await upload(owner.token, png({ width: 300, height: 120 }))).status, 200);
  const removed = await remove(owner.token);
  t.equal(removed.status, 204);
  t.equal(removed.bytes.length, 0, 'no body');
  t.equal(await shopLogo(owner.token), null, 'GET /shop: no logo');
  expectError(t, await api.request('GET', '/shop/logo', { token: owner.token }), 404, NOT_FOUND, 'GET /shop/logo: 404');
  t.equal((await remove(owner.token)).status, 204, 'again: 204');
});

t.test('only the owner uploads or removes the logo (a manager and a cashier get 403); every shop user reads it', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  const image = png({ width: 300, height: 120 });
  t.equal((await upload(owner.token, image)).status, 200);
  for (const [who, token] of [['manager', manager.token], ['cashier', cashier.token]] as const) {
    const put = await upload(token, jpeg({ width: 80, height: 80 }), 'image/jpeg');
    t.strictSame([put.status, put.body], [403, FORBIDDEN], `${who}: PUT 403`);
    const deleted = await remove(token);
    t.strictSame([deleted.status, deleted.body], [403, FORBIDDEN], `${who}: DELETE 403`);
    const read = await download(token);
    t.ok(read.status === 200 && read.bytes.equals(image), `${who}: reads the owner's logo, unchanged`);
  }
  const anonymous = await upload(undefined, image);
  t.strictSame([anonymous.status, anonymous.body], [401, UNAUTHENTICATED], 'no token: 401');
});

t.test('a shop whose subscription has ended keeps its logo and shows it, but may not change it (402)', async (t) => {
  const owner = await registerShop(api);
  const image = png({ width: 300, height: 120 });
  t.equal((await upload(owner.token, image)).status, 200);
  await expireSubscription(api, owner.shop.id);
  const put = await upload(owner.token, jpeg({ width: 80, height: 80 }), 'image/jpeg');
  t.strictSame([put.status, put.body], [402, SUBSCRIPTION_REQUIRED], 'PUT 402');
  t.strictSame([(await remove(owner.token)).status], [402], 'DELETE 402');
  t.ok((await download(owner.token)).bytes.equals(image), 'GET still answers the logo');
});

t.test('a body over 256 KiB is a 413, refused from its declared length or while it is read; 256 KiB exactly is taken', async (t) => {
  const owner = await registerShop(api);
  const exactly = pngOfSize(256 * KiB);
  t.equal(exactly.length, 262_144);
  const taken = await upload(owner.token, exactly);
  t.match([taken.status, taken.body?.data], [200, { bytes: 262_144 }], '262 144 bytes: taken');
  const over = await upload(owner.token, pngOfSize(256 * KiB + 1));
  t.strictSame([over.status, over.body], [413, PAYLOAD_TOO_LARGE], '262 145 bytes: 413');
  // No declared length: the body comes in chunks, 4 MiB in all, and is refused once past 256 KiB.
  const chunks = Array.from({ length: 64 }, (_, n) => (n === 0 ? pngOfSize(64 * KiB) : Buffer.alloc(64 * KiB)));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const streamed = await fetch(LOGO_URL, {
    method: 'PUT',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'image/png' },
    body: stream,
    duplex: 'half',
  } as RequestInit).then(answerOf);
  t.equal(streamed.status, 413, 'chunked, no length: 413');
  t.match(await shopLogo(owner.token), { bytes: 262_144 }, 'the logo taken before is kept');
});

t.test('bytes that are no PNG or JPEG are a 422 invalid_image on logo, whatever the Content-Type says', async (t) => {
  const owner = await registerShop(api);
  const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21, 0xf9, 4, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b])]);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120"><script>alert(1)</script><rect width="300" height="120"/></svg>');
  const webp = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8L', 'latin1'), Buffer.alloc(18)]);
  for (const [what, bytes, type] of [
    ['a GIF sent as image/gif', gif, 'image/gif'],
    ['a GIF sent as image/png', gif, 'image/png'],
    ['an SVG sent as image/svg+xml', svg, 'image/svg+xml'],
    ['an SVG sent as image/png', svg, 'image/png'],
    ['a WebP', webp, 'image/webp'],
    ['random bytes sent as image/jpeg', Buffer.from('not an image at all, only words'), 'image/jpeg'],
  ] as const) {
    expectRefused(t, await upload(owner.token, bytes, type), SAYS.notAnImage, what);
  }
  t.equal(await shopLogo(owner.token), null, 'nothing was stored');
});

t.test('a PNG or JPEG that is damaged, cut short or goes on after its end is a 422', async (t) => {
  const owner = await registerShop(api);
  const good = png({ width: 300, height: 120 });
  t.equal((await upload(owner.token, good)).status, 200);
  const header = Buffer.concat([PNG_SIGNATURE, good.subarray(8, 33)]);
  const withCrc = (bytes: Buffer, at: number) => Buffer.concat([bytes.subarray(0, at), Buffer.from([bytes[at]! ^ 0xff]), bytes.subarray(at + 1)]);
  const idat = (scanlines: Buffer) => Buffer.concat([header, pngChunk('IDAT', deflateSync(scanlines)), pngChunk('IEND', Buffer.alloc(0))]);
  const rows = pngScanlines({ width: 300, height: 120 });
  const badFilter = Buffer.from(rows);
  badFilter[(rows.length / 120) * 7] = 5;
  const goodJpeg = jpeg({ width: 300, height: 120 });
  const cases: [string, Buffer, string][] = [
    ['a PNG signature on garbage', Buffer.concat([PNG_SIGNATURE, Buffer.from('garbage after the signature, no chunk at all')]), 'image/png'],
    ['a PNG signature alone', PNG_SIGNATURE, 'image/png'],
    ['a PNG cut in its image data', good.subarray(0, good.length - 30), 'image/png'],
    ['a PNG without IEND', good.subarray(0, good.length - 12), 'image/png'],
    ['a PNG with a wrong IHDR CRC', withCrc(good, 29), 'image/png'],
    ['a PNG with a flipped byte in its image data', withCrc(good, 45), 'image/png'],
    ['a PNG whose IHDR says 0 pixels wide', png({ width: 0, height: 120, scanlines: Buffer.alloc(0) }), 'image/png'],
    ['a PNG whose IHDR gives an impossible bit depth', png({ width: 4, height: 4, colourType: 2, depth: 4, scanlines: Buffer.alloc(0) }), 'image/png'],
    ['a PNG whose image data holds fewer rows than its header says', idat(rows.subarray(0, rows.length / 2)), 'image/png'],
    ['a PNG whose image data holds more rows than its header says', idat(Buffer.concat([rows, rows.subarray(0, 901)])), 'image/png'],
    ['a PNG whose image data is not zlib', Buffer.concat([header, pngChunk('IDAT', Buffer.from('deflate? no')), pngChunk('IEND', Buffer.alloc(0))]), 'image/png'],
    ['a PNG row with an unknown filter', idat(badFilter), 'image/png'],
    ['a palette PNG without its palette', Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', Buffer.from([0, 0, 0, 4, 0, 0, 0, 4, 8, 3, 0, 0, 0])), pngChunk('IDAT', deflateSync(Buffer.alloc(20))), pngChunk('IEND', Buffer.alloc(0))]), 'image/png'],
    ['a PNG with an unknown critical chunk', png({ width: 300, height: 120, extraChunks: [pngChunk('ZZZZ', Buffer.from('must be understood'))] }), 'image/png'],
    ['a PNG followed by other bytes', Buffer.concat([good, Buffer.from('PK\u0003\u0004 a zip after the image')]), 'image/png'],
    ['a JPEG cut before its end', goodJpeg.subarray(0, goodJpeg.length - 2), 'image/jpeg'],
    ['a JPEG cut in a segment', goodJpeg.subarray(0, 30), 'image/jpeg'],
    ['a JPEG start marker alone', Buffer.from([0xff, 0xd8]), 'image/jpeg'],
    ['a JPEG with no frame', Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg'],
    ['a JPEG followed by other bytes', Buffer.concat([goodJpeg, Buffer.from('trailing')]), 'image/jpeg'],
    ['a JPEG whose frame says 0 pixels high', jpeg({ width: 300, height: 0 }), 'image/jpeg'],
  ];
  for (const [what, bytes, type] of cases) expectRefused(t, await upload(owner.token, bytes, type), SAYS.damaged, what);
  t.ok((await download(owner.token)).bytes.equals(good), 'the logo taken before is unchanged');
});

t.test('a JPEG documents cannot show (12-bit, lossless, arithmetic-coded) is a 422 that says so', async (t) => {
  const owner = await registerShop(api);
  for (const [what, options] of [
    ['12-bit', { frame: 0xc1, precision: 12 }],
    ['lossless', { frame: 0xc3 }],
    ['arithmetic-coded', { frame: 0xc9 }],
  ] as const) {
    expectRefused(t, await upload(owner.token, jpeg({ width: 64, height: 64, ...options }), 'image/jpeg'), SAYS.unprintable, what);
  }
  t.equal((await upload(owner.token, jpeg({ width: 64, height: 64, frame: 0xc1 }), 'image/jpeg')).status, 200, 'an 8-bit extended sequential JPEG is taken');
});

t.test('a Content-Type that says otherwise than the bytes is a 422; one that names no image type is a 415; an empty body a 422', async (t) => {
  const owner = await registerShop(api);
  expectRefused(t, await upload(owner.token, png({ width: 300, height: 120 }), 'image/jpeg'), SAYS.mislabelled, 'a PNG sent as image/jpeg');
  expectRefused(t, await upload(owner.token, jpeg({ width: 300, height: 120 }), 'image/png'), SAYS.mislabelled, 'a JPEG sent as image/png');
  expectRefused(t, await upload(owner.token, png({ width: 300, height: 120 }), 'image/gif'), SAYS.mislabelled, 'a PNG sent as image/gif');
  const unsupported = { message: "Type de contenu non pris en charge : envoyez l'image en image/png ou image/jpeg.", code: 'unsupported_media_type' };
  for (const type of ['application/octet-stream', 'text/plain', 'multipart/form-data; boundary=x', null]) {
    const answer = await upload(owner.token, png({ width: 300, height: 120 }), type);
    t.strictSame([answer.status, answer.body], [415, unsupported], `a PNG sent as ${type ?? 'nothing'}: 415`);
  }
  const base64 = await upload(owner.token, Buffer.from(JSON.stringify({ content_base64: png({ width: 3, height: 3 }).toString('base64') })), 'application/json');
  t.equal(base64.status, 415, 'JSON with the image in base64 is not taken: the bytes themselves are');
  expectRefused(t, await upload(owner.token, Buffer.alloc(0)), SAYS.empty, 'an empty body');
  expectRefused(t, await upload(owner.token, Buffer.alloc(0), null), SAYS.empty, 'no body at all');
  t.equal(await shopLogo(owner.token), null, 'nothing was stored');
});

t.test('a side over 4096 pixels is a 422; 4096 is taken', async (t) => {
  const owner = await registerShop(api);
  // The header decides: these images' data would be over 50 MB, and is never inflated.
  for (const [what, bytes, type] of [
    ['a PNG 4097 pixels wide', png({ width: 4097, height: 1000, scanlines: Buffer.alloc(10) }), 'image/png'],
    ['a PNG 4097 pixels high', png({ width: 1000, height: 4097, scanlines: Buffer.alloc(10) }), 'image/png'],
    ['a PNG 2 147 483 647 pixels wide', png({ width: 2 ** 31 - 1, height: 2 ** 31 - 1, scanlines: Buffer.alloc(10) }), 'image/png'],
    ['a JPEG 65 535 pixels wide', jpeg({ width: 65_535, height: 10_000, entropy: Buffer.from([0x0f]) }), 'image/jpeg'],
  ] as const) {
    expectRefused(t, await upload(owner.token, bytes, type), SAYS.tooLarge, what);
  }
  const largest = await upload(owner.token, png({ width: 4096, height: 4096, colourType: 0, depth: 1 }));
  t.match([largest.status, largest.body?.data], [200, { width: 4096, height: 4096 }], '4096 x 4096: taken');
});

t.test('a logo more than 8 times as long as high, or as high as long, is a 422 that says why; 8 times is taken', async (t) => {
  const owner = await registerShop(api);
  expectRefused(t, await upload(owner.token, png({ width: 900, height: 100 })), SAYS.elongated, '900 x 100');
  expectRefused(t, await upload(owner.token, png({ width: 100, height: 900 })), SAYS.elongated, '100 x 900');
  expectRefused(t, await upload(owner.token, jpeg({ width: 4096, height: 8 }), 'image/jpeg'), SAYS.elongated, 'a JPEG 4096 x 8');
  expectRefused(t, await upload(owner.token, jpeg({ width: 120, height: 12, orientation: 8 }), 'image/jpeg'), SAYS.elongated, 'a JPEG turned a quarter');
  t.match((await upload(owner.token, png({ width: 800, height: 100 }))).body?.data, { width: 800, height: 100 }, '800 x 100: taken');
  t.match((await upload(owner.token, png({ width: 512, height: 4096, colourType: 0, depth: 1 }))).body?.data, { width: 512, height: 4096 }, '512 x 4096: taken');
});

t.test('another shop never sees the logo, nor removes it', async (t) => {
  const awa = await registerShop(api);
  const other = await registerShop(api);
  const image = png({ width: 300, height: 120 });
  t.equal((await upload(awa.token, image)).status, 200);
  t.equal(await shopLogo(other.token), null, 'GET /shop of the other shop: no logo');
  expectError(t, await api.request('GET', '/shop/logo', { token: other.token }), 404, NOT_FOUND, 'GET /shop/logo of the other shop: 404');
  t.equal((await remove(other.token)).status, 204, 'the other shop removes its own (none)');
  t.ok((await download(awa.token)).bytes.equals(image), 'the first shop\'s logo is still there');
  const theirs = jpeg({ width: 200, height: 100 });
  t.equal((await upload(other.token, theirs, 'image/jpeg')).status, 200, 'the other shop uploads its own');
  t.ok((await download(awa.token)).bytes.equals(image), 'each shop keeps its own');
  t.ok((await download(other.token)).bytes.equals(theirs));
});
