import t from 'tap';
import { startService } from '../support/service.ts';
import { MAX_XAF } from '../../api/schemas.ts';
import { chars, expireSubscription, ledgerInvariants, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { closeShift, currentShift, journalLines, openShift, shopDay, spend } from '../shifts/shift-fixtures.ts';

const api = await startService(t);

const EXPENSE_KEYS = [
  'amount_xaf', 'category', 'created_at', 'deleted_at', 'deleted_by', 'description', 'id', 'payment_method', 'shift_id', 'spent_at', 'updated_at', 'user_id',
];
const CATEGORIES = { rent: '6222', utilities: '6052', salaries: '6611', transport: '6181', supplies: '6047', other: '6588' } as const;
const TREASURY = { cash: '571', carrier1_momo: '585', carrier2_money: '585', card: '521', bank: '521' } as const;

const post = (token: string, body: unknown) => api.request('POST', '/expenses', { token, body });
const remove = (token: string, id: string) => api.request('DELETE', `/expenses/${id}`, { token });
const list = (token: string, query = '') => api.request('GET', `/expenses${query}`, { token });
const valid = { category: 'rent', amount_xaf: 1_000, payment_method: 'bank' };

async function expenseCount(shopId: string): Promise<{ expenses: number; entries: number }> {
  const [row] = await api.ownerSql<{ expenses: number; entries: number }[]>`
    select (select count(*)::int from expenses where shop_id = ${shopId}) as expenses,
           (select count(*)::int from journal_entries where shop_id = ${shopId} and source_type like 'expense%') as entries`;
  return { ...row! };
}

/** Every line an expense's entries posted, netted per account. */
async function netPerAccount(expenseId: string): Promise<Record<string, number>> {
  const rows = await api.ownerSql<{ account: string; net: number }[]>`
    select l.account, sum(l.debit_xaf - l.credit_xaf)::bigint as net
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where e.source_id = ${expenseId} and e.source_type in ('expense', 'expense_reversal')
     group by l.account order by l.account`;
  return Object.fromEntries(rows.map((row) => [row.account, row.net]));
}

// Recording

t.test('a manager records an expense: 201 with its record, spent now, by them', async (t) => {
  const { manager } = await staffedShop(api);
  const started = Date.now();
  const reply = await post(manager.token, { category: 'utilities', amount_xaf: 45_000, payment_method: 'carrier1_momo', description: 'Facture ENEO mars' });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const expense = reply.body.data;
  t.strictSame(Object.keys(expense).sort(), EXPENSE_KEYS);
  t.match(expense, {
    category: 'utilities', amount_xaf: 45_000, payment_method: 'carrier1_momo', description: 'Facture ENEO mars',
    shift_id: null, user_id: manager.user.id, deleted_at: null, deleted_by: null,
  });
  t.ok(Math.abs(Date.parse(expense.spent_at) - started) < 60_000, 'spent_at defaults to now');
  for (const key of ['spent_at', 'created_at', 'updated_at']) t.ok(expense[key].endsWith('Z'), `${key} is UTC`);
  t.equal((await post(manager.token, { ...valid, spent_at: null })).status, 201, 'spent_at null');
});

t.test('an expense posts a balanced entry: debit the account of its category, credit the treasury of its method', async (t) => {
  const { owner } = await staffedShop(api);
  let amount = 100;
  for (const [category, account] of Object.entries(CATEGORIES)) {
    for (const [method, treasury] of Object.entries(TREASURY)) {
      amount += 1;
      const expense = await spend(api, owner.token, { category, payment_method: method, amount_xaf: amount });
      t.strictSame(await journalLines(api, 'expense', expense.id), [
        { shop_id: owner.shop.id, account, debit_xaf: amount, credit_xaf: 0 },
        { shop_id: owner.shop.id, account: treasury, debit_xaf: 0, credit_xaf: amount },
      ], `${category} paid by ${method}: debit ${account}, credit ${treasury}`);
    }
  }
  t.strictSame((await ledgerInvariants(api, owner.shop.id)).unbalancedEntries, [], 'every entry balances');
});

t.test('paid in cash now, an expense comes out of the spender\'s open shift; otherwise it joins no shift', async (t) => {
  const { owner, manager } = await staffedShop(api);
  t.equal((await spend(api, manager.token, { payment_method: 'cash' })).shift_id, null, 'no open shift');
  const shift = await openShift(api, manager.token, 20_000);
  const cash = await spend(api, manager.token, { payment_method: 'cash', amount_xaf: 3_000 });
  t.equal(cash.shift_id, shift.id, 'cash: the open shift');
  const today = await spend(api, manager.token, { payment_method: 'cash', amount_xaf: 500, spent_at: await shopDay(api, owner.shop.id) });
  t.equal(today.shift_id, shift.id, 'cash, dated today: the open shift');
  t.equal((await spend(api, manager.token, { payment_method: 'card' })).shift_id, null, 'card: no shift');
  t.equal((await spend(api, manager.token, { payment_method: 'cash', spent_at: await shopDay(api, owner.shop.id, 2) })).shift_id, null, 'cash two days ago: not this drawer');
  t.equal((await spend(api, owner.token, { payment_method: 'cash' })).shift_id, null, 'another user\'s open shift is not the spender\'s');
  t.equal((await currentShift(api, manager.token)).expected_cash_xaf, 16_500, 'the drawer lost 3500');
});

t.test('spent_at is a day of the shop\'s calendar, not after today; an earlier day is recorded at its start, shop time', async (t) => {
  const { owner } = await staffedShop(api);
  await api.ownerSql`update shops set timezone = 'Asia/Tokyo' where id = ${owner.shop.id}`;
  const day = await shopDay(api, owner.shop.id, 3);
  const past = await spend(api, owner.token, { spent_at: day });
  const [expected] = await api.ownerSql<{ at: Date }[]>`select (${day}::date)::timestamp at time zone 'Asia/Tokyo' as at`;
  t.equal(past.spent_at, expected!.at.toISOString(), 'midnight in Tokyo');
  const today = await spend(api, owner.token, { spent_at: await shopDay(api, owner.shop.id) });
  t.ok(Math.abs(Date.parse(today.spent_at) - Date.now()) < 60_000, 'today means now');

  const before = await expenseCount(owner.shop.id);
  const tomorrow = await api.ownerSql<{ day: string }[]>`select ((now() at time zone 'Asia/Tokyo')::date + 1)::text as day`;
  expectInvalid(t, await post(owner.token, { ...valid, spent_at: tomorrow[0]!.day }), 'spent_at', 'tomorrow');
  for (const bad of ['2025-13-01', '2025-02-30', '01/03/2025', 'today', '2025-03-01T10:00:00Z', 20250301]) {
    expectInvalid(t, await post(owner.token, { ...valid, spent_at: bad }), 'spent_at', JSON.stringify(bad));
  }
  t.strictSame(await expenseCount(owner.shop.id), before, 'nothing recorded');
});

t.test('category is one of rent, utilities, salaries, transport, supplies and other', async (t) => {
  const owner = await registerShop(api);
  for (const category of Object.keys(CATEGORIES)) t.equal((await post(owner.token, { ...valid, category })).body.data.category, category, category);
  const before = await expenseCount(owner.shop.id);
  for (const category of ['Rent', 'food', '', null, 3]) expectInvalid(t, await post(owner.token, { ...valid, category }), 'category', JSON.stringify(category));
  const { category: _, ...missing } = valid;
  expectInvalid(t, await post(owner.token, missing), 'category', 'missing');
  t.strictSame(await expenseCount(owner.shop.id), before);
});

t.test('payment_method is one of cash, carrier1_momo, carrier2_money, card and bank (never credit)', async (t) => {
  const owner = await registerShop(api);
  for (const method of Object.keys(TREASURY)) t.equal((await post(owner.token, { ...valid, payment_method: method })).body.data.payment_method, method, method);
  const before = await expenseCount(owner.shop.id);
  for (const method of ['credit', 'CASH', 'cheque', '', null]) {
    expectInvalid(t, await post(owner.token, { ...valid, payment_method: method }), 'payment_method', JSON.stringify(method));
  }
  const { payment_method: _, ...missing } = valid;
  expectInvalid(t, await post(owner.token, missing), 'payment_method', 'missing');
  t.strictSame(await expenseCount(owner.shop.id), before);
});

t.test('amount_xaf is required, an integer from 1 to the maximum', async (t) => {
  const owner = await registerShop(api);
  t.equal((await post(owner.token, { ...valid, amount_xaf: 1 })).body.data.amount_xaf, 1, '1');
  t.equal((await post(owner.token, { ...valid, amount_xaf: MAX_XAF })).body.data.amount_xaf, MAX_XAF, 'the maximum');
  const before = await expenseCount(owner.shop.id);
  for (const amount of [0, -1, 1.5, MAX_XAF + 1, '1000', null]) {
    expectInvalid(t, await post(owner.token, { ...valid, amount_xaf: amount }), 'amount_xaf', JSON.stringify(amount));
  }
  const { amount_xaf: _, ...missing } = valid;
  expectInvalid(t, await post(owner.token, missing), 'amount_xaf', 'missing');
  t.strictSame(await expenseCount(owner.shop.id), before);
});

t.test('description is at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  t.equal((await post(owner.token, { ...valid, description: chars(255) })).body.data.description, chars(255), '255 characters');
  t.equal((await post(owner.token, { ...valid, description: null })).body.data.description, null, 'null');
  t.equal((await post(owner.token, valid)).body.data.description, null, 'omitted');
  const before = await expenseCount(owner.shop.id);
  expectInvalid(t, await post(owner.token, { ...valid, description: chars(256) }), 'description', '256 characters');
  expectInvalid(t, await post(owner.token, { ...valid, description: 5 }), 'description', 'a number');
  t.strictSame(await expenseCount(owner.shop.id), before);
});

// Listing

t.test('expenses are listed newest first by the day spent, deleted ones left out unless asked for', async (t) => {
  const owner = await registerShop(api);
  const old = await spend(api, owner.token, { spent_at: await shopDay(api, owner.shop.id, 5) });
  const middle = await spend(api, owner.token, { spent_at: await shopDay(api, owner.shop.id, 1) });
  const recent = await spend(api, owner.token);
  const gone = await spend(api, owner.token, { spent_at: await shopDay(api, owner.shop.id, 2) });
  t.equal((await remove(owner.token, gone.id)).status, 204);
  const reply = await list(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data.map((e: any) => e.id), [recent.id, middle.id, old.id]);
  t.strictSame(reply.body.data[0], recent, 'each as created');
  t.strictSame(reply.body.meta, { next_cursor: null });
  const all = (await list(owner.token, '?include_deleted=true')).body.data;
  t.strictSame(all.map((e: any) => e.id), [recent.id, middle.id, gone.id, old.id], 'with the deleted one');
  t.match(all[2], { id: gone.id, deleted_by: owner.user.id });
  t.ok(all[2].deleted_at, 'marked deleted');
  expectInvalid(t, await list(owner.token, '?include_deleted=maybe'), 'include_deleted');
});

t.test('expenses are filtered by category and by the day spent', async (t) => {
  const owner = await registerShop(api);
  const rent = await spend(api, owner.token, { category: 'rent', spent_at: await shopDay(api, owner.shop.id, 10) });
  const salaries = await spend(api, owner.token, { category: 'salaries', spent_at: await shopDay(api, owner.shop.id, 3) });
  const transport = await spend(api, owner.token, { category: 'transport' });
  const ids = async (query: string) => (await list(owner.token, query)).body.data.map((e: any) => e.id);
  t.strictSame(await ids('?category=salaries'), [salaries.id]);
  t.strictSame(await ids(`?from=${await shopDay(api, owner.shop.id, 3)}`), [transport.id, salaries.id], 'from three days ago');
  t.strictSame(await ids(`?to=${await shopDay(api, owner.shop.id, 4)}`), [rent.id], 'up to four days ago');
  const tenDaysAgo = await shopDay(api, owner.shop.id, 10);
  t.strictSame(await ids(`?from=${tenDaysAgo}&to=${tenDaysAgo}`), [rent.id], 'one day');
  t.strictSame(await ids(`?from=${tenDaysAgo}&to=${await shopDay(api, owner.shop.id)}&category=transport`), [transport.id], 'both filters');
  expectInvalid(t, await list(owner.token, '?from=2025-03-10&to=2025-03-09'), 'to', 'to before from');
  for (const bad of ['2025-02-30', 'yesterday']) expectInvalid(t, await list(owner.token, `?from=${bad}`), 'from', bad);
  expectInvalid(t, await list(owner.token, '?category=food'), 'category');
  for (const limit of ['0', '201']) expectInvalid(t, await list(owner.token, `?limit=${limit}`), 'limit', `limit ${limit}`);
  expectInvalid(t, await list(owner.token, '?cursor=bad'), 'cursor');
});

t.test('the list pages with limit and an opaque cursor, losing and repeating nothing', async (t) => {
  const owner = await registerShop(api);
  const created: string[] = [];
  for (let i = 0; i < 5; i++) created.unshift((await spend(api, owner.token, { amount_xaf: i + 1 })).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: any = await list(owner.token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...reply.body.data.map((e: any) => e.id));
    cursor = reply.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3);
  t.strictSame(seen, created);
});

// Deleting

t.test('deleting an expense keeps it, marked deleted, and posts the reversing entry: every account nets to 0', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const expense = await spend(api, owner.token, { category: 'transport', amount_xaf: 8_500, payment_method: 'carrier2_money', description: 'Taxi' });
  const reply = await remove(manager.token, expense.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  const [stored] = await api.ownerSql`select amount_xaf, deleted_by, deleted_at from expenses where id = ${expense.id}`;
  t.ok(stored, 'the row is kept');
  t.equal(stored!.amount_xaf, 8_500);
  t.equal(stored!.deleted_by, manager.user.id);
  t.ok(stored!.deleted_at);
  t.strictSame(await journalLines(api, 'expense_reversal', expense.id), [
    { shop_id: owner.shop.id, account: '585', debit_xaf: 8_500, credit_xaf: 0 },
    { shop_id: owner.shop.id, account: '6181', debit_xaf: 0, credit_xaf: 8_500 },
  ], 'the reversal debits the treasury and credits the charge');
  t.strictSame(await netPerAccount(expense.id), { '585': 0, '6181': 0 }, 'nets to 0 on each account');
  t.equal((await journalLines(api, 'expense', expense.id)).length, 2, 'the original entry is kept');
  t.strictSame((await ledgerInvariants(api, owner.shop.id)).unbalancedEntries, []);
});

t.test('a deleted expense is a 404 the second time, and nothing more is reversed', async (t) => {
  const owner = await registerShop(api);
  const expense = await spend(api, owner.token);
  t.equal((await remove(owner.token, expense.id)).status, 204);
  expectError(t, await remove(owner.token, expense.id), 404, NOT_FOUND, 'second delete');
  t.equal((await journalLines(api, 'expense_reversal', expense.id)).length, 2, 'one reversal');
  expectError(t, await remove(owner.token, '00000000-0000-4000-8000-000000000000'), 404, NOT_FOUND, 'unknown id');
  expectInvalid(t, await remove(owner.token, 'not-a-uuid'), 'expense_id');
});

t.test('two deletes at the same moment reverse once', async (t) => {
  const owner = await registerShop(api);
  for (let round = 1; round <= 5; round++) {
    const expense = await spend(api, owner.token, { amount_xaf: round });
    const replies = await Promise.all([remove(owner.token, expense.id), remove(owner.token, expense.id)]);
    t.strictSame(replies.map((r) => r.status).sort(), [204, 404], `round ${round}`);
    t.strictSame(await netPerAccount(expense.id), { '571': 0, '6047': 0 }, `round ${round}: reversed once`);
  }
});

t.test('deleting a cash expense gives its shift\'s expected cash back, even once closed the stored count stays', async (t) => {
  const { manager } = await staffedShop(api);
  await openShift(api, manager.token, 10_000);
  const expense = await spend(api, manager.token, { payment_method: 'cash', amount_xaf: 2_000 });
  t.equal((await currentShift(api, manager.token)).expected_cash_xaf, 8_000);
  t.equal((await remove(manager.token, expense.id)).status, 204);
  t.equal((await currentShift(api, manager.token)).expected_cash_xaf, 10_000, 'back to the float');

  const later = await spend(api, manager.token, { payment_method: 'cash', amount_xaf: 1_000 });
  const closed = await closeShift(api, manager.token, { counted_cash_xaf: 9_000 });
  t.equal(closed.expected_cash_xaf, 9_000);
  t.equal((await remove(manager.token, later.id)).status, 204, 'an expense of a closed shift may be deleted');
  const [stored] = await api.ownerSql`select expected_cash_xaf, difference_xaf from shifts where id = ${closed.id}`;
  t.match(stored, { expected_cash_xaf: 9_000, difference_xaf: 0 }, 'the close keeps what it found');
});

// Roles, tenancy, authentication, subscription

t.test('expenses need a manager or the owner: a cashier is 403 on every operation', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const expense = await spend(api, manager.token);
  expectError(t, await list(cashier.token), 403, FORBIDDEN, 'list');
  expectError(t, await post(cashier.token, valid), 403, FORBIDDEN, 'create');
  expectError(t, await remove(cashier.token, expense.id), 403, FORBIDDEN, 'delete');
  t.equal((await list(manager.token)).status, 200, 'manager lists');
  t.equal((await list(owner.token)).body.data.length, 1, 'owner lists');
  t.equal((await remove(owner.token, expense.id)).status, 204, 'owner deletes');
});

t.test('another shop\'s expense is a 404 and never listed', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const foreign = await spend(api, theirs.token, { amount_xaf: 777 });
  expectError(t, await remove(mine.token, foreign.id), 404, NOT_FOUND);
  const [stored] = await api.ownerSql`select deleted_at from expenses where id = ${foreign.id}`;
  t.equal(stored!.deleted_at, null, 'untouched');
  t.equal((await journalLines(api, 'expense_reversal', foreign.id)).length, 0, 'not reversed');
  t.strictSame((await list(mine.token, '?include_deleted=true')).body.data, []);
  t.equal((await list(theirs.token)).body.data.length, 1);
});

t.test('without a valid token every expense operation is 401', async (t) => {
  const id = '00000000-0000-4000-8000-000000000000';
  for (const [method, path] of [['GET', '/expenses'], ['POST', '/expenses'], ['DELETE', `/expenses/${id}`]] as const) {
    expectError(t, await api.request(method, path, { body: method === 'POST' ? valid : undefined }), 401, UNAUTHENTICATED, `${method} ${path}`);
  }
});

t.test('with the subscription ended, recording and deleting are 402; listing still works', async (t) => {
  const owner = await registerShop(api);
  const expense = await spend(api, owner.token);
  await expireSubscription(api, owner.shop.id);
  const before = await expenseCount(owner.shop.id);
  expectError(t, await post(owner.token, valid), 402, SUBSCRIPTION_REQUIRED, 'create');
  expectError(t, await remove(owner.token, expense.id), 402, SUBSCRIPTION_REQUIRED, 'delete');
  t.strictSame(await expenseCount(owner.shop.id), before, 'nothing changed');
  t.equal((await list(owner.token)).body.data.length, 1, 'listed, not deleted');
});
