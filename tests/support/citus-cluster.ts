import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { clusterSkipReason, startCluster, type LocalCluster } from './pg-cluster.ts';

/**
 * A Citus cluster of a test's own (issue 33): a coordinator and two worker nodes, each a local PostgreSQL 15
 * cluster (tests/support/pg-cluster.ts) with Citus loaded. Debian packages no Citus, so the vendored source is
 * built into the machine's PostgreSQL by `../shared/vendor/citus/build.sh`, as CI does.
 */
export interface CitusCluster {
  coordinator: LocalCluster;
  workers: [LocalCluster, LocalCluster];
  /** The superuser's URL of the database on the coordinator. */
  coordinatorUrl: string;
  /** How long the start took, from the first initdb to the second worker added (ms). */
  startedInMs: number;
  /** Stops the three nodes and removes their directories. */
  destroy(): Promise<void>;
}

/** The PostgreSQL that pg-cluster.ts runs, and so the one Citus must be built into. */
const PG_CONFIG = path.join(process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin', 'pg_config');
const LIB_DIR = spawnSync(PG_CONFIG, ['--pkglibdir'], { encoding: 'utf8' }).stdout?.trim() || '/usr/lib/postgresql/15/lib';
const BUILD_SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/vendor/citus/build.sh');
const AS_ROOT = process.getuid?.() === 0;

const citusInstalled = () => existsSync(path.join(LIB_DIR, 'citus.so'));

/** How build.sh can be run here (it installs packages and writes into PostgreSQL's directories), or why not. */
function buildCommand(): { command: string; args: string[] } | string {
  if (!existsSync(BUILD_SCRIPT)) return `no Citus in ${LIB_DIR} and no build script at ${BUILD_SCRIPT}`;
  if (AS_ROOT) return { command: 'bash', args: [BUILD_SCRIPT] };
  if (spawnSync('sudo', ['-n', 'true']).status === 0) return { command: 'sudo', args: ['-n', 'env', `PG_CONFIG=${PG_CONFIG}`, 'bash', BUILD_SCRIPT] };
  return `no Citus in ${LIB_DIR}, and building it needs root or password-less sudo`;
}

let buildFailure: string | undefined;

/** Builds and installs Citus when it is missing (build.sh does nothing when it is there); throws with the build's last lines when it fails. */
export function ensureCitus(): void {
  if (citusInstalled()) return;
  if (buildFailure) throw new Error(buildFailure);
  const how = buildCommand();
  if (typeof how === 'string') throw new Error(how);
  const build = spawnSync(how.command, how.args, { encoding: 'utf8', timeout: 15 * 60_000, env: { ...process.env, PG_CONFIG } });
  const tail = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-3).join(' | ');
  if (build.status !== 0) buildFailure = `the Citus build failed (${build.error?.message ?? `exit ${build.status}`}): ${tail}`;
  else if (!citusInstalled()) buildFailure = `the Citus build ended without ${path.join(LIB_DIR, 'citus.so')}: ${tail}`;
  if (buildFailure) throw new Error(buildFailure);
}

/** Why a Citus cluster cannot be made here, in one line, or undefined when it can (Citus then built if it was missing). */
export function citusSkipReason(): string | undefined {
  const reason = clusterSkipReason();
  if (reason) return reason;
  try {
    ensureCitus();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

/**
 * Each node: Citus preloaded; prepared transactions for the two-phase commit of a transaction that writes on
 * several nodes; few connections and little memory, since three servers share two cores with other work. Nodes
 * talk over 127.0.0.1 without TLS (Citus's default asks for it). Eight shards per table rather than 32: every
 * shard is a table on a worker, and the schema has some fifty tables.
 */
const NODE_SETTINGS: Record<string, string> = {
  shared_preload_libraries: "'citus'",
  max_prepared_transactions: '40',
  max_connections: '60',
  shared_buffers: "'32MB'",
  max_wal_size: "'256MB'",
  synchronous_commit: 'off',
  full_page_writes: 'off',
  'citus.node_conninfo': "'sslmode=disable'",
  'citus.shard_count': '8',
};

async function createCitusDatabase(node: LocalCluster, database: string): Promise<void> {
  const admin = postgres(node.url(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  const sql = postgres(node.url(database), { max: 1, onnotice: () => {} });
  try {
    await sql`create extension citus`;
  } finally {
    await sql.end();
  }
}

/**
 * Starts a coordinator and two workers on private ports, `database` on each with the Citus extension, the
 * coordinator's own address recorded (workers connect back to it) and both workers added to it. `settings`
 * adds to or overrides every node's postgresql.conf.
 */
export async function startCitusCluster(options: { database: string; settings?: Record<string, string> }): Promise<CitusCluster> {
  const reason = citusSkipReason();
  if (reason) throw new Error(reason);
  const began = performance.now();
  const settings = { ...NODE_SETTINGS, ...options.settings };
  const nodes: LocalCluster[] = [];
  const destroy = async () => {
    await Promise.all(nodes.map((node) => node.destroy()));
  };
  try {
    // initdb and start one at a time: in parallel they only fight for the two cores.
    for (let i = 0; i < 3; i++) nodes.push(await startCluster({ settings }));
    const [coordinator, first, second] = nodes as [LocalCluster, LocalCluster, LocalCluster];
    await Promise.all(nodes.map((node) => createCitusDatabase(node, options.database)));
    const sql = postgres(coordinator.url(options.database), { max: 1, onnotice: () => {} });
    try {
      await sql`select citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`;
      for (const worker of [first, second]) await sql`select citus_add_node('127.0.0.1', ${worker.port})`;
    } finally {
      await sql.end();
    }
    return {
      coordinator,
      workers: [first, second],
      coordinatorUrl: coordinator.url(options.database),
      startedInMs: Math.round(performance.now() - began),
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}
