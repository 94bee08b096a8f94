import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes.ts';

/**
 * PostgreSQL clusters of a test's own (the streaming standby of the replica tests, the Citus coordinator and
 * workers), made with the machine's PostgreSQL 15 binaries on private ports under a temporary directory.
 * PostgreSQL refuses to run as root: as root every command runs as the `postgres` user (`runuser`), who owns
 * the directory. Trust authentication on 127.0.0.1 only, as the machine's own server.
 */
export interface LocalCluster {
  port: number;
  /** Its data directory. */
  dir: string;
  /** The superuser's URL of one of its databases (`postgres` by default). */
  url(database?: string): string;
  /** What the server has logged. */
  log(): string;
  /** Stops it (fast shutdown), or immediately when `immediate`, as a crash would. */
  stop(options?: { immediate?: boolean }): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

export interface ClusterOptions {
  /** postgresql.conf lines, name to value (`shared_preload_libraries: "'citus'"`). */
  settings?: Record<string, string>;
  /** A ready data directory (a base backup) to start instead of running initdb. */
  dataDir?: string;
  port?: number;
}

const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const AS_ROOT = process.getuid?.() === 0;

/** Why clusters cannot be made here, or undefined when they can. */
export function clusterSkipReason(): string | undefined {
  if (!existsSync(path.join(BIN, 'initdb'))) return `no PostgreSQL binaries in ${BIN} (set PG_BIN_DIR)`;
  if (AS_ROOT && spawnSync('id', ['postgres']).status !== 0) return 'running as root without a postgres user to run the server as';
  return undefined;
}

/** Runs one of PostgreSQL's programs (as `postgres` when we are root); throws with its output when it fails. */
export function pgCommand(program: string, args: string[]): string {
  const command = AS_ROOT ? 'runuser' : path.join(BIN, program);
  const argv = AS_ROOT ? ['-u', 'postgres', '--', path.join(BIN, program), ...args] : args;
  const result = spawnSync(command, argv, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed: ${result.stderr || result.stdout || result.error}`);
  return result.stdout;
}

/** A directory the server's user owns. */
export function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (AS_ROOT) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Makes (initdb, or takes `dataDir`) and starts a cluster; waits until it accepts connections. */
export async function startCluster(options: ClusterOptions = {}): Promise<LocalCluster> {
  const reason = clusterSkipReason();
  if (reason) throw new Error(reason);
  const port = options.port ?? (await freePort());
  const home = ownedTempDir('pos-pg-');
  const dir = options.dataDir ?? path.join(home, 'data');
  if (!options.dataDir) pgCommand('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${home}'`,
    fsync: 'off',
    max_connections: '200',
    ...options.settings,
  };
  const conf = Object.entries(settings).map(([name, value]) => `${name} = ${value}`).join('\n');
  writeFileSync(path.join(home, 'test.conf'), `${conf}\n`);
  if (AS_ROOT) pgCommand('postgres', ['--version']);
  spawnSync(AS_ROOT ? 'runuser' : 'sh', AS_ROOT ? ['-u', 'postgres', '--', 'sh', '-c', `echo "include '${home}/test.conf'" >> ${dir}/postgresql.conf`] : ['-c', `echo "include '${home}/test.conf'" >> ${dir}/postgresql.conf`]);
  const logFile = path.join(home, 'server.log');
  pgCommand('pg_ctl', ['-D', dir, '-l', logFile, '-w', '-t', '60', 'start']);
  const readLog = () => spawnSync('cat', [logFile], { encoding: 'utf8' }).stdout ?? '';
  let stopped = false;
  const stop = async (stopOptions: { immediate?: boolean } = {}) => {
    if (stopped) return;
    stopped = true;
    await new Promise<void>((resolve) => {
      const argv = ['-D', dir, '-m', stopOptions.immediate ? 'immediate' : 'fast', '-w', 'stop'];
      const child = AS_ROOT ? spawn('runuser', ['-u', 'postgres', '--', path.join(BIN, 'pg_ctl'), ...argv]) : spawn(path.join(BIN, 'pg_ctl'), argv);
      child.on('exit', () => resolve());
      child.on('error', () => resolve());
    });
  };
  return {
    port,
    dir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    log: readLog,
    stop,
    destroy: async () => {
      await stop();
      await rm(home, { recursive: true, force: true });
      if (options.dataDir) await rm(options.dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A hot standby of `primary`, streaming from it: a base backup (`pg_basebackup -R -X stream`, which writes
 * `standby.signal` and `primary_conninfo`) started as a cluster of its own. The primary needs `wal_level`
 * replica (PostgreSQL 15's default) and a free WAL sender; initdb's pg_hba lets 127.0.0.1 replicate. The
 * backup's postgresql.conf still includes the primary's settings file (its port): that line goes, the
 * standby's own is added as for any cluster. A standby needs `max_connections` (and the other limits) at
 * least the primary's: give it the same `settings`.
 */
export async function startStandby(primary: LocalCluster, options: Pick<ClusterOptions, 'settings'> = {}): Promise<LocalCluster> {
  const dataDir = ownedTempDir('pos-standby-');
  pgCommand('pg_basebackup', ['-D', dataDir, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  const conf = path.join(dataDir, 'postgresql.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8').replace(/^include .*\n/gm, ''));
  return startCluster({ dataDir, settings: { hot_standby: 'on', ...options.settings } });
}
