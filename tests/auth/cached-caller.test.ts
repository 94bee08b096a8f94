import t from 'tap';
import { addStaff, registerShop } from '../support/fixtures.ts';
import { expectError, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * A read (GET, HEAD) of a session seen lately starts with the caller cached for it and checks the
 * session in its own transaction (api/middleware/auth.ts): the cache saves a round trip, never a
 * check. Each rule below holds on the very next read after the change, the caller being cached.
 */
const api = await startService(t);
const read = (token: string, path = '/reports/z') => api.request('GET', path, { token });

t.test('a session ended since its caller was cached: the next read is a 401', async (t) => {
  const owner = await registerShop(api);
  t.equal((await read(owner.token)).status, 200, 'read once: the caller is cached');
  t.equal((await api.request('POST', '/auth/logout', { token: owner.token })).status, 204);
  const after = await read(owner.token);
  t.equal(after.status, 401, 'logged out: 401 at once');
  t.same(after.body, { message: 'Unauthenticated.', code: 'unauthenticated' });
  t.equal((await read(owner.token, '/auth/me')).status, 401, 'and on every route');
});

t.test('a user deleted since their caller was cached: the next read is a 401, and what the read found never leaves', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  t.equal((await read(manager.token)).status, 200);
  t.equal((await api.request('DELETE', `/users/${manager.user.id}`, { token: owner.token })).status, 204);
  const after = await read(manager.token);
  t.equal(after.status, 401);
  t.notOk(after.body?.data, 'no report in the answer');
});

t.test('a role lowered since the caller was cached: the next read is refused with the new role', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  t.equal((await read(manager.token)).status, 200, 'a manager reads the Z');
  t.equal((await api.request('PUT', `/users/${manager.user.id}`, { token: owner.token, body: { role: 'cashier' } })).status, 200);
  expectError(t, await read(manager.token), 403, FORBIDDEN, 'now a cashier');
  expectError(t, await read(manager.token), 403, FORBIDDEN, 'and again, from the cache now up to date');
});

t.test('a role raised since the caller was cached: the next read passes with the new role', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  expectError(t, await read(cashier.token), 403, FORBIDDEN, 'a cashier may not read the Z');
  t.equal((await api.request('PUT', `/users/${cashier.user.id}`, { token: owner.token, body: { role: 'manager' } })).status, 200);
  const after = await read(cashier.token);
  t.equal(after.status, 200, 'promoted: the Z at once');
  t.ok(after.body.data.date, 'the Z itself');
  t.equal((await read(cashier.token)).status, 200, 'and again');
});

t.test('a password changed ends the user\'s other sessions: their next read is a 401', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  t.equal((await read(manager.token)).status, 200);
  t.equal((await api.request('PUT', `/users/${manager.user.id}`, { token: owner.token, body: { password: 'Un-autre-mot-2026' } })).status, 200);
  t.equal((await read(manager.token)).status, 401);
});

t.test('a session revoked behind the API\'s back, straight in the database, is seen by the next read', async (t) => {
  const owner = await registerShop(api);
  t.equal((await read(owner.token, '/auth/me')).status, 200);
  await api.ownerSql`update sessions set revoked_at = now() where user_id = ${owner.user.id}`;
  t.equal((await read(owner.token, '/auth/me')).status, 401, 'revoked behind the API\'s back: the next read sees it');
});
