import { z } from 'zod';

const postgresUrl = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\/\S+$/.test(value) && URL.canParse(value), 'must be a postgres:// URL');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: postgresUrl.optional(),
  APP_DATABASE_URL: postgresUrl.optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  APP_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  APP_URL: z.url().optional(),
  SMTP_URL: z.string().refine((value) => /^smtps?:\/\/\S+$/.test(value) && URL.canParse(value), 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Point de vente <no-reply@pos.local>'),
  // Where subscription charges go (api/billing/providers/): the simulator (default), MTN MoMo's
  // Collection API directly, or pawaPay (MTN and Orange); each mobile-money method may name its own.
  MOBILE_MONEY_PROVIDER: z.enum(['simulator', 'mtn_momo', 'pawapay']).default('simulator'),
  MOBILE_MONEY_PROVIDER_CARRIER1_MOMO: z.enum(['simulator', 'mtn_momo', 'pawapay']).optional(),
  MOBILE_MONEY_PROVIDER_CARRIER2_MONEY: z.enum(['simulator', 'mtn_momo', 'pawapay']).optional(),
  // The service's public address: where providers send their callbacks (`<PUBLIC_BASE_URL>/api/v1/billing/callbacks/...`; none are
  // asked for when unset) and the host of shared links and receipts' QR codes (`<PUBLIC_BASE_URL>/s/<token>`; the request's own
  // address when unset, which says http behind a proxy that ends TLS).
  PUBLIC_BASE_URL: z.url().optional(),
  MOMO_BASE_URL: z.url().optional(),
  MOMO_TARGET_ENVIRONMENT: z.string().min(1).default('sandbox'),
  MOMO_CURRENCY: z.string().regex(/^[A-Z]{3}$/).optional(),
  MOMO_API_USER: z.string().min(1).optional(),
  MOMO_API_KEY: z.string().min(1).optional(),
  MOMO_SUBSCRIPTION_KEY: z.string().min(1).optional(),
  // The country code put before a local number (9 digits in Cameroon) to make the payer's MSISDN.
  MOMO_COUNTRY_CODE: z.string().regex(/^[0-9]{1,4}$/).default('237'),
  MOMO_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  PAWAPAY_BASE_URL: z.url().default('https://api.sandbox.pawapay.io'),
  PAWAPAY_API_TOKEN: z.string().min(1).optional(),
  PAWAPAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // Certified invoicing (CONTRACT section 14, api/fiscal/providers/): none (default), the simulator (every shop, no set-up),
  // Benin's e-MECeF or Cote d'Ivoire's FNE (each shop enables it with its own credentials: PUT /fiscal/certification).
  FISCAL_PROVIDER: z.enum(['none', 'simulator', 'emecef', 'fne']).default('none'),
  // The authorities' test hosts by default (their documents: e-MECeF API 1.0, FNE "procédure d'interfaçage" May 2025); production
  // hosts are given to the taxpayer by the authority.
  EMECEF_BASE_URL: z.url().default('https://developper.impots.bj/sygmef-emcf/api'),
  FNE_BASE_URL: z.url().default('http://54.247.95.108/ws'),
  FISCAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  // Deliveries to the tax authority at once per worker process, on their own runner and connections (worker/worker.ts).
  FISCAL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  // A record the authority did not take is tried again after 10 s, then twice as long each time, up to this pause.
  // The owner is told of rejections and lost answers this long after the first (one e-mail for what came meanwhile; an e-MECeF
  // confirmation retried in the meantime resolves itself and is not mentioned).
  FISCAL_ALERT_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  FISCAL_BACKOFF_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(1_800_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  BCRYPT_ROUNDS: z.coerce.number().int().min(4).max(15).default(10),
  // How many proxies in front of the service append to X-Forwarded-For: `true` is one (a load
  // balancer), a number says how many, `false` or 0 ignores the header.
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|yes|no|[0-9])$/, 'must be true, false or a number of proxies from 0 to 9')
    .transform((value) => (value === 'true' || value === 'yes' ? 1 : value === 'false' || value === 'no' ? 0 : Number(value)))
    .default(0),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  // The tasks that send e-mail run apart, this many at once, so that a slow mail server holds only them (worker/worker.ts).
  MAIL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  // At least the headers timeout (66 s, above the 65 s keep-alive: api/server.ts).
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(66_000).max(3_600_000).default(120_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  // A migration's statement waits this long for a lock, then the upgrade rolls back and is retried (db/migrate.ts).
  MIGRATE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  MIGRATE_LOCK_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(10),
  // On SIGTERM, web first answers GET /readyz 503 this long (still serving), so that the load balancer stops sending before the drain.
  SHUTDOWN_READY_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  // Every request is answered within this bound, whatever the database does: past it, 503 service_unavailable (api/middleware/deadline.ts).
  REQUEST_DEADLINE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(45_000),
  // How many of a process's DB_POOL_MAX connections one shop's requests may hold at once (default: 60 %, at least 1); its next requests queue for it (api/middleware/admission.ts).
  DB_SHOP_SHARE: z.coerce.number().int().min(1).max(200).optional(),
  // Off behind PgBouncer in transaction mode (prepared statements live in a server session the pooler does not keep).
  DB_PREPARED_STATEMENTS: z.enum(['true', 'false']).default('true').transform((value) => value === 'true'),
  // A streaming standby of DATABASE_URL's database, with the same owner credentials, that read-only reports and exports read
  // (api/lib/replica.ts) while it is at most REPLICA_MAX_LAG_MS behind; past that, or out of reach, they read the primary.
  REPLICA_DATABASE_URL: postgresUrl.optional(),
  // 30 s: a standby with PostgreSQL's defaults may hold replay back that long (max_standby_streaming_delay) for a long query.
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  // A direct connection (not through a pooler in transaction mode) for the worker's LISTEN; DATABASE_URL when unset.
  WORKER_LISTEN_DATABASE_URL: postgresUrl.optional(),
  // GET /metrics answers with `Authorization: Bearer <METRICS_TOKEN>`; 404 while unset.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // The worker serves the same metrics on this port (requires METRICS_TOKEN).
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
});

/** MTN's hosts (momodeveloper.mtn.com, "Go live"): the sandbox takes the target `sandbox` and EUR only; production a country's target (`mtncameroon`...). */
export const MOMO_SANDBOX_URL = 'https://sandbox.momodeveloper.mtn.com';
export const MOMO_PRODUCTION_URL = 'https://proxy.momoapi.mtn.com';

/** The settings once read: MTN's base URL and currency follow its target environment when not given. */
export type Config = Omit<z.infer<typeof schema>, 'MOMO_BASE_URL' | 'MOMO_CURRENCY' | 'DB_SHOP_SHARE'> & { MOMO_BASE_URL: string; MOMO_CURRENCY: string; DB_SHOP_SHARE: number };

export class ConfigError extends Error {}

/**
 * Reads and validates the environment once at start. A missing or malformed value stops the
 * process with one line naming the variable, never with a stack trace.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message.replace(/^Invalid input: /, '')}`);
  }
  const sandbox = parsed.data.MOMO_TARGET_ENVIRONMENT === 'sandbox';
  const config: Config = {
    ...parsed.data,
    MOMO_BASE_URL: parsed.data.MOMO_BASE_URL ?? MOMO_SANDBOX_URL,
    MOMO_CURRENCY: parsed.data.MOMO_CURRENCY ?? (sandbox ? 'EUR' : 'XAF'),
    DB_SHOP_SHARE: Math.min(parsed.data.DB_SHOP_SHARE ?? Math.max(1, Math.ceil(parsed.data.DB_POOL_MAX * 0.6)), parsed.data.DB_POOL_MAX),
  };
  if (config.NODE_ENV === 'production' && !config.APP_KEY) {
    throw new ConfigError('Invalid configuration: APP_KEY is required when NODE_ENV=production');
  }
  if (config.NODE_ENV === 'production' && !config.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: DATABASE_URL is required when NODE_ENV=production');
  }
  if (config.REPLICA_DATABASE_URL && !config.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: REPLICA_DATABASE_URL requires DATABASE_URL (a replica of the embedded database cannot exist)');
  }
  if (config.WORKER_METRICS_PORT !== undefined && !config.METRICS_TOKEN) {
    throw new ConfigError('Invalid configuration: METRICS_TOKEN is required when WORKER_METRICS_PORT is set');
  }
  const used = new Set([config.MOBILE_MONEY_PROVIDER, config.MOBILE_MONEY_PROVIDER_CARRIER1_MOMO, config.MOBILE_MONEY_PROVIDER_CARRIER2_MONEY]);
  if (used.has('mtn_momo')) checkMomo(config, parsed.data.MOMO_BASE_URL);
  if (used.has('pawapay') && !config.PAWAPAY_API_TOKEN) {
    throw new ConfigError('Invalid configuration: PAWAPAY_API_TOKEN is required when a mobile-money provider is pawapay');
  }
  return config;
}

/**
 * MTN's settings must name one environment: the sandbox host with the target `sandbox` and EUR, or a
 * country's target with the production host given explicitly. A mix would send real payers' numbers
 * to the sandbox, or test requests to production; it stops the process instead.
 */
function checkMomo(config: Config, baseUrlGiven: string | undefined): void {
  for (const name of ['MOMO_API_USER', 'MOMO_API_KEY', 'MOMO_SUBSCRIPTION_KEY'] as const) {
    if (!config[name]) throw new ConfigError(`Invalid configuration: ${name} is required when a mobile-money provider is mtn_momo`);
  }
  const host = new URL(config.MOMO_BASE_URL).host;
  const target = config.MOMO_TARGET_ENVIRONMENT;
  if (target === 'sandbox') {
    if (host === new URL(MOMO_PRODUCTION_URL).host) {
      throw new ConfigError(`Invalid configuration: MOMO_BASE_URL is MTN's production host but MOMO_TARGET_ENVIRONMENT is sandbox: set the country's target (mtncameroon...)`);
    }
    if (config.MOMO_CURRENCY !== 'EUR') {
      throw new ConfigError(`Invalid configuration: MOMO_CURRENCY must be EUR with MOMO_TARGET_ENVIRONMENT=sandbox (MTN's sandbox takes EUR only), not ${config.MOMO_CURRENCY}`);
    }
    return;
  }
  if (!baseUrlGiven) {
    throw new ConfigError(`Invalid configuration: MOMO_BASE_URL is required when MOMO_TARGET_ENVIRONMENT is ${target} (MTN's production host is ${MOMO_PRODUCTION_URL})`);
  }
  if (host === new URL(MOMO_SANDBOX_URL).host) {
    throw new ConfigError(`Invalid configuration: MOMO_BASE_URL is MTN's sandbox but MOMO_TARGET_ENVIRONMENT is ${target}: the sandbox takes the target sandbox only`);
  }
}

/** Entry points call this: it prints the one line and exits instead of throwing. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
