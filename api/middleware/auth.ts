import type { Context, MiddlewareHandler, Next } from 'hono';
import type { z } from 'zod';
import { verifyAccessToken } from '../auth/tokens.ts';
import type { Sql, Tx } from '../db.ts';
import type { AppEnv, Caller, CallerCheck, Role, UserKind } from '../env.ts';
import { errors } from '../errors.ts';
import { sha256 } from '../lib/secrets.ts';
import { withIdempotencyKey } from './idempotency.ts';
import { inTenant } from './tenancy.ts';

const BEARER = /^Bearer\s+(\S+)$/i;
const DEVICE = /^Device\s+(\S+)$/i;

type Claims = NonNullable<Awaited<ReturnType<typeof verifyAccessToken>>>;

/** Each request's bearer claims, verified once: the admission's share key (shareKey) and authentication read the same. */
const VERIFIED = new WeakMap<Request, Promise<Claims | null>>();

function verifiedClaims(c: Context<AppEnv>): Promise<Claims | null> {
  let claims = VERIFIED.get(c.req.raw);
  if (!claims) {
    const match = BEARER.exec(c.req.header('authorization') ?? '');
    claims = match ? verifyAccessToken(c.var.deps.appKey, match[1]!).catch(() => null) : Promise.resolve(null);
    VERIFIED.set(c.req.raw, claims);
  }
  return claims;
}

/** The bearer token's claims, or 401. */
async function bearerClaims(c: Context<AppEnv>): Promise<Claims> {
  const claims = await verifiedClaims(c);
  if (!claims) throw errors.unauthenticated();
  return claims;
}

/** The shop of each device token seen lately (by the token's hash), so that a device's requests count against its shop's share. */
const deviceShops = new Map<string, string>();
const DEVICE_SHOPS = 10_000;

/**
 * Whose share of the database connections a request counts against (api/middleware/admission.ts),
 * read before it is admitted and without the database: the shop its verified bearer token names (a
 * partner or an administrator: the user), the shop of a device token seen before (else the device),
 * nothing without credentials. A forged token names nobody: it cannot use up another shop's share.
 */
export async function shareKey(c: Context<AppEnv>): Promise<string | undefined> {
  const device = DEVICE.exec(c.req.header('authorization') ?? '');
  if (device) {
    const hash = sha256(device[1]!);
    const shopId = deviceShops.get(hash);
    return shopId ? `shop:${shopId}` : `device:${hash}`;
  }
  const claims = await verifiedClaims(c);
  if (!claims) return undefined;
  return claims.shopId ? `shop:${claims.shopId}` : `user:${claims.userId}`;
}

type CallerRow = { kind: UserKind; shop_id: string | null; role: Role | null; locale: 'fr' | 'en'; trial_ends_at: Date | null; subscription_ends_at: Date | null };

/** What the session of a token names now (`session_caller`), on `sql` (the pool, or a request's transaction); null when it is over. */
async function callerNow(sql: Sql | Tx, ids: { sessionId: string; userId: string; shopId: string | null }): Promise<Caller | null> {
  const [row] = await sql<CallerRow[]>`
    select kind, shop_id, role, locale, trial_ends_at, subscription_ends_at from session_caller(${ids.sessionId}, ${ids.userId}, ${ids.shopId}::uuid)`;
  if (!row) return null;
  const activeUntil = [row.trial_ends_at, row.subscription_ends_at].filter((d): d is Date => d !== null);
  return {
    userId: ids.userId,
    sessionId: ids.sessionId,
    kind: row.kind,
    shopId: row.shop_id,
    role: row.role,
    locale: row.locale,
    shopActiveUntil: activeUntil.length ? new Date(Math.max(...activeUntil.map((d) => d.getTime()))) : null,
  };
}

/** The caller the token's session names, in one statement and no transaction; 401 when the session is over. */
async function findCaller(sql: Sql, claims: Claims): Promise<Caller> {
  const caller = await callerNow(sql, claims);
  if (!caller) throw errors.unauthenticated();
  return caller;
}

/**
 * The callers of sessions seen lately (at most RECENT_CALLERS, the least recent forgotten first). A
 * read starts with the cached one and checks it in its own transaction (authenticate): the cache
 * saves a round trip, never a check.
 */
const recentCallers = new Map<string, Caller>();
const RECENT_CALLERS = 10_000;

function remember(caller: Caller): void {
  recentCallers.delete(caller.sessionId);
  recentCallers.set(caller.sessionId, caller);
  if (recentCallers.size > RECENT_CALLERS) recentCallers.delete(recentCallers.keys().next().value!);
}

/** What a read's answer depends on: who (kind, shop, role) and the language of its errors. The subscription's end only stops writes. */
const sameForReads = (a: Caller, b: Caller) =>
  a.userId === b.userId && a.kind === b.kind && a.shopId === b.shopId && a.role === b.role && a.locale === b.locale;

/** Requests run again after their cached caller proved stale: they take the long way. */
const RECHECKS = new WeakSet<Request>();
export const isRecheck = (request: Request): boolean => RECHECKS.has(request);

const SPECULATIVE = new Set(['GET', 'HEAD']);

/**
 * Bearer authentication: the token's signature, then its session (one statement). The operation
 * itself then runs in the request's one transaction, with the caller's shop and user set, opened by
 * `inRequestTransaction` around the handler only: role checks and input validation come first and
 * hold no database connection, and whatever the handler throws rolls everything back.
 *
 * A read (GET, HEAD) of a session seen lately starts at once with its cached caller, and the session
 * is checked again inside the request's read-only transaction, pipelined before the handler's own
 * statements (inTenant's `check`): one round trip less, and every request still checked. Nothing
 * leaves before the check is in: a session over is a 401 whatever the handler answered; a caller
 * changed since (another role) runs the request again from the start with the caller it has now.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const claims = await bearerClaims(c);
  c.set('transactionScope', { shopId: claims.shopId, userId: claims.userId, requestId: c.var.requestId });
  const cached = SPECULATIVE.has(c.req.method) && !RECHECKS.has(c.req.raw) ? recentCallers.get(claims.sessionId) : undefined;
  if (!cached) {
    const caller = await findCaller(c.var.deps.sql, claims);
    remember(caller);
    c.set('caller', caller);
    await next();
    return;
  }
  const check: CallerCheck = { sessionId: claims.sessionId, userId: claims.userId, shopId: claims.shopId };
  c.set('caller', cached);
  c.set('callerCheck', check);
  let failure: unknown;
  try {
    await next();
  } catch (error) {
    failure = error;
  }
  // Checked in the request's transaction, or now when the request never opened one (refused before).
  const fresh = check.fresh !== undefined ? check.fresh : await callerNow(c.var.deps.sql, claims);
  // An answer streamed from its own transaction (api/lib/replica.ts) is dropped unsent: cancelling its
  // body ends the transaction at once rather than when the client would have stalled.
  if (!fresh || !sameForReads(fresh, cached)) await c.res.body?.cancel().catch(() => undefined);
  if (!fresh) {
    recentCallers.delete(claims.sessionId);
    throw errors.unauthenticated();
  }
  remember(fresh);
  if (!sameForReads(fresh, cached)) {
    const again = new Request(c.req.raw);
    RECHECKS.add(again);
    const answer = await c.var.redispatch(again);
    // Hono's `c.res` setter merges the answer being replaced into the new one: the stale answer's headers (its Content-Language) must not survive.
    c.res = undefined;
    c.res = answer;
    return;
  }
  if (failure !== undefined) throw failure;
};

/** The check of a cached caller, pipelined in the request's transaction: what the session names now. */
async function checkCaller(tx: Tx, check: CallerCheck): Promise<void> {
  check.fresh = await callerNow(tx, check);
}

/** Device credentials, or 401 device_unauthenticated; the device is stamped as seen and synchronised. */
async function deviceOfRequest(c: Context<AppEnv>): Promise<{ id: string; shopId: string }> {
  const match = DEVICE.exec(c.req.header('authorization') ?? '');
  if (!match) throw errors.deviceUnauthenticated();
  const hash = sha256(match[1]!);
  const [device] = await c.var.deps.sql<{ device_id: string; shop_id: string }[]>`
    select device_id, shop_id from device_authenticate(${hash})`;
  if (!device) throw errors.deviceUnauthenticated();
  if (!deviceShops.has(hash)) {
    if (deviceShops.size >= DEVICE_SHOPS) deviceShops.delete(deviceShops.keys().next().value!);
    deviceShops.set(hash, device.shop_id);
  }
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
  c.set('transactionScope', { shopId: device.shopId, userId: null, requestId: c.var.requestId });
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
    await STEPS_BEFORE.get(handler)?.(c);
    const scope = c.var.transactionScope;
    if (!scope || (OWN_STATEMENTS.has(handler) && c.req.header('idempotency-key') === undefined)) return handler(c, next);
    // A read (GET, HEAD) runs read-only: PostgreSQL refuses any write in it, so its commit need not be awaited.
    const readOnly = c.req.method === 'GET' || c.req.method === 'HEAD';
    const check = c.var.callerCheck;
    return inTenant(
      c.var.deps.sql,
      scope,
      (tx) => {
        c.set('tx', tx);
        return withIdempotencyKey(c, tx, async () => (await handler(c, next)) as Response);
      },
      { readOnly, ...(check ? { check: (tx: Tx) => checkCaller(tx, check) } : {}) },
    );
  }) as H;
}

const OWN_STATEMENTS = new WeakSet<object>();
const STEPS_BEFORE = new WeakMap<object, (c: Context<AppEnv>) => Promise<void>>();

/**
 * Marks a handler with a step that runs once the caller is authorised and the input validated, before
 * the request's transaction opens, so that no transaction is open and no connection held while it
 * works: a call to another company's API (a mobile-money provider: STYLE.md, "Provider connectors"),
 * CPU work on an upload (checking the logo's image), or a short write of its own that a read-only
 * request needs (recording the receipt's QR link before a GET reads the receipt). What the step
 * writes, it writes in short transactions of its own. The handler then runs in the request's
 * transaction as any other, and may throw the step's refusals itself.
 */
export function beforeTransaction<H extends (c: Context<AppEnv>, next: Next) => unknown>(call: (c: Context<AppEnv>) => Promise<void>, handler: H): H {
  STEPS_BEFORE.set(handler, call);
  return handler;
}

/** An input the route's validator has checked, read where the context is not typed by the route (an outside call): typed by its schema. */
export function validInput<S extends z.ZodType>(c: Context<AppEnv>, target: 'json' | 'param' | 'query', _schema: S): z.infer<S> {
  return (c.req.valid as (target: string) => z.infer<S>)(target);
}

/**
 * Marks a handler that opens its own transactions rather than the request's: POST /sales, one
 * autocommit statement (the receipt counter must be held for the commit only, not across round trips),
 * and the reports read where api/lib/replica.ts chooses (a replica or the primary). It runs with no
 * request transaction (`c.var.tx` unset until it sets it) and uses `c.var.transactionScope` itself. With
 * an `Idempotency-Key` it runs in the transaction as every other handler, since the stored answer is
 * written there.
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
