import type { Sql, Tx } from '../db.ts';

export interface TenantScope {
  shopId: string | null;
  userId: string | null;
  /** The request the transaction serves: the jobs it queues carry it (`enqueue_job`), and the worker logs it with them. */
  requestId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The statement that sets the shop and the user for the rest of the transaction. `SET LOCAL` rather than
 * `set_config(..., true)`: on Citus (with `citus.propagate_set_commands = local`, which migrate gives the
 * app's logins) a SET LOCAL reaches the worker nodes with the transaction, where row-level security is
 * checked, and set_config does not (tests/platform/citus-cluster.test.ts). SET takes no parameter, so the
 * ids, which only ever come from our own rows, are checked to be UUIDs before they are written into it;
 * sent with the simple protocol, so that no prepared statement is kept per shop.
 */
export function scopeStatement(scope: Pick<TenantScope, 'shopId' | 'userId'>): string {
  const literal = (id: string | null) => {
    if (id !== null && !UUID.test(id)) throw new Error('a tenant scope id is not a UUID');
    return `'${id ?? ''}'`;
  };
  return `set local app.shop_id = ${literal(scope.shopId)}; set local app.user_id = ${literal(scope.userId)}`;
}

/**
 * One transaction with the shop and user set for row-level security (`scopeStatement`), and the
 * request's id for the jobs it queues. Both are local to the transaction, so nothing leaks to the next
 * borrower of the connection.
 *
 * Pipelined on a reserved connection: BEGIN, the scope and the body's first statement leave in one
 * write and cost one round trip (sql.begin waits for BEGIN's answer first: a round trip more on every
 * request; behind PgBouncer, DB_PREPARED_STATEMENTS=false, each waits for the previous answer instead:
 * see createSql). A pooler in transaction mode keeps one server connection from BEGIN to the end, and
 * the scope is local to the transaction. Any failure rolls back before the connection goes back to
 * the pool; a connection that died is closed by the driver, never reused. `readOnly` (GET and HEAD requests): BEGIN READ ONLY, and
 * the answer does not wait for the commit. `check`: a statement sent after the scope and before the
 * body's (the session of a cached caller, authenticate), its outcome the caller's to read.
 */
export async function inTenant<T>(
  sql: Sql,
  scope: TenantScope,
  body: (tx: Tx) => Promise<T>,
  options: { readOnly?: boolean; check?: (tx: Tx) => Promise<void> } = {},
): Promise<T> {
  const connection = await sql.reserve();
  let handedBack = false;
  try {
    const begun = (options.readOnly ? connection`begin read only` : connection`begin`).execute();
    const scoped = Promise.all([
      connection.unsafe(scopeStatement(scope)).simple().execute(),
      connection`select set_config('app.request_id', ${scope.requestId ?? ''}, true)`.execute(),
    ]);
    // `check` (a cached caller's session, authenticate) goes out before the body's first statement.
    const tx = connection as unknown as Tx;
    const checked = options.check ? settled(() => options.check!(tx)) : Promise.resolve();
    // The body settles before anything else is sent: a statement it still had in flight must never
    // run after the rollback, outside the transaction.
    const [begin, scope_, check, outcome] = await Promise.allSettled([begun, scoped, checked, settled(() => body(tx))]);
    const failure = [begin, scope_, check, outcome].find((settled) => settled.status === 'rejected');
    if (failure) {
      await connection`rollback`.catch(() => undefined);
      throw failure.reason;
    }
    const result = (outcome as PromiseFulfilledResult<T>).value;
    if (options.readOnly) {
      // A read-only transaction (PostgreSQL refused any write in it) has nothing to keep: its commit
      // only ends it. Sent, not awaited, so the answer goes out a round trip sooner; the connection
      // returns to the pool once the server has answered the commit, whatever it answers.
      handedBack = true;
      void connection`commit`.then(
        () => connection.release(),
        () => connection.release(),
      );
      return result;
    }
    await connection`commit`;
    return result;
  } finally {
    if (!handedBack) connection.release();
  }
}

/**
 * `run()` as a promise, also when it throws before returning one (a function that is not async, or a
 * query that fails to build): such a throw must reach the rollback above, not leave the transaction
 * open on a connection handed back to the pool.
 */
function settled<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Sets the scope inside a transaction already open (register creates the shop it then works in). */
export async function enterTenant(tx: Tx, scope: TenantScope): Promise<void> {
  await tx.unsafe(scopeStatement(scope)).simple();
  await tx`select set_config('app.request_id', ${scope.requestId ?? ''}, true)`;
}
