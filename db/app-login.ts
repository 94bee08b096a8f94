/**
 * The login role web processes use: one per database and APP_KEY, a member of the group role pos_app
 * (which holds every grant and which every policy names). Its name and password are derived from the
 * key and the database's id (`database_identity`, made by its first migrate), so every process with
 * the key finds them, and they are the same in a copy made from the database as a template (the tests'
 * databases). `npm run migrate` creates the role when it is missing and never changes it after: the
 * migrate of another database on the server, or one with a new APP_KEY, leaves every running process's
 * login as it is (migration 0034, db/functions/platform/app_logins.sql).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { deriveSecret } from '../api/lib/secrets.ts';

export interface AppLogin {
  role: string;
  password: string;
}

/** The login of `appKey` on the database whose id is `databaseId`. */
export function appLogin(appKey: string, databaseId: string): AppLogin {
  return {
    role: `pos_app_${deriveSecret(appKey, `database login role ${databaseId}`).toString('hex').slice(0, 16)}`,
    password: deriveSecret(appKey, `database login password ${databaseId}`).toString('hex'),
  };
}

/**
 * The login of `appKey` on the database `sql` is connected to, and whether its role exists yet;
 * null on a database never migrated (no `database_identity`).
 */
export async function findAppLogin(sql: postgres.Sql | postgres.TransactionSql, appKey: string): Promise<(AppLogin & { exists: boolean }) | null> {
  const [table] = await sql<{ exists: boolean }[]>`select to_regclass('database_identity') is not null as exists`;
  if (!table!.exists) return null;
  const [identity] = await sql<{ id: string }[]>`select id::text from database_identity`;
  const login = appLogin(appKey, identity!.id);
  const [role] = await sql`select 1 from pg_roles where rolname = ${login.role}`;
  return { ...login, exists: role !== undefined };
}

/**
 * The SCRAM-SHA-256 verifier of `password` as PostgreSQL stores it (RFC 7677; PostgreSQL stores a
 * password given in this form as it is): the password itself never reaches the server nor its log.
 * The password is hex, so SASLprep leaves it unchanged.
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const storedKey = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Inside migrate's transaction, on an up-to-date schema: creates the login of `appKey` when missing
 * and records it as this database's (never changing one that exists), then gives every login role of
 * this database the current settings. Answers the role's name.
 */
export async function ensureAppLogin(tx: postgres.TransactionSql, appKey: string): Promise<string> {
  const login = await findAppLogin(tx, appKey);
  if (!login) throw new Error('database_identity is missing: migration 0034 was not applied');
  await tx`select app_login_ensure(${login.role}, ${scramVerifier(login.password)})`;
  await tx`select app_logins_configure()`;
  return login.role;
}
