import type { Logger } from 'pino';
import type { Context } from 'hono';
import type { Config } from './config.ts';
import type { Sql, Tx } from './db.ts';
import type { AppMetrics } from './metrics/registry.ts';
import type { TenantScope } from './middleware/tenancy.ts';

export type Role = 'owner' | 'manager' | 'cashier';
export type UserKind = 'shop' | 'partner' | 'admin';

/** Who is calling, read from the session row (never from the token alone). */
export interface Caller {
  userId: string;
  sessionId: string;
  kind: UserKind;
  shopId: string | null;
  role: Role | null;
  /** The user's language (`users.locale`): error messages are written in it. */
  locale: 'fr' | 'en';
  /** End of the shop's trial or paid subscription, whichever is later. */
  shopActiveUntil: Date | null;
}

/** The check of a cached caller: the token's ids, and what the session names now once checked. */
export interface CallerCheck {
  sessionId: string;
  userId: string;
  shopId: string | null;
  fresh?: Caller | null;
}

/** What the app is built from; each entry point (Node, Deno, tests) supplies it. */
export interface Deps {
  config: Config;
  /** Pool of the row-level-security-bound application role. */
  sql: Sql;
  /** The same role's pool on the read replica (REPLICA_DATABASE_URL), read by the reports that may be stale (api/lib/replica.ts). */
  replica?: Sql;
  appKey: string;
  log: Logger;
  /** The caller's address as the platform's server reports it. */
  clientAddress: (c: Context<AppEnv>) => string | undefined;
  /** Set by the entry point when a shutdown begins: GET /readyz answers 503 from then on, while requests are still served. */
  lifecycle?: { stopping: boolean };
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: Deps;
    log: Logger;
    /** This app's metrics (api/metrics/): the rate limits count their refusals there. */
    metrics: AppMetrics;
    caller: Caller;
    /** The till on `/device/sync/*` (device credentials); absent on bearer routes. */
    device?: { id: string; shopId: string };
    /** The shop and user the request's transaction is opened with, once authentication named them. */
    transactionScope?: TenantScope;
    /**
     * A read that started with the caller cached for its session (authenticate): the session is
     * checked again in the request's own transaction, and `fresh` is what that check found (null:
     * the session is over).
     */
    callerCheck?: CallerCheck;
    /** Whether the request was answered 503 at its deadline while its operation goes on (api/middleware/deadline.ts): a long operation stops at its next step. */
    pastDeadline?: () => boolean;
    /** Set by an answer streamed from the request's transaction (api/middleware/streaming.ts): settles once that transaction has ended. */
    answerEnded?: Promise<void>;
    /** Runs a request through the whole app again (a read whose cached caller proved stale). */
    redispatch: (request: Request) => Promise<Response>;
    /**
     * The request's one transaction, with the caller's shop and user set (around the handler only);
     * unset for a handler marked `inOwnStatements` that runs without one.
     */
    tx: Tx;
  };
}
