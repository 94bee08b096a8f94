import t from 'tap';
import { sell } from '../sales/sale-fixtures.ts';
import { addStaff, createProduct, login, registerShop, staffedShop, waitFor } from '../support/fixtures.ts';
import { expectError, FORBIDDEN, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { archiveLines, downloadArchive, openAppTransactions, sellVoidAndRefund } from './route-fixtures.ts';

/**
 * Who reads the fiscal chain (CONTRACT sections 3 and 13): its managers and owner; a cashier is
 * refused, a request without a token too; the public key is open to anyone. A shop's chain holds its
 * own records only, from its own entry 1.
 */
const api = await startService(t);
const { owner, manager, cashier } = await staffedShop(api);
await sellVoidAndRefund(api, owner);

const READS = ['/fiscal/entries', '/fiscal/integrity', '/fiscal/closings', '/fiscal/archive'];

t.test('a cashier may not read the chain, its check, its closings or its archive: 403', async (t) => {
  for (const path of READS) expectError(t, await api.request('GET', path, { token: cashier.token }), 403, FORBIDDEN, path);
});

t.test('without a token, 401', async (t) => {
  for (const path of READS) expectError(t, await api.request('GET', path), 401, UNAUTHENTICATED, path);
});

t.test('a manager and the owner read them', async (t) => {
  for (const token of [manager.token, owner.token]) {
    for (const path of ['/fiscal/entries', '/fiscal/integrity', '/fiscal/closings']) {
      t.equal((await api.request('GET', path, { token })).status, 200, path);
    }
    const archive = await downloadArchive(api, token);
    t.equal(archive.status, 200, '/fiscal/archive');
    t.equal(archiveLines(archive.bytes).length, 6, 'five entries and the signature');
  }
});

t.test('a session logged out since the caller was last seen gets a 401 from the archive, not a byte of it', async (t) => {
  const token = await login(api, manager.email);
  t.equal((await downloadArchive(api, token)).status, 200, 'seen once: its caller is cached');
  t.equal((await api.request('POST', '/auth/logout', { token })).status, 204);
  const archive = await downloadArchive(api, token);
  expectError(t, { ...archive, body: JSON.parse(archive.bytes.toString('utf8')) }, 401, UNAUTHENTICATED);
  await waitFor(async () => (await openAppTransactions(api)) === 0, 'the archive read for nobody to end', 3_000);
  t.pass('the archive read before the check was closed at once');
});

t.test('a manager made a cashier since last seen gets a 403 from the archive', async (t) => {
  const demoted = await addStaff(api, owner, 'manager');
  t.equal((await downloadArchive(api, demoted.token)).status, 200, 'seen once as a manager');
  t.equal((await api.request('PUT', `/users/${demoted.user.id}`, { token: owner.token, body: { role: 'cashier' } })).status, 200);
  const archive = await downloadArchive(api, demoted.token);
  expectError(t, { ...archive, body: JSON.parse(archive.bytes.toString('utf8')) }, 403, FORBIDDEN);
  await waitFor(async () => (await openAppTransactions(api)) === 0, 'the archive read for nobody to end', 3_000);
  t.pass('the archive read before the check was closed at once');
});

t.test('the public key is open to anyone, without a token: 32 raw bytes in base64', async (t) => {
  const reply = await api.request('GET', '/fiscal/public-key');
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body.data), ['public_key']);
  t.equal(Buffer.from(reply.body.data.public_key, 'base64').length, 32);
  t.equal((await api.request('GET', '/fiscal/public-key', { token: cashier.token })).body.data.public_key, reply.body.data.public_key, 'the same with a token');
});

t.test('a shop sees only its own chain: each shop starts at entry 1 with its own records', async (t) => {
  const other = await registerShop(api, { shop_name: 'Quincaillerie du Port' });
  const product = await createProduct(api, other.token, { price_xaf: 2_000 }, 10);
  const sale = await sell(api, other.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 2_000 }] });

  const mine = (await api.request('GET', '/fiscal/entries', { token: owner.token })).body.data;
  const theirs = (await api.request('GET', '/fiscal/entries', { token: other.token })).body.data;
  t.strictSame(mine.map((entry: any) => entry.chain_no), [1, 2, 3, 4, 5]);
  t.strictSame(theirs.map((entry: any) => [entry.chain_no, entry.kind, entry.ref_id, entry.previous_hash]), [[1, 'sale', sale.id, '']]);
  t.notOk(mine.some((entry: any) => entry.ref_id === sale.id), 'the other shop\'s sale is not in this chain');

  const theirArchive = archiveLines((await downloadArchive(api, other.token)).bytes);
  t.strictSame(theirArchive.slice(0, -1).map((line) => JSON.parse(line).ref_id), [sale.id], 'nor in the other\'s archive anything of this shop');
  const check = (await api.request('GET', '/fiscal/integrity', { token: other.token })).body.data;
  t.match(check, { ok: true, checked: 1, first: { chain_no: 1 }, last: { chain_no: 1 }, broken: [] }, 'its check covers its own entry only');
});
