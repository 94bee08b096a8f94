import type { Test } from 'tap';
import type { Reply } from './service.ts';

export type Locale = 'fr' | 'en';
type Answer = { message: string; code: string };

/** The fixed error answers of CONTRACT section 2, exactly as a client receives them in English (the CONTRACT's texts). */
export const EN = {
  UNAUTHENTICATED: { message: 'Unauthenticated.', code: 'unauthenticated' },
  INVALID_CREDENTIALS: { message: 'These credentials do not match our records.', code: 'invalid_credentials' },
  SUBSCRIPTION_REQUIRED: { message: 'Subscription required.', code: 'subscription_required' },
  FORBIDDEN: { message: 'This action is unauthorized.', code: 'forbidden' },
  NOT_FOUND: { message: 'Not found.', code: 'not_found' },
  MALFORMED_JSON: { message: 'Malformed JSON.', code: 'malformed_json' },
  SERVICE_UNAVAILABLE: { message: 'Service temporarily unavailable: try again shortly.', code: 'service_unavailable' },
} satisfies Record<string, Answer>;

/** The same answers in French. */
export const FR = {
  UNAUTHENTICATED: { message: 'Non authentifié.', code: 'unauthenticated' },
  INVALID_CREDENTIALS: { message: 'Ces identifiants ne correspondent à aucun compte.', code: 'invalid_credentials' },
  SUBSCRIPTION_REQUIRED: { message: 'Abonnement requis.', code: 'subscription_required' },
  FORBIDDEN: { message: 'Action non autorisée.', code: 'forbidden' },
  NOT_FOUND: { message: 'Introuvable.', code: 'not_found' },
  MALFORMED_JSON: { message: 'JSON mal formé.', code: 'malformed_json' },
  SERVICE_UNAVAILABLE: { message: 'Service momentanément indisponible : réessayez dans un instant.', code: 'service_unavailable' },
} satisfies Record<keyof typeof EN, Answer>;

/** The message of every 422, in each language. */
export const INVALID_DATA: Record<Locale, string> = { en: 'The given data was invalid.', fr: 'Les données fournies sont invalides.' };

/*
 * The answers as the fixtures' callers receive them. Error messages follow the caller's language:
 * a user's `locale` (fr unless set: every fixture user, shop staff, partner or administrator, is
 * French), else the request's Accept-Language, else English. So the answers to a token are French,
 * and those to a request with no token (the fixtures send no Accept-Language) are English.
 */
export const UNAUTHENTICATED = EN.UNAUTHENTICATED;
export const INVALID_CREDENTIALS = EN.INVALID_CREDENTIALS;
export const SUBSCRIPTION_REQUIRED = FR.SUBSCRIPTION_REQUIRED;
export const FORBIDDEN = FR.FORBIDDEN;
export const NOT_FOUND = FR.NOT_FOUND;
export const MALFORMED_JSON = FR.MALFORMED_JSON;

/** The language an error answer says it is written in (`Content-Language`). */
export function answerLocale(reply: Reply): string | null {
  return reply.headers.get('content-language');
}

/** One of the fixed answers above: its status and exactly its body. */
export function expectError(t: Test, reply: Reply, status: number, body: { message: string; code: string }, what = ''): void {
  const label = what ? `${what}: ` : '';
  t.equal(reply.status, status, `${label}status ${status}`);
  t.strictSame(reply.body, body, `${label}body ${JSON.stringify(body)}`);
}

/**
 * A 422 whose `errors` name exactly the given inputs, each with at least one message. Its message is
 * the 422's text in the language the answer declares (which language a caller gets is the subject of
 * tests/platform/messages.test.ts).
 */
export function expectInvalid(t: Test, reply: Reply, keys: string | string[], what = '', code = 'validation_failed'): void {
  const label = what ? `${what}: ` : '';
  const expected = (Array.isArray(keys) ? [...keys] : [keys]).sort();
  t.equal(reply.status, 422, `${label}status 422 ${reply.status === 422 ? '' : JSON.stringify(reply.body)}`);
  const locale = answerLocale(reply);
  t.ok(locale === 'fr' || locale === 'en', `${label}in French or English (${locale})`);
  t.equal(reply.body?.message, INVALID_DATA[locale as Locale], `${label}message`);
  t.equal(reply.body?.code, code, `${label}code ${code}`);
  t.strictSame(Object.keys(reply.body?.errors ?? {}).sort(), expected, `${label}errors name ${expected.join(', ')}`);
  for (const key of expected) {
    const messages = reply.body?.errors?.[key];
    t.ok(Array.isArray(messages) && messages.length > 0 && messages.every((m: unknown) => typeof m === 'string' && m.length > 0), `${label}messages for ${key}`);
  }
}

/** A 409 business-rule refusal: the given code and a sentence, nothing else. */
export function expectConflict(t: Test, reply: Reply, code: string, what = ''): void {
  const label = what ? `${what}: ` : '';
  t.equal(reply.status, 409, `${label}status 409`);
  t.equal(reply.body?.code, code, `${label}code ${code}`);
  t.strictSame(Object.keys(reply.body ?? {}).sort(), ['code', 'message'], `${label}only message and code`);
  t.ok(typeof reply.body?.message === 'string' && reply.body.message.length > 0, `${label}a sentence`);
}
