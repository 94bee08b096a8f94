import { spawnSync } from 'node:child_process';
import t from 'tap';
import { ConfigError, loadConfig } from '../../api/config.ts';

t.test('defaults apply when the environment says nothing', async (t) => {
  const config = loadConfig({});
  t.equal(config.PORT, 3000);
  t.equal(config.MOBILE_MONEY_PROVIDER, 'simulator');
  t.equal(config.LOG_LEVEL, 'info');
  t.equal(config.DATA_DIR, '.data');
  t.equal(config.DATABASE_URL, undefined);
  t.same([config.TRUST_PROXY, config.DB_ACQUIRE_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS, config.SHUTDOWN_TIMEOUT_MS], [0, 5_000, 120_000, 25_000]);
  t.same([config.WORKER_CONCURRENCY, config.MAIL_CONCURRENCY, config.SMTP_TIMEOUT_MS], [4, 2, 30_000]);
});

t.test('TRUST_PROXY is a number of proxies: true is one, false none', async (t) => {
  t.same(['true', 'yes', 'false', 'no', '0', '2'].map((value) => loadConfig({ TRUST_PROXY: value }).TRUST_PROXY), [1, 1, 0, 0, 0, 2]);
});

t.test('a malformed value is refused with one line naming the variable', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /^Invalid configuration: PORT /],
    [{ PORT: '70000' }, /^Invalid configuration: PORT /],
    [{ DATABASE_URL: 'mysql://x@y/z' }, /^Invalid configuration: DATABASE_URL must be a postgres:\/\/ URL$/],
    [{ LOG_LEVEL: 'loud' }, /^Invalid configuration: LOG_LEVEL /],
    [{ APP_KEY: 'short' }, /^Invalid configuration: APP_KEY must be at least 32 characters$/],
    [{ SMTP_URL: 'http://mail' }, /^Invalid configuration: SMTP_URL /],
    [{ MOBILE_MONEY_PROVIDER: 'bank' }, /^Invalid configuration: MOBILE_MONEY_PROVIDER /],
    [{ TRUST_PROXY: 'maybe' }, /^Invalid configuration: TRUST_PROXY must be true, false or a number of proxies from 0 to 9$/],
    [{ HTTP_REQUEST_TIMEOUT_MS: '5000' }, /^Invalid configuration: HTTP_REQUEST_TIMEOUT_MS /],
    [{ DB_ACQUIRE_TIMEOUT_MS: '0' }, /^Invalid configuration: DB_ACQUIRE_TIMEOUT_MS /],
    [{ SHUTDOWN_TIMEOUT_MS: '-1' }, /^Invalid configuration: SHUTDOWN_TIMEOUT_MS /],
    [{ MAIL_CONCURRENCY: '0' }, /^Invalid configuration: MAIL_CONCURRENCY /],
    [{ SMTP_TIMEOUT_MS: 'never' }, /^Invalid configuration: SMTP_TIMEOUT_MS /],
  ];
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), { constructor: ConfigError, message }, JSON.stringify(env));
  }
});

t.test('production needs APP_KEY and DATABASE_URL', async (t) => {
  t.throws(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://a@b/c' }), {
    message: 'Invalid configuration: APP_KEY is required when NODE_ENV=production',
  });
  t.throws(() => loadConfig({ NODE_ENV: 'production', APP_KEY: 'k'.repeat(40) }), {
    message: 'Invalid configuration: DATABASE_URL is required when NODE_ENV=production',
  });
});

t.test('a process started with a bad value stops at once with that line and exit code 1', async (t) => {
  const result = spawnSync(process.execPath, ['--import=tsx', 'api/web.ts'], {
    env: { ...process.env, PORT: 'not-a-port' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.equal(result.status, 1);
  t.match(result.stderr.trim(), /^Invalid configuration: PORT [^\n]+$/);
});

t.test('the worker\'s metrics port needs the metrics token, and the token is long enough to guess at', async (t) => {
  t.throws(() => loadConfig({ WORKER_METRICS_PORT: '9464' }), {
    constructor: ConfigError,
    message: 'Invalid configuration: METRICS_TOKEN is required when WORKER_METRICS_PORT is set',
  });
  t.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), { constructor: ConfigError, message: /^Invalid configuration: METRICS_TOKEN must be at least 16 characters$/ });
  const config = loadConfig({ WORKER_METRICS_PORT: '9464', METRICS_TOKEN: 'a-metrics-token-of-some-length' });
  t.same([config.WORKER_METRICS_PORT, config.METRICS_TOKEN], [9464, 'a-metrics-token-of-some-length']);
  t.equal(loadConfig({}).METRICS_TOKEN, undefined, 'no metrics unless asked for');
});

const MOMO_KEYS = { MOBILE_MONEY_PROVIDER: 'mtn_momo', MOMO_API_USER: 'user', MOMO_API_KEY: 'key', MOMO_SUBSCRIPTION_KEY: 'sub' };

t.test('MTN MoMo\'s sandbox pairs with EUR and its own host; a country\'s target needs the production host, in XAF', async (t) => {
  const sandbox = loadConfig(MOMO_KEYS);
  t.same([sandbox.MOMO_BASE_URL, sandbox.MOMO_TARGET_ENVIRONMENT, sandbox.MOMO_CURRENCY], ['https://sandbox.momodeveloper.mtn.com', 'sandbox', 'EUR']);
  const live = loadConfig({ ...MOMO_KEYS, MOMO_TARGET_ENVIRONMENT: 'mtncameroon', MOMO_BASE_URL: 'https://proxy.momoapi.mtn.com' });
  t.same([live.MOMO_BASE_URL, live.MOMO_CURRENCY], ['https://proxy.momoapi.mtn.com', 'XAF']);
});

t.test('a wrong combination of MTN MoMo\'s settings is refused with one line naming it', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ MOMO_CURRENCY: 'XAF' }, /^Invalid configuration: MOMO_CURRENCY must be EUR with MOMO_TARGET_ENVIRONMENT=sandbox \(MTN's sandbox takes EUR only\), not XAF$/],
    [{ MOMO_TARGET_ENVIRONMENT: 'mtncameroon' }, /^Invalid configuration: MOMO_BASE_URL is required when MOMO_TARGET_ENVIRONMENT is mtncameroon \(MTN's production host is https:\/\/proxy.momoapi.mtn.com\)$/],
    [{ MOMO_TARGET_ENVIRONMENT: 'mtncameroon', MOMO_BASE_URL: 'https://sandbox.momodeveloper.mtn.com' }, /^Invalid configuration: MOMO_BASE_URL is MTN's sandbox but MOMO_TARGET_ENVIRONMENT is mtncameroon/],
    [{ MOMO_BASE_URL: 'https://proxy.momoapi.mtn.com' }, /^Invalid configuration: MOMO_BASE_URL is MTN's production host but MOMO_TARGET_ENVIRONMENT is sandbox/],
    [{ MOMO_API_KEY: '' }, /^Invalid configuration: MOMO_API_KEY is required when a mobile-money provider is mtn_momo$/],
  ];
  for (const [env, message] of cases) t.throws(() => loadConfig({ ...MOMO_KEYS, ...env }), { constructor: ConfigError, message }, JSON.stringify(env));
  t.throws(() => loadConfig({ MOBILE_MONEY_PROVIDER_CARRIER2_MONEY: 'pawapay' }), {
    message: 'Invalid configuration: PAWAPAY_API_TOKEN is required when a mobile-money provider is pawapay',
  });
  t.doesNotThrow(() => loadConfig({ MOMO_CURRENCY: 'XAF' }), 'MTN\'s settings are checked only when MTN MoMo is used');
});

t.test('a worker started with MTN\'s sandbox in XAF stops at once with that line and exit code 1', async (t) => {
  const result = spawnSync(process.execPath, ['--import=tsx', 'worker/main.ts'], {
    env: { ...process.env, ...MOMO_KEYS, MOMO_CURRENCY: 'XAF' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.equal(result.status, 1);
  t.match(result.stderr.trim(), /^Invalid configuration: MOMO_CURRENCY must be EUR with MOMO_TARGET_ENVIRONMENT=sandbox[^\n]+$/);
});
