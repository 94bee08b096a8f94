/**
 * What the benchmarks share: a throw-away database `pos_bench_<random>` on DATABASE_URL's server
 * (default postgres://postgres@127.0.0.1:5432/postgres; the role must be able to create databases,
 * roles and extensions), migrated with db/migrate.ts; the real app (createApp + serveNode on a free
 * port) connected as the database's login role (a member of pos_app, db/app-login.ts), in this
 * process or as a process of its own (the Procfile's web role); the database and its login role
 * dropped at the end, also on failure or Ctrl-C; small HTTP and statistics helpers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { createApp } from '../api/app.ts';
import { loadConfig } from '../api/config.ts';
import { APP_DB_ROLE, createSql, type Sql } from '../api/db.ts';
import { createLogger } from '../api/logger.ts';
import { nodeClientAddress, serveNode, type HttpServer } from '../api/server.ts';
import { findAppLogin } from '../db/app-login.ts';
import { migrate } from '../db/migrate.ts';

export const SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** The benches' own key: the login role of each bench database is derived from it, as tests/run.ts does from its key. */
export const BENCH_APP_KEY = 'bench-app-key-0123456789abcdef0123456789abcdef';
export const PASSWORD = 'bench-password-1234';

export function databaseUrl(serverUrl: string, database: string, user?: { name: string; password: string }): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  if (user) {
    url.username = user.name;
    url.password = user.password;
  }
  return url.toString();
}

/** Nearest-rank percentile of sorted samples. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;

export interface Timing {
  median: number;
  p99: number;
  min: number;
  max: number;
}

export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;
export const count = (value: number) => value.toLocaleString('en-US');
export const say = (line = '') => process.stdout.write(`${line}\n`);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A JSON request to the API; the body parsed (null when empty). */
export async function request(baseUrl: string, method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : null };
}

export async function register(baseUrl: string, shopName: string, email: string): Promise<{ shopId: string; userId: string }> {
  const reply = await request(baseUrl, 'POST', '/auth/register', {
    body: { shop_name: shopName, owner_name: 'Bench Owner', owner_email: email, password: PASSWORD, city: 'Douala' },
  });
  if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { shopId: reply.body.data.shop.id, userId: reply.body.data.user.id };
}

export async function login(baseUrl: string, email: string, deviceName = 'Bench'): Promise<{ token: string; userId: string }> {
  const reply = await request(baseUrl, 'POST', '/auth/login', { body: { email, password: PASSWORD, device_name: deviceName } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { token: reply.body.data.token as string, userId: reply.body.data.user.id as string };
}

/** The real app, served on a free port of 127.0.0.1, connected as pos_app. */
export interface RunningApp {
  baseUrl: string;
  sql: Sql;
  server: HttpServer;
  /** Stops the server, then closes its pool (also done at cleanup). */
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc's CPU times. */
export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * One request over a kept-alive connection of `agent` (node:http: a till's own connection, cheaper
 * for the load's process than fetch): the status and the body, or a rejection after 60 s.
 */
export function send(agent: http.Agent, method: string, url: URL, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = http.request(url, { method, agent, headers: sent, timeout: 60_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 60 s')));
    request.on('error', reject);
    request.end(body);
  });
}

/** The app as a process of its own (`api/web.ts`, the Procfile's web role), as in production. */
export interface AppProcess {
  baseUrl: string;
  /** CPU ms (user + system) the process used so far, from /proc (null where there is none). */
  cpuMs(): number | null;
  /** SIGTERM (the app drains and closes its pool), then waits for the process to end. */
  stop(): Promise<void>;
}

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** A TCP port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** CPU ms (user + system) of a process of this machine, from /proc/<pid>/stat; null when unreadable. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * CPU ms (user + system) used so far by every process named `postgres` on this machine (the
 * backends, the WAL writer, the checkpointer, autovacuum), and by those that ended: the postmaster's
 * cutime and cstime hold its children's once it has reaped them (pgbench's sessions end with it).
 * Null when there is none (a remote server).
 */
export function postgresCpuMs(): number | null {
  let total = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      // utime, stime, cutime, cstime (fields 14 to 17 of the line).
      total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
      found = true;
    } catch {
      // The process ended while being read.
    }
  }
  return found ? total : null;
}

/**
 * One benchmark run: its throw-away database, what must be closed before the database is dropped,
 * and the clean-up that runs once, at the end, on failure or on SIGINT / SIGTERM.
 */
export class BenchRun {
  readonly database = `pos_bench_${randomBytes(6).toString('hex')}`;
  readonly ownerUrl = databaseUrl(SERVER_URL, this.database);
  /** True once a signal asked the run to stop: the failure that follows is not reported. */
  interrupted = false;
  private created = false;
  /** The database's login role for BENCH_APP_KEY, made by createAndMigrate and dropped with the database. */
  private login: { role: string; password: string } | undefined;
  private readonly closers: (() => unknown)[] = [];
  private cleaning: Promise<void> | undefined;

  constructor(private readonly name: string) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.interrupted) return;
        this.interrupted = true;
        // Work still in flight fails as its connections close: that must not end the process
        // before the database and its login role are dropped.
        process.on('unhandledRejection', () => {});
        process.stderr.write(`\n${signal}: dropping ${this.database}\n`);
        void this.cleanup().then(() => process.exit(130));
      });
    }
  }

  /** Runs at cleanup, in the order given, before the database and its login role are dropped. */
  closeAtEnd(close: () => unknown): void {
    this.closers.push(close);
  }

  /** The URL of the database's login role; known once createAndMigrate has run. */
  get appUrl(): string {
    if (!this.login) throw new Error('the bench database is not migrated yet');
    return databaseUrl(SERVER_URL, this.database, { name: this.login.role, password: this.login.password });
  }

  /**
   * Creates the database and migrates it, which makes the database's own login role for
   * BENCH_APP_KEY (a role of the server: cleanup drops it with the database).
   */
  async createAndMigrate(): Promise<void> {
    const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database "${this.database}"`);
      this.created = true;
    } finally {
      await admin.end();
    }
    await migrate(this.ownerUrl, { appKey: BENCH_APP_KEY });
    const owner = postgres(this.ownerUrl, { max: 1, onnotice: () => {} });
    try {
      this.login = (await findAppLogin(owner, BENCH_APP_KEY))!;
    } finally {
      await owner.end();
    }
  }

  /**
   * Starts the real app on a free port as the login role, with a pool of `poolMax` connections, and
   * checks that it is bound by row-level security (a member of pos_app, no BYPASSRLS, no superuser).
   */
  async startApp(options: { poolMax: number; applicationName: string }): Promise<RunningApp> {
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: this.ownerUrl,
      APP_KEY: BENCH_APP_KEY,
      BCRYPT_ROUNDS: '4',
      PORT: '0',
      LOG_LEVEL: 'silent',
      DB_POOL_MAX: String(options.poolMax),
    });
    const sql = createSql(this.appUrl, { max: options.poolMax, applicationName: options.applicationName });
    let server: HttpServer | undefined;
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        try {
          await server?.close(0);
        } finally {
          await sql.end({ timeout: 1 });
        }
      })());
    this.closeAtEnd(stop);
    const app = createApp({ config, sql, appKey: BENCH_APP_KEY, log: createLogger('silent'), clientAddress: nodeClientAddress });
    server = await serveNode(app, 0, { hostname: '127.0.0.1' });
    const [whoami] = await sql<{ user: string; member: boolean; rls: boolean }[]>`
      select current_user as user, pg_has_role(current_user, ${APP_DB_ROLE}, 'usage') as member,
             (select rolbypassrls or rolsuper from pg_roles where rolname = current_user) as rls`;
    if (!whoami!.member || whoami!.rls) throw new Error(`the app must connect as a member of ${APP_DB_ROLE} without BYPASSRLS, not ${whoami!.user}`);
    return { baseUrl: `http://127.0.0.1:${server.port}`, sql, server, stop };
  }

  /**
   * Starts the web role (`node --import tsx api/web.ts`) on a free port of 127.0.0.1 against this
   * database, with a pool of `poolMax` connections and its request log at `logLevel` (written to
   * nowhere, but written), and waits until it answers /healthz.
   */
  async spawnApp(options: { poolMax: number; logLevel: string }): Promise<AppProcess> {
    const port = await freePort();
    // BENCH_APP_NODE_ARGS: more node options for the app, for diagnosis (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
    const nodeArgs = (process.env.BENCH_APP_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    // BENCH_APP_LOG: a file that receives the app's request log (its own timing of each request).
    const logFile = process.env.BENCH_APP_LOG ? openSync(process.env.BENCH_APP_LOG, 'w') : 'ignore';
    const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/web.ts'], {
      cwd: REPO,
      stdio: ['ignore', logFile, 'pipe'],
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'APP_DATABASE_URL')),
        DATABASE_URL: this.ownerUrl,
        APP_KEY: BENCH_APP_KEY,
        BCRYPT_ROUNDS: '4',
        PORT: String(port),
        LOG_LEVEL: options.logLevel,
        DB_POOL_MAX: String(options.poolMax),
        NODE_ENV: 'production',
      },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      })());
    this.closeAtEnd(stop);
    const baseUrl = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries += 1) {
      if (child.exitCode !== null) throw new Error(`the app process ended (${child.exitCode}) before answering: ${stderr}`);
      try {
        if ((await fetch(`${baseUrl}/healthz`)).ok) break;
      } catch {
        // Not listening yet.
      }
      if (tries > 300) throw new Error(`the app process did not answer /healthz within 30 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { baseUrl, cpuMs: () => (child.pid === undefined ? null : processCpuMs(child.pid)), stop };
  }

  /** Closes what was opened, drops the database and then its login role; once. */
  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      const attempt = async (step: () => unknown) => {
        try {
          await step();
        } catch (error) {
          process.stderr.write(`cleanup: ${errorText(error)}\n`);
        }
      };
      for (const close of this.closers) await attempt(close);
      const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
      const login = this.login;
      if (this.created && process.env.BENCH_KEEP_DATABASE === '1') {
        process.stderr.write(`BENCH_KEEP_DATABASE=1: ${this.database} is kept (drop it with: dropdb ${this.database}${login ? `; dropuser ${login.role}` : ''})\n`);
      } else if (this.created) {
        await attempt(() => admin.unsafe(`drop database if exists "${this.database}" with (force)`));
        if (login) await attempt(() => admin.unsafe(`drop role if exists "${login.role}"`));
      }
      await attempt(() => admin.end({ timeout: 1 }));
    })();
    return this.cleaning;
  }

  /** Runs `main`, cleans up whatever happened, and exits: 0 when `main` succeeded, 1 otherwise. */
  async run(main: () => Promise<void>): Promise<never> {
    let exitCode = 0;
    try {
      await main();
    } catch (error) {
      exitCode = 1;
      if (!this.interrupted) process.stderr.write(`${this.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    } finally {
      await this.cleanup();
    }
    process.exit(exitCode);
  }
}
