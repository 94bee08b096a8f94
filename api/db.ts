import postgres from 'postgres';
import { parseDate, parseTimestamp, parseTimestamptz, serializeTime } from './lib/pg-time.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

/**
 * The group role of the web processes: no superuser, no BYPASSRLS, not the owner of any table. It holds
 * every grant and every policy names it; the processes log in as a member of it (db/app-login.ts).
 */
export const APP_DB_ROLE = 'pos_app';

/**
 * A pool for either role. Money is integer XAF stored as bigint and quantities as numeric(14,3):
 * both are safely representable as JS numbers, so they arrive as numbers, never strings. Dates and
 * timestamps arrive as Dates, read exactly whatever their year (api/lib/pg-time.ts; postgres.js's own
 * `new Date(text)` shifted years 1 to 99), and Dates are written exactly too.
 *
 * `preparedStatements: false` (DB_PREPARED_STATEMENTS, behind PgBouncer in transaction mode): each
 * transaction may run on another server connection, so no named statement (it lives in one server
 * session), and no statement sent on a connection while another is still unanswered outside a
 * transaction. An unnamed statement with parameters is parsed, described, then bound once its
 * description is back, with no Sync in between; PgBouncer before 1.21 hands the server connection
 * back at the previous statement's ReadyForQuery, so a statement queued behind it would be parsed on
 * one server and bound on another, or never answered. postgres.js sends a pool's queries behind
 * those of busy connections (pipelining) unless its `max_pipeline` is 0 (patched so that sql.begin
 * still takes its connection: patches/postgres+3.4.9.patch). Inside a transaction the pooler keeps
 * the server, but a statement then waits for the previous answer there too: a round trip more per
 * request, the price of the pooler.
 */
export function createSql(
  url: string,
  options: { max?: number; applicationName?: string; preparedStatements?: boolean; connectTimeoutSeconds?: number } = {},
): Sql {
  const pooled = options.preparedStatements === false;
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    ...(pooled ? { prepare: false, max_pipeline: 0 } : {}),
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'pos-api' },
    types: {
      int8: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
      numeric: { to: 1700, from: [1700], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
      // OIDs 1082 date, 1114 timestamp, 1184 timestamptz (the type of a Date parameter).
      date: { to: 1082, from: [1082], serialize: serializeTime, parse: parseDate },
      timestamp: { to: 1114, from: [1114], serialize: serializeTime, parse: parseTimestamp },
      timestamptz: { to: 1184, from: [1184], serialize: serializeTime, parse: parseTimestamptz },
    },
  });
}

/** The application's connection string: the owner's URL with the app's login role and its password. */
export function appDatabaseUrl(ownerUrl: string, login: { role: string; password: string }): string {
  const url = new URL(ownerUrl);
  url.username = login.role;
  url.password = login.password;
  return url.toString();
}

/**
 * The application's connection string on the read replica: REPLICA_DATABASE_URL's host, port, database and
 * parameters with the login of `appUrl`, which the replica has since it is a physical copy of the primary.
 */
export function replicaDatabaseUrl(replicaUrl: string, appUrl: string): string {
  const app = new URL(appUrl);
  return appDatabaseUrl(replicaUrl, { role: decodeURIComponent(app.username), password: decodeURIComponent(app.password) });
}
