import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';

/** The most a request line and its headers may take: Node's own default, which clients and proxies expect. */
export const HEADER_SECTION_LIMIT = 16 * 1024;

/**
 * The size of a request's line and headers as they came (`GET /path?query HTTP/1.1`, `name: value`
 * lines): the URL as the runtime holds it, percent-encoded, and each header once (a repeated header
 * joined with `, `, about the size it had).
 */
export function headerSectionSize(request: Request): number {
  const { url, method, headers } = request;
  const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  let size = `${method} ${target} HTTP/1.1\r\n\r\n`.length;
  headers.forEach((value, name) => {
    size += name.length + value.length + 4;
  });
  return size;
}

/**
 * A request line and headers over HEADER_SECTION_LIMIT is a 431 `headers_too_large` from the app,
 * through the one error handler, so that it carries `X-Request-Id`, the CORS headers and
 * `Content-Language` as every answer does. The server reads up to 64 KiB of them (api/server.ts
 * MAX_HEADER_SIZE) so that such a request reaches the app; past that the server answers the same 431
 * by itself.
 */
export const limitHeaderSize: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (headerSectionSize(c.req.raw) > HEADER_SECTION_LIMIT) throw errors.headersTooLarge();
  await next();
};
