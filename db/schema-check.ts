import postgres from 'postgres';
import { migrationVersions, SCHEMA_DIR } from './migrate.ts';

/**
 * Whether the database's schema matches this code, by the numbered migrations only: the ones the
 * code has (`db/migrations/*.sql`) against the ones `schema_migrations` recorded. Function files are
 * not compared: a checksum that differs cannot tell an older database from a newer one, and every
 * release that changes a function file is applied by the same `npm run migrate` as its migrations.
 */
export interface SchemaState {
  /** Migrations of the code the database lacks: the schema is behind, the code must not serve. */
  pending: string[];
  /** Migrations recorded by a newer release that this code does not know: it still serves. */
  unknown: string[];
}

/** The schema is behind the code: the process refuses to start (web, worker) or is not ready (`/readyz`). */
export class SchemaBehindError extends Error {}

let codeVersions: Promise<string[]> | undefined;

/** The migration versions this code has, read once per process (`0033_settlements_in_the_z`). */
export function codeMigrations(): Promise<string[]> {
  codeVersions ??= migrationVersions(SCHEMA_DIR);
  return codeVersions;
}

export function compareSchema(code: string[], recorded: string[]): SchemaState {
  const inDatabase = new Set(recorded);
  const inCode = new Set(code);
  return { pending: code.filter((version) => !inDatabase.has(version)), unknown: recorded.filter((version) => !inCode.has(version)).sort() };
}

const listed = (versions: string[]) => {
  const shown = versions.slice(0, 3).map((version) => `${version}.sql`);
  return versions.length > shown.length ? `${shown.join(', ')}, and ${versions.length - shown.length} more` : shown.join(', ');
};

export function behindMessage(pending: string[]): string {
  return `Database schema is behind the code: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${listed(pending)}): run npm run migrate`;
}

export function aheadMessage(unknown: string[]): string {
  return `Database schema is ahead of the code: ${unknown.length} migration${unknown.length === 1 ? '' : 's'} this release does not know (${listed(unknown)}), applied by a newer release; serving anyway`;
}

/**
 * At the start of `web` and `worker` (never of `npm run migrate` nor `npm start`, which migrate first):
 * throws SchemaBehindError when a migration of the code is not recorded (an empty database included),
 * reports through `warn` the migrations a newer release recorded and goes on.
 */
export async function checkSchemaAtStart(ownerUrl: string, warn: (line: string) => void): Promise<void> {
  // Two statements once per start, unprepared: DATABASE_URL may go through a pooler in transaction mode (the worker's).
  const sql = postgres(ownerUrl, { max: 1, prepare: false, onnotice: () => {}, connection: { application_name: 'pos schema check' } });
  try {
    const [table] = await sql<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`;
    const recorded = table!.exists ? (await sql<{ version: string }[]>`select version from schema_migrations`).map((row) => row.version) : [];
    const state = compareSchema(await codeMigrations(), recorded);
    if (state.pending.length) throw new SchemaBehindError(behindMessage(state.pending));
    if (state.unknown.length) warn(aheadMessage(state.unknown));
  } finally {
    await sql.end({ timeout: 1 });
  }
}
