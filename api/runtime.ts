import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { findAppLogin } from '../db/app-login.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import type { Config } from './config.ts';
import { appDatabaseUrl } from './db.ts';
import { randomToken } from './lib/secrets.ts';

/** What every process needs once the environment is read: the signing key and the two database URLs. */
export interface Runtime {
  config: Config;
  appKey: string;
  /** Owner of the schema: migrations and the worker. */
  ownerUrl: string;
  /**
   * The row-level-security-bound login of every web request: APP_DATABASE_URL, else this database's
   * login role for APP_KEY (db/app-login.ts), which `npm run migrate` creates. Ask once the database
   * is migrated: it reads the database's id with the owner's URL.
   */
  appUrl(): Promise<string>;
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
  const owner = ownerUrl;
  return {
    config,
    appKey,
    ownerUrl,
    appUrl: async () => config.APP_DATABASE_URL ?? (await appLoginUrl(owner, appKey)),
    embedded: !config.DATABASE_URL,
    stop,
  };
}

/** The owner's URL with this database's login role for `appKey`; refuses, in one line, a login `npm run migrate` has not made. */
async function appLoginUrl(ownerUrl: string, appKey: string): Promise<string> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'pos app login' } });
  try {
    const login = await findAppLogin(sql, appKey);
    if (!login) throw new Error('Database never migrated: run npm run migrate');
    if (!login.exists) throw new Error(`Database has no login role for this APP_KEY (${login.role}): run npm run migrate with this APP_KEY`);
    return appDatabaseUrl(ownerUrl, login);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
