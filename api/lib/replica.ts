import type { Context, Next } from 'hono';
import type { Config } from '../config.ts';
import { createSql, replicaDatabaseUrl, type Sql, type Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { AppError } from '../errors.ts';
import { inOwnStatements } from '../middleware/auth.ts';
import { answerStreamed } from '../middleware/streaming.ts';
import { inTenant } from '../middleware/tenancy.ts';

/**
 * Reports and exports on a read replica (REPLICA_DATABASE_URL): a streaming standby of the primary that
 * takes their long reads off it. Only the routes wrapped here read it; everything else, a sale and its
 * own GET included, reads and writes the primary, so a write is always seen by the requests that follow.
 *
 * The staleness bound (REPLICA_MAX_LAG_MS) holds for each read itself, not for a figure sampled now and
 * then: the read's own transaction on the replica first asks how far behind the replica is, and when
 * that is past the bound the transaction ends and the read runs on the primary instead. Later statements
 * of the read take fresher snapshots, never older ones. A replica that is down, refuses the app's login,
 * or fails during the read never fails the request: the read runs on the primary, and the replica is
 * left alone for REPLICA_RETRY_MS before a read tries it again.
 */

/** The sentence each such route's description ends with: what a client may see of it. */
export const MAY_LAG =
  'With a read replica configured it may be served from it, up to `REPLICA_MAX_LAG_MS` (30 s by default) behind the latest writes.';

/** A replica that does not answer at once is out of reach: the read goes to the primary after this (seconds). */
const REPLICA_CONNECT_TIMEOUT_S = 2;
/** After the replica failed, reads go straight to the primary for this long: a replica that is down costs one connect timeout, not one per report. */
export const REPLICA_RETRY_MS = 5_000;

/**
 * The pool of the app's login on the replica, made where the primary's is, or undefined without
 * REPLICA_DATABASE_URL. `appUrl` is the primary's app URL: the replica is reached with the same login.
 */
export function openReplica(config: Config, appUrl: string): Sql | undefined {
  if (!config.REPLICA_DATABASE_URL) return undefined;
  return createSql(replicaDatabaseUrl(config.REPLICA_DATABASE_URL, appUrl), {
    max: config.DB_POOL_MAX,
    applicationName: 'pos-api-reports',
    preparedStatements: config.DB_PREPARED_STATEMENTS,
    connectTimeoutSeconds: REPLICA_CONNECT_TIMEOUT_S,
  });
}

/** What the last read found of the replica: a change is logged once, at warn when reads leave it, at info when they come back. */
type Standing = 'serving' | 'lagging' | 'not_standby' | 'failing';

interface Health {
  standing: Standing;
  /** While `failing`: when a read may try the replica again (ms since the epoch). */
  retryAt: number;
}

const HEALTH = new WeakMap<Sql, Health>();

/**
 * How far behind the primary the replica is, in ms, as the app's role may ask on a standby (these
 * functions are PUBLIC; pg_stat_wal_receiver shows it a pid, nothing more). Everything received is
 * replayed while a WAL receiver streams: 0, however long the primary has been idle. Else the age of
 * the last transaction replayed, on the replica's clock (NTP keeps the two servers' in step); null before
 * any was replayed since the standby started, which reads as too far behind. A server that is not
 * in recovery (promoted, or the primary itself) is no replica: after a promotion it no longer follows.
 */
async function freshness(tx: Tx): Promise<{ standby: boolean; lag_ms: number | null }> {
  const [row] = await tx<{ standby: boolean; lag_ms: number | null }[]>`
    select pg_is_in_recovery() as standby,
           case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() and exists (select from pg_stat_wal_receiver) then 0
                else round(extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000) end as lag_ms`;
  return row!;
}

/** The replica declined the read (too far behind, not a standby): not a failure of it. */
class Declined extends Error {}

/**
 * Whether a failure on the replica is worth the read again on the primary: anything but the read's own
 * refusals, which the primary would answer the same (an AppError, a rule raised in SQL, `PB…`, and a
 * statement timeout, 57014, which it would reach as late). So a replica out of reach, refusing the login,
 * shutting down or cancelling the query for a conflict with recovery never fails the request, whatever
 * form the driver or the socket gives its error.
 */
function replicaFailure(error: unknown): boolean {
  if (error instanceof AppError) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return !(typeof code === 'string' && (code.startsWith('PB') || code === '57014'));
}

function note(c: Context<AppEnv>, replica: Sql, standing: Standing, details: Record<string, unknown> = {}): void {
  const health = HEALTH.get(replica) ?? { standing: 'serving', retryAt: 0 };
  HEALTH.set(replica, health);
  if (standing === 'failing') health.retryAt = Date.now() + REPLICA_RETRY_MS;
  if (health.standing === standing) return;
  health.standing = standing;
  if (standing === 'serving') c.var.log.info({ replica: standing }, 'reports read the replica again');
  else c.var.log.warn({ replica: standing, ...details, max_lag_ms: c.var.deps.config.REPLICA_MAX_LAG_MS }, 'reports read the primary');
}

/**
 * `read` in a read-only transaction of the caller's shop on the replica when it is within the bound,
 * else on the primary. `answered` says whether the read has begun sending its answer: a failure after
 * that cannot be read again elsewhere.
 */
async function readWithin<T>(c: Context<AppEnv>, read: (tx: Tx) => Promise<T>, answered: () => boolean = () => false): Promise<T> {
  const scope = c.var.transactionScope!;
  const replica = c.var.deps.replica;
  const health = replica && HEALTH.get(replica);
  if (replica && !(health?.standing === 'failing' && Date.now() < health.retryAt)) {
    try {
      return await inTenant(
        replica,
        scope,
        async (tx) => {
          const { standby, lag_ms } = await freshness(tx);
          const standing: Standing = !standby ? 'not_standby' : lag_ms === null || lag_ms > c.var.deps.config.REPLICA_MAX_LAG_MS ? 'lagging' : 'serving';
          note(c, replica, standing, { lag_ms });
          if (standing !== 'serving') throw new Declined();
          return read(tx);
        },
        { readOnly: true },
      );
    } catch (error) {
      if (!(error instanceof Declined)) {
        if (!replicaFailure(error) || answered()) throw error;
        note(c, replica, 'failing', { error: (error as { code?: unknown }).code, reason: (error as Error).message });
      }
    }
  }
  return inTenant(c.var.deps.sql, scope, read, { readOnly: true });
}

type Handler = (c: Context<AppEnv>, next: Next) => unknown;

/**
 * A report's handler, served from the replica within the bound (else the primary). It runs outside the
 * request's transaction (`inOwnStatements`): the transaction it reads in is opened here, on the server
 * chosen, with the caller's shop and user, and is `c.var.tx` for the handler as for any route. A cached
 * caller's session is checked on the primary by `authenticate` once the handler is done and before
 * anything is sent, never on the replica, where a session just ended may still show.
 */
export function fromReplica<H extends Handler>(handler: H): H {
  return inOwnStatements(((c: Context<AppEnv>, next: Next) =>
    readWithin(c, (tx) => {
      c.set('tx', tx);
      return handler(c, next) as Promise<Response>;
    })) as H);
}

/**
 * The same for an answer streamed from its transaction (GET /fiscal/archive; api/middleware/streaming.ts
 * says how): the transaction, on the server chosen, stays open until the body is sent. A replica that
 * fails before the answer starts hands the read to the primary; once the body has started, the answer
 * is cut, as on the primary.
 */
export function streamedFromReplica<H extends Handler>(handler: H): H {
  return inOwnStatements(((c: Context<AppEnv>, next: Next) =>
    answerStreamed(
      c,
      (work, answered) => readWithin(c, work, answered),
      (tx) => {
        c.set('tx', tx);
        return handler(c, next) as Promise<Response>;
      },
    )) as H);
}
