import t, { type Test } from 'tap';
import { createApp } from '../../api/app.ts';
import { createSql } from '../../api/db.ts';
import { createLogger } from '../../api/logger.ts';
import { nodeClientAddress, serveNode } from '../../api/server.ts';
import { PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { startService, type Reply, type Service } from '../support/service.ts';

const api = await startService(t);

const RATE_LIMITED = { message: 'Too many attempts.', code: 'rate_limited' };
const INVALID_CREDENTIALS = { message: 'These credentials do not match our records.', code: 'invalid_credentials' };

const loginThrough = (service: Pick<Service, 'request'>, email: string, password: string) =>
  service.request('POST', '/auth/login', { body: { email, password } });

function assertRateLimited(t: Test, reply: Reply, what: string) {
  t.equal(reply.status, 429, `${what}: ${JSON.stringify(reply.body)}`);
  t.strictSame(reply.body, RATE_LIMITED);
}

async function failLogins(t: Test, service: Pick<Service, 'request'>, email: string, times: number) {
  for (let i = 0; i < times; i++) {
    const reply = await loginThrough(service, email, `wrong-password-${i}`);
    t.equal(reply.status, 401, `failed attempt ${i + 1} is a 401`);
    t.strictSame(reply.body, INVALID_CREDENTIALS);
  }
}

/** A second web process: its own pool and HTTP server on the same database as `api`. */
async function secondWebProcess(t: Test): Promise<Pick<Service, 'request'>> {
  const sql = createSql(api.appUrl, { max: 2 });
  const app = createApp({ config: api.config, sql, appKey: api.runtime.appKey, log: createLogger('silent'), clientAddress: nodeClientAddress });
  const server = await serveNode(app, 0, { hostname: '127.0.0.1' });
  t.teardown(async () => {
    await server.close(0);
    await sql.end({ timeout: 1 });
  });
  const baseUrl = `http://127.0.0.1:${server.port}/api/v1`;
  return {
    async request(method, path, options = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : text, headers: response.headers };
    },
  };
}

t.test('after 10 failed logins for one e-mail, the 11th attempt is a 429 even with the right password', async (t) => {
  const shop = await registerShop(api);
  await failLogins(t, api, shop.email, 10);
  assertRateLimited(t, await loginThrough(api, shop.email, PASSWORD), 'the right password');
  assertRateLimited(t, await loginThrough(api, shop.email, 'wrong-again'), 'a wrong password');
});

t.test('failed logins of one e-mail do not lock out another', async (t) => {
  const locked = await registerShop(api);
  const other = await registerShop(api);
  await failLogins(t, api, locked.email, 10);
  assertRateLimited(t, await loginThrough(api, locked.email, PASSWORD), 'the locked e-mail');
  const reply = await loginThrough(api, other.email, PASSWORD);
  t.equal(reply.status, 200, 'another e-mail still logs in');
  t.equal(reply.body.data.user.id, other.user.id);
});

t.test('failed logins count per e-mail whatever its case', async (t) => {
  const shop = await registerShop(api);
  await failLogins(t, api, shop.email, 5);
  await failLogins(t, api, shop.email.toUpperCase(), 5);
  assertRateLimited(t, await loginThrough(api, shop.email, PASSWORD), 'the lower-case e-mail');
});

t.test('successful logins are not counted as failures', async (t) => {
  const shop = await registerShop(api);
  await failLogins(t, api, shop.email, 9);
  for (let i = 0; i < 5; i++) t.equal((await loginThrough(api, shop.email, PASSWORD)).status, 200, `good login ${i + 1}`);
  await failLogins(t, api, shop.email, 1);
  assertRateLimited(t, await loginThrough(api, shop.email, PASSWORD), 'after the 10th failure');
});

t.test('concurrent failed logins for one e-mail never get more than 10 passwords checked', async (t) => {
  const shop = await registerShop(api);
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => loginThrough(api, shop.email, `wrong-password-${i}`)));
  const checked = replies.filter((reply) => reply.status === 401).length;
  t.ok(checked <= 10, `${checked} passwords were checked`);
  t.equal(checked + replies.filter((reply) => reply.status === 429).length, 40, 'every other attempt is a 429');
  assertRateLimited(t, await loginThrough(api, shop.email, PASSWORD), 'the right password afterwards');
});

t.test('failed logins for an unknown e-mail are limited too', async (t) => {
  const email = uniqueEmail('nobody');
  await failLogins(t, api, email, 10);
  assertRateLimited(t, await loginThrough(api, email, PASSWORD), 'the 11th attempt');
});

t.test('the 6th forgot-password request for one e-mail within an hour is a 429', async (t) => {
  const shop = await registerShop(api);
  for (let i = 0; i < 5; i++) {
    const reply = await api.request('POST', '/auth/forgot-password', { body: { email: i % 2 ? shop.email.toUpperCase() : shop.email } });
    t.equal(reply.status, 200, `request ${i + 1} is accepted`);
  }
  assertRateLimited(t, await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } }), 'the 6th request');
  const other = await api.request('POST', '/auth/forgot-password', { body: { email: uniqueEmail('other') } });
  t.equal(other.status, 200, 'another e-mail is still served');
});

t.test('a rate limit\'s Retry-After is the time left in its window: up to an hour for forgot-password, up to 15 minutes for logins', async (t) => {
  const shop = await registerShop(api);
  for (let i = 0; i < 5; i++) await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } });
  const forgot = await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } });
  assertRateLimited(t, forgot, 'the 6th forgot-password request');
  const hour = Number(forgot.headers.get('retry-after'));
  t.ok(hour > 3500 && hour <= 3600, `Retry-After ${hour} s: what is left of the hour`);
  const email = uniqueEmail('locked');
  await failLogins(t, api, email, 10);
  const login = await loginThrough(api, email, PASSWORD);
  assertRateLimited(t, login, 'the 11th login');
  const quarter = Number(login.headers.get('retry-after'));
  t.ok(quarter > 800 && quarter <= 900, `Retry-After ${quarter} s: what is left of the 15 minutes`);
});

t.test('the 11th registration attempt for one e-mail within an hour is a 429', async (t) => {
  const email = uniqueEmail('owner');
  const body = { shop_name: 'Boutique', owner_name: 'Awa', owner_email: email, password: PASSWORD };
  t.equal((await api.request('POST', '/auth/register', { body })).status, 201);
  for (let i = 2; i <= 10; i++) t.equal((await api.request('POST', '/auth/register', { body })).status, 422, `attempt ${i}: e-mail taken`);
  assertRateLimited(t, await api.request('POST', '/auth/register', { body }), 'the 11th attempt');
});

t.test('the counters live in PostgreSQL: two web processes count failed logins together', async (t) => {
  const shop = await registerShop(api);
  const second = await secondWebProcess(t);
  t.equal((await loginThrough(second, shop.email, PASSWORD)).status, 200, 'the second process serves the same database');

  await failLogins(t, api, shop.email, 9);
  const [bucket] = await api.ownerSql<{ hits: number }[]>`select hits from rate_limits where bucket = ${`login-failures:${shop.email}`}`;
  t.equal(bucket?.hits, 9, 'the rate_limits table holds the e-mail\'s bucket');

  await failLogins(t, second, shop.email, 1);
  assertRateLimited(t, await loginThrough(second, shop.email, PASSWORD), 'the 11th attempt through the second process');
  assertRateLimited(t, await loginThrough(api, shop.email, PASSWORD), 'and through the first');
});

t.test('300 public requests per address in 15 minutes', async (t) => {
  // Its own database, so that the address counter starts from zero.
  const fresh = await startService(t);
  const shop = await registerShop(fresh);
  const addressHits = async () =>
    (await fresh.ownerSql<{ hits: number }[]>`select hits from rate_limits where bucket like 'address:%'`).map((row) => row.hits);

  t.test('300 public requests from one address pass and the 301st is a 429', async (t) => {
    for (let i = 2; i <= 300; i++) {
      const reply = await fresh.request('POST', '/auth/forgot-password', { body: { email: uniqueEmail(`n${i}`) } });
      if (reply.status !== 200) t.fail(`request ${i} answered ${reply.status}`);
    }
    t.strictSame(await addressHits(), [300], 'one address bucket counted every request');
    assertRateLimited(t, await loginThrough(fresh, shop.email, PASSWORD), 'the 301st request');
    const register = { shop_name: 'Boutique', owner_name: 'Awa', owner_email: uniqueEmail(), password: PASSWORD };
    assertRateLimited(t, await fresh.request('POST', '/auth/register', { body: register }), 'a register after it');
  });

  t.test('requests with a bearer token are not counted against the address', async (t) => {
    const [before] = await addressHits();
    t.ok(before! > 300, 'the address is over its limit');
    t.equal((await fresh.request('GET', '/auth/me', { token: shop.token })).status, 200);
    t.equal((await fresh.request('PUT', '/profile', { token: shop.token, body: { locale: 'en' } })).status, 200);
    t.strictSame(await addressHits(), [before], 'the address counter did not move');
  });
});

t.test('behind TRUST_PROXY proxies, the address is the entry the outermost trusted proxy added, never the client-written leftmost', async (t) => {
  const cases: [trust: string, forwarded: string, address: string][] = [
    ['true', '10.9.8.7, 198.51.100.7', '198.51.100.7'],
    ['true', '198.51.100.8', '198.51.100.8'],
    ['2', 'spoofed, 203.0.113.9, 10.0.0.1', '203.0.113.9'],
    ['2', '203.0.113.10', '203.0.113.10'],
    ['false', '198.51.100.11', '127.0.0.1'],
  ];
  for (const [trust, forwarded, address] of cases) {
    const service = await startService(t, { TRUST_PROXY: trust });
    await service.request('POST', '/auth/login', { body: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-for': forwarded } });
    const buckets = await service.ownerSql<{ bucket: string }[]>`select bucket from rate_limits where bucket like 'address:%'`;
    t.same(buckets.map((row) => row.bucket), [`address:${address}`], `TRUST_PROXY=${trust}, X-Forwarded-For: ${forwarded}`);
  }
});

t.test('a client that rotates its own X-Forwarded-For entry still meets the per-address limit', async (t) => {
  const service = await startService(t, { TRUST_PROXY: 'true' });
  const login = (i: number) =>
    service.request('POST', '/auth/login', {
      body: { email: uniqueEmail(), password: PASSWORD },
      headers: { 'x-forwarded-for': `10.0.${Math.floor(i / 250)}.${i % 250}, 198.51.100.20` },
    });
  for (let i = 0; i < 300; i++) {
    const reply = await login(i);
    if (reply.status !== 401) t.fail(`attempt ${i + 1} answered ${reply.status}`);
  }
  assertRateLimited(t, await login(300), 'the 301st request from the one real address');
});
