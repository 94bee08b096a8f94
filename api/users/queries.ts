import type { Tx } from '../db.ts';
import { invalidField, onUniqueViolation } from '../errors.ts';
import type { Role } from '../env.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { UserRecord } from './schemas.ts';

interface UserRow {
  id: string;
  kind: UserRecord['kind'];
  shop_id: string | null;
  role: Role | null;
  name: string;
  email: string;
  phone: string | null;
  locale: 'fr' | 'en';
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'kind', 'shop_id', 'role', 'name', 'email', 'phone', 'locale', 'created_at', 'updated_at'] as const;

export function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    kind: row.kind,
    shop_id: row.shop_id,
    role: row.role,
    name: row.name,
    email: row.email,
    phone: row.phone,
    locale: row.locale,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** E-mails are unique across the platform: one login serves every kind of account. */
const emailTaken = (field: string) => () => invalidField(field, 'The email has already been taken.');

export interface NewShopUser {
  shopId: string;
  name: string;
  email: string;
  passwordHash: string;
  role: Role;
  phone: string | null;
  locale: 'fr' | 'en';
}

/** `emailField` names the input an e-mail clash is reported on (`owner_email` at register). */
export async function createShopUser(tx: Tx, user: NewShopUser, emailField = 'email'): Promise<UserRecord> {
  try {
    const [row] = await tx<UserRow[]>`
      insert into users (shop_id, kind, role, name, email, phone, locale, password_hash)
      values (${user.shopId}, 'shop', ${user.role}, ${user.name}, ${user.email.trim()}, ${user.phone}, ${user.locale}, ${user.passwordHash})
      returning ${tx(COLUMNS)}`;
    return toUserRecord(row!);
  } catch (error) {
    onUniqueViolation(error, 'users_email_key', emailTaken(emailField));
  }
}

/** A live user visible to the transaction: a member of its shop, or the caller. */
export async function findUser(tx: Tx, id: string): Promise<UserRecord | null> {
  const [row] = await tx<UserRow[]>`select ${tx(COLUMNS)} from users where id = ${id} and deleted_at is null`;
  return row ? toUserRecord(row) : null;
}

/** The shop's staff, oldest first. */
export async function listShopUsers(tx: Tx, limit: number, after: readonly [string, string] | null): Promise<(UserRow & { cursor_at: string })[]> {
  return tx<(UserRow & { cursor_at: string })[]>`
    select ${tx(COLUMNS)}, ${tx.unsafe(CURSOR_AT('created_at'))} as cursor_at
      from users
     where shop_id = app_shop_id() and deleted_at is null
       ${after ? tx`and (created_at, id) > (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
     order by created_at, id
     limit ${limit + 1}`;
}

export interface UserChanges {
  name?: string;
  email?: string;
  password_hash?: string;
  role?: Role;
  phone?: string | null;
  locale?: 'fr' | 'en';
}

/** Applies the changes to a live user visible to the transaction; null when there is none. A shop's last owner keeps the role (409 `last_owner`). */
export async function updateUser(tx: Tx, id: string, changes: UserChanges): Promise<UserRecord | null> {
  const keys = Object.keys(changes) as (keyof UserChanges)[];
  if (keys.length === 0) return findUser(tx, id);
  if (changes.role !== undefined && changes.role !== 'owner') await tx`select users_keep_an_owner(${id})`;
  try {
    const [row] = await tx<UserRow[]>`
      update users set ${tx(changes, keys)}, updated_at = now() where id = ${id} and deleted_at is null returning ${tx(COLUMNS)}`;
    return row ? toUserRecord(row) : null;
  } catch (error) {
    onUniqueViolation(error, 'users_email_key', emailTaken('email'));
  }
}

/** Soft delete: the row stays for the history that names it; the e-mail becomes free again. Never the shop's last owner (409 `last_owner`). */
export async function deleteShopUser(tx: Tx, id: string): Promise<boolean> {
  await tx`select users_keep_an_owner(${id})`;
  const rows = await tx`
    update users set deleted_at = now(), updated_at = now() where id = ${id} and shop_id = app_shop_id() and deleted_at is null returning id`;
  return rows.length === 1;
}

export async function countStaffByRole(tx: Tx): Promise<Record<Role, number>> {
  const rows = await tx<{ role: Role; count: number }[]>`
    select role, count(*)::int as count from users where shop_id = app_shop_id() and deleted_at is null group by role`;
  const counts: Record<Role, number> = { owner: 0, manager: 0, cashier: 0 };
  for (const row of rows) counts[row.role] = row.count;
  return counts;
}

/** The caller's own password hash (for checking the current password before a change). */
export async function findPasswordHash(tx: Tx, id: string): Promise<string | null> {
  const [row] = await tx<{ password_hash: string }[]>`select password_hash from users where id = ${id} and deleted_at is null`;
  return row?.password_hash ?? null;
}

export interface NewPlatformUser {
  id: string;
  kind: 'partner' | 'admin';
  name: string;
  email: string;
  passwordHash: string;
  phone: string | null;
  locale: 'fr' | 'en';
}

/** A partner or administrator: no shop. The transaction's user must already be `user.id`. */
export async function createPlatformUser(tx: Tx, user: NewPlatformUser): Promise<UserRecord> {
  try {
    const [row] = await tx<UserRow[]>`
      insert into users (id, kind, name, email, phone, locale, password_hash)
      values (${user.id}, ${user.kind}, ${user.name}, ${user.email.trim()}, ${user.phone}, ${user.locale}, ${user.passwordHash})
      returning ${tx(COLUMNS)}`;
    return toUserRecord(row!);
  } catch (error) {
    onUniqueViolation(error, 'users_email_key', emailTaken('email'));
  }
}
