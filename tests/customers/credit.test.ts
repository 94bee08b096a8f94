import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, ledgerInvariants, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import { charge, createCustomer, rejection, settlementCounts, staffedShop, storedCustomer, storedDebts } from './customer-fixtures.ts';

const api = await startService(t);

const METHODS = ['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank'] as const;
const TREASURY: Record<(typeof METHODS)[number], string> = { cash: '571', carrier1_momo: '585', carrier2_money: '585', card: '521', bank: '521' };
const SETTLEMENT_KEYS = ['allocations', 'amount_xaf', 'created_at', 'customer_id', 'id', 'method', 'note', 'user_id'];
const STATEMENT_KEYS = ['available_credit_xaf', 'balance_xaf', 'credit_ceiling_xaf', 'customer_id', 'name', 'settlements', 'unsettled'];

const pay = (token: string, customerId: string, body: Record<string, unknown>) => api.request('POST', `/customers/${customerId}/payments`, { token, body });
const statementReply = (token: string, customerId: string) => api.request('GET', `/customers/${customerId}/statement`, { token });
const receivablesReply = (token: string) => api.request('GET', '/reports/receivables', { token });

async function statement(token: string, customerId: string): Promise<any> {
  const reply = await statementReply(token, customerId);
  if (reply.status !== 200) throw new Error(`statement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function receivables(token: string): Promise<any> {
  const reply = await receivablesReply(token);
  if (reply.status !== 200) throw new Error(`receivables failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A settlement that must succeed; answers its record. */
async function settle(token: string, customerId: string, amountXaf: number, method = 'cash'): Promise<any> {
  const reply = await pay(token, customerId, { amount_xaf: amountXaf, method });
  if (reply.status !== 201) throw new Error(`settlement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A customer of the shop owing `debts` (amount and age in days, charged in that order). */
async function debtor(shop: ShopFixture, debts: [amount: number, daysAgo: number][], fields: Record<string, unknown> = {}): Promise<any> {
  const customer = await createCustomer(api, shop.token, { credit_ceiling_xaf: 1_000_000, ...fields });
  for (const [amount, daysAgo] of debts) await charge(api, shop, customer.id, amount, daysAgo);
  return customer;
}

/** The journal entry a settlement posted, with its lines, read past row-level security. */
async function settlementEntry(paymentId: string) {
  const entries = await api.ownerSql<{ id: string; shop_id: string }[]>`
    select id, shop_id from journal_entries where source_type = 'customer_payment' and source_id = ${paymentId}`;
  const lines = await api.ownerSql<{ account: string; debit_xaf: number; credit_xaf: number }[]>`
    select account, debit_xaf, credit_xaf from journal_lines where entry_id = any(${entries.map((e) => e.id)}::uuid[])
     order by debit_xaf desc, account`;
  return { entries: [...entries], lines: lines.map((line) => ({ ...line })) };
}

const isUtcTimestamp = (value: unknown) => typeof value === 'string' && value.endsWith('Z') && !Number.isNaN(Date.parse(value));

// customer_charge, the one function a credit sale calls

t.test('a charge within the credit ceiling adds to the balance, up to the ceiling itself', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  const first = await charge(api, owner, customer.id, 4_000);
  t.match(first, { customer_id: customer.id, source_type: 'sale', amount_xaf: 4_000, settled_xaf: 0 }, 'the debt row');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 4_000);
  await charge(api, owner, customer.id, 6_000);
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 10_000, 'exactly the ceiling is allowed');
  t.strictSame((await storedDebts(api, customer.id)).map((d) => d.amount_xaf), [4_000, 6_000], 'one debt per charge');
  const read = await api.request('GET', `/customers/${customer.id}`, { token: owner.token });
  t.equal(read.body.data.balance_xaf, 10_000, 'the customer record shows the balance');
});

t.test('a charge beyond the credit ceiling is refused with credit_limit_exceeded and changes nothing', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000 });
  await charge(api, owner, customer.id, 7_500);
  const error = await rejection(charge(api, owner, customer.id, 2_501));
  t.equal(error?.code, 'PB422', 'SQLSTATE PB422 (an HTTP 422)');
  t.equal(error?.message, 'credit_limit_exceeded');
  t.equal(error?.column_name, 'customer_id', 'on customer_id');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 7_500, 'the balance is unchanged');
  t.equal((await storedDebts(api, customer.id)).length, 1, 'no debt was written');

  const noCredit = await createCustomer(api, owner.token, { credit_ceiling_xaf: 0 });
  const refused = await rejection(charge(api, owner, noCredit.id, 1));
  t.equal(refused?.message, 'credit_limit_exceeded', 'a ceiling of 0 means no credit at all');
  t.equal((await storedCustomer(api, noCredit.id)).balance_xaf, 0);
});

t.test('a charge to another shop\'s customer is refused and leaves that customer alone', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const customer = await createCustomer(api, theirs.token, { credit_ceiling_xaf: 10_000 });
  const error = await rejection(charge(api, mine, customer.id, 1_000));
  t.equal(error?.code, 'PB422');
  t.equal(error?.message, 'validation_failed', 'no such customer in the caller\'s shop');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 0);
  t.equal((await storedDebts(api, customer.id)).length, 0);
});

// The statement

t.test('the statement gives the balance, the ceiling and the credit still available', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[3_000, 2], [1_500, 0]], { name: 'Awa Statement', credit_ceiling_xaf: 10_000 });
  const reply = await statementReply(owner.token, customer.id);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), STATEMENT_KEYS);
  t.match(reply.body.data, { customer_id: customer.id, name: 'Awa Statement', balance_xaf: 4_500, credit_ceiling_xaf: 10_000, available_credit_xaf: 5_500 });
  t.strictSame(reply.body.data.settlements, [], 'no settlement yet');

  const fresh = await createCustomer(api, owner.token, { credit_ceiling_xaf: 2_000 });
  t.match(await statement(owner.token, fresh.id), { balance_xaf: 0, credit_ceiling_xaf: 2_000, available_credit_xaf: 2_000, unsettled: [], settlements: [] }, 'a customer who owes nothing');
});

t.test('the credit available is never negative, even when the ceiling is lowered below the balance', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await debtor(owner, [[8_000, 0]], { credit_ceiling_xaf: 10_000 });
  t.equal((await api.request('PUT', `/customers/${customer.id}`, { token: manager.token, body: { credit_ceiling_xaf: 5_000 } })).status, 200);
  t.match(await statement(owner.token, customer.id), { balance_xaf: 8_000, credit_ceiling_xaf: 5_000, available_credit_xaf: 0 });
  t.equal((await api.request('PUT', `/customers/${customer.id}`, { token: manager.token, body: { credit_ceiling_xaf: 8_000 } })).status, 200);
  t.match(await statement(owner.token, customer.id), { balance_xaf: 8_000, credit_ceiling_xaf: 8_000, available_credit_xaf: 0 }, 'exactly at the ceiling');
  const error = await rejection(charge(api, owner, customer.id, 1));
  t.equal(error?.message, 'credit_limit_exceeded', 'and no more credit is given');
});

t.test('the statement lists the unsettled debts oldest first, each with what remains', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[5_000, 5], [7_000, 40], [2_000, 0]]);
  const [oldest, middle, newest] = await storedDebts(api, customer.id);
  await settle(owner.token, customer.id, 3_000);
  const { unsettled, balance_xaf } = await statement(owner.token, customer.id);
  t.equal(balance_xaf, 11_000);
  t.strictSame(unsettled.map((d: any) => d.id), [oldest!.id, middle!.id, newest!.id], 'oldest first, whatever the order of the charges');
  t.strictSame(
    unsettled.map((d: any) => [d.amount_xaf, d.settled_xaf, d.remaining_xaf]),
    [[7_000, 3_000, 4_000], [5_000, 0, 5_000], [2_000, 0, 2_000]],
    'the oldest was settled first; each shows what remains',
  );
  for (const debt of unsettled) {
    t.strictSame(Object.keys(debt).sort(), ['amount_xaf', 'id', 'occurred_at', 'remaining_xaf', 'settled_xaf', 'source_id', 'source_type']);
    t.equal(debt.source_type, 'sale');
    t.ok(isUtcTimestamp(debt.occurred_at), 'occurred_at is ISO-8601 UTC');
  }
  const ages = unsettled.map((d: any) => Math.round((Date.now() - Date.parse(d.occurred_at)) / 86_400_000));
  t.strictSame(ages, [40, 5, 0], 'dated as charged');
  t.equal(unsettled.reduce((sum: number, d: any) => sum + d.remaining_xaf, 0), balance_xaf, 'what remains adds up to the balance');

  await settle(owner.token, customer.id, 4_000);
  t.strictSame((await statement(owner.token, customer.id)).unsettled.map((d: any) => d.id), [middle!.id, newest!.id], 'a settled debt leaves the list');
});

t.test('the statement lists the settlements newest first, each with its allocations', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[1_000, 3], [2_000, 2], [3_000, 1]]);
  const [first, second, third] = await storedDebts(api, customer.id);
  const a = await settle(owner.token, customer.id, 500, 'cash');
  const b = await settle(owner.token, customer.id, 1_500, 'card');
  const c = await settle(owner.token, customer.id, 3_000, 'bank');
  const { settlements } = await statement(owner.token, customer.id);
  t.strictSame(settlements.map((s: any) => s.id), [c.id, b.id, a.id], 'newest first');
  t.strictSame(settlements.map((s: any) => s.method), ['bank', 'card', 'cash']);
  const allocations = (s: any) => s.allocations.map((x: any) => [x.debt_id, x.amount_xaf]);
  t.strictSame(allocations(settlements[2]), [[first!.id, 500]], 'the first settled half of the oldest');
  t.strictSame(allocations(settlements[1]), [[first!.id, 500], [second!.id, 1_000]], 'the second finished it and started the next');
  t.strictSame(allocations(settlements[0]), [[second!.id, 1_000], [third!.id, 2_000]], 'the third');
  t.strictSame(settlements, [c, b, a], 'each as the payment answered it');
});

// Recording a settlement

t.test('a settlement answers 201 with its record: amount, method, note, who took it and what it settled', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const customer = await debtor(owner, [[4_000, 1]]);
  const [debt] = await storedDebts(api, customer.id);
  const [source] = await api.ownerSql<{ source_id: string }[]>`select source_id from customer_debts where id = ${debt!.id}`;
  const reply = await pay(cashier.token, customer.id, { amount_xaf: 1_500, method: 'carrier1_momo', note: 'Reçu n° 12' });
  t.equal(reply.status, 201, 'a cashier takes payments');
  t.strictSame(Object.keys(reply.body), ['data']);
  const settlement = reply.body.data;
  t.strictSame(Object.keys(settlement).sort(), SETTLEMENT_KEYS);
  t.match(settlement, { customer_id: customer.id, amount_xaf: 1_500, method: 'carrier1_momo', note: 'Reçu n° 12', user_id: cashier.user.id });
  t.ok(isUtcTimestamp(settlement.created_at));
  t.strictSame(settlement.allocations, [{ debt_id: debt!.id, source_type: 'sale', source_id: source!.source_id, amount_xaf: 1_500 }]);
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 2_500, 'the balance went down');
  const withoutNote = await pay(cashier.token, customer.id, { amount_xaf: 500, method: 'cash' });
  t.equal(withoutNote.status, 201);
  t.equal(withoutNote.body.data.note, null, 'the note defaults to null');
});

t.test('amount_xaf is required, an integer of at least 1', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[10_000, 0]]);
  const one = await pay(owner.token, customer.id, { amount_xaf: 1, method: 'cash' });
  t.equal(one.status, 201, '1');
  t.equal(one.body.data.amount_xaf, 1);
  const before = await settlementCounts(api, owner.shop.id);
  for (const amount of [0, -1, 1.5, '100', null, true]) {
    expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: amount, method: 'cash' }), 'amount_xaf', JSON.stringify(amount));
  }
  expectInvalid(t, await pay(owner.token, customer.id, { method: 'cash' }), 'amount_xaf', 'missing');
  t.strictSame(await settlementCounts(api, owner.shop.id), before, 'nothing was recorded');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 9_999);
});

t.test('method is one of cash, carrier1_momo, carrier2_money, card and bank', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[10_000, 0]]);
  for (const method of METHODS) {
    const reply = await pay(owner.token, customer.id, { amount_xaf: 100, method });
    t.equal(reply.status, 201, method);
    t.equal(reply.body.data.method, method);
  }
  const before = await settlementCounts(api, owner.shop.id);
  for (const method of ['CASH', 'cheque', 'momo', '', null, 5]) {
    expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: 100, method }), 'method', JSON.stringify(method));
  }
  expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: 100 }), 'method', 'missing');
  t.strictSame(await settlementCounts(api, owner.shop.id), before, 'nothing was recorded');
});

t.test('note is at most 255 characters, or null', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[10_000, 0]]);
  const longest = await pay(owner.token, customer.id, { amount_xaf: 100, method: 'cash', note: chars(255) });
  t.equal(longest.status, 201, '255 characters');
  t.equal(longest.body.data.note, chars(255));
  t.equal((await pay(owner.token, customer.id, { amount_xaf: 100, method: 'cash', note: null })).status, 201, 'null');
  expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: 100, method: 'cash', note: chars(256) }), 'note', '256 characters');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 9_800);
});

t.test('a settlement goes to the oldest unsettled debt first', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[15_000, 0], [20_000, 45]], { credit_ceiling_xaf: 50_000 });
  const [old, recent] = await storedDebts(api, customer.id);
  t.equal(old!.amount_xaf, 20_000, 'the 45-day-old debt is the oldest');
  const settlement = await settle(owner.token, customer.id, 25_000);
  t.strictSame(
    settlement.allocations.map((a: any) => [a.debt_id, a.amount_xaf]),
    [[old!.id, 20_000], [recent!.id, 5_000]],
    '20000 to the old debt, then 5000 to the new one',
  );
  const after = await statement(owner.token, customer.id);
  t.equal(after.balance_xaf, 10_000);
  t.strictSame(after.unsettled.map((d: any) => [d.id, d.remaining_xaf]), [[recent!.id, 10_000]], 'the old debt is gone from unsettled; 10000 remain on the new');
  t.strictSame(await storedDebts(api, customer.id), [
    { id: old!.id, amount_xaf: 20_000, settled_xaf: 20_000 },
    { id: recent!.id, amount_xaf: 15_000, settled_xaf: 5_000 },
  ]);
});

t.test('a settlement of more than the balance is 422 overpayment on amount_xaf and changes nothing', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[20_000, 45], [15_000, 0]]);
  const debtsBefore = await storedDebts(api, customer.id);
  const countsBefore = await settlementCounts(api, owner.shop.id);
  for (const amount of [35_001, 1_000_000]) {
    expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: amount, method: 'cash' }), 'amount_xaf', `${amount}`, 'overpayment');
  }
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 35_000, 'the balance is unchanged');
  t.strictSame(await storedDebts(api, customer.id), debtsBefore, 'no debt was touched');
  t.strictSame(await settlementCounts(api, owner.shop.id), countsBefore, 'no settlement, allocation or journal entry');

  const clear = await createCustomer(api, owner.token);
  expectInvalid(t, await pay(owner.token, clear.id, { amount_xaf: 1, method: 'cash' }), 'amount_xaf', 'a customer who owes nothing', 'overpayment');
  t.strictSame(await settlementCounts(api, owner.shop.id), countsBefore);
});

t.test('two settlements at the same moment never take more than is owed', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  for (let round = 1; round <= 5; round++) {
    const customer = await debtor(owner, [[6_000, 10], [4_000, 0]]);
    const replies = await Promise.all([
      pay(owner.token, customer.id, { amount_xaf: 6_000, method: 'cash' }),
      pay(cashier.token, customer.id, { amount_xaf: 6_000, method: 'carrier2_money' }),
    ]);
    t.strictSame(replies.map((r) => r.status).sort(), [201, 422], `round ${round}: one is recorded, one refused`);
    const refused = replies.find((r) => r.status !== 201);
    if (refused) expectInvalid(t, refused, 'amount_xaf', `round ${round}`, 'overpayment');
    t.equal((await storedCustomer(api, customer.id)).balance_xaf, 4_000, `round ${round}: 4000 still owed`);
    t.strictSame((await storedDebts(api, customer.id)).map((d) => d.settled_xaf), [6_000, 0], `round ${round}: the oldest debt settled once`);
  }
});

t.test('paying exactly the balance brings it to 0 and settles every debt', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[20_000, 45], [15_000, 0]], { credit_ceiling_xaf: 40_000 });
  const settlement = await settle(owner.token, customer.id, 35_000);
  t.equal(settlement.allocations.reduce((sum: number, a: any) => sum + a.amount_xaf, 0), 35_000);
  t.match(await statement(owner.token, customer.id), { balance_xaf: 0, available_credit_xaf: 40_000, unsettled: [] });
  t.ok((await storedDebts(api, customer.id)).every((d) => d.settled_xaf === d.amount_xaf), 'every debt fully settled');
  expectInvalid(t, await pay(owner.token, customer.id, { amount_xaf: 1, method: 'cash' }), 'amount_xaf', 'nothing more to pay', 'overpayment');
  t.equal((await api.request('DELETE', `/customers/${customer.id}`, { token: owner.token })).status, 204, 'the customer may now be deleted');
});

t.test('a settlement posts a balanced journal entry: debit the treasury of its method, credit 411', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[100_000, 0]]);
  for (const [index, method] of METHODS.entries()) {
    const amount = 1_000 * (index + 1);
    const settlement = await settle(owner.token, customer.id, amount, method);
    const { entries, lines } = await settlementEntry(settlement.id);
    t.equal(entries.length, 1, `${method}: one entry`);
    t.equal(entries[0]?.shop_id, owner.shop.id, `${method}: in the shop's books`);
    t.strictSame(
      lines,
      [
        { account: TREASURY[method], debit_xaf: amount, credit_xaf: 0 },
        { account: '411', debit_xaf: 0, credit_xaf: amount },
      ],
      `${method}: debit ${TREASURY[method]}, credit 411`,
    );
  }
  const { unbalancedEntries } = await ledgerInvariants(api, owner.shop.id);
  t.strictSame(unbalancedEntries, [], 'every entry balances');
  const [account411] = await api.ownerSql<{ credit: number }[]>`
    select coalesce(sum(credit_xaf - debit_xaf), 0)::bigint as credit from journal_lines where shop_id = ${owner.shop.id} and account = '411'`;
  t.equal(account411!.credit, 15_000, '411 was credited with everything settled');
});

// Roles, tenancy, authentication, subscription

t.test('a cashier may read a statement and record a settlement', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const customer = await debtor(owner, [[5_000, 0]]);
  t.equal((await statementReply(cashier.token, customer.id)).status, 200, 'statement');
  const reply = await pay(cashier.token, customer.id, { amount_xaf: 5_000, method: 'cash' });
  t.equal(reply.status, 201, 'settlement');
  t.equal(reply.body.data.user_id, cashier.user.id);
});

t.test('another shop\'s customer is 404 on the statement and on payments, and nothing is recorded', async (t) => {
  const mine = await staffedShop(api);
  const theirs = await registerShop(api);
  const customer = await debtor(theirs, [[5_000, 0]]);
  const before = await settlementCounts(api, theirs.shop.id);
  for (const [who, token] of [['owner', mine.owner.token], ['manager', mine.manager.token], ['cashier', mine.cashier.token]] as const) {
    expectError(t, await statementReply(token, customer.id), 404, NOT_FOUND, `${who} statement`);
    expectError(t, await pay(token, customer.id, { amount_xaf: 1_000, method: 'cash' }), 404, NOT_FOUND, `${who} payment`);
  }
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 5_000, 'their balance is unchanged');
  t.strictSame(await settlementCounts(api, theirs.shop.id), before);
  t.strictSame(await settlementCounts(api, mine.owner.shop.id), { payments: 0, allocations: 0, entries: 0 });
});

t.test('an unknown customer is 404 and a malformed id 422 on customer_id', async (t) => {
  const owner = await registerShop(api);
  const id = randomUUID();
  expectError(t, await statementReply(owner.token, id), 404, NOT_FOUND, 'statement');
  expectError(t, await pay(owner.token, id, { amount_xaf: 1, method: 'cash' }), 404, NOT_FOUND, 'payment');
  expectInvalid(t, await statementReply(owner.token, 'not-a-uuid'), 'customer_id', 'statement');
  expectInvalid(t, await pay(owner.token, 'not-a-uuid', { amount_xaf: 1, method: 'cash' }), 'customer_id', 'payment');
  const gone = await createCustomer(api, owner.token);
  t.equal((await api.request('DELETE', `/customers/${gone.id}`, { token: owner.token })).status, 204);
  expectError(t, await statementReply(owner.token, gone.id), 404, NOT_FOUND, 'a deleted customer\'s statement');
});

t.test('the credit routes need a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[1_000, 0]]);
  const calls: [string, string, unknown][] = [
    ['GET', `/customers/${customer.id}/statement`, undefined],
    ['POST', `/customers/${customer.id}/payments`, { amount_xaf: 1_000, method: 'cash' }],
    ['GET', '/reports/receivables', undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 1_000, 'nothing was paid');
});

t.test('once the subscription has ended, a settlement answers 402 while the statement and the report still answer', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const customer = await debtor(owner, [[5_000, 0]]);
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['owner', owner.token], ['cashier', cashier.token]] as const) {
    expectError(t, await pay(token, customer.id, { amount_xaf: 1_000, method: 'cash' }), 402, SUBSCRIPTION_REQUIRED, `${who} payment`);
    t.equal((await statementReply(token, customer.id)).status, 200, `${who} statement`);
  }
  t.equal((await receivablesReply(owner.token)).status, 200, 'the report');
  t.equal((await storedCustomer(api, customer.id)).balance_xaf, 5_000, 'nothing was paid');
  t.strictSame(await settlementCounts(api, owner.shop.id), { payments: 0, allocations: 0, entries: 0 });
});

// The receivables report

const BUCKETS = ['days_0_30_xaf', 'days_31_60_xaf', 'days_61_90_xaf', 'days_over_90_xaf'] as const;
const LINE_KEYS = ['balance_xaf', 'customer_id', ...BUCKETS, 'name', 'oldest_at', 'phone'].sort();

function lineOf(report: any, customerId: string): any {
  return report.customers.find((line: any) => line.customer_id === customerId);
}

const bucketsOf = (line: any) => BUCKETS.map((bucket) => line?.[bucket]);

t.test('the receivables report lists only the customers who owe', async (t) => {
  const owner = await registerShop(api);
  const owing = await debtor(owner, [[3_000, 0]], { name: 'Owing', phone: '699000111' });
  const settled = await debtor(owner, [[2_000, 0]], { name: 'Settled' });
  await settle(owner.token, settled.id, 2_000);
  await createCustomer(api, owner.token, { name: 'Never charged' });
  const reply = await receivablesReply(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body.data).sort(), ['as_of', 'customers', 'totals']);
  t.ok(isUtcTimestamp(reply.body.data.as_of), 'as_of is ISO-8601 UTC');
  t.strictSame(reply.body.data.customers.map((line: any) => line.customer_id), [owing.id], 'only the customer who owes');
  const line = reply.body.data.customers[0];
  t.strictSame(Object.keys(line).sort(), LINE_KEYS);
  t.match(line, { name: 'Owing', phone: '699000111', balance_xaf: 3_000, days_0_30_xaf: 3_000, days_31_60_xaf: 0, days_61_90_xaf: 0, days_over_90_xaf: 0 });
  t.ok(isUtcTimestamp(line.oldest_at));

  const empty = await registerShop(api);
  t.strictSame(
    (await receivables(empty.token)).totals,
    { balance_xaf: 0, days_0_30_xaf: 0, days_31_60_xaf: 0, days_61_90_xaf: 0, days_over_90_xaf: 0 },
    'a shop nobody owes: no lines, totals of 0',
  );
});

t.test('receivables are aged by debt date: 0-30, 31-60, 61-90 and over 90 days', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[1_000, 10], [2_000, 45], [4_000, 75], [8_000, 120]]);
  const line = lineOf(await receivables(owner.token), customer.id);
  t.strictSame(bucketsOf(line), [1_000, 2_000, 4_000, 8_000], '10, 45, 75 and 120 days old land in their buckets');
  t.equal(line.balance_xaf, 15_000);
  t.equal(Math.round((Date.now() - Date.parse(line.oldest_at)) / 86_400_000), 120, 'oldest_at is the oldest open debt');
});

t.test('the ageing buckets end on day 30, 60 and 90', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[1, 0], [2, 30], [4, 31], [8, 60], [16, 61], [32, 90], [64, 91]]);
  const line = lineOf(await receivables(owner.token), customer.id);
  t.strictSame(bucketsOf(line), [1 + 2, 4 + 8, 16 + 32, 64], 'today and day 30; 31 and 60; 61 and 90; 91');
});

t.test('a partly settled debt contributes only what remains of it', async (t) => {
  const owner = await registerShop(api);
  const customer = await debtor(owner, [[1_000, 10], [2_000, 45], [4_000, 75], [8_000, 120]]);
  await settle(owner.token, customer.id, 9_500);
  const line = lineOf(await receivables(owner.token), customer.id);
  t.strictSame(bucketsOf(line), [1_000, 2_000, 2_500, 0], 'the 120-day debt is gone, 2500 remain of the 75-day one');
  t.equal(line.balance_xaf, 5_500);
  t.equal(Math.round((Date.now() - Date.parse(line.oldest_at)) / 86_400_000), 75, 'oldest_at moves to the oldest debt still open');
});

t.test('the receivables totals are the sums of the lines, and each line adds up to its balance', async (t) => {
  const owner = await registerShop(api);
  const customers = [
    await debtor(owner, [[1_000, 10], [2_000, 45]], { name: 'Ama' }),
    await debtor(owner, [[5_000, 75], [700, 0]], { name: 'Bako' }),
    await debtor(owner, [[9_000, 200], [300, 35]], { name: 'Chidi' }),
  ];
  await settle(owner.token, customers[2]!.id, 4_000);
  const report = await receivables(owner.token);
  t.equal(report.customers.length, 3);
  t.strictSame(report.customers.map((line: any) => line.name), ['Bako', 'Chidi', 'Ama'], 'largest balance first');
  for (const line of report.customers) {
    t.equal(bucketsOf(line).reduce((sum: number, value: number) => sum + value, 0), line.balance_xaf, `${line.name}: buckets add up to the balance`);
  }
  for (const key of ['balance_xaf', ...BUCKETS]) {
    t.equal(report.totals[key], report.customers.reduce((sum: number, line: any) => sum + line[key], 0), `total ${key}`);
  }
  t.strictSame(report.totals, { balance_xaf: 14_000, days_0_30_xaf: 1_700, days_31_60_xaf: 2_300, days_61_90_xaf: 5_000, days_over_90_xaf: 5_000 });
});

t.test('the receivables report never shows another shop\'s customers', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const own = await debtor(mine, [[1_000, 0]]);
  await debtor(theirs, [[50_000, 100]]);
  const report = await receivables(mine.token);
  t.strictSame(report.customers.map((line: any) => line.customer_id), [own.id]);
  t.equal(report.totals.balance_xaf, 1_000);
});

t.test('the receivables report needs a manager or the owner (cashier 403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  await debtor(owner, [[1_000, 0]]);
  expectError(t, await receivablesReply(cashier.token), 403, FORBIDDEN, 'cashier');
  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    const reply: Reply = await receivablesReply(token);
    t.equal(reply.status, 200, who);
    t.equal(reply.body.data.totals.balance_xaf, 1_000);
  }
});
