import type { Test } from 'tap';
import type { Reply } from './service.ts';

/** The fixed error answers of CONTRACT section 2, exactly as a client receives them. */
export const UNAUTHENTICATED = { message: 'Unauthenticated.', code: 'unauthenticated' };
export const INVALID_CREDENTIALS = { message: 'These credentials do not match our records.', code: 'invalid_credentials' };
export const SUBSCRIPTION_REQUIRED = { message: 'Subscription required.', code: 'subscription_required' };
export const FORBIDDEN = { message: 'This action is unauthorized.', code: 'forbidden' };
export const NOT_FOUND = { message: 'Not found.', code: 'not_found' };
export const MALFORMED_JSON = { message: 'Malformed JSON.', code: 'malformed_json' };

/** One of the fixed answers above: its status and exactly its body. */
export function expectError(t: Test, reply: Reply, status: number, body: { message: string; code: string }, what = ''): void {
  const label = what ? `${what}: ` : '';
  t.equal(reply.status, status, `${label}status ${status}`);
  t.strictSame(reply.body, body, `${label}body ${JSON.stringify(body)}`);
}

/** A 422 whose `errors` name exactly the given inputs, each with at least one message. */
export function expectInvalid(t: Test, reply: Reply, keys: string | string[], what = '', code = 'validation_failed'): void {
  const label = what ? `${what}: ` : '';
  const expected = (Array.isArray(keys) ? [...keys] : [keys]).sort();
  t.equal(reply.status, 422, `${label}status 422 ${reply.status === 422 ? '' : JSON.stringify(reply.body)}`);
  t.equal(reply.body?.message, 'The given data was invalid.', `${label}message`);
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
