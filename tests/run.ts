/**
 * `npm test`: prepares PostgreSQL (DATABASE_URL's server when set, else an embedded one under
 * DATA_DIR/test-pg), builds a migrated template database once per version of the migrations, then
 * runs tap. Each test file clones its own database from the template and drops it at the end.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { APP_DB_ROLE } from '../api/db.ts';
import { deriveSecret } from '../api/lib/secrets.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { databaseUrl, TEST_APP_KEY, TEST_ENV } from './support/env.ts';

function migrationsFingerprint(): string {
  const hash = createHash('sha256');
  const dir = path.resolve('db/migrations');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(path.join(dir, file)));
  hash.update(readFileSync('package-lock.json'));
  return hash.digest('hex').slice(0, 12);
}

async function ensureTemplate(serverUrl: string): Promise<string> {
  const template = `pos_test_template_${migrationsFingerprint()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const [ready] = await admin`select 1 from pg_database where datname = ${template} and datistemplate`;
    if (ready) return template;
    const building = `${template}_building`;
    await admin.unsafe(`drop database if exists "${building}" with (force)`);
    await admin.unsafe(`create database "${building}"`);
    await migrate(databaseUrl(serverUrl, building), { appRolePassword: deriveSecret(TEST_APP_KEY, `database role ${APP_DB_ROLE}`).toString('hex') });
    await admin.unsafe(`drop database if exists "${template}" with (force)`);
    await admin.unsafe(`alter database "${building}" rename to "${template}"`);
    await admin.unsafe(`alter database "${template}" with is_template true allow_connections false`);
    return template;
  } finally {
    await admin.end();
  }
}

let embedded: EmbeddedDatabase | undefined;
let serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  const dataDir = process.env.DATA_DIR ?? '.data';
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329) + 1;
  embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'test-pg-root'), port, database: 'postgres' });
  serverUrl = embedded.serverUrl;
  process.stdout.write(`tests: embedded PostgreSQL on port ${port}\n`);
}

const template = await ensureTemplate(serverUrl);
// `npm test -- tests/auth` runs one folder: tap itself wants files, so folders are expanded here.
const targets = process.argv.slice(2).flatMap((arg) =>
  !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(arg, { recursive: true }).map(String).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(arg, f))
    : [arg],
);
const tap = spawn(process.execPath, [path.resolve('node_modules/tap/dist/esm/run.mjs'), ...targets], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env: {
    ...process.env,
    [TEST_ENV.serverUrl]: serverUrl,
    [TEST_ENV.templateDb]: template,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  },
});
// tap's own summary (`# { total: 3, pass: 3 }`) is restated as a plain closing line CI can read.
let tail = '';
tap.stdout!.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString('utf8')).slice(-4096);
});
const code = await new Promise<number>((resolve) => tap.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
const summary = /# \{ total: (\d+)([^}]*)\}/.exec(tail);
if (summary) {
  const count = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(summary[2]!)?.[1] ?? 0);
  const skipped = count('skip') + count('todo');
  process.stdout.write(`\n${count('pass')} passed, ${count('fail')} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
}
await embedded?.stop();
process.exit(code);
