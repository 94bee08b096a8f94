import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import { charge, createCustomer, postCustomer, staffedShop, storedCustomer } from './customer-fixtures.ts';

const api = await startService(t);

const CUSTOMER_KEYS = [
  'address', 'balance_xaf', 'card_no', 'created_at', 'credit_ceiling_xaf', 'email', 'id', 'name', 'note', 'phone', 'points', 'tax_id', 'tier', 'till_created_at', 'trade_register_no', 'updated_at',
];
const BRONZE = { key: 'bronze', name: 'Bronze', multiplier: 1 };

const create = (token: string, body: Record<string, unknown>) => postCustomer(api, token, body);
const update = (token: string, id: string, body: Record<string, unknown>) => api.request('PUT', `/customers/${id}`, { token, body });
const read = (token: string, id: string) => api.request('GET', `/customers/${id}`, { token });
const remove = (token: string, id: string) => api.request('DELETE', `/customers/${id}`, { token });
const newCustomer = (overrides: Record<string, unknown> = {}) => ({ name: 'Aïcha Bello', ...overrides });

/** The names a list answers for `query` (a query string without the `?`). */
async function listed(token: string, query = ''): Promise<string[]> {
  const reply = await api.request('GET', `/customers?limit=200${query ? `&${query}` : ''}`, { token });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.map((c: any) => c.name);
}

const search = (token: string, q: string) => listed(token, `q=${encodeURIComponent(q)}`);

/** An e-mail address of exactly `length` characters. */
function emailOfLength(length: number): string {
  const domain = `${chars(60, 'b')}.${chars(60, 'c')}.cm`;
  return `${chars(length - domain.length - 1)}@${domain}`;
}

const isUtcTimestamp = (value: unknown) => typeof value === 'string' && value.endsWith('Z') && !Number.isNaN(Date.parse(value));

// The record

t.test('creating a customer answers 201 with the record: no balance, no points, the Bronze tier of a new shop', async (t) => {
  const owner = await registerShop(api);
  const body = {
    name: 'Aïcha Bello', phone: '+237 699 00 11 22', email: 'aicha@example.cm', note: 'Paie le vendredi', tax_id: 'M051812345678P', trade_register_no: 'RC/DLA/2021/B/0456', address: 'Rue Joss, Bonanjo, Douala',
    credit_ceiling_xaf: 50_000, card_no: 'CARTE-0001',
  };
  const reply = await create(owner.token, body);
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const customer = reply.body.data;
  t.strictSame(Object.keys(customer).sort(), CUSTOMER_KEYS);
  t.match(customer.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const { id: _id, created_at, updated_at, ...fields } = customer;
  t.strictSame(fields, { ...body, balance_xaf: 0, points: 0, tier: BRONZE, till_created_at: null }, 'the fields sent, no balance, no points, Bronze, no till time');
  t.ok(isUtcTimestamp(created_at) && isUtcTimestamp(updated_at), 'created_at and updated_at are ISO-8601 UTC');
  t.match(await storedCustomer(api, customer.id), { shop_id: owner.shop.id, name: 'Aïcha Bello', card_no: 'CARTE-0001', deleted_at: null });
});

t.test('only the name is required; the rest defaults to null and a ceiling of 0', async (t) => {
  const owner = await registerShop(api);
  const reply = await create(owner.token, { name: 'Moussa' });
  t.equal(reply.status, 201);
  t.match(reply.body.data, { name: 'Moussa', phone: null, email: null, note: null, tax_id: null, address: null, credit_ceiling_xaf: 0, balance_xaf: 0, points: 0, tier: BRONZE, card_no: null });
});

t.test('a customer is read back by id and a change is kept', async (t) => {
  const owner = await registerShop(api);
  const created = await createCustomer(api, owner.token, { phone: '699000000', email: 'old@example.cm' });
  const got = await read(owner.token, created.id);
  t.equal(got.status, 200);
  t.strictSame(got.body, { data: created }, 'GET answers the created record');

  const changed = await update(owner.token, created.id, { name: 'Aïcha Bello-Ngo', phone: null, note: 'VIP', card_no: 'C-9' });
  t.equal(changed.status, 200);
  t.match(changed.body.data, { id: created.id, name: 'Aïcha Bello-Ngo', phone: null, email: 'old@example.cm', note: 'VIP', card_no: 'C-9' }, 'fields left out are kept');
  t.ok(Date.parse(changed.body.data.updated_at) >= Date.parse(created.updated_at), 'updated_at moves forward');
  t.strictSame((await read(owner.token, created.id)).body, changed.body, 'GET answers the change');

  const untouched = await update(owner.token, created.id, {});
  t.equal(untouched.status, 200, 'an empty change is accepted');
  t.match(untouched.body.data, { name: 'Aïcha Bello-Ngo', note: 'VIP' });
});

// Bounds

t.test('name is required and 1 to 160 characters', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['A', chars(160)]) {
    const reply = await create(owner.token, newCustomer({ name }));
    t.equal(reply.status, 201, `${name.length} characters`);
    t.equal(reply.body.data.name, name);
  }
  expectInvalid(t, await create(owner.token, newCustomer({ name: chars(161) })), 'name', '161 characters');
  expectInvalid(t, await create(owner.token, newCustomer({ name: '' })), 'name', 'empty');
  expectInvalid(t, await create(owner.token, newCustomer({ name: '   ' })), 'name', 'blank');
  expectInvalid(t, await create(owner.token, newCustomer({ name: null })), 'name', 'null');
  expectInvalid(t, await create(owner.token, newCustomer({ name: undefined })), 'name', 'missing');
  expectInvalid(t, await create(owner.token, newCustomer({ name: 42 })), 'name', 'a number');
});

t.test('phone is at most 40 characters, or null', async (t) => {
  const owner = await registerShop(api);
  const forty = await create(owner.token, newCustomer({ phone: chars(40, '6') }));
  t.equal(forty.status, 201, '40 characters');
  t.equal(forty.body.data.phone, chars(40, '6'));
  const none = await create(owner.token, newCustomer({ phone: null }));
  t.equal(none.status, 201, 'null');
  t.equal(none.body.data.phone, null);
  expectInvalid(t, await create(owner.token, newCustomer({ phone: chars(41, '6') })), 'phone', '41 characters');
  expectInvalid(t, await create(owner.token, newCustomer({ phone: 699001122 })), 'phone', 'a number');
});

t.test('email is an e-mail address of at most 160 characters, or null', async (t) => {
  const owner = await registerShop(api);
  const longest = emailOfLength(160);
  t.equal(longest.length, 160);
  const reply = await create(owner.token, newCustomer({ email: longest }));
  t.equal(reply.status, 201, '160 characters');
  t.equal(reply.body.data.email, longest);
  const none = await create(owner.token, newCustomer({ email: null }));
  t.equal(none.status, 201, 'null');
  t.equal(none.body.data.email, null);
  expectInvalid(t, await create(owner.token, newCustomer({ email: emailOfLength(161) })), 'email', '161 characters');
  for (const email of ['', 'not-an-email', 'a@', '@example.cm', 'two words@example.cm']) {
    expectInvalid(t, await create(owner.token, newCustomer({ email })), 'email', JSON.stringify(email));
  }
});

t.test('note is at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  const reply = await create(owner.token, newCustomer({ note: chars(255) }));
  t.equal(reply.status, 201, '255 characters');
  t.equal(reply.body.data.note, chars(255));
  t.equal((await create(owner.token, newCustomer({ note: null }))).status, 201, 'null');
  expectInvalid(t, await create(owner.token, newCustomer({ note: chars(256) })), 'note', '256 characters');
});

t.test('tax_id is at most 60 characters and address at most 255, or null; both can be changed', async (t) => {
  const owner = await registerShop(api);
  for (const [field, max] of [['tax_id', 60], ['address', 255]] as const) {
    const reply = await create(owner.token, newCustomer({ [field]: chars(max) }));
    t.equal(reply.status, 201, `${field}: ${max} characters`);
    t.equal(reply.body.data[field], chars(max));
    t.equal((await create(owner.token, newCustomer({ [field]: null }))).status, 201, `${field}: null`);
    expectInvalid(t, await create(owner.token, newCustomer({ [field]: chars(max + 1) })), field, `${field}: ${max + 1} characters`);
    const changed = await api.request('PUT', `/customers/${reply.body.data.id}`, { token: owner.token, body: { [field]: 'B2B' } });
    t.equal(changed.body.data[field], 'B2B', `${field} changed`);
  }
});

t.test('credit_ceiling_xaf is an integer of at least 0', async (t) => {
  const owner = await registerShop(api);
  for (const ceiling of [0, 1, 1_000_000]) {
    const reply = await create(owner.token, newCustomer({ credit_ceiling_xaf: ceiling }));
    t.equal(reply.status, 201, `${ceiling}`);
    t.equal(reply.body.data.credit_ceiling_xaf, ceiling);
  }
  for (const ceiling of [-1, 1.5, '1000', null, true]) {
    expectInvalid(t, await create(owner.token, newCustomer({ credit_ceiling_xaf: ceiling })), 'credit_ceiling_xaf', JSON.stringify(ceiling));
  }
});

t.test('card_no is 1 to 60 characters, or null', async (t) => {
  const owner = await registerShop(api);
  for (const cardNo of ['7', chars(60, '9')]) {
    const reply = await create(owner.token, newCustomer({ card_no: cardNo }));
    t.equal(reply.status, 201, `${cardNo.length} characters`);
    t.equal(reply.body.data.card_no, cardNo);
  }
  t.equal((await create(owner.token, newCustomer({ card_no: null }))).status, 201, 'null');
  expectInvalid(t, await create(owner.token, newCustomer({ card_no: chars(61, '9') })), 'card_no', '61 characters');
  expectInvalid(t, await create(owner.token, newCustomer({ card_no: '' })), 'card_no', 'empty');
  expectInvalid(t, await create(owner.token, newCustomer({ card_no: 12345 })), 'card_no', 'a number');
});

t.test('a change (PUT) holds to the same bounds and keeps nothing of a refused change', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token);
  const inside = await update(owner.token, customer.id, {
    name: chars(160),
    phone: chars(40, '6'),
    email: emailOfLength(160),
    note: chars(255),
    credit_ceiling_xaf: 0,
    card_no: chars(60, '9'),
  });
  t.equal(inside.status, 200, 'every field at its upper bound');
  const outside: [string, unknown][] = [
    ['name', chars(161)],
    ['name', ''],
    ['name', null],
    ['phone', chars(41, '6')],
    ['email', emailOfLength(161)],
    ['email', 'not-an-email'],
    ['note', chars(256)],
    ['credit_ceiling_xaf', -1],
    ['credit_ceiling_xaf', 2.5],
    ['card_no', chars(61, '9')],
    ['card_no', ''],
  ];
  const before = await storedCustomer(api, customer.id);
  for (const [field, value] of outside) {
    expectInvalid(t, await update(owner.token, customer.id, { note: 'kept?', [field]: value }), field, `${field} ${JSON.stringify(value).slice(0, 20)}`);
  }
  t.strictSame(await storedCustomer(api, customer.id), before, 'nothing changed');
});

// Search and listing

t.test('the name search ignores accents and case', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Aïcha Bello', 'Moussa Diallo', 'Éloïse Ngo']) await createCustomer(api, owner.token, { name });
  t.strictSame(await search(owner.token, 'aicha'), ['Aïcha Bello'], '"aicha" finds "Aïcha"');
  t.strictSame(await search(owner.token, 'AÏCHA'), ['Aïcha Bello'], 'upper case with the accent');
  t.strictSame(await search(owner.token, 'eloise'), ['Éloïse Ngo'], '"eloise" finds "Éloïse"');
  t.strictSame(await search(owner.token, 'bell'), ['Aïcha Bello'], 'part of the name');
  t.strictSame(await search(owner.token, 'zzz'), [], 'nothing else');
});

t.test('the search finds a phone number by its beginning', async (t) => {
  const owner = await registerShop(api);
  await createCustomer(api, owner.token, { name: 'Paul', phone: '699001122' });
  await createCustomer(api, owner.token, { name: 'Jeanne', phone: '677445566' });
  t.strictSame(await search(owner.token, '699'), ['Paul'], 'a prefix');
  t.strictSame(await search(owner.token, '699001122'), ['Paul'], 'the whole number');
  t.strictSame(await search(owner.token, '6'), ['Jeanne', 'Paul'], 'a shared prefix finds both');
  t.strictSame(await search(owner.token, '001122'), [], 'the middle of a number is not a prefix');
});

t.test('the search finds a phone number by its digits, with or without spaces and country code', async (t) => {
  const owner = await registerShop(api);
  await createCustomer(api, owner.token, { name: 'Awa', phone: '+237 699 00 01 11' });
  await createCustomer(api, owner.token, { name: 'Binta', phone: '00237 677-44-55-66' });
  await createCustomer(api, owner.token, { name: 'Chantal', phone: '(237) 655 12 34 56' });
  await createCustomer(api, owner.token, { name: 'Dieudonné', phone: null });
  for (const q of ['699000111', '699 00 01 11', '6990', '+237 699', '+237699000111', '237699', '699.00.01.11']) {
    t.strictSame(await search(owner.token, q), ['Awa'], `"${q}" finds +237 699 00 01 11`);
  }
  t.strictSame(await search(owner.token, '677 44'), ['Binta'], 'a number saved as 00237... is found by its local digits');
  t.strictSame(await search(owner.token, '237655'), ['Chantal'], 'a number saved without + is found by all its digits');
  t.strictSame(await search(owner.token, '655'), [], 'without + or 00 the first digits are not taken for a country code');
  t.strictSame(await search(owner.token, '000111'), [], 'the middle of a number is not a prefix');
  t.strictSame(await search(owner.token, 'Awa 699'), [], 'a name with digits is not a phone search');
});

t.test('the search finds a card number only when it is exact', async (t) => {
  const owner = await registerShop(api);
  await createCustomer(api, owner.token, { name: 'Paul', card_no: 'LOY-4711' });
  await createCustomer(api, owner.token, { name: 'Jeanne', card_no: 'LOY-4712' });
  t.strictSame(await search(owner.token, 'LOY-4711'), ['Paul'], 'the exact number');
  t.strictSame(await search(owner.token, 'LOY-471'), [], 'a part of the number finds nobody');
  t.strictSame(await search(owner.token, 'loy-4711'), [], 'card numbers are matched exactly, case included');
});

t.test('the search finds a card number holding an underscore or a percent sign exactly', async (t) => {
  const owner = await registerShop(api);
  await createCustomer(api, owner.token, { name: 'Paul', card_no: 'LOY_4711' });
  await createCustomer(api, owner.token, { name: 'Jeanne', card_no: 'PROMO%10' });
  t.strictSame(await search(owner.token, 'LOY_4711'), ['Paul'], 'LOY_4711');
  t.strictSame(await search(owner.token, 'PROMO%10'), ['Jeanne'], 'PROMO%10');
});

t.test('a percent sign or an underscore in q is matched literally', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Bio 100% naturel', 'Mama Awa', 'Jean_Paul', 'Jean-Paul']) await createCustomer(api, owner.token, { name });
  t.strictSame(await search(owner.token, '%'), ['Bio 100% naturel'], '"%" finds only the name holding one');
  t.strictSame(await search(owner.token, '0%'), ['Bio 100% naturel'], '"0%"');
  t.strictSame(await search(owner.token, '_'), ['Jean_Paul'], '"_" finds only the name holding one');
  t.strictSame(await search(owner.token, 'jean_'), ['Jean_Paul'], '"jean_" does not match "Jean-"');
  t.strictSame(await search(owner.token, '\\'), [], 'a backslash matches nothing here');
});

t.test('an empty q lists every customer', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Chantal', 'Albert', 'Bintou']) await createCustomer(api, owner.token, { name });
  t.strictSame(await listed(owner.token), ['Albert', 'Bintou', 'Chantal'], 'no q');
  t.strictSame(await listed(owner.token, 'q='), ['Albert', 'Bintou', 'Chantal'], 'q=');
  t.strictSame(await listed(owner.token, 'q=%20%20'), ['Albert', 'Bintou', 'Chantal'], 'q of spaces');
});

t.test('owing=true lists only customers who owe, owing=false only those who owe nothing', async (t) => {
  const owner = await registerShop(api);
  const debtor = await createCustomer(api, owner.token, { name: 'Debiteur', credit_ceiling_xaf: 10_000 });
  await createCustomer(api, owner.token, { name: 'Solvable', credit_ceiling_xaf: 10_000 });
  await charge(api, owner, debtor.id, 2_500);
  t.strictSame(await listed(owner.token, 'owing=true'), ['Debiteur'], 'owing=true');
  t.strictSame(await listed(owner.token, 'owing=1'), ['Debiteur'], 'owing=1');
  t.strictSame(await listed(owner.token, 'owing=false'), ['Solvable'], 'owing=false');
  t.strictSame(await listed(owner.token, 'owing=0'), ['Solvable'], 'owing=0');
  t.strictSame(await listed(owner.token), ['Debiteur', 'Solvable'], 'no filter');
  t.strictSame(await listed(owner.token, 'owing=true&q=solv'), [], 'combined with q');
  const owing = await api.request('GET', '/customers?owing=true', { token: owner.token });
  t.equal(owing.body.data[0].balance_xaf, 2_500, 'the list shows the balance');
  expectInvalid(t, await api.request('GET', '/customers?owing=maybe', { token: owner.token }), 'owing', 'owing=maybe');
});

t.test('customers are listed by name, and walking next_cursor with limit=1 visits each exactly once', async (t) => {
  const owner = await registerShop(api);
  for (const name of ['Delta', 'Alpha', 'Charlie', 'Bravo', 'Bravo']) await createCustomer(api, owner.token, { name });
  const all = await api.request('GET', '/customers', { token: owner.token });
  t.equal(all.status, 200);
  t.strictSame(Object.keys(all.body).sort(), ['data', 'meta']);
  t.strictSame(all.body.meta, { next_cursor: null }, 'one page');
  t.strictSame(all.body.data.map((c: any) => c.name), ['Alpha', 'Bravo', 'Bravo', 'Charlie', 'Delta'], 'by name');
  const bravos = all.body.data.filter((c: any) => c.name === 'Bravo').map((c: any) => c.id);
  t.ok(bravos[0] < bravos[1], 'equal names by id');

  const visited: string[] = [];
  let cursor: string | null = null;
  for (let pageNo = 0; pageNo < 10; pageNo++) {
    const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
    const reply: Reply = await api.request('GET', `/customers${query}`, { token: owner.token });
    t.equal(reply.status, 200, `page ${pageNo}`);
    t.ok(reply.body.data.length <= 1, `page ${pageNo} holds at most one customer`);
    visited.push(...reply.body.data.map((c: any) => c.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, all.body.data.map((c: any) => c.id), 'every customer once, in order');

  const searched = await api.request('GET', '/customers?limit=1&q=bravo', { token: owner.token });
  t.strictSame(searched.body.data.map((c: any) => c.id), [bravos[0]], 'a search pages too');
  const next = await api.request('GET', `/customers?limit=1&q=bravo&cursor=${encodeURIComponent(searched.body.meta.next_cursor)}`, { token: owner.token });
  t.strictSame(next.body.data.map((c: any) => c.id), [bravos[1]]);

  for (const limit of ['0', '201', 'abc']) {
    expectInvalid(t, await api.request('GET', `/customers?limit=${limit}`, { token: owner.token }), 'limit', `limit=${limit}`);
  }
  expectInvalid(t, await api.request('GET', '/customers?cursor=garbage', { token: owner.token }), 'cursor', 'a garbage cursor');
});

// Roles

t.test('a cashier may list, read, create and change customers', async (t) => {
  const { cashier } = await staffedShop(api);
  const created = await create(cashier.token, newCustomer({ phone: '699112233', credit_ceiling_xaf: 0 }));
  t.equal(created.status, 201, 'create (with a ceiling of 0)');
  t.equal(created.body.data.credit_ceiling_xaf, 0);
  const changed = await update(cashier.token, created.body.data.id, { name: 'Aïcha B.', phone: '699445566', card_no: 'C-1' });
  t.equal(changed.status, 200, 'update');
  t.match(changed.body.data, { name: 'Aïcha B.', phone: '699445566', card_no: 'C-1' });
  t.equal((await read(cashier.token, created.body.data.id)).status, 200, 'read');
  t.strictSame(await listed(cashier.token), ['Aïcha B.'], 'list');
});

t.test('a cashier may not give credit: a ceiling above 0 on create, or any ceiling on PUT, is 403', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  expectError(t, await create(cashier.token, newCustomer({ name: 'Refused', credit_ceiling_xaf: 1 })), 403, FORBIDDEN, 'create with 1');
  const [row] = await api.ownerSql`select count(*)::int as n from customers where shop_id = ${owner.shop.id}`;
  t.equal(row!.n, 0, 'nobody was created');

  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 5_000 });
  for (const ceiling of [0, 5_000, 10_000]) {
    expectError(t, await update(cashier.token, customer.id, { credit_ceiling_xaf: ceiling }), 403, FORBIDDEN, `PUT ${ceiling}`);
  }
  expectError(t, await update(cashier.token, customer.id, { name: 'Renamed', credit_ceiling_xaf: 5_000 }), 403, FORBIDDEN, 'PUT with another change');
  t.match(await storedCustomer(api, customer.id), { name: 'Aïcha Bello', credit_ceiling_xaf: 5_000 }, 'nothing changed');

  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    const raised = await update(token, customer.id, { credit_ceiling_xaf: who === 'manager' ? 20_000 : 30_000 });
    t.equal(raised.status, 200, `the ${who} sets the ceiling`);
    t.equal(raised.body.data.credit_ceiling_xaf, who === 'manager' ? 20_000 : 30_000);
    t.equal((await create(token, newCustomer({ credit_ceiling_xaf: 1_000 }))).status, 201, `the ${who} creates with a ceiling`);
  }
});

// Deleting

t.test('deleting a customer needs a manager or the owner (cashier 403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const first = await createCustomer(api, owner.token);
  const second = await createCustomer(api, owner.token);
  expectError(t, await remove(cashier.token, first.id), 403, FORBIDDEN, 'cashier');
  t.equal((await storedCustomer(api, first.id)).deleted_at, null, 'not deleted');
  t.equal((await remove(manager.token, first.id)).status, 204, 'manager');
  t.equal((await remove(owner.token, second.id)).status, 204, 'owner');
});

t.test('a customer who owes cannot be deleted (409 customer_has_balance)', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  await charge(api, owner, customer.id, 1);
  expectConflict(t, await remove(owner.token, customer.id), 'customer_has_balance');
  t.equal((await storedCustomer(api, customer.id)).deleted_at, null, 'not deleted');
  t.equal((await read(owner.token, customer.id)).status, 200, 'still readable');
});

t.test('deleting a customer who owes nothing answers 204, then 404: a soft delete that keeps the row', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { card_no: 'GONE-1' });
  const reply = await remove(owner.token, customer.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  expectError(t, await read(owner.token, customer.id), 404, NOT_FOUND, 'GET');
  expectError(t, await update(owner.token, customer.id, { name: 'Back' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await remove(owner.token, customer.id), 404, NOT_FOUND, 'DELETE again');
  t.strictSame(await listed(owner.token), [], 'not listed');
  t.strictSame(await search(owner.token, 'GONE-1'), [], 'not found by its card');
  const row = await storedCustomer(api, customer.id);
  t.ok(row, 'the row is still in the database');
  t.not(row.deleted_at, null, 'with deleted_at set');
  t.equal(row.name, 'Aïcha Bello', 'and its data');
});

// Cards

t.test('a card number held by another customer of the shop is 409 card_taken', async (t) => {
  const owner = await registerShop(api);
  const holder = await createCustomer(api, owner.token, { name: 'Holder', card_no: 'CARD-42' });
  const other = await createCustomer(api, owner.token, { name: 'Other' });
  expectConflict(t, await create(owner.token, newCustomer({ card_no: 'CARD-42' })), 'card_taken', 'create');
  expectConflict(t, await create(owner.token, newCustomer({ card_no: '  CARD-42  ' })), 'card_taken', 'create with spaces around');
  expectConflict(t, await update(owner.token, other.id, { card_no: 'CARD-42', name: 'Renamed' }), 'card_taken', 'PUT');
  t.match(await storedCustomer(api, other.id), { name: 'Other', card_no: null }, 'the refused change kept nothing');
  t.equal((await update(owner.token, holder.id, { card_no: 'CARD-42' })).status, 200, 'the holder may send its own number again');

  const elsewhere = await registerShop(api);
  t.equal((await create(elsewhere.token, newCustomer({ card_no: 'CARD-42' }))).status, 201, 'another shop may use the same number');

  t.equal((await remove(owner.token, holder.id)).status, 204);
  t.equal((await update(owner.token, other.id, { card_no: 'CARD-42' })).status, 200, 'a deleted customer\'s number is free again');
});

// Tenancy, authentication, subscription

t.test('another shop\'s customer is 404 on GET, PUT and DELETE and stays unchanged', async (t) => {
  const mine = await staffedShop(api);
  const theirs = await registerShop(api);
  const customer = await createCustomer(api, theirs.token, { name: 'Theirs', credit_ceiling_xaf: 1_000 });
  const before = await storedCustomer(api, customer.id);
  for (const [who, token] of [['owner', mine.owner.token], ['manager', mine.manager.token], ['cashier', mine.cashier.token]] as const) {
    expectError(t, await read(token, customer.id), 404, NOT_FOUND, `${who} GET`);
    expectError(t, await update(token, customer.id, { name: 'Hijacked' }), 404, NOT_FOUND, `${who} PUT`);
  }
  for (const [who, token] of [['owner', mine.owner.token], ['manager', mine.manager.token]] as const) {
    expectError(t, await update(token, customer.id, { credit_ceiling_xaf: 999_999 }), 404, NOT_FOUND, `${who} PUT the ceiling`);
    expectError(t, await remove(token, customer.id), 404, NOT_FOUND, `${who} DELETE`);
  }
  t.strictSame(await storedCustomer(api, customer.id), before, 'untouched');
});

t.test('another shop\'s customers never appear in the list or the search', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  await createCustomer(api, mine.token, { name: 'Aïcha Mine', phone: '699000001' });
  await createCustomer(api, theirs.token, { name: 'Aïcha Theirs', phone: '699000002', card_no: 'THEIRS-1' });
  t.strictSame(await listed(mine.token), ['Aïcha Mine'], 'list');
  t.strictSame(await search(mine.token, 'aicha'), ['Aïcha Mine'], 'by name');
  t.strictSame(await search(mine.token, '699'), ['Aïcha Mine'], 'by phone');
  t.strictSame(await search(mine.token, 'THEIRS-1'), [], 'by card');
  t.strictSame(await listed(mine.token, 'owing=false'), ['Aïcha Mine'], 'owing=false');
});

t.test('an unknown customer id is 404 and a malformed one is 422 on id', async (t) => {
  const owner = await registerShop(api);
  const id = randomUUID();
  expectError(t, await read(owner.token, id), 404, NOT_FOUND, 'GET');
  expectError(t, await update(owner.token, id, { name: 'Nobody' }), 404, NOT_FOUND, 'PUT');
  expectError(t, await remove(owner.token, id), 404, NOT_FOUND, 'DELETE');
  for (const bad of ['123', 'not-a-uuid']) {
    expectInvalid(t, await read(owner.token, bad), 'id', `GET ${bad}`);
    expectInvalid(t, await update(owner.token, bad, { name: 'Nobody' }), 'id', `PUT ${bad}`);
    expectInvalid(t, await remove(owner.token, bad), 'id', `DELETE ${bad}`);
  }
});

t.test('every customer route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token);
  const calls: [string, string, unknown][] = [
    ['GET', '/customers', undefined],
    ['POST', '/customers', newCustomer()],
    ['GET', `/customers/${customer.id}`, undefined],
    ['PUT', `/customers/${customer.id}`, { name: 'X' }],
    ['DELETE', `/customers/${customer.id}`, undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.match(await storedCustomer(api, customer.id), { name: 'Aïcha Bello', deleted_at: null }, 'nothing changed');
});

t.test('once the subscription has ended, customer writes answer 402 and reads still answer 200', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await expireSubscription(api, owner.shop.id);
  const before = await storedCustomer(api, customer.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token], ['cashier', cashier.token]] as const) {
    expectError(t, await create(token, newCustomer({ name: 'Late' })), 402, SUBSCRIPTION_REQUIRED, `${who} POST`);
    expectError(t, await update(token, customer.id, { name: 'Renamed' }), 402, SUBSCRIPTION_REQUIRED, `${who} PUT`);
    t.equal((await read(token, customer.id)).status, 200, `${who} GET one`);
    t.strictSame(await listed(token), ['Aïcha Bello'], `${who} GET the list`);
  }
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await remove(token, customer.id), 402, SUBSCRIPTION_REQUIRED, `${who} DELETE`);
  }
  t.strictSame(await storedCustomer(api, customer.id), before, 'unchanged');
  const [row] = await api.ownerSql`select count(*)::int as n from customers where shop_id = ${owner.shop.id}`;
  t.equal(row!.n, 1, 'nobody was created');
});
