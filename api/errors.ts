import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import type { AppEnv } from './env.ts';

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
}

/** The fixed rows of CONTRACT section 2: same status, message and code everywhere. */
export const errors = {
  malformedJson: () => new AppError(400, 'malformed_json', 'Malformed JSON.'),
  unauthenticated: () => new AppError(401, 'unauthenticated', 'Unauthenticated.'),
  deviceUnauthenticated: () => new AppError(401, 'device_unauthenticated', "Identifiants de l'appareil manquants."),
  invalidCredentials: () => new AppError(401, 'invalid_credentials', 'These credentials do not match our records.'),
  subscriptionRequired: () => new AppError(402, 'subscription_required', 'Subscription required.'),
  forbidden: () => new AppError(403, 'forbidden', 'This action is unauthorized.'),
  notFound: () => new AppError(404, 'not_found', 'Not found.'),
  pairingNotFound: () => new AppError(404, 'pairing_not_found', 'No pairing request with this code.'),
  conflict: (code: string, message: string) => new AppError(409, code, message),
  payloadTooLarge: () => new AppError(413, 'payload_too_large', 'Payload too large.'),
  /** A validation failure; `code` is `validation_failed` unless a business rule names its own. */
  invalid: (fieldErrors: FieldErrors, code = 'validation_failed') => new AppError(422, code, 'The given data was invalid.', fieldErrors),
  rateLimited: () => new AppError(429, 'rate_limited', 'Too many attempts.'),
  serverError: () => new AppError(500, 'server_error', 'Server Error.'),
};

/** One failing input with its own message: `invalidField('owner_email', 'The email has already been taken.')`. */
export function invalidField(field: string, message: string, code = 'validation_failed'): AppError {
  return errors.invalid({ [field]: [message] }, code);
}

/** zod issues keyed by dotted path (`items.0.quantity`); the root of a body is `body`. */
export function fromZodError(error: ZodError): AppError {
  const fieldErrors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : 'body';
    (fieldErrors[key] ??= []).push(issue.message);
  }
  return errors.invalid(fieldErrors);
}

interface PostgresErrorLike {
  name: string;
  code: string;
  message: string;
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

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return errors.payloadTooLarge();
    if (error.status === 400 && /json/i.test(error.message)) return errors.malformedJson();
    if (error.status === 401) return errors.unauthenticated();
    return new AppError(error.status as ContentfulStatusCode, 'http_error', error.message || 'Bad request.');
  }
  if (isPostgresError(error)) {
    const mapped = fromDatabaseError(error);
    if (mapped) return mapped;
  }
  return errors.serverError();
}

/** The one error handler: every error leaves the service through here. */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const appError = toAppError(error);
  const log = c.get('log');
  if (appError.status >= 500) {
    log?.error({ err: error }, 'request failed');
  }
  const body: { message: string; code: string; errors?: FieldErrors } = { message: appError.message, code: appError.code };
  if (appError.errors) body.errors = appError.errors;
  // The unread rest of an oversized body makes the connection unusable: tell the client not to reuse it.
  if (appError.status === 413) c.header('Connection', 'close');
  return c.json(body, appError.status);
}
