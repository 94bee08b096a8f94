/**
 * `npm run start:web` (Procfile `web`): the stateless API only. Scale it out; migrations run in `release`,
 * and it refuses to start while the schema is behind the code (db/schema-check.ts).
 */
import { checkSchemaAtStart } from '../db/schema-check.ts';
import { createApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createSql } from './db.ts';
import { createLogger } from './logger.ts';
import { openRuntime } from './runtime.ts';
import { exitOnStartupError, guardProcess, nodeClientAddress, onShutdown, serveNode } from './server.ts';

const config = loadConfigOrExit();
const log = createLogger(config.LOG_LEVEL);
guardProcess(log);

try {
  const runtime = await openRuntime(config, { allowEmbedded: false });
  await checkSchemaAtStart(runtime.ownerUrl, (line) => log.warn(line));
  const sql = createSql(runtime.appUrl, { max: config.DB_POOL_MAX });
  const server = await serveNode(createApp({ config, sql, appKey: runtime.appKey, log, clientAddress: nodeClientAddress }), config.PORT, {
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  onShutdown(log, [
    ['http', () => server.close()],
    ['pool', () => sql.end({ timeout: 5 })],
  ]);
  log.info({ port: server.port }, 'web listening');
} catch (error) {
  exitOnStartupError(error);
}
