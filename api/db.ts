import postgres from 'postgres';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

/** The role the web processes log in as: no superuser, no BYPASSRLS, not the owner of any table. */
export const APP_DB_ROLE = 'pos_app';

/**
 * A pool for either role. Money is integer XAF stored as bigint and quantities as numeric(14,3):
 * both are safely representable as JS numbers, so they arrive as numbers, never strings.
 */
export function createSql(url: string, options: { max?: number; applicationName?: string } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'pos-api' },
    types: {
      int8: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
      numeric: { to: 1700, from: [1700], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
    },
  });
}

/** The application's connection string: given explicitly, or the owner's URL with the app role's name and password. */
export function appDatabaseUrl(ownerUrl: string, appPassword: string, explicit?: string): string {
  if (explicit) return explicit;
  const url = new URL(ownerUrl);
  url.username = APP_DB_ROLE;
  url.password = appPassword;
  return url.toString();
}
