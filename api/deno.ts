/** `deno task start`: the same Hono app served by Deno against DATABASE_URL (run `npm run migrate` first). */
import { getConnInfo } from 'hono/deno';
import { createApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createSql } from './db.ts';
import { openReplica } from './lib/replica.ts';
import { createLogger } from './logger.ts';
import { openRuntime } from './runtime.ts';
import { exitOnStartupError } from './server.ts';

const config = loadConfigOrExit();
const log = createLogger(config.LOG_LEVEL);

try {
  const runtime = await openRuntime(config, { allowEmbedded: false });
  const appUrl = await runtime.appUrl();
  const sql = createSql(appUrl, { max: config.DB_POOL_MAX, preparedStatements: config.DB_PREPARED_STATEMENTS });
  const replica = openReplica(config, appUrl);
  const app = createApp({ config, sql, replica, appKey: runtime.appKey, log, clientAddress: (c) => getConnInfo(c).remote.address });
  const shutdown = new AbortController();
  const server = Deno.serve(
    { port: config.PORT, signal: shutdown.signal, onListen: ({ port }) => log.info({ port, runtime: 'deno' }, 'web listening') },
    app.fetch,
  );
  const stop = async () => {
    shutdown.abort();
    await server.finished;
    await Promise.all([sql.end({ timeout: 5 }), replica?.end({ timeout: 5 })]);
    Deno.exit(0);
  };
  Deno.addSignalListener('SIGTERM', stop);
  Deno.addSignalListener('SIGINT', stop);
} catch (error) {
  exitOnStartupError(error);
}
