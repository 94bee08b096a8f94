import { createHash } from 'node:crypto';
import type { Service } from '../support/service.ts';
import type { Sql, Tx } from '../../api/db.ts';

/**
 * Read-backs and checks of the fiscal chain (CONTRACT section 13), shared by the tests of the chain and
 * of its integrity check: the entries as stored, the chain recomputed here from them with node:crypto
 * and an RFC 8785 serialiser of our own, the integrity check (GET /fiscal/integrity), and tampering
 * done as the database's owner.
 */

export interface FiscalEntry {
  chain_no: number;
  kind: 'sale' | 'void' | 'refund' | 'z' | 'closing';
  ref_id: string;
  occurred_at: Date;
  recorded_at: Date;
  amount_xaf: number;
  previous_hash: string;
  hash: string;
  content: string;
}

/** The shop's entries in chain order, read past row-level security. */
export async function fiscalEntries(api: Service, shopId: string): Promise<FiscalEntry[]> {
  const rows = await api.ownerSql<FiscalEntry[]>`
    select chain_no, kind, ref_id, occurred_at, recorded_at, amount_xaf, previous_hash, hash, content
      from fiscal_entries where shop_id = ${shopId} order by chain_no`;
  return rows.map((row) => ({ ...row }));
}

/**
 * RFC 8785 (JSON Canonicalization Scheme), written apart from the SQL that builds the contents: object
 * keys sorted by UTF-16 code units (what Array.prototype.sort does to strings), no white space, strings
 * and numbers as ECMAScript's JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
    .join(',')}}`;
}

/** Lowercase hex SHA-256 of the previous hash followed by the content, as UTF-8. */
export function chainHash(previousHash: string, content: string): string {
  return createHash('sha256').update(previousHash + content, 'utf8').digest('hex');
}

/**
 * What is wrong with a run of entries starting at entry 1, recomputed here: numbering 1, 2, 3...,
 * each previous_hash the prior entry's hash ('' for entry 1), each hash recomputed, each content in
 * canonical form. Empty when the chain is sound.
 */
export function chainFaults(entries: FiscalEntry[]): string[] {
  const faults: string[] = [];
  entries.forEach((entry, index) => {
    const at = `entry ${entry.chain_no}`;
    if (entry.chain_no !== index + 1) faults.push(`${at} is at position ${index + 1}`);
    const previous = index === 0 ? '' : entries[index - 1]!.hash;
    if (entry.previous_hash !== previous) faults.push(`${at}: previous_hash ${entry.previous_hash} is not ${previous || "''"}`);
    if (entry.hash !== chainHash(entry.previous_hash, entry.content)) faults.push(`${at}: hash is not sha256(previous_hash + content)`);
    if (canonicalJson(JSON.parse(entry.content)) !== entry.content) faults.push(`${at}: content is not canonical JSON`);
  });
  return faults;
}

/** An entry's content, parsed. */
export const contentOf = (entry: FiscalEntry): any => JSON.parse(entry.content);

export interface IntegrityReport {
  ok: boolean;
  checked: number;
  first: { chain_no: number; hash: string } | null;
  last: { chain_no: number; hash: string } | null;
  broken: { chain_no: number | null; kind: string | null; ref_id: string | null; reason: string }[];
  broken_count: number;
}

/** GET /fiscal/integrity?from&to (days of the shop's time zone, either optional) with a manager's or the owner's token: what it found. */
export async function integrity(api: Service, token: string, range: { from?: string; to?: string } = {}): Promise<IntegrityReport> {
  const query = new URLSearchParams(Object.entries(range).filter(([, day]) => day !== undefined) as [string, string][]).toString();
  const reply = await api.request('GET', `/fiscal/integrity${query ? `?${query}` : ''}`, { token });
  if (reply.status !== 200) throw new Error(`integrity check failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** `body` in a transaction of the app role (row-level security binding), in the shop, as the user. */
export async function asApp<T>(api: Service, shopId: string, userId: string | null, body: (tx: Tx) => Promise<T>): Promise<T> {
  return (await api.appSql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${userId ?? ''}, true)`;
    return body(tx);
  })) as T;
}

/**
 * Tampering as someone with the database's owner password would do it: `body` in one transaction of
 * the owner (a superuser) with triggers and foreign keys off (session_replication_role = replica),
 * the fiscal tables' insert-only trigger included.
 */
export async function tamper(api: Service, body: (sql: Tx) => Promise<unknown>): Promise<void> {
  await api.ownerSql.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    await body(sql);
  });
}

/** Thrown to roll a probe's transaction back whatever it did. */
class RolledBack extends Error {}

/**
 * What the database answers to `statement` run by `sql` (the owner's or the app's connection) in a
 * transaction that is rolled back in any case: the error it raised, or null when it was accepted (a
 * refusal that fails to come still changes nothing for the tests that follow).
 */
export async function refusal(sql: Sql, statement: (tx: Tx) => Promise<unknown>, scope?: { shopId: string }): Promise<Error | null> {
  try {
    await sql.begin(async (tx) => {
      if (scope) await tx`select set_config('app.shop_id', ${scope.shopId}, true)`;
      await statement(tx);
      throw new RolledBack();
    });
  } catch (error) {
    return error instanceof RolledBack ? null : (error as Error);
  }
  return null;
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
