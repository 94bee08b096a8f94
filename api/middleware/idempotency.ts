import type { Context } from 'hono';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { sha256 } from '../lib/secrets.ts';

/** How long a key's answer is kept (CONTRACT section 5). */
const KEY_LIFETIME = '24 hours';

/**
 * `Idempotency-Key` on an authenticated POST: the first request with a key runs and its successful
 * answer is stored in the same transaction; the same key with the same method, path and body answers
 * that stored answer; the same key with anything else is a 409 idempotency_conflict. Two requests
 * with one key at the same time queue on an advisory lock, so the second replays the first.
 */
export async function withIdempotencyKey(c: Context<AppEnv>, tx: Tx, run: () => Promise<Response>): Promise<Response> {
  const key = c.req.header('idempotency-key');
  if (c.req.method !== 'POST' || key === undefined || c.var.caller?.shopId == null) return run();
  if (key.length < 1 || key.length > 200) throw invalidField('Idempotency-Key', 'Must be 1 to 200 characters.');
  const fingerprint = sha256(`${c.req.method} ${c.req.path}\n${await c.req.text()}`);
  await tx`select pg_advisory_xact_lock(hashtextextended(${`idempotency:${c.var.caller.shopId}:${key}`}, 0))`;
  await tx`delete from idempotency_keys where key = ${key} and created_at <= now() - ${KEY_LIFETIME}::interval`;
  const [stored] = await tx<{ request_hash: string; status: number; response: unknown }[]>`
    select request_hash, status, response from idempotency_keys where key = ${key}`;
  if (stored) {
    if (stored.request_hash !== fingerprint) {
      throw errors.conflict('idempotency_conflict', 'This Idempotency-Key was already used with another request.');
    }
    const headers: Record<string, string> = { 'idempotent-replayed': 'true' };
    if (stored.response !== null) headers['content-type'] = 'application/json';
    return new Response(stored.response === null ? null : JSON.stringify(stored.response), { status: stored.status, headers });
  }
  const response = await run();
  if (response.status >= 300) return response;
  const text = await response.clone().text();
  await tx`
    insert into idempotency_keys (key, request_hash, status, response)
    values (${key}, ${fingerprint}, ${response.status}, ${text ? tx.json(JSON.parse(text)) : null})`;
  return response;
}
