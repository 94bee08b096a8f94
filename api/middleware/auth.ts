import type { Context, MiddlewareHandler, Next } from 'hono';
import { verifyAccessToken } from '../auth/tokens.ts';
import type { Sql } from '../db.ts';
import type { AppEnv, Caller, Role, UserKind } from '../env.ts';
import { errors } from '../errors.ts';
import { sha256 } from '../lib/secrets.ts';
import { withIdempotencyKey } from './idempotency.ts';
import { inTenant } from './tenancy.ts';

const BEARER = /^Bearer\s+(\S+)$/i;
const DEVICE = /^Device\s+(\S+)$/i;

type Claims = NonNullable<Awaited<ReturnType<typeof verifyAccessToken>>>;

/** The bearer token's claims, or 401. */
async function bearerClaims(c: Context<AppEnv>): Promise<Claims> {
  const match = BEARER.exec(c.req.header('authorization') ?? '');
  if (!match) throw errors.unauthenticated();
  const claims = await verifyAccessToken(c.var.deps.appKey, match[1]!);
  if (!claims) throw errors.unauthenticated();
  return claims;
}

/** The caller the token's session names, in one statement and no transaction (`session_caller`); 401 when the session is over. */
async function findCaller(sql: Sql, claims: Claims): Promise<Caller> {
  const [row] = await sql<
    { kind: UserKind; shop_id: string | null; role: Role | null; trial_ends_at: Date | null; subscription_ends_at: Date | null }[]
  >`select kind, shop_id, role, trial_ends_at, subscription_ends_at from session_caller(${claims.sessionId}, ${claims.userId}, ${claims.shopId}::uuid)`;
  if (!row) throw errors.unauthenticated();
  const activeUntil = [row.trial_ends_at, row.subscription_ends_at].filter((d): d is Date => d !== null);
  return {
    userId: claims.userId,
    sessionId: claims.sessionId,
    kind: row.kind,
    shopId: row.shop_id,
    role: row.role,
    shopActiveUntil: activeUntil.length ? new Date(Math.max(...activeUntil.map((d) => d.getTime()))) : null,
  };
}

/**
 * Bearer authentication: the token's signature, then its session (one statement). The operation
 * itself then runs in the request's one transaction, with the caller's shop and user set, opened by
 * `inRequestTransaction` around the handler only: role checks and input validation come first and
 * hold no database connection, and whatever the handler throws rolls everything back.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const claims = await bearerClaims(c);
  c.set('caller', await findCaller(c.var.deps.sql, claims));
  c.set('transactionScope', { shopId: claims.shopId, userId: claims.userId });
  await next();
};

/** Device credentials, or 401 device_unauthenticated; the device is stamped as seen and synchronised. */
async function deviceOfRequest(c: Context<AppEnv>): Promise<{ id: string; shopId: string }> {
  const match = DEVICE.exec(c.req.header('authorization') ?? '');
  if (!match) throw errors.deviceUnauthenticated();
  const [device] = await c.var.deps.sql<{ device_id: string; shop_id: string }[]>`
    select device_id, shop_id from device_authenticate(${sha256(match[1]!)})`;
  if (!device) throw errors.deviceUnauthenticated();
  return { id: device.device_id, shopId: device.shop_id };
}

/**
 * Device credentials (`Authorization: Device <token>`, CONTRACT section 4) for `/device/sync/*`:
 * the token's hash names a live device, which names the shop; the operation then runs in one
 * transaction of that shop with no user. Missing, unknown or revoked: 401 device_unauthenticated.
 * The device is stamped as seen in its own statement first, so that the request's transaction
 * writes nothing it does not need to (a pull's stays read-only and holds no sync horizon back).
 */
export const authenticateDevice: MiddlewareHandler<AppEnv> = async (c, next) => {
  const device = await deviceOfRequest(c);
  c.set('device', device);
  c.set('transactionScope', { shopId: device.shopId, userId: null });
  await next();
};

/**
 * For an operation made of operations, each in a transaction of its own (a sync push: one per
 * record): the caller or the device is checked, and no request transaction is opened, so that a
 * push holds one pooled connection at a time. `c.var.tx` is not set.
 */
export const authenticateEach: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('caller', await findCaller(c.var.deps.sql, await bearerClaims(c)));
  await next();
};

export const authenticateDeviceEach: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('device', await deviceOfRequest(c));
  await next();
};

/**
 * Wraps every route handler (router.ts): when authentication named a scope, the handler runs in the
 * request's one transaction with that shop and user set, behind the `Idempotency-Key` check. The
 * route's middleware and the validators ran before, so no connection is held while they do; an
 * error thrown by the handler rolls the transaction back and reaches the error handler.
 */
export function inRequestTransaction<H extends (c: Context<AppEnv>, next: Next) => unknown>(handler: H): H {
  return (async (c: Context<AppEnv>, next: Next) => {
    const scope = c.var.transactionScope;
    if (!scope || (OWN_STATEMENTS.has(handler) && c.req.header('idempotency-key') === undefined)) return handler(c, next);
    // A read (GET, HEAD) runs read-only: PostgreSQL refuses any write in it, so its commit need not be awaited.
    const readOnly = c.req.method === 'GET' || c.req.method === 'HEAD';
    return inTenant(
      c.var.deps.sql,
      scope,
      (tx) => {
        c.set('tx', tx);
        return withIdempotencyKey(c, tx, async () => (await handler(c, next)) as Response);
      },
      { readOnly },
    );
  }) as H;
}

const OWN_STATEMENTS = new WeakSet<object>();

/**
 * Marks a handler whose whole operation is one autocommit statement of its own (POST /sales: the
 * receipt counter must be held for the commit only, not across round trips): it runs with no request
 * transaction (`c.var.tx` unset) and uses `c.var.transactionScope` itself. With an `Idempotency-Key`
 * it runs in the transaction as every other handler, since the stored answer is written there.
 */
export function inOwnStatements<H extends (c: Context<AppEnv>, next: Next) => unknown>(handler: H): H {
  OWN_STATEMENTS.add(handler);
  return handler;
}

const RANK: Record<Role, number> = { cashier: 1, manager: 2, owner: 3 };

/** Whether `role` is at least `minimum` (cashier < manager < owner). */
export const roleAtLeast = (role: Role, minimum: Role): boolean => RANK[role] >= RANK[minimum];

/** A shop user holding at least `minimum`. Partners and administrators never pass. */
export function requireRole(minimum: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!hasRole(c.var.caller, minimum)) throw errors.forbidden();
    await next();
  };
}

/** `/partner/*` and `/admin/*`: only that kind of account passes. */
export function requireKind(kind: Exclude<UserKind, 'shop'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.var.caller.kind !== kind) throw errors.forbidden();
    await next();
  };
}

export function hasRole(caller: Caller, minimum: Role): boolean {
  return caller.kind === 'shop' && caller.role !== null && roleAtLeast(caller.role, minimum);
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A shop whose trial and subscription have both ended may read but not write: 402. */
export const requireActiveSubscription: MiddlewareHandler<AppEnv> = async (c, next) => {
  const until = c.var.caller.shopActiveUntil;
  if (!READS.has(c.req.method) && until !== null && until.getTime() <= Date.now()) throw errors.subscriptionRequired();
  await next();
};
