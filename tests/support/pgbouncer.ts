import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from './processes.ts';

/**
 * A PgBouncer of our own (Debian's `pgbouncer` package, 1.18 or later) in TRANSACTION pooling mode
 * in front of the test server, as operators run it: a few server connections shared by every client
 * of a database and user, so nothing of a server session (a prepared statement, a session lock, a
 * `SET`, a LISTEN) follows a client from one transaction to the next.
 */
export interface Pgbouncer {
  port: number;
  /** `url` (a URL of the server) through the pooler: its host and port in place of the server's, the same user, password and database. */
  through(url: string): string;
  /** A command of the admin console (`SHOW SERVERS`), as the server's superuser. */
  admin<T = Record<string, unknown>>(command: string): Promise<T[]>;
  /** What it has printed (its log goes to stderr). */
  log(): string;
  stop(): Promise<void>;
}

export interface PgbouncerOptions {
  /** The server's superuser URL (the tests' POS_TEST_SERVER_URL): where the pooler connects, and its admin. */
  serverUrl: string;
  /** Users to list in its auth_file (name and password), besides the superuser. */
  users?: { name: string; password: string }[];
  /** Server connections per database and user (`default_pool_size`). */
  poolSize?: number;
}

/** The binary: on the PATH, or where Debian's package puts it (/usr/sbin, not on a user's PATH). */
const BINARY = spawnSync('pgbouncer', ['--version']).error && existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';

/** PgBouncer's version (`PgBouncer 1.18.0`) as [major, minor]; null when the binary is missing. */
export function pgbouncerVersion(): [number, number] | null {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  const match = /PgBouncer (\d+)\.(\d+)/.exec(`${probe.stdout ?? ''}`);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;

export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  const version = pgbouncerVersion();
  if (!version) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
  const server = new URL(options.serverUrl);
  const superuser = decodeURIComponent(server.username) || 'postgres';
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'pos-pgbouncer-'));
  const users = [{ name: superuser, password: decodeURIComponent(server.password) }, ...(options.users ?? [])];
  await writeFile(path.join(dir, 'users.txt'), users.map((user) => `${quoted(user.name)} ${quoted(user.password)}\n`).join(''));
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      // Every database name, so that each test file's own database is reached.
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 1000',
      // The server trusts 127.0.0.1. A user not in auth_file (a database's own app login role) is
      // looked up in pg_shadow by the superuser (auth_query); the pooler then logs in as that user,
      // so the role's own settings (statement_timeout...) apply on the server.
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `auth_user = ${superuser}`,
      `admin_users = ${superuser}`,
      // Named prepared statements in transaction mode (1.21+): none, as before 1.21, the set-up this service must work with.
      ...(version[0] > 1 || version[1] >= 21 ? ['max_prepared_statements = 0'] : []),
      'logfile =',
      'pidfile =',
    ].join('\n') + '\n',
  );
  // PgBouncer refuses to run as root: it then switches to an unprivileged user, who must read its files.
  await chmod(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const child = spawn(BINARY, [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout.on('data', (chunk) => (printed += chunk));
  child.stderr.on('data', (chunk) => (printed += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Never left behind by a process that ends without stopping it.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  await new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`pgbouncer did not start: ${printed}`)), 10_000);
    const check = () => {
      if (printed.includes(`listening on 127.0.0.1:${port}`)) {
        clearTimeout(deadline);
        resolve();
      }
    };
    child.stderr.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(deadline);
      reject(new Error(`pgbouncer exited (${code}): ${printed}`));
    });
    check();
  });

  const through = (url: string) => {
    const pooled = new URL(url);
    pooled.hostname = '127.0.0.1';
    pooled.port = String(port);
    return pooled.toString();
  };
  return {
    port,
    through,
    async admin<T>(command: string) {
      const console = new URL(through(options.serverUrl));
      console.pathname = '/pgbouncer';
      // The admin console speaks the simple query protocol only: unsafe() without parameters uses it.
      const sql = postgres(console.toString(), { max: 1, fetch_types: false, prepare: false, onnotice: () => {} });
      try {
        return (await sql.unsafe(command)) as unknown as T[];
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
    log: () => printed,
    async stop() {
      process.off('exit', orphan);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
