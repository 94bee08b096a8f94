/**
 * Procfile `web` (`node dist/api/web.js` once built; `npm run start:web` from the sources): the stateless API only. Scale it out; migrations run in `release`,
 * and it refuses to start while the schema is behind the code (db/schema-check.ts).
 */
import { checkSchemaAtStart } from '../db/schema-check.ts';
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
  const runtime = await openRuntime(config, { allowEmbedded: false });
  await checkSchemaAtStart(runtime.ownerUrl, (line) => log.warn(line));
  const appUrl = await runtime.appUrl();
  const sql = createSql(appUrl, { max: config.DB_POOL_MAX, preparedStatements: config.DB_PREPARED_STATEMENTS });
  const replica = openReplica(config, appUrl);
  const lifecycle = { stopping: false };
  const server = await serveNode(createApp({ config, sql, replica, appKey: runtime.appKey, log, clientAddress: nodeClientAddress, lifecycle }), config.PORT, {
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  onShutdown(log, [
    // Not ready first, still serving: the load balancer sees /readyz fail and stops sending before the drain refuses anyone.
    ['not ready', () => {
      lifecycle.stopping = true;
      return new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_READY_DELAY_MS));
    }],
    // SHUTDOWN_TIMEOUT_MS counts from the signal: the drain has what the delay left of it.
    ['http', () => server.close(Math.max(1_000, config.SHUTDOWN_TIMEOUT_MS - config.SHUTDOWN_READY_DELAY_MS))],
    ['pools', async () => void (await Promise.all([sql.end({ timeout: 5 }), replica?.end({ timeout: 5 })]))],
  ]);
  log.info({ port: server.port }, 'web listening');
} catch (error) {
  exitOnStartupError(error);
}
