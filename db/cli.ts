/** `npm run migrate` (Procfile `release`): graphile-worker's schema, then our migrations and function files, then this database's login role for APP_KEY (db/app-login.ts). */
import { loadConfigOrExit } from '../api/config.ts';
import { openRuntime } from '../api/runtime.ts';
import { exitOnStartupError } from '../api/server.ts';
import { migrate } from './migrate.ts';

const config = loadConfigOrExit();
try {
  const runtime = await openRuntime(config, { allowEmbedded: true });
  const applied = await migrate(runtime.ownerUrl, {
    appKey: config.APP_DATABASE_URL ? undefined : runtime.appKey,
    lockTimeoutMs: config.MIGRATE_LOCK_TIMEOUT_MS,
    lockAttempts: config.MIGRATE_LOCK_ATTEMPTS,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const distributed = applied.distributed?.length ?? 0;
  const changed = applied.migrations.length + applied.functions.length + distributed;
  const summary = `${applied.migrations.length} migration(s) and ${applied.functions.length} function file(s) applied` + (distributed ? `, ${distributed} object(s) distributed` : '');
  process.stdout.write(changed ? `${summary}\n` : 'database up to date\n');
  await runtime.stop();
} catch (error) {
  exitOnStartupError(error);
}
