/** Names of the variables tests/run.ts hands to every test file. */
export const TEST_ENV = {
  /** Owner (superuser) URL of the test server's maintenance database. */
  serverUrl: 'POS_TEST_SERVER_URL',
  /** Migrated database each test file clones its own database from. */
  templateDb: 'POS_TEST_TEMPLATE_DB',
  /** Port of the PgBouncer (transaction mode) the application's pool goes through, when the run started one (`TEST_PGBOUNCER=1`). */
  pgbouncerPort: 'POS_TEST_PGBOUNCER_PORT',
} as const;

/** The key the template's app role password was derived from; test processes sign tokens with it too. */
export const TEST_APP_KEY = 'test-app-key-0123456789abcdef0123456789abcdef';

export function databaseUrl(serverUrl: string, database: string, user?: { name: string; password: string }): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  if (user) {
    url.username = user.name;
    url.password = user.password;
  }
  return url.toString();
}
