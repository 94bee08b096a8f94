import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { addStaff, chars, expireSubscription, login, PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import {
  expectConflict,
  expectError,
  expectInvalid,
  FORBIDDEN,
  INVALID_CREDENTIALS,
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  UNAUTHENTICATED,
} from '../support/replies.ts';

const api = await startService(t);

const USER_KEYS = ['created_at', 'email', 'id', 'kind', 'locale', 'name', 'phone', 'role', 'shop_id', 'updated_at'];

/** What the database holds for a user, read past row-level security. */
async function storedUser(id: string) {
  const [row] = await api.ownerSql`
    select id, shop_id, kind, role, name, email, phone, locale, password_hash, deleted_at, updated_at from users where id = ${id}`;
  return row;
}

async function liveOwners(shopId: string): Promise<string[]> {
  const rows = await api.ownerSql<{ id: string }[]>`
    select id from users where shop_id = ${shopId} and role = 'owner' and deleted_at is null order by id`;
  return rows.map((row) => row.id);
}

const whoAmI = (token: string) => api.request('GET', '/auth/me', { token });
const tryLogin = (email: string, password = PASSWORD) => api.request('POST', '/auth/login', { body: { email, password } });
const createUser = (token: string, body: Record<string, unknown>) => api.request('POST', '/users', { token, body });
const newUser = (overrides: Record<string, unknown> = {}) => ({
  name: 'Jean Mballa',
  email: uniqueEmail('staff'),
  password: PASSWORD,
  role: 'cashier',
  ...overrides,
});

/** The owner's shop with one manager and one cashier, all logged in. */
async function staffedShop() {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  return { owner, manager, cashier };
}

/**
 * Fires `requests` while the shop's row is locked, and releases the lock once `waiting` sessions
 * queue behind it: the requests have all authenticated and reached the last-owner check, so they
 * meet there at the same moment.
 */
async function meetingAtTheShopLock(shopId: string, waiting: number, requests: () => Promise<Reply[]>): Promise<{ met: boolean; replies: Reply[] }> {
  let replies!: Promise<Reply[]>;
  let met = false;
  await api.ownerSql.begin(async (tx) => {
    await tx`select 1 from shops where id = ${shopId} for update`;
    let settled = false;
    replies = requests().finally(() => {
      settled = true;
    });
    const deadline = Date.now() + 10_000;
    while (!settled && Date.now() < deadline) {
      const [row] = await api.ownerSql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      met = row!.n >= waiting;
      if (met) break;
      await sleep(5);
    }
  });
  return { met, replies: await replies };
}

// Listing

t.test('the owner and a manager list the shop\'s staff, oldest first', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    const reply = await api.request('GET', '/users', { token });
    t.equal(reply.status, 200, `${who}: 200`);
    t.strictSame(Object.keys(reply.body).sort(), ['data', 'meta'], `${who}: data and meta`);
    t.strictSame(reply.body.meta, { next_cursor: null }, `${who}: one page`);
    t.strictSame(reply.body.data.map((u: any) => u.id), [owner.user.id, manager.user.id, cashier.user.id], `${who}: oldest first`);
    t.strictSame(reply.body.data.map((u: any) => u.role), ['owner', 'manager', 'cashier'], `${who}: roles`);
    for (const user of reply.body.data) t.strictSame(Object.keys(user).sort(), USER_KEYS, `${who}: record keys of ${user.role}`);
    t.notMatch(JSON.stringify(reply.body), /password/i, `${who}: no password anywhere`);
  }
});

t.test('a cashier may not list the staff (403)', async (t) => {
  const { cashier } = await staffedShop();
  expectError(t, await api.request('GET', '/users', { token: cashier.token }), 403, FORBIDDEN);
});

t.test('every staff route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const id = owner.user.id;
  const calls: [string, string, unknown][] = [
    ['GET', '/users', undefined],
    ['POST', '/users', newUser()],
    ['PUT', `/users/${id}`, { name: 'X' }],
    ['DELETE', `/users/${id}`, undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.equal((await storedUser(id))!.name, 'Awa Ndiaye', 'nothing changed');
});

t.test('the staff list never shows another shop\'s users', async (t) => {
  const mine = await registerShop(api);
  const theirs = await staffedShop();
  const reply = await api.request('GET', '/users?limit=200', { token: mine.token });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data.map((u: any) => u.id), [mine.user.id]);
  t.notOk(reply.body.data.some((u: any) => u.shop_id === theirs.owner.shop.id));
});

t.test('limit is 1 to 200 and defaults to 50', async (t) => {
  const owner = await registerShop(api);
  for (let i = 0; i < 51; i++) {
    const created = await createUser(owner.token, newUser({ name: `Cashier ${i}` }));
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const all = await api.request('GET', '/users?limit=200', { token: owner.token });
  t.equal(all.status, 200);
  t.equal(all.body.data.length, 52, 'limit=200 holds all 52 users');
  t.equal(all.body.meta.next_cursor, null);

  const first = await api.request('GET', '/users', { token: owner.token });
  t.equal(first.status, 200);
  t.equal(first.body.data.length, 50, 'default page of 50');
  t.type(first.body.meta.next_cursor, 'string', 'a cursor to the rest');
  const rest = await api.request('GET', `/users?cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, { token: owner.token });
  t.equal(rest.status, 200);
  t.strictSame(
    [...first.body.data, ...rest.body.data].map((u: any) => u.id),
    all.body.data.map((u: any) => u.id),
    'the second page continues the first',
  );
  t.equal(rest.body.meta.next_cursor, null);

  const one = await api.request('GET', '/users?limit=1', { token: owner.token });
  t.equal(one.status, 200, 'limit=1 is allowed');
  t.equal(one.body.data.length, 1);

  for (const limit of ['0', '201', '-1', '1.5', 'abc']) {
    expectInvalid(t, await api.request('GET', `/users?limit=${limit}`, { token: owner.token }), 'limit', `limit=${limit}`);
  }
});

t.test('walking next_cursor with limit=1 visits every user exactly once, then next_cursor is null', async (t) => {
  const owner = await registerShop(api);
  for (let i = 0; i < 4; i++) await addStaff(api, owner, i % 2 ? 'manager' : 'cashier');
  const expected = (await api.request('GET', '/users?limit=200', { token: owner.token })).body.data.map((u: any) => u.id);
  t.equal(expected.length, 5);
  const visited: string[] = [];
  let cursor: string | null = null;
  for (let pageNo = 0; pageNo < 20; pageNo++) {
    const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
    const reply: Reply = await api.request('GET', `/users${query}`, { token: owner.token });
    t.equal(reply.status, 200, `page ${pageNo}`);
    t.ok(reply.body.data.length <= 1, `page ${pageNo} holds at most one user`);
    visited.push(...reply.body.data.map((u: any) => u.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, expected, 'every user once, in order');
});

t.test('a garbage cursor is 422 on cursor', async (t) => {
  const owner = await registerShop(api);
  const garbage = [
    'garbage',
    'not a cursor!',
    Buffer.from('x|y').toString('base64url'),
    Buffer.from(JSON.stringify(['2024-01-01T00:00:00.000000Z', 'not-a-uuid'])).toString('base64url'),
    Buffer.from(JSON.stringify(['2024-01-01T00:00:00.000000Z', randomUUID(), 'extra'])).toString('base64url'),
    Buffer.from(JSON.stringify({ at: '2024-01-01T00:00:00.000000Z' })).toString('base64url'),
    chars(201),
  ];
  for (const cursor of garbage) {
    expectInvalid(t, await api.request('GET', `/users?cursor=${encodeURIComponent(cursor)}`, { token: owner.token }), 'cursor', `cursor ${cursor}`);
  }
});

t.test('a cursor whose date is not a timestamp the server wrote is 422 on cursor', async (t) => {
  const owner = await registerShop(api);
  for (const at of ['1', 'March 7', '12/31', '2024-02-30T00:00:00.000000Z', '2024-01-01T00:00:00.000Z']) {
    const cursor = Buffer.from(JSON.stringify([at, randomUUID()])).toString('base64url');
    expectInvalid(t, await api.request('GET', `/users?cursor=${cursor}`, { token: owner.token }), 'cursor', `date ${JSON.stringify(at)}`);
  }
});

// Creating

t.test('creating a user answers 201 with the user record and never a password', async (t) => {
  const owner = await registerShop(api);
  const body = newUser({ name: 'Marie Etoa', role: 'manager', phone: '+237 699 00 11 22', locale: 'en' });
  const reply = await createUser(owner.token, body);
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const user = reply.body.data;
  t.strictSame(Object.keys(user).sort(), USER_KEYS);
  t.match(user, { kind: 'shop', shop_id: owner.shop.id, role: 'manager', name: 'Marie Etoa', email: body.email, phone: '+237 699 00 11 22', locale: 'en' });
  t.match(user.id, /^[0-9a-f-]{36}$/);
  t.ok(!Number.isNaN(Date.parse(user.created_at)) && user.created_at.endsWith('Z'), 'created_at is ISO-8601 UTC');
  t.notMatch(JSON.stringify(reply.body), /password/i, 'no password or password_hash anywhere');

  const minimal = await createUser(owner.token, newUser());
  t.equal(minimal.status, 201, 'phone and locale are optional');
  t.equal(minimal.body.data.phone, null);
  t.equal(minimal.body.data.locale, 'fr', 'locale defaults to fr');
});

t.test('the created user can log in with that password', async (t) => {
  const owner = await registerShop(api);
  const body = newUser({ password: 'mot-de-passe-42' });
  const created = await createUser(owner.token, body);
  t.equal(created.status, 201);
  const reply = await tryLogin(body.email, 'mot-de-passe-42');
  t.equal(reply.status, 200);
  t.equal(reply.body.data.user.id, created.body.data.id);
  t.equal(reply.body.data.user.role, 'cashier');
  t.equal(reply.body.data.shop.id, owner.shop.id);
  t.equal((await whoAmI(reply.body.data.token)).status, 200, 'the token works');
  expectError(t, await tryLogin(body.email, PASSWORD), 401, INVALID_CREDENTIALS, 'another password');
});

t.test('name is required and at most 160 characters', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createUser(owner.token, newUser({ name: chars(160) }))).status, 201, '160 characters');
  t.equal((await createUser(owner.token, newUser({ name: 'A' }))).status, 201, '1 character');
  expectInvalid(t, await createUser(owner.token, newUser({ name: chars(161) })), 'name', '161 characters');
  expectInvalid(t, await createUser(owner.token, newUser({ name: '' })), 'name', 'empty');
  expectInvalid(t, await createUser(owner.token, newUser({ name: '   ' })), 'name', 'blank');
  expectInvalid(t, await createUser(owner.token, newUser({ name: null })), 'name', 'null');
  expectInvalid(t, await createUser(owner.token, newUser({ name: undefined })), 'name', 'missing');
});

t.test('email is required and must be an e-mail address', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await createUser(owner.token, newUser({ email: undefined })), 'email', 'missing');
  expectInvalid(t, await createUser(owner.token, newUser({ email: null })), 'email', 'null');
  for (const email of ['', 'not-an-email', 'a@', '@example.cm', 'two words@example.cm']) {
    expectInvalid(t, await createUser(owner.token, newUser({ email })), 'email', JSON.stringify(email));
  }
  expectInvalid(t, await createUser(owner.token, newUser({ email: `${chars(250)}@x.cm` })), 'email', 'over 254 characters');
});

t.test('password is at least 8 characters and at most 72 bytes', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createUser(owner.token, newUser({ password: chars(8) }))).status, 201, '8 characters');
  t.equal((await createUser(owner.token, newUser({ password: chars(72) }))).status, 201, '72 bytes');
  expectInvalid(t, await createUser(owner.token, newUser({ password: chars(7) })), 'password', '7 characters');
  expectInvalid(t, await createUser(owner.token, newUser({ password: chars(73) })), 'password', '73 bytes');
  expectInvalid(t, await createUser(owner.token, newUser({ password: chars(37, 'é') })), 'password', '37 characters, 74 bytes');
  expectInvalid(t, await createUser(owner.token, newUser({ password: undefined })), 'password', 'missing');
});

t.test('role is owner, manager or cashier', async (t) => {
  const owner = await registerShop(api);
  for (const role of ['owner', 'manager', 'cashier']) {
    const reply = await createUser(owner.token, newUser({ role }));
    t.equal(reply.status, 201, role);
    t.equal(reply.body.data.role, role);
  }
  for (const role of ['admin', 'partner', 'Owner', '', null, undefined]) {
    expectInvalid(t, await createUser(owner.token, newUser({ role })), 'role', `role ${JSON.stringify(role)}`);
  }
});

t.test('phone is at most 40 characters or null', async (t) => {
  const owner = await registerShop(api);
  const forty = await createUser(owner.token, newUser({ phone: chars(40, '6') }));
  t.equal(forty.status, 201, '40 characters');
  t.equal(forty.body.data.phone, chars(40, '6'));
  const none = await createUser(owner.token, newUser({ phone: null }));
  t.equal(none.status, 201, 'null');
  t.equal(none.body.data.phone, null);
  expectInvalid(t, await createUser(owner.token, newUser({ phone: chars(41, '6') })), 'phone', '41 characters');
  expectInvalid(t, await createUser(owner.token, newUser({ phone: 699001122 })), 'phone', 'a number');
});

t.test('locale is fr or en', async (t) => {
  const owner = await registerShop(api);
  for (const locale of ['fr', 'en']) {
    const reply = await createUser(owner.token, newUser({ locale }));
    t.equal(reply.status, 201, locale);
    t.equal(reply.body.data.locale, locale);
  }
  for (const locale of ['de', 'FR', '']) {
    expectInvalid(t, await createUser(owner.token, newUser({ locale })), 'locale', `locale ${JSON.stringify(locale)}`);
  }
});

t.test('an e-mail already taken is 422 on email, whatever its case and whichever shop holds it', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const taken = newUser();
  t.equal((await createUser(owner.token, taken)).status, 201);
  expectInvalid(t, await createUser(owner.token, newUser({ email: taken.email })), 'email', 'same e-mail');
  expectInvalid(t, await createUser(owner.token, newUser({ email: taken.email.toUpperCase() })), 'email', 'upper-cased');
  expectInvalid(t, await createUser(owner.token, newUser({ email: owner.email })), 'email', 'the owner\'s e-mail');
  expectInvalid(t, await createUser(owner.token, newUser({ email: other.email })), 'email', 'another shop\'s owner');
  expectInvalid(t, await createUser(other.token, newUser({ email: taken.email })), 'email', 'from the other shop');
  const [row] = await api.ownerSql`select count(*)::int as n from users where lower(email) = lower(${taken.email})`;
  t.equal(row!.n, 1, 'one account holds the e-mail');
});

t.test('a manager creates cashiers but not managers or owners (403)', async (t) => {
  const { owner, manager } = await staffedShop();
  const cashier = await createUser(manager.token, newUser({ role: 'cashier' }));
  t.equal(cashier.status, 201, 'a cashier');
  t.equal(cashier.body.data.shop_id, owner.shop.id);
  for (const role of ['manager', 'owner']) {
    const body = newUser({ role });
    expectError(t, await createUser(manager.token, body), 403, FORBIDDEN, role);
    const [row] = await api.ownerSql`select count(*)::int as n from users where email = ${body.email}`;
    t.equal(row!.n, 0, `no ${role} was created`);
  }
});

t.test('the owner creates managers and owners', async (t) => {
  const owner = await registerShop(api);
  for (const role of ['manager', 'owner']) {
    const body = newUser({ role });
    const reply = await createUser(owner.token, body);
    t.equal(reply.status, 201, role);
    t.equal(reply.body.data.role, role);
    const session = await tryLogin(body.email);
    t.equal(session.body.data.user.role, role, `the new ${role} logs in as ${role}`);
  }
  t.equal((await liveOwners(owner.shop.id)).length, 2, 'the shop has two owners');
});

t.test('a cashier may not create, change or remove users (403)', async (t) => {
  const { owner, cashier } = await staffedShop();
  const colleague = await addStaff(api, owner, 'cashier');
  expectError(t, await createUser(cashier.token, newUser()), 403, FORBIDDEN, 'create');
  expectError(t, await api.request('PUT', `/users/${colleague.user.id}`, { token: cashier.token, body: { name: 'Renamed' } }), 403, FORBIDDEN, 'change');
  expectError(t, await api.request('PUT', `/users/${cashier.user.id}`, { token: cashier.token, body: { role: 'owner' } }), 403, FORBIDDEN, 'promote self');
  expectError(t, await api.request('DELETE', `/users/${colleague.user.id}`, { token: cashier.token }), 403, FORBIDDEN, 'remove');
  const row = await storedUser(colleague.user.id);
  t.equal(row!.name, 'A cashier');
  t.equal(row!.deleted_at, null);
  t.equal((await storedUser(cashier.user.id))!.role, 'cashier');
});

// Changing

t.test('a manager may rename a cashier', async (t) => {
  const { manager, cashier } = await staffedShop();
  const reply = await api.request('PUT', `/users/${cashier.user.id}`, { token: manager.token, body: { name: 'Paul Biya Jr', phone: '677000000' } });
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), USER_KEYS);
  t.match(reply.body.data, { id: cashier.user.id, name: 'Paul Biya Jr', phone: '677000000', role: 'cashier', email: cashier.email });
  t.match(await storedUser(cashier.user.id), { name: 'Paul Biya Jr', phone: '677000000', role: 'cashier' });
  t.equal((await whoAmI(cashier.token)).status, 200, 'a rename leaves the cashier logged in');
});

t.test('a manager may not change anyone\'s role (403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  for (const role of ['manager', 'owner']) {
    expectError(t, await api.request('PUT', `/users/${cashier.user.id}`, { token: manager.token, body: { role } }), 403, FORBIDDEN, `cashier to ${role}`);
  }
  expectError(t, await api.request('PUT', `/users/${manager.user.id}`, { token: manager.token, body: { role: 'owner' } }), 403, FORBIDDEN, 'self to owner');
  expectError(t, await api.request('PUT', `/users/${owner.user.id}`, { token: manager.token, body: { role: 'cashier' } }), 403, FORBIDDEN, 'owner to cashier');
  t.equal((await storedUser(cashier.user.id))!.role, 'cashier');
  t.equal((await storedUser(manager.user.id))!.role, 'manager');
  t.equal((await storedUser(owner.user.id))!.role, 'owner');
});

t.test('a manager may not edit a manager or the owner (403)', async (t) => {
  const { owner, manager } = await staffedShop();
  const colleague = await addStaff(api, owner, 'manager');
  const before = await storedUser(colleague.user.id);
  expectError(t, await api.request('PUT', `/users/${colleague.user.id}`, { token: manager.token, body: { name: 'Renamed' } }), 403, FORBIDDEN, 'another manager');
  expectError(t, await api.request('PUT', `/users/${colleague.user.id}`, { token: manager.token, body: { password: 'taken-over-1' } }), 403, FORBIDDEN, 'another manager\'s password');
  expectError(t, await api.request('PUT', `/users/${owner.user.id}`, { token: manager.token, body: { name: 'Renamed' } }), 403, FORBIDDEN, 'the owner');
  expectError(t, await api.request('PUT', `/users/${owner.user.id}`, { token: manager.token, body: { email: uniqueEmail() } }), 403, FORBIDDEN, 'the owner\'s e-mail');
  t.strictSame(await storedUser(colleague.user.id), before, 'the other manager is unchanged');
  t.equal((await storedUser(owner.user.id))!.name, 'Awa Ndiaye');
  t.equal((await storedUser(owner.user.id))!.email, owner.email);
  t.equal((await whoAmI(colleague.token)).status, 200, 'the other manager stays logged in');
});

t.test('the owner may change roles', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  const promoted = await api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body: { role: 'manager' } });
  t.equal(promoted.status, 200);
  t.equal(promoted.body.data.role, 'manager');
  t.equal((await api.request('GET', '/users', { token: cashier.token })).status, 200, 'the promoted cashier now lists the staff with the same token');

  const demoted = await api.request('PUT', `/users/${manager.user.id}`, { token: owner.token, body: { role: 'cashier' } });
  t.equal(demoted.status, 200);
  t.equal(demoted.body.data.role, 'cashier');
  expectError(t, await api.request('GET', '/users', { token: manager.token }), 403, FORBIDDEN, 'the demoted manager');

  const crowned = await api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body: { role: 'owner' } });
  t.equal(crowned.status, 200);
  t.equal(crowned.body.data.role, 'owner');
  t.strictSame(await liveOwners(owner.shop.id), [owner.user.id, cashier.user.id].sort());
});

t.test('a new password set through PUT ends that user\'s sessions, and the new password logs in', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  const secondSession = await login(api, cashier.email);
  const reply = await api.request('PUT', `/users/${cashier.user.id}`, { token: manager.token, body: { password: 'brand-new-pass' } });
  t.equal(reply.status, 200);
  t.notMatch(JSON.stringify(reply.body), /password/i, 'the answer carries no password');
  expectError(t, await whoAmI(cashier.token), 401, UNAUTHENTICATED, 'the old token');
  expectError(t, await whoAmI(secondSession), 401, UNAUTHENTICATED, 'every old session');
  expectError(t, await tryLogin(cashier.email, PASSWORD), 401, INVALID_CREDENTIALS, 'the old password');
  const fresh = await tryLogin(cashier.email, 'brand-new-pass');
  t.equal(fresh.status, 200, 'the new password logs in');
  t.equal((await whoAmI(fresh.body.data.token)).status, 200);
  t.equal((await whoAmI(manager.token)).status, 200, 'the manager who changed it stays logged in');

  const own = await api.request('PUT', `/users/${owner.user.id}`, { token: owner.token, body: { password: 'owner-new-pass' } });
  t.equal(own.status, 200, 'the owner changes their own password');
  t.equal((await whoAmI(owner.token)).status, 200, 'the session that changed it lives on');
  t.equal((await tryLogin(owner.email, 'owner-new-pass')).status, 200);
});

t.test('a change is validated like a creation', async (t) => {
  const { owner, cashier } = await staffedShop();
  const put = (body: Record<string, unknown>) => api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body });
  expectInvalid(t, await put({ name: '' }), 'name', 'empty name');
  expectInvalid(t, await put({ name: chars(161) }), 'name', '161-character name');
  expectInvalid(t, await put({ email: 'nope' }), 'email', 'bad e-mail');
  expectInvalid(t, await put({ email: owner.email.toUpperCase() }), 'email', 'taken e-mail');
  expectInvalid(t, await put({ password: chars(7) }), 'password', 'short password');
  expectInvalid(t, await put({ role: 'admin' }), 'role', 'unknown role');
  expectInvalid(t, await put({ phone: chars(41) }), 'phone', '41-character phone');
  expectInvalid(t, await put({ locale: 'de' }), 'locale', 'unknown locale');
  const before = await storedUser(cashier.user.id);
  const ok = await put({ name: chars(160), phone: null, locale: 'en' });
  t.equal(ok.status, 200, 'bounds inside');
  t.match(ok.body.data, { name: chars(160), phone: null, locale: 'en', email: before!.email, role: 'cashier' });
});

t.test('a change cannot move a user to another shop or make it another kind of account', async (t) => {
  const { owner, cashier } = await staffedShop();
  const other = await registerShop(api);
  const reply = await api.request('PUT', `/users/${cashier.user.id}`, {
    token: owner.token,
    body: { shop_id: other.shop.id, kind: 'admin', name: 'Still here' },
  });
  t.not(reply.status, 500);
  t.match(await storedUser(cashier.user.id), { shop_id: owner.shop.id, kind: 'shop', role: 'cashier' });
  const list = await api.request('GET', '/users', { token: other.token });
  t.strictSame(list.body.data.map((u: any) => u.id), [other.user.id], 'the other shop did not gain a user');
});

// Removing

t.test('removing a user answers 204 with an empty body and ends their sessions at once', async (t) => {
  const { owner, cashier } = await staffedShop();
  const reply = await api.request('DELETE', `/users/${cashier.user.id}`, { token: owner.token });
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  expectError(t, await whoAmI(cashier.token), 401, UNAUTHENTICATED, 'the removed user\'s token');
  expectError(t, await tryLogin(cashier.email), 401, INVALID_CREDENTIALS, 'the removed user logs in');
  const row = await storedUser(cashier.user.id);
  t.not(row!.deleted_at, null, 'the row stays for the history that names it');
});

t.test('a removed user is no longer listed, changed or removed', async (t) => {
  const { owner, cashier } = await staffedShop();
  t.equal((await api.request('DELETE', `/users/${cashier.user.id}`, { token: owner.token })).status, 204);
  const list = await api.request('GET', '/users', { token: owner.token });
  t.notOk(list.body.data.some((u: any) => u.id === cashier.user.id), 'not listed');
  expectError(t, await api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body: { name: 'Back' } }), 404, NOT_FOUND, 'PUT');
  expectError(t, await api.request('DELETE', `/users/${cashier.user.id}`, { token: owner.token }), 404, NOT_FOUND, 'DELETE again');
});

t.test('a removed user\'s e-mail can be used again', async (t) => {
  const { owner, cashier } = await staffedShop();
  t.equal((await api.request('DELETE', `/users/${cashier.user.id}`, { token: owner.token })).status, 204);
  const again = await createUser(owner.token, newUser({ email: cashier.email.toUpperCase(), password: 'second-life-1' }));
  t.equal(again.status, 201);
  t.not(again.body.data.id, cashier.user.id, 'a new account');
  const session = await tryLogin(cashier.email, 'second-life-1');
  t.equal(session.status, 200, 'the e-mail logs into the new account');
  t.equal(session.body.data.user.id, again.body.data.id);
});

t.test('a manager may remove a cashier but not a manager or the owner (403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  const colleague = await addStaff(api, owner, 'manager');
  expectError(t, await api.request('DELETE', `/users/${colleague.user.id}`, { token: manager.token }), 403, FORBIDDEN, 'another manager');
  expectError(t, await api.request('DELETE', `/users/${manager.user.id}`, { token: manager.token }), 403, FORBIDDEN, 'self');
  expectError(t, await api.request('DELETE', `/users/${owner.user.id}`, { token: manager.token }), 403, FORBIDDEN, 'the owner');
  for (const id of [colleague.user.id, manager.user.id, owner.user.id]) t.equal((await storedUser(id))!.deleted_at, null);
  t.equal((await whoAmI(colleague.token)).status, 200, 'the other manager stays logged in');
  t.equal((await api.request('DELETE', `/users/${cashier.user.id}`, { token: manager.token })).status, 204, 'a cashier');
  t.not((await storedUser(cashier.user.id))!.deleted_at, null);
});

// The last owner

t.test('the last owner cannot be demoted (409 last_owner)', async (t) => {
  const { owner, manager } = await staffedShop();
  for (const role of ['manager', 'cashier']) {
    expectConflict(t, await api.request('PUT', `/users/${owner.user.id}`, { token: owner.token, body: { role } }), 'last_owner', `to ${role}`);
  }
  expectConflict(
    t,
    await api.request('PUT', `/users/${owner.user.id}`, { token: owner.token, body: { role: 'manager', name: 'Renamed' } }),
    'last_owner',
    'with another change',
  );
  t.match(await storedUser(owner.user.id), { role: 'owner', name: 'Awa Ndiaye' }, 'nothing of the refused change was kept');
  t.strictSame(await liveOwners(owner.shop.id), [owner.user.id]);
  t.equal((await storedUser(manager.user.id))!.role, 'manager');
});

t.test('the last owner cannot be removed (409 last_owner)', async (t) => {
  const owner = await registerShop(api);
  expectConflict(t, await api.request('DELETE', `/users/${owner.user.id}`, { token: owner.token }), 'last_owner');
  t.equal((await storedUser(owner.user.id))!.deleted_at, null);
  t.equal((await whoAmI(owner.token)).status, 200, 'the owner stays logged in');
  t.equal((await tryLogin(owner.email)).status, 200);
});

t.test('with two owners one can be demoted, and the other is then the last', async (t) => {
  const owner = await registerShop(api);
  const second = await addStaff(api, owner, 'owner');
  const demoted = await api.request('PUT', `/users/${second.user.id}`, { token: owner.token, body: { role: 'manager' } });
  t.equal(demoted.status, 200);
  t.equal(demoted.body.data.role, 'manager');
  t.strictSame(await liveOwners(owner.shop.id), [owner.user.id]);
  expectConflict(t, await api.request('PUT', `/users/${owner.user.id}`, { token: owner.token, body: { role: 'manager' } }), 'last_owner');
});

t.test('with two owners one can be removed, and the other is then the last', async (t) => {
  const owner = await registerShop(api);
  const second = await addStaff(api, owner, 'owner');
  t.equal((await api.request('DELETE', `/users/${owner.user.id}`, { token: second.token })).status, 204, 'an owner removes the other');
  t.strictSame(await liveOwners(owner.shop.id), [second.user.id]);
  expectConflict(t, await api.request('DELETE', `/users/${second.user.id}`, { token: second.token }), 'last_owner');
});

t.test('two owners demoting each other at the same moment leave exactly one owner', async (t) => {
  for (let round = 1; round <= 5; round++) {
    const first = await registerShop(api);
    const second = await addStaff(api, first, 'owner');
    const { met, replies } = await meetingAtTheShopLock(first.shop.id, 2, () =>
      Promise.all([
        api.request('PUT', `/users/${second.user.id}`, { token: first.token, body: { role: 'manager' } }),
        api.request('PUT', `/users/${first.user.id}`, { token: second.token, body: { role: 'manager' } }),
      ]),
    );
    t.ok(met, `round ${round}: both requests reached the last-owner check together`);
    t.strictSame(replies.map((r) => r.status).sort(), [200, 409], `round ${round}: one succeeds, one is refused`);
    const refused = replies.find((r) => r.status !== 200);
    if (refused) expectConflict(t, refused, 'last_owner', `round ${round}`);
    t.equal((await liveOwners(first.shop.id)).length, 1, `round ${round}: one owner left`);
  }
});

t.test('two owners demoting each other without any coordination never leave the shop without an owner', async (t) => {
  for (let round = 1; round <= 5; round++) {
    const first = await registerShop(api);
    const second = await addStaff(api, first, 'owner');
    const replies = await Promise.all([
      api.request('PUT', `/users/${second.user.id}`, { token: first.token, body: { role: 'manager' } }),
      api.request('PUT', `/users/${first.user.id}`, { token: second.token, body: { role: 'manager' } }),
    ]);
    const [won, lost] = replies[0]!.status === 200 ? replies : [replies[1]!, replies[0]!];
    t.equal(won!.status, 200, `round ${round}: one succeeds`);
    // The loser that authenticates after the winner committed is a manager by then: 403, not 409.
    if (lost!.status === 403) expectError(t, lost!, 403, FORBIDDEN, `round ${round}, arriving after the demotion`);
    else expectConflict(t, lost!, 'last_owner', `round ${round}`);
    t.equal((await liveOwners(first.shop.id)).length, 1, `round ${round}: one owner left`);
  }
});

t.test('two owners removing each other at the same moment leave exactly one owner', async (t) => {
  for (let round = 1; round <= 3; round++) {
    const first = await registerShop(api);
    const second = await addStaff(api, first, 'owner');
    const { met, replies } = await meetingAtTheShopLock(first.shop.id, 2, () =>
      Promise.all([
        api.request('DELETE', `/users/${second.user.id}`, { token: first.token }),
        api.request('DELETE', `/users/${first.user.id}`, { token: second.token }),
      ]),
    );
    t.ok(met, `round ${round}: both requests reached the last-owner check together`);
    t.strictSame(replies.map((r) => r.status).sort(), [204, 409], `round ${round}: one succeeds, one is refused`);
    const refused = replies.find((r) => r.status !== 204);
    if (refused) expectConflict(t, refused, 'last_owner', `round ${round}`);
    t.equal((await liveOwners(first.shop.id)).length, 1, `round ${round}: one owner left`);
  }
});

// Identifiers and tenancy

t.test('an unknown user id is 404', async (t) => {
  const owner = await registerShop(api);
  const id = randomUUID();
  expectError(t, await api.request('PUT', `/users/${id}`, { token: owner.token, body: { name: 'Nobody' } }), 404, NOT_FOUND, 'PUT');
  expectError(t, await api.request('DELETE', `/users/${id}`, { token: owner.token }), 404, NOT_FOUND, 'DELETE');
});

t.test('a malformed user id is 422 on id', async (t) => {
  const owner = await registerShop(api);
  for (const id of ['123', 'not-a-uuid', `${randomUUID()}x`]) {
    expectInvalid(t, await api.request('PUT', `/users/${id}`, { token: owner.token, body: { name: 'Nobody' } }), 'id', `PUT ${id}`);
    expectInvalid(t, await api.request('DELETE', `/users/${id}`, { token: owner.token }), 'id', `DELETE ${id}`);
  }
});

t.test('another shop\'s user is not found by any staff route (404) and is left unchanged', async (t) => {
  const { owner, manager } = await staffedShop();
  const theirs = await staffedShop();
  const targets = [theirs.owner.user.id, theirs.manager.user.id, theirs.cashier.user.id];
  const before = await Promise.all(targets.map(storedUser));
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    for (const id of targets) {
      for (const body of [{ name: 'Hijacked' }, { role: 'cashier' }, { password: 'hijacked-pass' }, { email: uniqueEmail('hijack') }]) {
        expectError(t, await api.request('PUT', `/users/${id}`, { token, body }), 404, NOT_FOUND, `${who} PUT ${Object.keys(body)[0]}`);
      }
      expectError(t, await api.request('DELETE', `/users/${id}`, { token }), 404, NOT_FOUND, `${who} DELETE`);
    }
  }
  t.strictSame(await Promise.all(targets.map(storedUser)), before, 'the other shop\'s users are untouched');
  for (const member of [theirs.owner, theirs.manager, theirs.cashier]) {
    t.equal((await whoAmI(member.token)).status, 200, 'their sessions live on');
  }
});

// Subscription

t.test('once the trial has ended, staff changes answer 402 but the staff list still answers 200', async (t) => {
  const { owner, manager, cashier } = await staffedShop();
  await expireSubscription(api, owner.shop.id);
  const before = await storedUser(cashier.user.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    const body = newUser();
    expectError(t, await createUser(token, body), 402, SUBSCRIPTION_REQUIRED, `${who} POST`);
    expectError(t, await api.request('PUT', `/users/${cashier.user.id}`, { token, body: { name: 'Renamed' } }), 402, SUBSCRIPTION_REQUIRED, `${who} PUT`);
    expectError(t, await api.request('DELETE', `/users/${cashier.user.id}`, { token }), 402, SUBSCRIPTION_REQUIRED, `${who} DELETE`);
    const [row] = await api.ownerSql`select count(*)::int as n from users where email = ${body.email}`;
    t.equal(row!.n, 0, `${who}: nobody was created`);
    const list = await api.request('GET', '/users', { token });
    t.equal(list.status, 200, `${who} GET`);
    t.equal(list.body.data.length, 3);
  }
  t.strictSame(await storedUser(cashier.user.id), before, 'the cashier is unchanged');
});
