import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { AppError, errors } from '../errors.ts';

const MiB = 1024 * 1024;
/** CONTRACT section 2: 1 MiB per body; a sync push may carry 8 MiB. */
export const BODY_LIMIT = 1 * MiB;
export const SYNC_PUSH_BODY_LIMIT = 8 * MiB;

const limitFor = (path: string) => (path.endsWith('/sync/push') ? SYNC_PUSH_BODY_LIMIT : BODY_LIMIT);

/**
 * Reads the whole request body before anything else runs, within its size limit (413 past it, from
 * the declared length or while reading). A client that trickles its body therefore holds a socket,
 * never a database connection (the HTTP server's request timeout bounds how long), and every answer,
 * a 401 or a 403 included, is given with the body consumed, so a kept-alive connection stays usable.
 * A body that ends early (the client gave up) is a 400 `malformed_json`; a body that is not JSON is
 * a 415 `unsupported_media_type` (the route's validator), unless it is empty.
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
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
  }
  await next();
};
