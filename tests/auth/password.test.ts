import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { addStaff, chars, login, PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { startMailbox, startMailWorker as startMailWorkerFor, type ReceivedMail } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { expectInvalid } from '../support/replies.ts';

const api = await startService(t);

const INVALID_CREDENTIALS = { message: 'These credentials do not match our records.', code: 'invalid_credentials' };
const UNAUTHENTICATED = { message: 'Unauthenticated.', code: 'unauthenticated' };
const NEW_PASSWORD = 'brand-new-pass-2';


const me = (token: string) => api.request('GET', '/auth/me', { token });
const tryLogin = (email: string, password: string) => api.request('POST', '/auth/login', { body: { email, password } });

async function assertRevoked(t: Test, token: string, what: string) {
  const reply = await me(token);
  t.equal(reply.status, 401, `${what} is revoked`);
  t.strictSame(reply.body, UNAUTHENTICATED);
}

const mailbox = await startMailbox(t);
const startMailWorker = (t: Test) => startMailWorkerFor(t, api, mailbox);

/** The reset token stands alone on its own line of the e-mail's text. */
function tokenOf(mail: ReceivedMail): string {
  const token = mail.text.split('\n').map((line) => line.trim()).find((line) => /^[A-Za-z0-9_-]{32,}$/.test(line));
  if (!token) throw new Error(`no token line in:\n${mail.text}`);
  return token;
}

const forgot = (email: string) => api.request('POST', '/auth/forgot-password', { body: { email } });
const reset = (body: Record<string, unknown>) => api.request('POST', '/auth/reset-password', { body });

/** Asks for a reset and reads the token from the e-mail it sends (a worker must be running). */
async function resetTokenFor(t: Test, email: string): Promise<string> {
  t.equal((await forgot(email)).status, 200);
  return tokenOf(await mailbox.next(email));
}

// --- PUT /profile ---

t.test('PUT /profile changes the caller\'s name, phone and locale and answers the user', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('PUT', '/profile', { token: shop.token, body: { name: 'Awa N.', phone: '+237 677 11 22 33', locale: 'en' } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.equal(reply.body.data.id, shop.user.id);
  t.equal(reply.body.data.name, 'Awa N.');
  t.equal(reply.body.data.phone, '+237 677 11 22 33');
  t.equal(reply.body.data.locale, 'en');
  t.strictSame((await me(shop.token)).body.data.user, reply.body.data);
});

t.test('PUT /profile changes only the inputs sent', async (t) => {
  const shop = await registerShop(api, { phone: '+237 600 00 00 00' });
  const reply = await api.request('PUT', '/profile', { token: shop.token, body: { locale: 'en' } });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.name, shop.user.name);
  t.equal(reply.body.data.phone, '+237 600 00 00 00');
  t.equal(reply.body.data.locale, 'en');
  const empty = await api.request('PUT', '/profile', { token: shop.token, body: {} });
  t.equal(empty.status, 200);
  t.equal(empty.body.data.locale, 'en');
});

t.test('PUT /profile changes only the caller', async (t) => {
  const shop = await registerShop(api);
  const cashier = await addStaff(api, shop, 'cashier');
  const other = await registerShop(api);
  const before = await api.ownerSql`select id, name, phone, locale, updated_at from users where id <> ${cashier.user.id} order by id`;
  const reply = await api.request('PUT', '/profile', { token: cashier.token, body: { name: 'Cashier renamed', phone: '+237 1', locale: 'en' } });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.id, cashier.user.id);
  const after = await api.ownerSql`select id, name, phone, locale, updated_at from users where id <> ${cashier.user.id} order by id`;
  t.strictSame(after, before, 'no other user changed');
  t.equal((await me(shop.token)).body.data.user.name, shop.user.name);
  t.equal((await me(other.token)).body.data.user.name, other.user.name);
});

t.test('PUT /profile never changes the caller\'s role, e-mail or shop', async (t) => {
  const shop = await registerShop(api);
  const cashier = await addStaff(api, shop, 'cashier');
  const other = await registerShop(api);
  const reply = await api.request('PUT', '/profile', {
    token: cashier.token,
    body: { role: 'owner', email: uniqueEmail('hijack'), shop_id: other.shop.id, kind: 'admin' },
  });
  t.ok(reply.status === 200 || reply.status === 422, `answered ${reply.status}`);
  const user = (await me(cashier.token)).body.data.user;
  t.equal(user.role, 'cashier');
  t.equal(user.email, cashier.email);
  t.equal(user.shop_id, shop.shop.id);
  t.equal(user.kind, 'shop');
});

t.test('PUT /profile without a token is a 401 unauthenticated', async (t) => {
  const reply = await api.request('PUT', '/profile', { body: { name: 'Nobody' } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('a profile name of 160 characters is accepted', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('PUT', '/profile', { token: shop.token, body: { name: chars(160, 'n') } });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.name, chars(160, 'n'));
});

t.test('a profile name of 161 characters is a 422 on name', async (t) => {
  const shop = await registerShop(api);
  expectInvalid(t, await api.request('PUT', '/profile', { token: shop.token, body: { name: chars(161, 'n') } }), ['name']);
  t.equal((await me(shop.token)).body.data.user.name, shop.user.name, 'unchanged');
});

t.test('an empty or null profile name is a 422 on name', async (t) => {
  const shop = await registerShop(api);
  for (const name of ['', '  ', null]) {
    expectInvalid(t, await api.request('PUT', '/profile', { token: shop.token, body: { name } }), ['name']);
  }
});

t.test('a profile phone of 40 characters is accepted', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('PUT', '/profile', { token: shop.token, body: { phone: chars(40, '6') } });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.phone, chars(40, '6'));
});

t.test('a profile phone of 41 characters is a 422 on phone', async (t) => {
  const shop = await registerShop(api);
  expectInvalid(t, await api.request('PUT', '/profile', { token: shop.token, body: { phone: chars(41, '6') } }), ['phone']);
});

t.test('a null profile phone clears it', async (t) => {
  const shop = await registerShop(api, { phone: '+237 600 00 00 00' });
  const reply = await api.request('PUT', '/profile', { token: shop.token, body: { phone: null } });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.phone, null);
});

t.test('a profile locale of fr or en is accepted', async (t) => {
  const shop = await registerShop(api);
  for (const locale of ['en', 'fr']) {
    const reply = await api.request('PUT', '/profile', { token: shop.token, body: { locale } });
    t.equal(reply.status, 200);
    t.equal(reply.body.data.locale, locale);
  }
});

t.test('a profile locale other than fr or en is a 422 on locale', async (t) => {
  const shop = await registerShop(api);
  for (const locale of ['de', 'EN', '', null]) {
    expectInvalid(t, await api.request('PUT', '/profile', { token: shop.token, body: { locale } }), ['locale']);
  }
});

// --- POST /profile/password ---

t.test('a wrong current password is a 422 on current_password and changes nothing', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/profile/password', { token: shop.token, body: { current_password: 'not-my-password', password: NEW_PASSWORD } });
  expectInvalid(t, reply, ['current_password']);
  t.equal((await tryLogin(shop.email, PASSWORD)).status, 200, 'the old password still logs in');
  t.equal((await tryLogin(shop.email, NEW_PASSWORD)).status, 401);
});

t.test('a password change needs the current password', async (t) => {
  const shop = await registerShop(api);
  expectInvalid(t, await api.request('POST', '/profile/password', { token: shop.token, body: { password: NEW_PASSWORD } }), ['current_password']);
});

t.test('a new password of 7 characters is a 422 on password', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/profile/password', { token: shop.token, body: { current_password: PASSWORD, password: chars(7, 'x') } });
  expectInvalid(t, reply, ['password']);
  t.equal((await tryLogin(shop.email, PASSWORD)).status, 200);
});

t.test('a new password of 8 characters is accepted', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/profile/password', { token: shop.token, body: { current_password: PASSWORD, password: chars(8, 'x') } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.type(reply.body.data.message, 'string');
  t.equal((await tryLogin(shop.email, chars(8, 'x'))).status, 200);
});

t.test('a new password over 72 bytes is a 422 on password', async (t) => {
  const shop = await registerShop(api);
  const reply = await api.request('POST', '/profile/password', { token: shop.token, body: { current_password: PASSWORD, password: chars(73, 'x') } });
  expectInvalid(t, reply, ['password']);
  t.equal((await tryLogin(shop.email, PASSWORD)).status, 200);
});

t.test('POST /profile/password without a token is a 401 unauthenticated', async (t) => {
  const reply = await api.request('POST', '/profile/password', { body: { current_password: PASSWORD, password: NEW_PASSWORD } });
  t.equal(reply.status, 401);
  t.strictSame(reply.body, UNAUTHENTICATED);
});

t.test('after a password change the old password fails, the new one logs in, this session goes on and the others end', async (t) => {
  const shop = await registerShop(api);
  const laptop = await login(api, shop.email);
  const phone = await login(api, shop.email);
  const colleague = await addStaff(api, shop, 'manager');

  const reply = await api.request('POST', '/profile/password', { token: laptop, body: { current_password: PASSWORD, password: NEW_PASSWORD } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));

  const old = await tryLogin(shop.email, PASSWORD);
  t.equal(old.status, 401);
  t.strictSame(old.body, INVALID_CREDENTIALS);
  t.equal((await tryLogin(shop.email, NEW_PASSWORD)).status, 200);

  t.equal((await me(laptop)).status, 200, 'the session that changed it still works');
  await assertRevoked(t, phone, 'another login session');
  await assertRevoked(t, shop.token, 'the register session');
  t.equal((await me(colleague.token)).status, 200, 'a colleague\'s session is untouched');
});

// --- Forgot and reset ---

t.test('forgot-password answers 200 with the same body for a known and an unknown address', async (t) => {
  const shop = await registerShop(api);
  const known = await forgot(shop.email);
  const unknown = await forgot(uniqueEmail('nobody'));
  t.equal(known.status, 200);
  t.equal(unknown.status, 200);
  t.strictSame(known.body, unknown.body);
  t.type(known.body.data.message, 'string');
});

t.test('forgot-password without a valid e-mail is a 422 on email', async (t) => {
  expectInvalid(t, await api.request('POST', '/auth/forgot-password', { body: {} }), ['email']);
  expectInvalid(t, await forgot('not-an-address'), ['email']);
});

t.test('the reset token is stored hashed and never sits in clear in the job queue', async (t) => {
  const shop = await registerShop(api);
  t.equal((await forgot(shop.email)).status, 200);
  // Read before any worker runs: the job is still queued.
  const jobs = await api.ownerSql<{ payload: unknown }[]>`
    select j.payload
      from graphile_worker._private_jobs j
      join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'user__forgot_password' and j.payload->>'user_id' = ${shop.user.id}`;
  t.equal(jobs.length, 1, 'one e-mail job is queued');
  const resets = await api.ownerSql<{ token_hash: string }[]>`select token_hash from password_resets where user_id = ${shop.user.id}`;
  t.equal(resets.length, 1);

  await startMailWorker(t);
  const token = tokenOf(await mailbox.next(shop.email));
  t.ok(token.length >= 32, 'a long random token');
  t.not(resets[0]!.token_hash, token);
  t.notOk(resets[0]!.token_hash.includes(token), 'the raw token is not in password_resets');
  t.notOk(JSON.stringify(jobs[0]!.payload).includes(token), 'the raw token is not in the job payload');

  t.equal((await reset({ token, email: shop.email, password: NEW_PASSWORD })).status, 200, 'and yet the e-mailed token works');
});

t.test('a reset token is valid for 60 minutes', async (t) => {
  const shop = await registerShop(api);
  t.equal((await forgot(shop.email)).status, 200);
  const [row] = await api.ownerSql<{ ttl: number }[]>`
    select extract(epoch from expires_at - created_at)::int as ttl from password_resets where user_id = ${shop.user.id}`;
  t.equal(row!.ttl, 3600);
});

t.test('the reset e-mail is in English for an English-speaking user', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api, { locale: 'en' });
  t.equal((await forgot(shop.email)).status, 200);
  const mail = await mailbox.next(shop.email);
  t.strictSame(mail.to, [shop.email]);
  t.equal(mail.subject, 'Reset your password');
  t.match(mail.text, /^Hello Awa Ndiaye,$/m);
  t.ok(tokenOf(mail));
});

t.test('the reset e-mail is in French for a user of the default locale', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api);
  t.equal(shop.user.locale, 'fr');
  t.equal((await forgot(shop.email)).status, 200);
  const mail = await mailbox.next(shop.email);
  t.strictSame(mail.to, [shop.email]);
  t.equal(mail.subject, 'Réinitialisation de votre mot de passe');
  t.match(mail.text, /^Bonjour Awa Ndiaye,$/m);
  t.ok(tokenOf(mail));
});

t.test('the reset e-mail follows the user\'s own locale, not the shop\'s', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api, { locale: 'fr' });
  t.equal((await api.request('PUT', '/profile', { token: shop.token, body: { locale: 'en' } })).status, 200);
  t.equal((await forgot(shop.email.toUpperCase())).status, 200);
  const mail = await mailbox.next(shop.email);
  t.equal(mail.subject, 'Reset your password');
});

t.test('a reset sets the new password and ends every earlier session', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api);
  const other = await login(api, shop.email);
  const token = await resetTokenFor(t, shop.email);

  const reply = await reset({ token, email: shop.email, password: NEW_PASSWORD });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.type(reply.body.data.message, 'string');

  t.equal((await tryLogin(shop.email, NEW_PASSWORD)).status, 200, 'the new password logs in');
  const old = await tryLogin(shop.email, PASSWORD);
  t.equal(old.status, 401, 'the old password no longer does');
  t.strictSame(old.body, INVALID_CREDENTIALS);
  await assertRevoked(t, shop.token, 'the register session');
  await assertRevoked(t, other, 'the login session');
});

t.test('a reset token works once: a second use is a 422 invalid_reset_token on token', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api);
  const token = await resetTokenFor(t, shop.email);
  t.equal((await reset({ token, email: shop.email, password: NEW_PASSWORD })).status, 200);
  const again = await reset({ token, email: shop.email, password: 'third-password-3' });
  expectInvalid(t, again, ['token'], '', 'invalid_reset_token');
  t.equal((await tryLogin(shop.email, NEW_PASSWORD)).status, 200, 'the first reset stands');
  t.equal((await tryLogin(shop.email, 'third-password-3')).status, 401);
});

t.test('a reset token sent by concurrent requests works exactly once', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api);
  const token = await resetTokenFor(t, shop.email);
  const passwords = Array.from({ length: 6 }, (_, i) => `concurrent-password-${i}`);
  const replies = await Promise.all(passwords.map((password) => reset({ token, email: shop.email, password })));
  t.strictSame(replies.map((reply) => reply.status).sort(), [200, 422, 422, 422, 422, 422]);
  for (const reply of replies.filter((r) => r.status === 422)) expectInvalid(t, reply, ['token'], '', 'invalid_reset_token');
  const winner = passwords[replies.findIndex((reply) => reply.status === 200)]!;
  for (const password of passwords) {
    t.equal((await tryLogin(shop.email, password)).status, password === winner ? 200 : 401, `login with ${password}`);
  }
});

t.test('a wrong reset token is a 422 invalid_reset_token on token and changes nothing', async (t) => {
  const shop = await registerShop(api);
  t.equal((await forgot(shop.email)).status, 200, 'a live token exists for the account');
  const reply = await reset({ token: randomBytes(32).toString('base64url'), email: shop.email, password: NEW_PASSWORD });
  expectInvalid(t, reply, ['token'], '', 'invalid_reset_token');
  t.equal((await tryLogin(shop.email, PASSWORD)).status, 200);
  t.equal((await me(shop.token)).status, 200, 'sessions go on');
});

t.test('a reset token used with another account\'s e-mail is a 422 and changes neither account', async (t) => {
  await startMailWorker(t);
  const owner = await registerShop(api);
  const stranger = await registerShop(api);
  const token = await resetTokenFor(t, owner.email);

  expectInvalid(t, await reset({ token, email: stranger.email, password: NEW_PASSWORD }), ['token'], '', 'invalid_reset_token');
  t.equal((await tryLogin(stranger.email, PASSWORD)).status, 200, 'the stranger keeps their password');
  t.equal((await tryLogin(owner.email, PASSWORD)).status, 200, 'the owner keeps theirs');
  t.equal((await me(stranger.token)).status, 200);
  t.equal((await me(owner.token)).status, 200);

  t.equal((await reset({ token, email: owner.email, password: NEW_PASSWORD })).status, 200, 'the token still serves its own account');
});

t.test('an expired reset token is a 422 invalid_reset_token on token', async (t) => {
  await startMailWorker(t);
  const shop = await registerShop(api);
  const token = await resetTokenFor(t, shop.email);
  await api.ownerSql`update password_resets set expires_at = now() - interval '1 second' where user_id = ${shop.user.id}`;
  expectInvalid(t, await reset({ token, email: shop.email, password: NEW_PASSWORD }), ['token'], '', 'invalid_reset_token');
  t.equal((await tryLogin(shop.email, PASSWORD)).status, 200);
  t.equal((await me(shop.token)).status, 200);
});

t.test('a reset with a new password of 7 characters is a 422 on password', async (t) => {
  expectInvalid(t, await reset({ token: 'whatever', email: uniqueEmail(), password: chars(7, 'x') }), ['password']);
});

t.test('a reset with a new password over 72 bytes is a 422 on password', async (t) => {
  expectInvalid(t, await reset({ token: 'whatever', email: uniqueEmail(), password: chars(73, 'x') }), ['password']);
});

t.test('a reset needs a token, an e-mail and a password', async (t) => {
  expectInvalid(t, await reset({}), ['token', 'email', 'password']);
  expectInvalid(t, await reset({ token: '', email: uniqueEmail(), password: NEW_PASSWORD }), ['token']);
});
