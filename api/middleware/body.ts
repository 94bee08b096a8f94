import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { AppError, errors } from '../errors.ts';

const MiB = 1024 * 1024;
/** CONTRACT section 2: 1 MiB per body; a sync push may carry 8 MiB. */
export const BODY_LIMIT = 1 * MiB;
export const SYNC_PUSH_BODY_LIMIT = 8 * MiB;
/** CONTRACT section 15: a shop's logo, the image's own bytes (PUT /shop/logo), is at most 256 KiB. */
export const LOGO_BODY_LIMIT = 256 * 1024;

const limitFor = (path: string) => (path.endsWith('/sync/push') ? SYNC_PUSH_BODY_LIMIT : path.endsWith('/shop/logo') ? LOGO_BODY_LIMIT : BODY_LIMIT);

/** `application/json` and its `+json` kinds, as the routes' validators read them. */
const JSON_TYPE = /^application\/([a-z-.]+\+)?json\s*(;|$)/i;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** JSON is UTF-8 (RFC 8259): a body that is not would be decoded with U+FFFD for each bad byte, and stored so. */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the whole request body before anything else runs, within its size limit (413 past it, from
 * the declared length or while reading). A client that trickles its body therefore holds a socket,
 * never a database connection (the HTTP server's request timeout bounds how long), and every answer,
 * a 401 or a 403 included, is given with the body consumed, so a kept-alive connection stays usable.
 * A body that ends early (the client gave up), or a JSON body that is not UTF-8, is a 400
 * `malformed_json`; a body that is not JSON is a 415 `unsupported_media_type` (the route's validator),
 * unless it is empty.
 */
export const readBodyFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  const body = c.req.raw.body;
  if (!body) return next();
  const limit = limitFor(c.req.path);
  const declared = Number(c.req.header('content-length'));
  if (declared > limit) throw errors.payloadTooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) throw errors.payloadTooLarge();
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw errors.malformedJson();
  }
  if (size === 0) {
    // An empty body is no body, whatever its declared type: an operation whose body is optional
    // takes it (a 415 is for a body that is there and is not JSON).
    const { url, method, headers: received, signal } = c.req.raw;
    const headers = new Headers(received);
    headers.delete('content-type');
    c.req.raw = new Request(url, { method, headers, signal });
  } else {
    const bytes = Buffer.concat(chunks, size);
    if (JSON_TYPE.test(c.req.header('content-type') ?? '') && !isUtf8(bytes)) throw errors.malformedJson();
    c.req.raw = new Request(c.req.raw, { body: bytes });
  }
  await next();
};
