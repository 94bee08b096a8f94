import type { Context, MiddlewareHandler } from 'hono';
import type { Sql } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { errors } from '../errors.ts';

/** The limits of CONTRACT section 3. */
export const LIMITS = {
  /** Every public operation, per client address: generous, since many shops share a carrier's NAT. */
  publicPerAddress: { max: 300, window: '15 minutes' },
  failedLoginsPerEmail: { max: 10, window: '15 minutes' },
  forgotPasswordPerEmail: { max: 5, window: '1 hour' },
  registrationsPerEmail: { max: 10, window: '1 hour' },
  /** A mobile-money provider's callbacks (api/billing/routes.ts): each only brings a poll forward. */
  callbacksPerAddress: { max: 120, window: '1 minute' },
} as const;

export type Limit = { max: number; window: string };
export type LimitName = keyof typeof LIMITS;

/** Counts a hit; false once the bucket is over its limit. Counted in PostgreSQL, so it holds across web processes. */
export async function hit(sql: Sql, bucket: string, limit: Limit): Promise<boolean> {
  const [row] = await sql<{ allowed: boolean }[]>`select rate_limit_hit(${bucket}, ${limit.max}, ${limit.window}::interval) as allowed`;
  return row!.allowed;
}

/** Whole seconds until the bucket's window ends and its count starts again: when a refused caller may try again. */
async function retryAfterS(sql: Sql, bucket: string, limit: Limit): Promise<number | undefined> {
  const [row] = await sql<{ seconds: number | null }[]>`select rate_limit_retry_after(${bucket}, ${limit.window}::interval) as seconds`;
  return row?.seconds ?? undefined;
}

/**
 * Counts a hit in `bucket` under the limit `name`: 429 `rate_limited` once over it, counted in the
 * metrics by that name, with `Retry-After` the seconds left in the bucket's window (up to an hour).
 */
export async function withinLimit(c: Context<AppEnv>, name: LimitName, bucket: string): Promise<void> {
  const { sql } = c.var.deps;
  if (await hit(sql, bucket, LIMITS[name])) return;
  c.var.metrics.rateLimited(name);
  throw errors.rateLimited(await retryAfterS(sql, bucket, LIMITS[name]));
}

/** Gives back a hit counted up front for an attempt that did not fail. */
export async function refund(sql: Sql, bucket: string): Promise<void> {
  await sql`select rate_limit_refund(${bucket})`;
}

/**
 * The client's address for per-address limits. Behind TRUST_PROXY proxies, each appended the
 * address it was reached from to X-Forwarded-For: the entry the outermost trusted proxy added is the
 * client's (anything to its left was written by the client itself, and proves nothing). With fewer
 * entries than proxies, the leftmost one.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const { config, clientAddress: fromPlatform } = c.var.deps;
  if (config.TRUST_PROXY > 0) {
    const chain = (c.req.header('x-forwarded-for') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    if (chain.length) return chain[Math.max(0, chain.length - config.TRUST_PROXY)]!;
  }
  return fromPlatform(c) ?? 'unknown';
}

/** Counts every request in the bucket `<kind>:<client address>`, whatever its outcome: 429 once over the limit `name`. */
export function limitByAddress(kind: string, name: LimitName): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await withinLimit(c, name, `${kind}:${clientAddress(c)}`);
    await next();
  };
}

/** Public operations: 300 requests per address in 15 minutes, whatever the outcome. */
export const limitPublicByAddress = limitByAddress('address', 'publicPerAddress');

/** A mobile-money provider's callbacks: each only brings a poll forward, so past the limit the poll asks anyway, later. */
export const limitCallbacksByAddress = limitByAddress('callback', 'callbacksPerAddress');

/** Per e-mail buckets are keyed on the lower-cased address. */
export function emailBucket(kind: string, email: string): string {
  return `${kind}:${email.trim().toLowerCase()}`;
}
