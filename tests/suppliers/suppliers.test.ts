import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';

const api = await startService(t);

const SUPPLIER_KEYS = ['address', 'balance_xaf', 'created_at', 'email', 'id', 'name', 'note', 'phone', 'tax_id', 'updated_at'];

const create = (token: string, body: unknown) => api.request('POST', '/suppliers', { token, body });
const update = (token: string, id: string, body: unknown) => api.request('PUT', `/suppliers/${id}`, { token, body });
const read = (token: string, id: string) => api.request('GET', `/suppliers/${id}`, { token });
const remove = (token: string, id: string) => api.request('DELETE', `/suppliers/${id}`, { token });
const newSupplier = (overrides: Record<string, unknown> = {}) => ({ name: 'Épices du Nord', ...overrides });

async function createSupplier(token: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const reply = await create(token, newSupplier(overrides));
  if (reply.status !== 201) throw new Error(`create supplier failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The supplier's row as stored, deleted or not, read past row-level security. */
async function storedSupplier(id: string): Promise<any> {
  const [row] = await api.ownerSql`select * from suppliers where id = ${id}`;
  return row;
}

async function supplierCount(shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from suppliers where shop_id = ${shopId}`;
  return row!.n;
}

/** The names a list answers for `query` (a query string without the `?`). */
async function listed(token: string, query = ''): Promise<string[]> {
  const reply = await api.request('GET', `/suppliers?limit=200${query ? `&${query}` : ''}`, { token });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.map((s: any) => s.name);
}

const search = (token: string, q: string) => listed(token, `q=${encodeURIComponent(q)}`);

/** An e-mail address of exactly `length` characters (labels of at most 63 characters). */
function emailOfLength(length: number): string {
  const domain = `${chars(60, 'b')}.${chars(60, 'c')}.${chars(60, 'd')}.cm`;
  return `${chars(length - domain.length - 1)}@${domain}`;
}

/** A purchase of a cost that is not stock, on the supplier's account: the shop then owes `amount_xaf`. */
async function buyFrom(token: string, supplierId: string, amountXaf: number): Promise<any> {
  const reply = await api.request('POST', '/purchases', {
    token,
    body: { supplier_id: supplierId, reference: 'FAC-001', items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: amountXaf }] },
  });
  if (reply.status !== 201) throw new Error(`purchase failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

const isUtcTimestamp = (value: unknown) => typeof value === 'string' && value.endsWith('Z') && !Number.isNaN(Date.parse(value));

// The record

t.test('creating a supplier with every field answers 201 with the record, owing nothing', async (t) => {
  const owner = await registerShop(api);
  const body = {
    name: 'Épices du Nord',
    phone: '+237 699001122',
    email: 'ventes@epices-nord.cm',
    tax_id: 'M012345678901A',
    address: 'Marché central, Garoua',
    note: 'Livre le mardi',
  };
  const reply = await create(owner.token, body);
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const supplier = reply.body.data;
  t.strictSame(Object.keys(supplier).sort(), SUPPLIER_KEYS, 'exactly the record\'s keys');
  t.match(supplier.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const { id: _id, created_at, updated_at, ...fields } = supplier;
  t.strictSame(fields, { ...body, balance_xaf: 0 }, 'the fields sent, no balance');
  t.ok(isUtcTimestamp(created_at) && isUtcTimestamp(updated_at), 'created_at and updated_at are ISO-8601 UTC');
  t.match(await storedSupplier(supplier.id), { shop_id: owner.shop.id, search_name: 'epices du nord', phone_digits: '237699001122', deleted_at: null });
});

t.test('only the name is required; the other fields default to null', async (t) => {
  const owner = await registerShop(api);
  const reply = await create(owner.token, { name: 'Brasseries du Cameroun' });
  t.equal(reply.status, 201);
  t.match(reply.body.data, { name: 'Brasseries du Cameroun', phone: null, email: null, tax_id: null, address: null, note: null, balance_xaf: 0 });
});

t.test('the name is stored trimmed', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createSupplier(owner.token, { name: '  Épices du Nord \t' })).name, 'Épices du Nord');
});

t.test('balance_xaf is read-only: sent in a body, it is refused as an unknown field and changes nothing', async (t) => {
  const owner = await registerShop(api);
  const refused = await create(owner.token, newSupplier({ balance_xaf: 5_000 }));
  t.strictSame([refused.status, refused.body.errors], [422, { balance_xaf: ['Champ inconnu.'] }], 'create');
  const created = await createSupplier(owner.token);
  const changed = await update(owner.token, created.id, { balance_xaf: 5_000 });
  t.strictSame([changed.status, changed.body.errors], [422, { balance_xaf: ['Champ inconnu.'] }], 'update');
  t.equal((await storedSupplier(created.id)).balance_xaf, 0, 'stored');
});

t.test('a supplier is read back by id', async (t) => {
  const owner = await registerShop(api);
  const created = await createSupplier(owner.token, { phone: '699000000', tax_id: 'NIU-1' });
  const got = await read(owner.token, created.id);
  t.equal(got.status, 200);
  t.strictSame(got.body, { data: created }, 'GET answers the created record');
});

t.test('a change (PUT) sets the fields sent and keeps the others', async (t) => {
  const owner = await registerShop(api);
  const created = await createSupplier(owner.token, { phone: '699000000', email: 'old@example.cm', tax_id: 'NIU-1', address: 'Douala' });
  const changed = await update(owner.token, created.id, { name: ' Épices du Sud ', phone: null, note: 'Paie à 30 jours', address: 'Yaoundé' });
  t.equal(changed.status, 200);
  t.strictSame(Object.keys(changed.body.data).sort(), SUPPLIER_KEYS);
  t.match(changed.body.data, {
    id: created.id, name: 'Épices du Sud', phone: null, email: 'old@example.cm', tax_id: 'NIU-1', address: 'Yaoundé', note: 'Paie à 30 jours', balance_xaf: 0,
  }, 'fields left out are kept');
  t.equal(changed.body.data.created_at, created.created_at, 'created_at stays');
  t.ok(Date.parse(changed.body.data.updated_at) >= Date.parse(created.updated_at), 'updated_at moves forward');
  t.strictSame((await read(owner.token, created.id)).body, changed.body, 'GET answers the change');
  t.equal((await storedSupplier(created.id)).search_name, 'epices du sud', 'the search name follows the name');
  t.strictSame(await search(owner.token, 'sud'), ['Épices du Sud'], 'and the search finds the new name');

  const untouched = await update(owner.token, created.id, {});
  t.equal(untouched.status, 200, 'an empty change is accepted');
  t.strictSame(untouched.body, changed.body, 'and changes nothing');
});

// Bounds

t.test('name is required and 1 to 160 characters', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['A', chars(160)]) {
    const reply = await create(owner.token, newSupplier({ name }));
    t.equal(reply.status, 201, `${name.length} characters`);
    t.equal(reply.body.data.name, name);
  }
  const before = await supplierCount(owner.shop.id);
  expectInvalid(t, await create(owner.token, newSupplier({ name: chars(161) })), 'name', '161 characters');
  expectInvalid(t, await create(owner.token, newSupplier({ name: '' })), 'name', 'empty (0 characters)');
  expectInvalid(t, await create(owner.token, newSupplier({ name: '   ' })), 'name', 'blank');
  expectInvalid(t, await create(owner.token, newSupplier({ name: null })), 'name', 'null');
  expectInvalid(t, await create(owner.token, { phone: '699' }), 'name', 'missing');
  expectInvalid(t, await create(owner.token, newSupplier({ name: 42 })), 'name', 'a number');
  expectInvalid(t, await create(owner.token, newSupplier({ name: ['Épices'] })), 'name', 'a list');
  t.equal(await supplierCount(owner.shop.id), before, 'nothing created');
});

t.test('phone is at most 40 characters, or null', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createSupplier(owner.token, { phone: chars(40, '6') })).phone, chars(40, '6'), '40 characters');
  t.equal((await createSupplier(owner.token, { phone: null })).phone, null, 'null');
  expectInvalid(t, await create(owner.token, newSupplier({ phone: chars(41, '6') })), 'phone', '41 characters');
  expectInvalid(t, await create(owner.token, newSupplier({ phone: 699001122 })), 'phone', 'a number');
});

t.test('email is a valid e-mail address of at most 254 characters, or null', async (t) => {
  const owner = await registerShop(api);
  const longest = emailOfLength(254);
  t.equal(longest.length, 254);
  t.equal((await createSupplier(owner.token, { email: longest })).email, longest, '254 characters');
  t.equal((await createSupplier(owner.token, { email: null })).email, null, 'null');
  expectInvalid(t, await create(owner.token, newSupplier({ email: emailOfLength(255) })), 'email', '255 characters');
  for (const email of ['', 'not-an-email', 'a@', '@example.cm', 'two words@example.cm', 42]) {
    expectInvalid(t, await create(owner.token, newSupplier({ email })), 'email', JSON.stringify(email));
  }
});

t.test('tax_id is at most 60 characters, or null', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createSupplier(owner.token, { tax_id: chars(60, 'M') })).tax_id, chars(60, 'M'), '60 characters');
  t.equal((await createSupplier(owner.token, { tax_id: null })).tax_id, null, 'null');
  expectInvalid(t, await create(owner.token, newSupplier({ tax_id: chars(61, 'M') })), 'tax_id', '61 characters');
  expectInvalid(t, await create(owner.token, newSupplier({ tax_id: 12345 })), 'tax_id', 'a number');
});

t.test('address is at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createSupplier(owner.token, { address: chars(255) })).address, chars(255), '255 characters');
  t.equal((await createSupplier(owner.token, { address: null })).address, null, 'null');
  expectInvalid(t, await create(owner.token, newSupplier({ address: chars(256) })), 'address', '256 characters');
  expectInvalid(t, await create(owner.token, newSupplier({ address: { city: 'Garoua' } })), 'address', 'an object');
});

t.test('note is at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  t.equal((await createSupplier(owner.token, { note: chars(255) })).note, chars(255), '255 characters');
  t.equal((await createSupplier(owner.token, { note: null })).note, null, 'null');
  expectInvalid(t, await create(owner.token, newSupplier({ note: chars(256) })), 'note', '256 characters');
  expectInvalid(t, await create(owner.token, newSupplier({ note: true })), 'note', 'a boolean');
});

t.test('several bad inputs are all named in one 422', async (t) => {
  const owner = await registerShop(api);
  expectInvalid(t, await create(owner.token, { name: '', phone: chars(41), email: 'nope', tax_id: chars(61), address: chars(256), note: chars(256) }),
    ['address', 'email', 'name', 'note', 'phone', 'tax_id']);
  expectInvalid(t, await create(owner.token, 'Épices'), 'body', 'a body that is not an object');
  expectInvalid(t, await create(owner.token, [newSupplier()]), 'body', 'a list');
});

t.test('a change (PUT) holds to the same bounds and keeps nothing of a refused change', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token);
  const inside = await update(owner.token, supplier.id, {
    name: chars(160),
    phone: chars(40, '6'),
    email: emailOfLength(254),
    tax_id: chars(60, 'M'),
    address: chars(255),
    note: chars(255),
  });
  t.equal(inside.status, 200, 'every field at its upper bound');
  const outside: [string, unknown][] = [
    ['name', chars(161)],
    ['name', ''],
    ['name', '  '],
    ['name', null],
    ['name', 7],
    ['phone', chars(41, '6')],
    ['email', emailOfLength(255)],
    ['email', 'not-an-email'],
    ['tax_id', chars(61, 'M')],
    ['address', chars(256)],
    ['note', chars(256)],
    ['note', 3],
  ];
  const before = await storedSupplier(supplier.id);
  for (const [field, value] of outside) {
    expectInvalid(t, await update(owner.token, supplier.id, { note: 'kept?', [field]: value }), field, `${field} ${JSON.stringify(value).slice(0, 20)}`);
  }
  t.strictSame(await storedSupplier(supplier.id), before, 'nothing changed');
});

// Listing and search

t.test('suppliers are listed by name then id, and walking next_cursor with limit=1 visits each exactly once', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Delta', 'Alpha', 'Charlie', 'Bravo', 'Bravo']) await createSupplier(owner.token, { name });
  const all = await api.request('GET', '/suppliers', { token: owner.token });
  t.equal(all.status, 200);
  t.strictSame(Object.keys(all.body).sort(), ['data', 'meta']);
  t.strictSame(all.body.meta, { next_cursor: null }, 'one page');
  t.strictSame(all.body.data.map((s: any) => s.name), ['Alpha', 'Bravo', 'Bravo', 'Charlie', 'Delta'], 'by name');
  for (const supplier of all.body.data) t.strictSame(Object.keys(supplier).sort(), SUPPLIER_KEYS, `${supplier.name}: the record's keys`);
  const bravos = all.body.data.filter((s: any) => s.name === 'Bravo').map((s: any) => s.id);
  t.ok(bravos[0] < bravos[1], 'equal names by id');

  const visited: string[] = [];
  let cursor: string | null = null;
  for (let pageNo = 0; pageNo < 10; pageNo++) {
    const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
    const reply: Reply = await api.request('GET', `/suppliers${query}`, { token: owner.token });
    t.equal(reply.status, 200, `page ${pageNo}`);
    t.ok(reply.body.data.length <= 1, `page ${pageNo} holds at most one supplier`);
    visited.push(...reply.body.data.map((s: any) => s.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, all.body.data.map((s: any) => s.id), 'every supplier once, in order');

  const two = await api.request('GET', '/suppliers?limit=2', { token: owner.token });
  t.strictSame(two.body.data.map((s: any) => s.name), ['Alpha', 'Bravo'], 'limit=2');
  t.type(two.body.meta.next_cursor, 'string', 'with a next cursor');

  const searched = await api.request('GET', '/suppliers?limit=1&q=bravo', { token: owner.token });
  t.strictSame(searched.body.data.map((s: any) => s.id), [bravos[0]], 'a search pages too');
  const next = await api.request('GET', `/suppliers?limit=1&q=bravo&cursor=${encodeURIComponent(searched.body.meta.next_cursor)}`, { token: owner.token });
  t.strictSame(next.body.data.map((s: any) => s.id), [bravos[1]]);
  t.equal(next.body.meta.next_cursor, null, 'and ends');
});

t.test('limit is 1 to 200 and a cursor the service did not write is a 422', async (t) => {
  const owner = await registerShop(api);
  for (const limit of ['0', '201', 'abc', '1.5']) {
    expectInvalid(t, await api.request('GET', `/suppliers?limit=${limit}`, { token: owner.token }), 'limit', `limit=${limit}`);
  }
  const forged = Buffer.from(JSON.stringify(['Alpha', 'not-a-uuid'])).toString('base64url');
  for (const cursor of ['garbage', forged]) {
    expectInvalid(t, await api.request('GET', `/suppliers?cursor=${cursor}`, { token: owner.token }), 'cursor', `cursor ${cursor}`);
  }
  expectInvalid(t, await api.request('GET', `/suppliers?q=${chars(161)}`, { token: owner.token }), 'q', 'q of 161 characters');
});

t.test('the name search finds a part of the name, ignoring accents and case', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Épices du Nord', 'Brasseries du Cameroun', 'Société Ölé']) await createSupplier(owner.token, { name });
  t.strictSame(await search(owner.token, 'epice'), ['Épices du Nord'], '"epice" finds "Épices du Nord"');
  t.strictSame(await search(owner.token, 'ÉPICES'), ['Épices du Nord'], 'upper case with the accent');
  t.strictSame(await search(owner.token, 'du nord'), ['Épices du Nord'], 'words inside the name');
  t.strictSame(await search(owner.token, 'ole'), ['Société Ölé'], '"ole" finds "Ölé"');
  t.strictSame(await search(owner.token, 'du'), ['Brasseries du Cameroun', 'Épices du Nord'], 'several, by name');
  t.strictSame(await search(owner.token, 'zzz'), [], 'nothing else');
});

t.test('the search finds a phone number by a run of its digits, with or without spaces', async (t) => {
  const owner = await registerShop(api);
  await createSupplier(owner.token, { name: 'Épices du Nord', phone: '+237 699001122' });
  await createSupplier(owner.token, { name: 'Brasseries', phone: '677 44 55 66' });
  await createSupplier(owner.token, { name: 'Sans téléphone', phone: null });
  for (const q of ['699 00', '69900', '+237 699', '699-001-122', '(237) 699', '001122', '237699001122']) {
    t.strictSame(await search(owner.token, q), ['Épices du Nord'], `"${q}" finds +237 699001122`);
  }
  t.strictSame(await search(owner.token, '677445566'), ['Brasseries'], 'the digits of a number saved with spaces');
  t.strictSame(await search(owner.token, '6'), ['Brasseries', 'Épices du Nord'], 'a shared digit finds both');
  t.strictSame(await search(owner.token, '699 99'), [], 'digits in another order find nothing');
  t.strictSame(await search(owner.token, 'Nord 699'), [], 'a name with digits is not a phone search');
});

t.test('a percent sign or an underscore in q is matched literally', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Bio 100% naturel', 'Mama Awa', 'Jean_Paul', 'Jean-Paul']) await createSupplier(owner.token, { name });
  t.strictSame(await search(owner.token, '%'), ['Bio 100% naturel'], '"%" finds only the name holding one');
  t.strictSame(await search(owner.token, '_'), ['Jean_Paul'], '"_" finds only the name holding one');
  t.strictSame(await search(owner.token, 'jean_'), ['Jean_Paul'], '"jean_" does not match "Jean-"');
  t.strictSame(await search(owner.token, '\\'), [], 'a backslash matches nothing here');
});

t.test('an empty q lists every supplier', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Chantal', 'Albert', 'Bintou']) await createSupplier(owner.token, { name });
  t.strictSame(await listed(owner.token), ['Albert', 'Bintou', 'Chantal'], 'no q');
  t.strictSame(await listed(owner.token, 'q='), ['Albert', 'Bintou', 'Chantal'], 'q=');
  t.strictSame(await listed(owner.token, 'q=%20%20'), ['Albert', 'Bintou', 'Chantal'], 'q of spaces');
});

// Deleting

t.test('deleting a supplier the shop owes nothing is a soft delete: 204, gone from the list, 404 after', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token, { phone: '699001122' });
  await createSupplier(owner.token, { name: 'Brasseries' });
  const reply = await remove(owner.token, supplier.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  expectError(t, await read(owner.token, supplier.id), 404, NOT_FOUND, 'GET');
  expectError(t, await update(owner.token, supplier.id, { name: 'Back' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await remove(owner.token, supplier.id), 404, NOT_FOUND, 'DELETE again');
  t.strictSame(await listed(owner.token), ['Brasseries'], 'not listed');
  t.strictSame(await search(owner.token, 'epices'), [], 'not found by its name');
  t.strictSame(await search(owner.token, '699'), [], 'nor by its phone');
  const row = await storedSupplier(supplier.id);
  t.ok(row, 'the row is still in the database');
  t.not(row.deleted_at, null, 'with deleted_at set');
  t.equal(row.name, 'Épices du Nord', 'and its data');
});

t.test('a deleted supplier can no longer be named by a purchase (422 on supplier_id)', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token);
  t.equal((await remove(owner.token, supplier.id)).status, 204);
  const reply = await api.request('POST', '/purchases', {
    token: owner.token,
    body: { supplier_id: supplier.id, items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 1_000 }] },
  });
  expectInvalid(t, reply, 'supplier_id');
});

t.test('a supplier the shop owes cannot be deleted (409 supplier_has_balance); paid in full, it can', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token);
  const purchase = await buyFrom(owner.token, supplier.id, 12_500);
  t.equal((await read(owner.token, supplier.id)).body.data.balance_xaf, 12_500, 'the purchase is owed');
  const refused = await remove(owner.token, supplier.id);
  expectConflict(t, refused, 'supplier_has_balance');
  t.match(refused.body.message, /12 500 FCFA/, 'the message says how much is owed, in the owner\'s language');
  t.equal((await storedSupplier(supplier.id)).deleted_at, null, 'not deleted');
  t.equal((await read(owner.token, supplier.id)).status, 200, 'still readable');
  t.strictSame(await listed(owner.token), ['Épices du Nord'], 'still listed');

  const paid = await api.request('POST', `/purchases/${purchase.id}/pay`, { token: owner.token, body: { amount_xaf: 12_500, method: 'bank' } });
  t.equal(paid.status, 201, 'paid in full');
  t.equal((await read(owner.token, supplier.id)).body.data.balance_xaf, 0, 'nothing owed');
  t.equal((await remove(owner.token, supplier.id)).status, 204, 'then deleted');
});

t.test('a supplier who owes the shop cannot be deleted either (409 supplier_has_balance)', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token);
  await api.ownerSql`update suppliers set balance_xaf = -800 where id = ${supplier.id}`;
  t.equal((await read(owner.token, supplier.id)).body.data.balance_xaf, -800, 'the record shows it');
  const refused = await remove(owner.token, supplier.id);
  expectConflict(t, refused, 'supplier_has_balance');
  t.match(refused.body.message, /^Ce fournisseur doit encore 800 FCFA/);
  t.equal((await storedSupplier(supplier.id)).deleted_at, null, 'not deleted');
});

// Roles, tenancy, authentication, subscription

t.test('a manager and the owner may use every supplier route', async (t) => {
  const { owner, manager } = await staffedShop(api);
  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    const created = await create(token, newSupplier({ name: `Fournisseur ${who}` }));
    t.equal(created.status, 201, `${who} POST`);
    const id = created.body.data.id;
    t.equal((await read(token, id)).status, 200, `${who} GET one`);
    t.ok((await listed(token)).includes(`Fournisseur ${who}`), `${who} GET the list`);
    t.equal((await update(token, id, { note: 'ok' })).status, 200, `${who} PUT`);
    t.equal((await remove(token, id)).status, 204, `${who} DELETE`);
  }
});

t.test('a cashier gets 403 on every supplier route and changes nothing', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const supplier = await createSupplier(owner.token);
  const before = await storedSupplier(supplier.id);
  expectError(t, await api.request('GET', '/suppliers', { token: cashier.token }), 403, FORBIDDEN, 'GET the list');
  expectError(t, await api.request('GET', '/suppliers?q=epices', { token: cashier.token }), 403, FORBIDDEN, 'search');
  expectError(t, await create(cashier.token, newSupplier({ name: 'Refused' })), 403, FORBIDDEN, 'POST');
  expectError(t, await read(cashier.token, supplier.id), 403, FORBIDDEN, 'GET one');
  expectError(t, await update(cashier.token, supplier.id, { name: 'Hijacked' }), 403, FORBIDDEN, 'PUT');
  expectError(t, await remove(cashier.token, supplier.id), 403, FORBIDDEN, 'DELETE');
  t.strictSame(await storedSupplier(supplier.id), before, 'unchanged');
  t.equal(await supplierCount(owner.shop.id), 1, 'nobody was created');
});

t.test('another shop\'s supplier is 404 on GET, PUT and DELETE and stays unchanged', async (t) => {
  const mine = await staffedShop(api);
  const theirs = await registerShop(api);
  const supplier = await createSupplier(theirs.token, { name: 'Theirs' });
  const before = await storedSupplier(supplier.id);
  for (const [who, token] of [['owner', mine.owner.token], ['manager', mine.manager.token]] as const) {
    expectError(t, await read(token, supplier.id), 404, NOT_FOUND, `${who} GET`);
    expectError(t, await update(token, supplier.id, { name: 'Hijacked' }), 404, NOT_FOUND, `${who} PUT`);
    expectError(t, await update(token, supplier.id, {}), 404, NOT_FOUND, `${who} an empty PUT`);
    expectError(t, await remove(token, supplier.id), 404, NOT_FOUND, `${who} DELETE`);
  }
  t.strictSame(await storedSupplier(supplier.id), before, 'untouched');
});

t.test('another shop\'s suppliers never appear in the list or the search', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  await createSupplier(mine.token, { name: 'Épices Mine', phone: '699000001' });
  await createSupplier(theirs.token, { name: 'Épices Theirs', phone: '699000002' });
  t.strictSame(await listed(mine.token), ['Épices Mine'], 'list');
  t.strictSame(await search(mine.token, 'epices'), ['Épices Mine'], 'by name');
  t.strictSame(await search(mine.token, '699'), ['Épices Mine'], 'by phone');
});

t.test('an unknown supplier id is 404 and a malformed one is 422 on supplier_id', async (t) => {
  const owner = await registerShop(api);
  const id = randomUUID();
  expectError(t, await read(owner.token, id), 404, NOT_FOUND, 'GET');
  expectError(t, await update(owner.token, id, { name: 'Nobody' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await remove(owner.token, id), 404, NOT_FOUND, 'DELETE');
  for (const bad of ['123', 'not-a-uuid']) {
    expectInvalid(t, await read(owner.token, bad), 'supplier_id', `GET ${bad}`);
    expectInvalid(t, await update(owner.token, bad, { name: 'Nobody' }), 'supplier_id', `PUT ${bad}`);
    expectInvalid(t, await remove(owner.token, bad), 'supplier_id', `DELETE ${bad}`);
  }
});

t.test('every supplier route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(owner.token);
  const calls: [string, string, unknown][] = [
    ['GET', '/suppliers', undefined],
    ['POST', '/suppliers', newSupplier()],
    ['GET', `/suppliers/${supplier.id}`, undefined],
    ['PUT', `/suppliers/${supplier.id}`, { name: 'X' }],
    ['DELETE', `/suppliers/${supplier.id}`, undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.match(await storedSupplier(supplier.id), { name: 'Épices du Nord', deleted_at: null }, 'nothing changed');
});

t.test('once the subscription has ended, supplier writes answer 402 and reads still answer 200', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const supplier = await createSupplier(owner.token);
  await expireSubscription(api, owner.shop.id);
  const before = await storedSupplier(supplier.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await create(token, newSupplier({ name: 'Late' })), 402, SUBSCRIPTION_REQUIRED, `${who} POST`);
    expectError(t, await update(token, supplier.id, { name: 'Renamed' }), 402, SUBSCRIPTION_REQUIRED, `${who} PUT`);
    expectError(t, await remove(token, supplier.id), 402, SUBSCRIPTION_REQUIRED, `${who} DELETE`);
    t.equal((await read(token, supplier.id)).status, 200, `${who} GET one`);
    t.strictSame(await listed(token), ['Épices du Nord'], `${who} GET the list`);
  }
  t.strictSame(await storedSupplier(supplier.id), before, 'unchanged');
  t.equal(await supplierCount(owner.shop.id), 1, 'nobody was created');
});
