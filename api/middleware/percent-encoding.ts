import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors, type FieldErrors } from '../errors.ts';
import { routeTemplate } from '../metrics/http.ts';

/** The message on a query or path input whose percent-encoding does not decode to UTF-8 (`?q=%FF`). */
export const NOT_UTF8 = 'Must be valid UTF-8.';

/** A `%` not followed by two hex digits is itself, as Hono and URLSearchParams read it. */
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/** The component decoded, or undefined when its percent-escapes are not UTF-8. */
function decoded(component: string): string | undefined {
  if (!component.includes('%')) return component;
  try {
    return decodeURIComponent(component.replace(STRAY_PERCENT, '%25'));
  } catch {
    return undefined;
  }
}

/** The path parameters (`id` of `/api/v1/products/:id`) whose segment in `path` does not decode. */
function undecodableParameters(template: string, path: string): string[] {
  const names = template.split('/');
  const segments = path.split('/');
  const failing: string[] = [];
  names.forEach((name, i) => {
    if (name.startsWith(':') && segments[i] !== undefined && decoded(segments[i]) === undefined) failing.push(name.slice(1).replace(/\{.*$|\?$/, ''));
  });
  return failing;
}

/** The query parameters whose name or value does not decode (`+` is a space); a name that does not decode is keyed as it was sent. */
function undecodableQuery(query: string): string[] {
  const failing: string[] = [];
  for (const pair of query.split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    const rawName = (equals === -1 ? pair : pair.slice(0, equals)).replace(/\+/g, ' ');
    const name = decoded(rawName);
    const value = equals === -1 ? '' : decoded(pair.slice(equals + 1).replace(/\+/g, ' '));
    if (name === undefined || value === undefined) failing.push(name ?? rawName);
  }
  return failing;
}

/**
 * A path parameter or a query parameter (name or value) whose percent-escapes do not decode to UTF-8
 * (`/products/%FF`, `?q=%FF`) is a 422 on its name, `Must be valid UTF-8.`: the router would otherwise
 * keep the escapes as typed and search for them, or answer as if the record were missing. A path no
 * route matches stays a 404.
 */
export const refuseUndecodableUrl: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { url } = c.req;
  if (!url.includes('%')) return next();
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const queryAt = url.indexOf('?', start);
  const path = queryAt === -1 ? url.slice(start) : url.slice(start, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1).split('#')[0]!;
  const failing = [...undecodableParameters(routeTemplate(c), path), ...undecodableQuery(query)];
  if (failing.length) {
    const fieldErrors: FieldErrors = {};
    for (const key of failing) fieldErrors[key] = [NOT_UTF8];
    throw errors.invalid(fieldErrors);
  }
  await next();
};
