import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { Test } from 'tap';
import { createApp } from '../../api/app.ts';
import { loadConfig, type Config } from '../../api/config.ts';
import { createSql, type Sql } from '../../api/db.ts';
import { createLogger } from '../../api/logger.ts';
import type { Runtime } from '../../api/runtime.ts';
import { nodeClientAddress, serveNode } from '../../api/server.ts';
import { findAppLogin } from '../../db/app-login.ts';
import { databaseUrl, TEST_APP_KEY, TEST_ENV } from './env.ts';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is, for malformed or oversized bodies. */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface Service {
  baseUrl: string;
  /** `request('POST', '/auth/login', {body})`: paths are under /api/v1 unless they start with a '/' outside it (see `raw`). */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Like request, for paths outside /api/v1 (`/healthz`, `/openapi.json`). */
  raw<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Superuser connection to this file's database: for arranging state and reading what the API may not. */
  ownerSql: Sql;
  /** The application's pool, bound by row-level security. */
  appSql: Sql;
  /** The URL of the application's login (the template's login role of TEST_APP_KEY, a member of pos_app), through the run's PgBouncer if any. */
  appUrl: string;
  /** The name of that login role (`pos_app_…`), as pg_stat_activity shows its sessions. */
  appRole: string;
  config: Config;
  runtime: Runtime;
}

/** One HTTP request as the tests send it (a JSON body unless `rawBody`), its JSON answer parsed. */
export async function send<T>(url: string, method: string, options: RequestOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/**
 * `url` through the run's PgBouncer when it has one (`TEST_PGBOUNCER=1`, tests/run.ts: the run then
 * sets DB_PREPARED_STATEMENTS=false too), as operators run the application's connections.
 */
function pooled(url: string): string {
  const port = process.env[TEST_ENV.pgbouncerPort];
  if (!port) return url;
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = port;
  return through.toString();
}

/**
 * A fresh database cloned from the migrated template, and the real app on a real HTTP port in
 * front of it, torn down when the test ends. One per test file.
 */
export async function startService(t: Test, env: Record<string, string> = {}): Promise<Service> {
  const serverUrl = process.env[TEST_ENV.serverUrl];
  const template = process.env[TEST_ENV.templateDb];
  if (!serverUrl || !template) throw new Error('run the tests with `npm test` (tests/run.ts prepares the database)');
  const database = `pos_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}" template "${template}"`);
  await admin.end();

  const ownerUrl = databaseUrl(serverUrl, database);
  const config = loadConfig({ ...process.env, DATABASE_URL: ownerUrl, APP_KEY: TEST_APP_KEY, BCRYPT_ROUNDS: '4', PORT: '0', ...env });
  const ownerSql = createSql(ownerUrl, { max: 2 });
  // The clone has the template's id, so the template's login role (tests/run.ts migrated it with the key).
  const login = (await findAppLogin(ownerSql, TEST_APP_KEY))!;
  const appUrl = pooled(databaseUrl(serverUrl, database, { name: login.role, password: login.password }));
  const appSql = createSql(appUrl, { max: 5, preparedStatements: config.DB_PREPARED_STATEMENTS });
  const log = createLogger(config.LOG_LEVEL);
  const app = createApp({ config, sql: appSql, appKey: TEST_APP_KEY, log, clientAddress: nodeClientAddress });
  const server = await serveNode(app, 0, { hostname: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const runtime: Runtime = { config, appKey: TEST_APP_KEY, ownerUrl, appUrl: async () => appUrl, embedded: false, stop: async () => {} };

  t.teardown(async () => {
    await server.close(0);
    await appSql.end({ timeout: 1 });
    await ownerSql.end({ timeout: 1 });
    const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await dropper.unsafe(`drop database if exists "${database}" with (force)`);
    await dropper.end();
  });

  return {
    baseUrl,
    request: (method, path, options) => send(`${baseUrl}/api/v1${path}`, method, options),
    raw: (method, path, options) => send(`${baseUrl}${path}`, method, options),
    ownerSql,
    appSql,
    appUrl,
    appRole: login.role,
    config,
    runtime,
  };
}
