/**
 * `npm start`: everything in one process for a laptop or a shop's back office. Without DATABASE_URL
 * an embedded PostgreSQL keeps its data under DATA_DIR (.data/); migrations, the API and a worker follow.
 */
import { migrate } from '../db/migrate.ts';
import { serveWorkerMetrics } from '../worker/metrics.ts';
import { startWorker } from '../worker/worker.ts';
import { createApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createSql } from './db.ts';
import { openReplica } from './lib/replica.ts';
import { createLogger } from './logger.ts';
import { openRuntime } from './runtime.ts';
import { exitOnStartupError, guardProcess, nodeClientAddress, onShutdown, serveNode } from './server.ts';

const config = loadConfigOrExit();
const log = createLogger(config.LOG_LEVEL);
guardProcess(log);

try {
  const runtime = await openRuntime(config, { allowEmbedded: true, onLog: (line) => log.debug({ postgres: line.trim() }) });
  await migrate(runtime.ownerUrl, {
    appKey: config.APP_DATABASE_URL ? undefined : runtime.appKey,
    lockTimeoutMs: config.MIGRATE_LOCK_TIMEOUT_MS,
    lockAttempts: config.MIGRATE_LOCK_ATTEMPTS,
    log: (line) => log.info(line),
  });
  const appUrl = await runtime.appUrl();
  const sql = createSql(appUrl, { max: config.DB_POOL_MAX, preparedStatements: config.DB_PREPARED_STATEMENTS });
  const replica = openReplica(config, appUrl);
  const app = createApp({ config, sql, replica, appKey: runtime.appKey, log, clientAddress: nodeClientAddress });
  const server = await serveNode(app, config.PORT, { requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  const worker = await startWorker(runtime, log.child({ role: 'worker' }));
  const workerMetrics = await serveWorkerMetrics(worker, runtime, log.child({ role: 'worker' }));
  onShutdown(log, [
    // At once, each within SHUTDOWN_TIMEOUT_MS: neither the requests nor the jobs wait for the other.
    ['http and worker', async () => void (await Promise.all([server.close(), worker.stop()]))],
    ['worker metrics', async () => void (await workerMetrics?.close())],
    ['pools', async () => void (await Promise.all([sql.end({ timeout: 5 }), replica?.end({ timeout: 5 })]))],
    ['database', () => runtime.stop()],
  ]);
  const base = `http://localhost:${server.port}`;
  process.stdout.write(
    `\nPoint-of-sale API ready${runtime.embedded ? ' (embedded PostgreSQL, data in ' + config.DATA_DIR + '/)' : ''}\n` +
      `  API:       ${base}/api/v1\n  Docs:      ${base}/api-docs\n  OpenAPI:   ${base}/openapi.json\n  Health:    ${base}/healthz\n\n`,
  );
} catch (error) {
  exitOnStartupError(error);
}
