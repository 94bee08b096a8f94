import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import type { Config } from './config.ts';
import { appDatabaseUrl } from './db.ts';
import { deriveSecret, randomToken } from './lib/secrets.ts';

/** What every process needs once the environment is read: the signing key and the two database URLs. */
export interface Runtime {
  config: Config;
  appKey: string;
  /** Owner of the schema: migrations and the worker. */
  ownerUrl: string;
  /** The row-level-security-bound application role: every web request. */
  appUrl: string;
  /** The password the migration runner gives the application role. */
  appRolePassword: string;
  embedded: boolean;
  stop(): Promise<void>;
}

async function resolveAppKey(config: Config): Promise<string> {
  if (config.APP_KEY) return config.APP_KEY;
  const dataDir = path.resolve(config.DATA_DIR);
  const file = path.join(dataDir, 'app_key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(dataDir, { recursive: true });
  const key = randomToken(48);
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * Resolves the key and the database. Without DATABASE_URL, and only where `allowEmbedded` says so
 * (the all-in-one `npm start`, the CLI), an embedded PostgreSQL is started under DATA_DIR.
 */
export async function openRuntime(config: Config, options: { allowEmbedded: boolean; onLog?: (line: string) => void }): Promise<Runtime> {
  const appKey = await resolveAppKey(config);
  const appRolePassword = deriveSecret(appKey, 'database role pos_app').toString('hex');
  let ownerUrl = config.DATABASE_URL;
  let stop = async () => {};
  if (!ownerUrl) {
    if (!options.allowEmbedded) {
      throw new Error('DATABASE_URL is not set (only `npm start` boots the embedded database)');
    }
    const embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, onLog: options.onLog });
    ownerUrl = embedded.url;
    stop = embedded.stop;
  }
  return {
    config,
    appKey,
    ownerUrl,
    appUrl: appDatabaseUrl(ownerUrl, appRolePassword, config.APP_DATABASE_URL),
    appRolePassword,
    embedded: !config.DATABASE_URL,
    stop,
  };
}
