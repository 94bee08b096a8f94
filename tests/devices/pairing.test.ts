import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

const PAIRING_NOT_FOUND = { message: 'No pairing request with this code.', code: 'pairing_not_found' };
/** The same, to the owner who claims (a French user). */
const PAIRING_NOT_FOUND_FR = { message: "Aucune demande d'appairage ne porte ce code.", code: 'pairing_not_found' };

const startPairing = async (body?: unknown) => {
  const reply = await api.request('POST', '/device-pairings', body === undefined ? {} : { body });
  if (reply.status !== 201) throw new Error(`pairing failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data as { code: string; poll_secret: string; expires_at: string };
};
const poll = (code: string, secret?: string) =>
  api.request('GET', `/device-pairings/${code}`, secret ? { headers: { 'x-pairing-secret': secret } } : {});
const claim = (token: string, code: string, body?: unknown) => api.request('POST', `/device-pairings/${code}/claim`, { token, body });

t.test('a pairing answers an 8-character code a person can type, a poll secret and an expiry 10 minutes ahead', async (t) => {
  const pairing = await startPairing({ name: 'Caisse 1', platform: 'pwa' });
  t.match(pairing.code, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
  t.ok(pairing.poll_secret.length >= 24);
  const minutes = (Date.parse(pairing.expires_at) - Date.now()) / 60_000;
  t.ok(minutes > 9.5 && minutes <= 10, `${minutes} minutes`);
  const bare = await api.request('POST', '/device-pairings');
  t.equal(bare.status, 201, 'the body is optional');
});

t.test('a pairing\'s name is at most 120 characters and its platform pwa or desktop', async (t) => {
  t.equal((await api.request('POST', '/device-pairings', { body: { name: chars(120), platform: 'desktop' } })).status, 201);
  expectInvalid(t, await api.request('POST', '/device-pairings', { body: { name: chars(121) } }), 'name');
  expectInvalid(t, await api.request('POST', '/device-pairings', { body: { platform: 'android' } }), 'platform');
  t.equal((await api.request('POST', '/device-pairings', { body: { name: null, platform: null } })).status, 201, 'nulls accepted');
});

t.test('an unknown code is a 404 with the spec\'s message', async (t) => {
  expectError(t, await poll('ZZZZZZZZ'), 404, PAIRING_NOT_FOUND);
});

t.test('a pending code polls as pending, in any letter case', async (t) => {
  const pairing = await startPairing();
  const reply = await poll(pairing.code.toLowerCase());
  t.equal(reply.status, 200);
  t.strictSame(reply.body, { data: { code: pairing.code, status: 'pending' } });
});

t.test('a claimed code hands the device token once, to the poll with the right secret', async (t) => {
  const { owner } = await staffedShop(api);
  const pairing = await startPairing({ name: 'Caisse 2', platform: 'desktop' });
  const claimed = await claim(owner.token, pairing.code);
  t.equal(claimed.status, 201);
  t.match(claimed.body.data, { name: 'Caisse 2', platform: 'desktop', claimed_by: owner.user.id, last_seen_at: null });
  t.strictSame((await poll(pairing.code)).body, { data: { code: pairing.code, status: 'claimed' } }, 'no secret: no token');
  t.strictSame((await poll(pairing.code, 'wrong-secret')).body, { data: { code: pairing.code, status: 'claimed' } }, 'a wrong secret: no token');
  const handed = await poll(pairing.code, pairing.poll_secret);
  t.equal(handed.body.data.device.id, claimed.body.data.id);
  t.type(handed.body.data.device.token, 'string');
  t.strictSame((await poll(pairing.code, pairing.poll_secret)).body, { data: { code: pairing.code, status: 'claimed' } }, 'handed out once');
  const [stored] = await api.ownerSql<{ token_hash: string }[]>`select token_hash from devices where id = ${claimed.body.data.id}`;
  t.not(stored!.token_hash, handed.body.data.device.token, 'the token is stored hashed');
  const [pairingRow] = await api.ownerSql<{ sealed_token: string | null }[]>`select sealed_token from device_pairings where code = ${pairing.code}`;
  t.equal(pairingRow!.sealed_token, null, 'nothing of the token is kept after the hand-over');
});

t.test('a claim names the device when the body gives a name', async (t) => {
  const { manager } = await staffedShop(api);
  const pairing = await startPairing({ name: 'Sans nom' });
  const claimed = await claim(manager.token, pairing.code, { name: 'Comptoir' });
  t.equal(claimed.status, 201);
  t.equal(claimed.body.data.name, 'Comptoir');
  expectInvalid(t, await claim(manager.token, (await startPairing()).code, { name: chars(121) }), 'name');
});

t.test('a code can be claimed once, and never once expired', async (t) => {
  const { owner } = await staffedShop(api);
  const pairing = await startPairing();
  t.equal((await claim(owner.token, pairing.code)).status, 201);
  expectError(t, await claim(owner.token, pairing.code), 404, PAIRING_NOT_FOUND_FR, 'claimed already');
  const stale = await startPairing();
  await api.ownerSql`update device_pairings set expires_at = now() - interval '1 second' where code = ${stale.code}`;
  t.strictSame((await poll(stale.code)).body, { data: { code: stale.code, status: 'expired' } });
  expectError(t, await claim(owner.token, stale.code), 404, PAIRING_NOT_FOUND_FR, 'expired');
  expectError(t, await claim(owner.token, 'ZZZZZZZZ'), 404, PAIRING_NOT_FOUND_FR, 'unknown');
});

t.test('only an owner or a manager claims a code, and only while the subscription runs', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const pairing = await startPairing();
  expectError(t, await claim(cashier.token, pairing.code), 403, FORBIDDEN);
  t.equal((await api.request('POST', `/device-pairings/${pairing.code}/claim`)).status, 401);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await claim(owner.token, pairing.code), 402, SUBSCRIPTION_REQUIRED);
});

t.test('GET /devices lists the shop\'s live devices and DELETE revokes one at once', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const first = (await claim(owner.token, (await startPairing({ name: 'A' })).code)).body.data;
  const second = (await claim(manager.token, (await startPairing({ name: 'B' })).code)).body.data;
  const listed = await api.request('GET', '/devices', { token: manager.token });
  t.strictSame(listed.body.data.map((d: any) => d.id), [first.id, second.id]);
  t.strictSame(listed.body.meta, { next_cursor: null });
  expectError(t, await api.request('GET', '/devices', { token: cashier.token }), 403, FORBIDDEN);
  expectError(t, await api.request('DELETE', `/devices/${first.id}`, { token: cashier.token }), 403, FORBIDDEN);
  const removed = await api.request('DELETE', `/devices/${first.id}`, { token: owner.token });
  t.equal(removed.status, 204);
  t.strictSame((await api.request('GET', '/devices', { token: owner.token })).body.data.map((d: any) => d.id), [second.id]);
  expectError(t, await api.request('DELETE', `/devices/${first.id}`, { token: owner.token }), 404, NOT_FOUND, 'revoked already');
  const [row] = await api.ownerSql<{ revoked_at: Date | null }[]>`select revoked_at from devices where id = ${first.id}`;
  t.ok(row!.revoked_at, 'kept, marked revoked');
});

t.test('another shop\'s devices are never listed and are a 404 to revoke', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const device = (await claim(theirs.token, (await startPairing()).code)).body.data;
  t.strictSame((await api.request('GET', '/devices', { token: mine.token })).body.data, []);
  expectError(t, await api.request('DELETE', `/devices/${device.id}`, { token: mine.token }), 404, NOT_FOUND);
  expectError(t, await api.request('DELETE', `/devices/${randomUUID()}`, { token: mine.token }), 404, NOT_FOUND);
  t.equal((await api.request('GET', '/devices', { token: theirs.token })).body.data.length, 1, 'still theirs');
});
