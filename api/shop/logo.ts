import { createHash } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { AppError, errors, invalidField } from '../errors.ts';
import { type ImageFacts, type ImageMediaType, type ImageRefusal, readImage } from '../lib/images.ts';
import { beforeTransaction, authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, one, pickErrors, refusals, Text } from '../schemas.ts';
import { SHOP_LOGO } from './examples.ts';
import { ShopLogo } from './schemas.ts';

/**
 * The shop's logo (issue 31, CONTRACT section 15): the owner uploads a PNG or a JPEG, taken as it is
 * once its bytes prove it one (api/lib/images.ts); invoices, quotes, credit notes, e-mails and shared
 * pages print it, each sizing it into its own box from the width and height stored with it.
 */

/** The largest side a logo may have, in pixels: enough for 300 dpi print at any size a document gives it. */
const MAX_SIDE = 4096;
/** How much longer than high (or higher than long) a logo may be: beyond, it prints as a line or a sliver in any box. */
const MAX_RATIO = 8;

const INVALID_IMAGE = 'invalid_image';

/** Why an upload is refused, as the uploader reads it in `errors.logo`. */
const REFUSED: Record<ImageRefusal | 'empty' | 'elongated' | 'mislabelled', string> = {
  empty: 'The body is empty: send the image\'s bytes.',
  not_png_or_jpeg: 'Must be a PNG or JPEG image.',
  damaged: 'The image is damaged, cut short or followed by other data: save it again as PNG or JPEG.',
  unprintable_jpeg: 'This JPEG cannot be printed (12-bit, lossless, hierarchical or arithmetic-coded): save it as an ordinary JPEG.',
  too_large: 'The image must be at most 4096 pixels wide and 4096 pixels high.',
  elongated: 'The image is too elongated for a logo: its width may be at most 8 times its height, and its height at most 8 times its width.',
  mislabelled: 'The Content-Type does not say what the bytes are: send a PNG as image/png and a JPEG as image/jpeg.',
};

const unsupportedMediaType = () => new AppError(415, 'unsupported_media_type', 'Unsupported media type: send the image as image/png or image/jpeg.');

const tags = ['Shop'];

/** The body of PUT /shop/logo under either type: the file's bytes, not JSON. */
const imageBytes = (mediaType: ImageMediaType) => ({
  schema: z.string().openapi({ format: 'binary', description: `The ${mediaType === 'image/png' ? 'PNG' : 'JPEG'} file's bytes, as they are.` }),
});

const putLogo = createRoute({
  method: 'put',
  path: '/shop/logo',
  tags,
  operationId: 'putShopLogo',
  summary: 'Upload the shop\'s logo, a PNG or a JPEG (owner)',
  description: [
    'The owner only (a manager or a cashier gets a 403). The body is the image file\'s own bytes, at most 256 KiB (262 144 bytes; more is a 413),',
    'sent as `image/png` or `image/jpeg`. No JSON and no base64: a third larger on a phone\'s connection, when any till can send a file',
    'as it is. Another `Content-Type` is a 415. The bytes decide what the image is, never the header: a PNG (its signature, a well-formed IHDR,',
    'every chunk\'s CRC, image data that inflates to exactly its rows) or a JPEG (SOI, an 8-bit baseline or progressive frame giving its size,',
    'every segment within the file, EOI last); anything else is a 422 `invalid_image` on `logo` that says why: another format (GIF, SVG, WebP...),',
    'a damaged or cut short file, a `Content-Type` that says otherwise than the bytes, an empty body, a side over 4096 pixels, or a shape more',
    'than 8 times as long as high or as high as long. The image is stored as sent, never re-encoded: each document fits it into its own box',
    'from `width` and `height` (a JPEG\'s as shown, its Exif orientation applied). It replaces the shop\'s logo, if any; GET /shop shows it as `logo`.',
  ].join(' '),
  security: bearer,
  middleware: [authenticate, requireRole('owner'), requireActiveSubscription] as const,
  request: { body: { content: { 'image/png': imageBytes('image/png'), 'image/jpeg': imageBytes('image/jpeg') }, required: true } },
  responses: {
    200: jsonResponse('The logo as stored.', one(ShopLogo), { data: SHOP_LOGO }),
    ...pickErrors(401, 402, 403),
    ...refusals(413, { payload_too_large: 'The image is over 256 KiB (262 144 bytes): refused from its declared length, or as soon as it is read past that.' }),
    ...refusals(415, { unsupported_media_type: 'A `Content-Type` other than an image type: send the bytes as `image/png` or `image/jpeg`.' }),
    ...refusals(422, { [INVALID_IMAGE]: { on: 'logo', meaning: 'Not a PNG or JPEG documents can print, or not of a logo\'s size or shape; the message says why.' } }),
  },
});

const IfNoneMatch = z.object({
  'if-none-match': Text.max(1000)
    .optional()
    .openapi({ description: 'The `ETag` of the logo the till already holds: the same logo answers 304 with no body.' }),
});

const CACHING = {
  ETag: { description: 'The image\'s SHA-256 in hexadecimal, quoted: it changes whenever the logo does.', required: true, schema: { type: 'string' } },
  'Cache-Control': { description: '`private, max-age=300`: a till may show its copy for 5 minutes without asking again.', required: true, schema: { type: 'string' } },
} as const;

const getLogo = createRoute({
  method: 'get',
  path: '/shop/logo',
  tags,
  operationId: 'getShopLogo',
  summary: 'The shop\'s logo itself, as an image (any shop user)',
  description:
    'The bytes PUT /shop/logo stored, under their own `Content-Type` (`image/png` or `image/jpeg`), for a till to show. 404 when the shop has no logo. ' +
    'The `ETag` is the image\'s SHA-256: sent back in `If-None-Match`, it answers 304 while the logo is the same.',
  security: bearer,
  middleware: [authenticate, requireRole('cashier')] as const,
  request: { headers: IfNoneMatch },
  responses: {
    200: {
      description: 'The image.',
      headers: CACHING,
      content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) }, 'image/jpeg': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    304: { description: 'Not modified: the logo is the one `If-None-Match` names. No body.', headers: CACHING },
    ...pickErrors(401, 403, 404),
  },
});

const deleteLogo = createRoute({
  method: 'delete',
  path: '/shop/logo',
  tags,
  operationId: 'deleteShopLogo',
  summary: 'Remove the shop\'s logo (owner)',
  description: 'The owner only (a manager or a cashier gets a 403). Documents print no logo from then on. Removing a logo the shop does not have is a 204 too.',
  security: bearer,
  middleware: [authenticate, requireRole('owner'), requireActiveSubscription] as const,
  responses: {
    204: { description: 'Removed, or there was none.' },
    ...pickErrors(401, 402, 403),
  },
});

/** An upload that passed the checks: the image's facts, its bytes and their SHA-256. */
interface CheckedLogo extends ImageFacts {
  content: Buffer;
  sha256: string;
}

/** Each PUT's checked image, from its check to its handler. */
const checkedLogos = new WeakMap<Request, CheckedLogo>();

/**
 * Checks the upload once the caller is authorised and the request's other inputs validated, before
 * the request's transaction opens (`beforeTransaction`): a PNG's image data is inflated to be checked,
 * and no database connection waits meanwhile.
 */
async function checkLogo(c: Context<AppEnv>): Promise<void> {
  // The body was read whole, within its 256 KiB, before any route ran (api/middleware/body.ts, LOGO_BODY_LIMIT).
  const content = Buffer.from(await c.req.arrayBuffer());
  if (content.length === 0) throw invalidField('logo', REFUSED.empty, INVALID_IMAGE);
  const declared = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!declared.startsWith('image/')) throw unsupportedMediaType();
  const reading = await readImage(content, { maxSide: MAX_SIDE });
  if ('refused' in reading) throw invalidField('logo', REFUSED[reading.refused], INVALID_IMAGE);
  const { image } = reading;
  if (declared !== image.media_type) throw invalidField('logo', REFUSED.mislabelled, INVALID_IMAGE);
  if (Math.max(image.width, image.height) > MAX_RATIO * Math.min(image.width, image.height)) throw invalidField('logo', REFUSED.elongated, INVALID_IMAGE);
  checkedLogos.set(c.req.raw, { ...image, content, sha256: createHash('sha256').update(content).digest('hex') });
}

async function saveLogo(tx: Tx, logo: CheckedLogo): Promise<z.infer<typeof ShopLogo>> {
  const [row] = await tx<{ media_type: ImageMediaType; width: number; height: number; bytes: number; updated_at: Date }[]>`
    insert into shop_logos (shop_id, media_type, content, width, height, sha256)
    values (app_shop_id(), ${logo.media_type}, ${logo.content}, ${logo.width}, ${logo.height}, ${logo.sha256})
    on conflict (shop_id) do update
      set media_type = excluded.media_type, content = excluded.content, width = excluded.width, height = excluded.height,
          sha256 = excluded.sha256, updated_at = now()
    returning media_type, width, height, octet_length(content) as bytes, updated_at`;
  return { ...row!, updated_at: row!.updated_at.toISOString() };
}

async function findLogoFile(tx: Tx): Promise<{ media_type: ImageMediaType; content: Buffer; sha256: string } | undefined> {
  const [logo] = await tx<{ media_type: ImageMediaType; content: Buffer; sha256: string }[]>`
    select media_type, content, sha256 from shop_logos where shop_id = app_shop_id()`;
  return logo;
}

/** Whether an `If-None-Match` names `etag` (RFC 9110 section 13.1.2: weak comparison, `*` for any). */
function namesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

export const logoRoutes = newRouter()
  .openapi(
    putLogo,
    beforeTransaction(checkLogo, async (c) => c.json({ data: await saveLogo(c.var.tx, checkedLogos.get(c.req.raw)!) }, 200)),
  )
  .openapi(getLogo, async (c) => {
    const logo = await findLogoFile(c.var.tx);
    if (!logo) throw errors.notFound();
    const caching = { etag: `"${logo.sha256}"`, 'cache-control': 'private, max-age=300' };
    if (namesTag(c.req.valid('header')['if-none-match'], caching.etag)) return c.body(null, 304, caching);
    // Served as the type its bytes proved, and never sniffed as another.
    return c.body(new Uint8Array(logo.content), 200, { ...caching, 'content-type': logo.media_type, 'x-content-type-options': 'nosniff' });
  })
  .openapi(deleteLogo, async (c) => {
    await c.var.tx`delete from shop_logos where shop_id = app_shop_id()`;
    return c.body(null, 204);
  });
