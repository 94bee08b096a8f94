import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import type { AppEnv } from './env.ts';
import { escapeHtml } from './lib/html.ts';
import { callerLocale, type Locale, requestLocale } from './lib/locale.ts';
import { localise } from './lib/messages.ts';

export type FieldErrors = Record<string, string[]>;

/**
 * The one error type. Routes and queries throw it; the one handler below writes it out in the
 * CONTRACT's shape `{message, code, errors?}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }

  /** A 429's `Retry-After` in seconds: what is left of a rate limit's window, or a moment for a shop's share; 60 when unknown. */
  retryAfterS?: number;
}

/** The fixed rows of CONTRACT section 2: same status, message and code everywhere. */
export const errors = {
  malformedJson: () => new AppError(400, 'malformed_json', 'Malformed JSON.'),
  /** A request the HTTP server could not read as HTTP (its request line, a header, its chunked framing): api/server.ts. */
  badRequest: () => new AppError(400, 'bad_request', 'Bad request.'),
  unauthenticated: () => new AppError(401, 'unauthenticated', 'Unauthenticated.'),
  deviceUnauthenticated: () => new AppError(401, 'device_unauthenticated', "Identifiants de l'appareil manquants."),
  invalidCredentials: () => new AppError(401, 'invalid_credentials', 'These credentials do not match our records.'),
  subscriptionRequired: () => new AppError(402, 'subscription_required', 'Subscription required.'),
  forbidden: () => new AppError(403, 'forbidden', 'This action is unauthorized.'),
  notFound: () => new AppError(404, 'not_found', 'Not found.'),
  pairingNotFound: () => new AppError(404, 'pairing_not_found', 'No pairing request with this code.'),
  conflict: (code: string, message: string) => new AppError(409, code, message),
  methodNotAllowed: () => new AppError(405, 'method_not_allowed', 'Method not allowed.'),
  /** A request that did not arrive whole within HTTP_REQUEST_TIMEOUT_MS: api/server.ts. */
  requestTimeout: () => new AppError(408, 'request_timeout', 'Request timeout.'),
  payloadTooLarge: () => new AppError(413, 'payload_too_large', 'Payload too large.'),
  unsupportedMediaType: () => new AppError(415, 'unsupported_media_type', 'Unsupported media type: send application/json.'),
  /** A validation failure; `code` is `validation_failed` unless a business rule names its own. */
  invalid: (fieldErrors: FieldErrors, code = 'validation_failed') => new AppError(422, code, 'The given data was invalid.', fieldErrors),
  /** `retryAfterS`: when the refusal is not a rate limit's window (a shop's share of the connections frees within a second). */
  rateLimited: (retryAfterS?: number) => Object.assign(new AppError(429, 'rate_limited', 'Too many attempts.'), { retryAfterS }),
  /** A request line and headers over 16 KiB (api/middleware/header-size.ts), or over the server's own limit (api/server.ts). */
  headersTooLarge: () => new AppError(431, 'headers_too_large', 'Request header fields too large.'),
  serverError: () => new AppError(500, 'server_error', 'Server Error.'),
  /** The database cannot be reached now (lost connection, failover, no free connection in time): try again. */
  serviceUnavailable: () => new AppError(503, 'service_unavailable', 'Service temporarily unavailable: try again shortly.'),
};

/** One failing input with its own message: `invalidField('owner_email', 'The email has already been taken.')`. */
export function invalidField(field: string, message: string, code = 'validation_failed'): AppError {
  return errors.invalid({ [field]: [message] }, code);
}

/** zod issues keyed by dotted path (`items.0.quantity`); the root of a body is `body`. */
export function fromZodError(error: ZodError, rename: (key: string) => string = (key) => key): AppError {
  const fieldErrors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? rename(issue.path.map(String).join('.')) : 'body';
    (fieldErrors[key] ??= []).push(issue.message);
  }
  return errors.invalid(fieldErrors);
}

interface PostgresErrorLike {
  name: string;
  code: string;
  message: string;
  severity?: string;
  detail?: string;
  column_name?: string;
  constraint_name?: string;
}

function isPostgresError(error: unknown): error is PostgresErrorLike {
  return typeof error === 'object' && error !== null && (error as { name?: string }).name === 'PostgresError';
}

/**
 * Business rules raised by PL/pgSQL through `raise_app_error` (SQLSTATE PB<status>, message = code,
 * detail = sentence, column = input key). See db/CONVENTIONS.md.
 */
function fromDatabaseError(error: PostgresErrorLike): AppError | undefined {
  const match = /^PB(\d{3})$/.exec(error.code);
  if (!match) return undefined;
  const status = Number(match[1]) as ContentfulStatusCode;
  const message = error.detail ?? error.message;
  if (status === 422) {
    return errors.invalid({ [error.column_name || 'body']: [message] }, error.message);
  }
  return new AppError(status, error.message, message);
}

/** Maps a unique violation of a named constraint to a domain error; any other error is rethrown. */
export function onUniqueViolation(error: unknown, constraint: string, make: () => AppError): never {
  if (isPostgresError(error) && error.code === '23505' && error.constraint_name === constraint) throw make();
  throw error;
}

// The driver's own connection errors, and the socket's.
const LOST_CONNECTION = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * Whether the database, not the request, failed: the connection was lost or refused (a restart, a
 * failover, a terminated backend: every FATAL ends the session), no pooled connection came in time,
 * or a statement ran past its timeout. Such a request is answered 503 and may be retried as it was.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof code === 'string' && LOST_CONNECTION.has(code)) return true;
  if (!isPostgresError(error)) return false;
  return severity === 'FATAL' || severity === 'PANIC' || error.code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(error.code);
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return errors.payloadTooLarge();
    if (error.status === 415) return errors.unsupportedMediaType();
    if (error.status === 400 && /json/i.test(error.message)) return errors.malformedJson();
    if (error.status === 401) return errors.unauthenticated();
    return new AppError(error.status as ContentfulStatusCode, 'http_error', error.message || 'Bad request.');
  }
  if (isPostgresError(error)) {
    const mapped = fromDatabaseError(error);
    if (mapped) return mapped;
  }
  if (isDatabaseUnavailable(error)) return errors.serviceUnavailable();
  return errors.serverError();
}

/** The CONTRACT's `{message, code, errors?}` of an error, its texts in `locale`: the error handler's answer, and each refused record of a sync push. */
export function errorBody(appError: AppError, locale: Locale): { message: string; code: string; errors?: FieldErrors } {
  const body: { message: string; code: string; errors?: FieldErrors } = { message: localise(appError.message, locale), code: appError.code };
  if (appError.errors) {
    body.errors = Object.fromEntries(Object.entries(appError.errors).map(([key, messages]) => [key, messages.map((m) => localise(m, locale))]));
  }
  return body;
}

/**
 * The one error handler: every error leaves the service through here, its message and each of its
 * field messages in the caller's language (api/lib/locale.ts, api/lib/messages.ts; `Content-Language` says which).
 */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const appError = toAppError(error);
  const log = c.get('log');
  if (appError.status === 503) {
    log?.warn({ err: error }, 'database unavailable');
  } else if (appError.status >= 500) {
    log?.error({ err: error }, 'request failed');
  }
  // A 401 answers a caller the service does not know (a session found over after a cached read started as its user).
  const locale = appError.status === 401 ? requestLocale(c) : callerLocale(c);
  const body = errorBody(appError, locale);
  c.header('Content-Language', locale);
  // The unread rest of an oversized body makes the connection unusable: tell the client not to reuse it.
  if (appError.status === 413) c.header('Connection', 'close');
  // CONTRACT section 16: when to try again, in seconds. A limit's window is at most minutes; a database away, a moment.
  if (appError.status === 429) c.header('Retry-After', String(appError.retryAfterS ?? 60));
  if (appError.status === 503) c.header('Retry-After', '1');
  if (isBrowserOnSharedPage(c)) return c.html(sharedPageError(appError, body.message, locale), appError.status);
  return c.json(body, appError.status);
}

/**
 * A customer who opens a shared link (`/s/...`, sent by WhatsApp or SMS) in a phone's browser is shown
 * a page, not JSON: a browser asks for `text/html` first. Any other client of those addresses (a till,
 * a script) gets the CONTRACT's JSON, as everywhere.
 */
function isBrowserOnSharedPage(c: Context<AppEnv>): boolean {
  return c.req.path.startsWith('/s/') && /^\s*text\/html\b/i.test(c.req.header('accept') ?? '');
}

const LINK_GONE: Record<Locale, string> = {
  fr: 'Ce lien n\'existe pas ou n\'est plus valable. Demandez-en un nouveau à la boutique.',
  en: 'This link does not exist or is no longer valid. Ask the shop for a new one.',
};

/** The error as a small page for a phone: one sentence, nothing fetched. */
function sharedPageError(appError: AppError, message: string, locale: Locale): string {
  const text = appError.status === 404 ? LINK_GONE[locale] : message;
  return [
    '<!DOCTYPE html>',
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${appError.status}</title></head>`,
    `<body style="margin:0;padding:32px 20px;font:16px/1.5 system-ui,sans-serif;color:#222;"><p style="max-width:560px;margin:0 auto;">${escapeHtml(text)}</p></body></html>`,
    '',
  ].join('\n');
}
