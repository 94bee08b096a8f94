import type { Context, MiddlewareHandler } from 'hono';
import { verifyAccessToken } from '../auth/tokens.ts';
import type { Tx } from '../db.ts';
import type { AppEnv, Caller, Role, UserKind } from '../env.ts';
import { errors } from '../errors.ts';
import { sha256 } from '../lib/secrets.ts';
import { withIdempotencyKey } from './idempotency.ts';
import { inTenant, type TenantScope } from './tenancy.ts';

/** Thrown inside the request transaction to roll it back after the error handler has answered. */
const ROLLBACK = Symbol('rollback');

const BEARER = /^Bearer\s+(\S+)$/i;
const DEVICE = /^Device\s+(\S+)$/i;

/**
 * The request's one transaction: `body` authenticates inside it and then calls the handler; whatever
 * the handler throws, or an error the handler answered, rolls everything back.
 */
async function inRequestTransaction(c: Context<AppEnv>, scope: TenantScope, body: (tx: Tx) => Promise<void>): Promise<void> {
  try {
    await inTenant(c.var.deps.sql, scope, async (tx) => {
      await body(tx);
      if (c.error) throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

type Claims = NonNullable<Awaited<ReturnType<typeof verifyAccessToken>>>;

/** The bearer token's claims, or 401. */
async function bearerClaims(c: Context<AppEnv>): Promise<Claims> {
  const match = BEARER.exec(c.req.header('authorization') ?? '');
  if (!match) throw errors.unauthenticated();
  const claims = await verifyAccessToken(c.var.deps.appKey, match[1]!);
  if (!claims) throw errors.unauthenticated();
  return claims;
}

/** The caller the token's session names, checked under row-level security with its shop and user set; 401 when the session is over. */
async function findCaller(tx: Tx, claims: Claims): Promise<Caller> {
  const [row] = await tx<
    { kind: UserKind; shop_id: string | null; role: Role | null; trial_ends_at: Date | null; subscription_ends_at: Date | null }[]
  >`
    select u.kind, u.shop_id, u.role, sh.trial_ends_at, sh.subscription_ends_at
      from sessions s
      join users u on u.id = s.user_id
      left join shops sh on sh.id = u.shop_id
     where s.id = ${claims.sessionId}
       and s.user_id = ${claims.userId}
       and s.revoked_at is null
       and s.expires_at > now()
       and u.deleted_at is null
       and u.shop_id is not distinct from ${claims.shopId}::uuid`;
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
 * Bearer authentication, and the request's one transaction: the session named by the token is
 * checked under row-level security with the token's shop and user set, and the rest of the request
 * runs in that same transaction. Whatever the handler throws rolls everything back.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const claims = await bearerClaims(c);
  await inRequestTransaction(c, { shopId: claims.shopId, userId: claims.userId }, async (tx) => {
    c.set('caller', await findCaller(tx, claims));
    c.set('tx', tx);
    await withIdempotencyKey(c, tx, next);
  });
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
 * the token's hash names a live device, which names the shop; the request then runs in one
 * transaction of that shop with no user. Missing, unknown or revoked: 401 device_unauthenticated.
 * The device is stamped as seen in its own statement first, so that the request's transaction
 * writes nothing it does not need to (a pull's stays read-only and holds no sync horizon back).
 */
export const authenticateDevice: MiddlewareHandler<AppEnv> = async (c, next) => {
  const device = await deviceOfRequest(c);
  await inRequestTransaction(c, { shopId: device.shopId, userId: null }, async (tx) => {
    c.set('device', device);
    c.set('tx', tx);
    await next();
  });
};

/**
 * For an operation made of operations, each in a transaction of its own (a sync push: one per
 * record): the caller or the device is checked, and no request transaction is held open meanwhile,
 * so that a push holds one pooled connection at a time (holding one while waiting for another, as
 * many pushes as the pool has connections would wait on each other for ever). `c.var.tx` is not set.
 */
export const authenticateEach: MiddlewareHandler<AppEnv> = async (c, next) => {
  const claims = await bearerClaims(c);
  c.set('caller', await inTenant(c.var.deps.sql, { shopId: claims.shopId, userId: claims.userId }, (tx) => findCaller(tx, claims)));
  await next();
};

export const authenticateDeviceEach: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('device', await deviceOfRequest(c));
  await next();
};

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
