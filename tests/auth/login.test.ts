import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import t from 'tap';
import { signAccessToken } from '../../api/auth/tokens.ts';
import { hashPassword } from '../../api/lib/password.ts';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { createPlatformUser } from '../../api/users/queries.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { login, PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { expectInvalid } from '../support/replies.ts';

const api = await startService(t);

const INVALID_CREDENTIALS = { message: 'These credentials do not match our records.', code: 'invalid_credentials' };
const UNAUTHENTICATED = { message: 'Unauthenticated.', code: 'unauthenticated' };

const sessionId = (token: string) => decodeJwt(token).sid as string;

const me = (token: string) => api.request('GET', '/auth/me', { token });


/** A platform administrator, created the way `npm run admin:create` does it. */
async function createAdministrator(email: string, password = PASSWORD) {
  const id = randomUUID();
  const passwordHash = await hashPassword(password, api.config.BCRYPT_ROUNDS);
  return inTenant(api.appSql, { shopId: null, userId: id }, (tx) =>
    createPlatformUser(tx, { id, kind: 'admin', name: 'Platform Admin', email, passwordHash, phone: null, locale: 'en' }),
  );
}

t.test('login by e-mail, in any case, returns a token, the user and the shop', async (t) => {
  const shop = await registerShop(api);
  for (const email of [shop.email, shop.email.toUpperCase()]) {
    const reply = await api.request('POST', '/auth/login', { body: { email, password: PASSWORD } });
    t.equal(reply.status, 200, JSON.stringify(reply.body));
    t.strictSame(Object.keys(reply.body.data).sort(), ['shop', 'token', 'user']);
    t.type(reply.body.data.token, 'string');
    t.equal(reply.body.data.user.id, shop.user.id);
    t.equal(reply.body.data.user.email, shop.email);
    t.equal(reply.body.data.user.role, 'owner');
    t.equal(reply.body.data.user.kind, 'shop');
    t.equal(reply.body.data.shop.id, shop.shop.id);
    t.equal(reply.body.data.shop.name, shop.shop.name);
    t.notOk('password_hash' in reply.body.data.user);
    t.equal((await me(reply.body.data.token)).status, 200, 'the token works');
  }
});

t.test('each login opens a new session with its own token', async (t) => {
  const shop = await registerShop(api);
  const first = await login(api, shop.email);
  const second = await login(api, shop.email);
  t.not(first, second);
  t.not(sessionId(first), sessionId(second));
  const sessions = await api.ownerSql`select id from sessions where user_id = ${shop.user.id} and revoked_at is null`;
  t.equal(sessions.length, 3, 'register and two logins');
});

t.test('device_name is kept on the session', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/auth/login', { body: { email: shop.email, password: PASSWORD, device_name: 'Caisse 1' } });
  t.equal(reply.status, 200);
  const [session] = await api.ownerSql`select user_id, device_name from sessions where id = ${sessionId(reply.body.data.token)}`;
  t.strictSame({ ...session }, { user_id: shop.user.id, device_name: 'Caisse 1' });
});

t.test('device_name may be null or omitted', async (t) => {
  const shop = await registerShop(api);
  for (const body of [{ email: shop.email, password: PASSWORD, device_name: null }, { email: shop.email, password: PASSWORD }]) {
    const reply = await api.request('POST', '/auth/login', { body });
    t.equal(reply.status, 200, JSON.stringify(reply.body));
    const [session] = await api.ownerSql`select device_name from sessions where id = ${sessionId(reply.body.data.token)}`;
    t.equal(session!.device_name, null);
  }
});

t.test('a wrong password is a 401 invalid_credentials', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/auth/login', { body: { email: shop.email, password: 'not-the-password' } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, INVALID_CREDENTIALS);
});

t.test('an unknown e-mail is a 401 invalid_credentials, the same answer as a wrong password', async (t) => {
  const reply = await api.request('POST', '/auth/login', { body: { email: uniqueEmail('nobody'), password: PASSWORD } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, INVALID_CREDENTIALS);
});

t.test('a password differing only in case is a 401 invalid_credentials', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/auth/login', { body: { email: shop.email, password: PASSWORD.toUpperCase() } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, INVALID_CREDENTIALS);
});

t.test('login without e-mail and password is a 422 on both', async (t) => {
  expectInvalid(t, await api.request('POST', '/auth/login', { body: {} }), ['email', 'password']);
});

t.test('login without a password is a 422 on password', async (t) => {
  expectInvalid(t, await api.request('POST', '/auth/login', { body: { email: uniqueEmail() } }), ['password']);
  expectInvalid(t, await api.request('POST', '/auth/login', { body: { email: uniqueEmail(), password: '' } }), ['password']);
});

t.test('login without an e-mail is a 422 on email', async (t) => {
  expectInvalid(t, await api.request('POST', '/auth/login', { body: { password: PASSWORD } }), ['email']);
});

t.test('login with an e-mail that is not an address is a 422 on email', async (t) => {
  expectInvalid(t, await api.request('POST', '/auth/login', { body: { email: 'awa', password: PASSWORD } }), ['email']);
});

t.test('GET /auth/me with the token returns the user and the shop', async (t) => {
  const shop = await registerShop(api);
  const reply = await me(shop.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body).sort(), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), ['shop', 'user']);
  t.strictSame(reply.body.data.user, shop.user);
  t.equal(reply.body.data.shop.id, shop.shop.id);
  t.equal(reply.body.data.shop.subscription_status, 'trial');
});

t.test('GET /auth/me without a token is a 401 unauthenticated', async (t) => {
  const reply = await api.request('GET', '/auth/me');
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('a garbage token is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  for (const authorization of ['Bearer not-a-token', 'Bearer a.b.c', `Bearer ${shop.token}x`, `Basic ${shop.token}`, shop.token, 'Bearer ']) {
    const reply = await api.request('GET', '/auth/me', { headers: { authorization } });
    t.equal(reply.status, 401, authorization);
    t.strictSame(reply.body, UNAUTHENTICATED);
  }
});

t.test('a token signed with another key is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  const genuine = decodeJwt(shop.token);
  const forged = await new SignJWT({ sid: genuine.sid, shop: genuine.shop })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(genuine.sub!)
    .setIssuer(genuine.iss!)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('another-key-entirely-0123456789abcdef'));
  const reply = await me(forged);
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('an unsigned token (alg none) is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  const genuine = decodeJwt(shop.token);
  const unsigned = new UnsecuredJWT({ sid: genuine.sid, shop: genuine.shop })
    .setSubject(genuine.sub!)
    .setIssuer(genuine.iss!)
    .setIssuedAt()
    .setExpirationTime('1h')
    .encode();
  const reply = await me(unsigned);
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('a token whose session has expired is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  const token = await login(api, shop.email);
  t.equal((await me(token)).status, 200);
  await api.ownerSql`update sessions set expires_at = now() - interval '1 minute' where id = ${sessionId(token)}`;
  const reply = await me(token);
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
  t.equal((await me(shop.token)).status, 200, 'the user\'s other session still works');
});

t.test('a well-signed token past its own expiry is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  const claims = { userId: shop.user.id, sessionId: sessionId(shop.token), shopId: shop.shop.id };
  const stale = await signAccessToken(TEST_APP_KEY, claims, new Date(Date.now() - 60_000));
  const reply = await me(stale);
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('a well-signed token naming no session is a 401 unauthenticated', async (t) => {
  const shop = await registerShop(api);
  const claims = { userId: shop.user.id, sessionId: randomUUID(), shopId: shop.shop.id };
  const reply = await me(await signAccessToken(TEST_APP_KEY, claims, new Date(Date.now() + 3_600_000)));
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('logout answers 204 and the token is then a 401, while the user\'s other session still works', async (t) => {
  const shop = await registerShop(api);
  const token = await login(api, shop.email);
  const reply = await api.request('POST', '/auth/logout', { token });
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');

  const after = await me(token);
  t.equal(after.status, 401);
  t.strictSame(after.body, UNAUTHENTICATED);
  const again = await api.request('POST', '/auth/logout', { token });
  t.equal(again.status, 401, 'a second logout with the same token is refused');

  t.equal((await me(shop.token)).status, 200, 'the register session still works');
  const [session] = await api.ownerSql`select revoked_at from sessions where id = ${sessionId(token)}`;
  t.not(session!.revoked_at, null, 'the session row is revoked');
});

t.test('logout without a token is a 401 unauthenticated', async (t) => {
  const reply = await api.request('POST', '/auth/logout');
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('a platform administrator logs in with no shop and user.kind admin', async (t) => {
  const email = uniqueEmail('admin');
  const admin = await createAdministrator(email);
  const reply = await api.request('POST', '/auth/login', { body: { email: email.toUpperCase(), password: PASSWORD } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.equal(reply.body.data.shop, null);
  t.equal(reply.body.data.user.id, admin.id);
  t.equal(reply.body.data.user.kind, 'admin');
  t.equal(reply.body.data.user.role, null);
  t.equal(reply.body.data.user.shop_id, null);

  const who = await me(reply.body.data.token);
  t.equal(who.status, 200);
  t.equal(who.body.data.shop, null);
  t.equal(who.body.data.user.kind, 'admin');
});

t.test('a platform administrator is a 403 forbidden on GET /shop', async (t) => {
  const email = uniqueEmail('admin');
  await createAdministrator(email);
  const token = await login(api, email);
  const reply = await api.request('GET', '/shop', { token });
  t.equal(reply.status, 403);
  t.strictSame(reply.body, { message: 'This action is unauthorized.', code: 'forbidden' });
});

t.test('a platform administrator with a wrong password is a 401 invalid_credentials', async (t) => {
  const email = uniqueEmail('admin');
  await createAdministrator(email);
  const reply = await api.request('POST', '/auth/login', { body: { email, password: 'wrong-password' } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, INVALID_CREDENTIALS);
});
