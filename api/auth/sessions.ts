import type { Tx } from '../db.ts';
import { signAccessToken } from './tokens.ts';

/** A session lives 30 days; logout, a password change or reset, or removal of the user ends it sooner. */
export const SESSION_DAYS = 30;

/** Opens a session for the transaction's user and returns its bearer token. */
export async function openSession(
  tx: Tx,
  appKey: string,
  user: { id: string; shop_id: string | null },
  deviceName: string | null,
): Promise<string> {
  const [session] = await tx<{ id: string; expires_at: Date }[]>`
    insert into sessions (user_id, shop_id, device_name, expires_at)
    values (${user.id}, ${user.shop_id}, ${deviceName}, now() + make_interval(days => ${SESSION_DAYS}))
    returning id, expires_at`;
  return signAccessToken(appKey, { userId: user.id, sessionId: session!.id, shopId: user.shop_id }, session!.expires_at);
}

export async function revokeSession(tx: Tx, sessionId: string): Promise<void> {
  await tx`update sessions set revoked_at = now() where id = ${sessionId} and revoked_at is null`;
}

/** Ends every session of a user, except the one given (the caller who changed their own password). */
export async function revokeUserSessions(tx: Tx, userId: string, exceptSessionId: string | null = null): Promise<void> {
  await tx`
    update sessions set revoked_at = now()
     where user_id = ${userId} and revoked_at is null and id is distinct from ${exceptSessionId}::uuid`;
}
