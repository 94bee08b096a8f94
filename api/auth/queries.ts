import type { Sql, Tx } from '../db.ts';
import type { Role, UserKind } from '../env.ts';

export interface LoginAccount {
  user_id: string;
  shop_id: string | null;
  kind: UserKind;
  role: Role | null;
  password_hash: string;
}

/** The one lookup by e-mail across every shop (SECURITY DEFINER: the caller has no shop yet). */
export async function findLogin(sql: Sql, email: string): Promise<LoginAccount | null> {
  const [account] = await sql<LoginAccount[]>`select * from auth_find_login(${email.trim()})`;
  return account ?? null;
}

export const RESET_TOKEN_MINUTES = 60;

export interface ResetTarget {
  user_id: string;
  name: string;
  email: string;
  locale: 'fr' | 'en';
}

/** Stores the hash of a new reset token for that e-mail's account; null when no account has it. */
export async function requestPasswordReset(tx: Tx, email: string, tokenHash: string): Promise<ResetTarget | null> {
  const [target] = await tx<ResetTarget[]>`
    select * from password_reset_request(${email.trim()}, ${tokenHash}, make_interval(mins => ${RESET_TOKEN_MINUTES}))`;
  return target ?? null;
}

/** Spends a live token: sets the new password and ends every session. False when the token is not good. */
export async function consumePasswordReset(tx: Tx, email: string, tokenHash: string, passwordHash: string): Promise<boolean> {
  const [row] = await tx<{ ok: boolean }[]>`select password_reset_consume(${email.trim()}, ${tokenHash}, ${passwordHash}) as ok`;
  return row!.ok;
}
