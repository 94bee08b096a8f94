/** Procfile `worker` (`node dist/worker/main.js` once built; `npm run start:worker` from the sources): graphile-worker only. Scale it separately from `web`; refuses to start while the schema is behind the code. */
import { checkSchemaAtStart } from '../db/schema-check.ts';
import { loadConfigOrExit } from '../api/config.ts';
import { createLogger } from '../api/logger.ts';
import { openRuntime } from '../api/runtime.ts';
import { exitOnStartupError, guardProcess, onShutdown } from '../api/server.ts';
import { serveWorkerMetrics } from './metrics.ts';
import { startWorker } from './worker.ts';

const config = loadConfigOrExit();
const log = createLogger(config.LOG_LEVEL, 'pos-worker');
guardProcess(log);

try {
  const runtime = await openRuntime(config, { allowEmbedded: false });
  await checkSchemaAtStart(runtime.ownerUrl, (line) => log.warn(line));
  const worker = await startWorker(runtime, log);
  const metrics = await serveWorkerMetrics(worker, runtime, log);
  onShutdown(log, [
    ['worker', () => worker.stop()],
    // Served while the jobs drain, closed once they have.
    ['metrics', async () => void (await metrics?.close())],
  ]);
  log.info('worker running');
} catch (error) {
  exitOnStartupError(error);
}
