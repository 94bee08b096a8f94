import t from 'tap';
import { startService } from '../support/service.ts';
import { MAX_XAF } from '../../api/schemas.ts';
import { chars, expireSubscription, ledgerInvariants, staffedShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { closeShift, currentShift, journalLines, moveCash, openShift } from './shift-fixtures.ts';

const api = await startService(t);

const MOVEMENT_KEYS = ['amount_xaf', 'created_at', 'direction', 'id', 'reason', 'shift_id', 'till_created_at', 'updated_at', 'user_id'];

const cash = (token: string, body: unknown) => api.request('POST', '/shift/cash', { token, body });

async function movementCount(shopId: string): Promise<{ movements: number; entries: number }> {
  const [row] = await api.ownerSql<{ movements: number; entries: number }[]>`
    select (select count(*)::int from cash_movements where shop_id = ${shopId}) as movements,
           (select count(*)::int from journal_entries where shop_id = ${shopId} and source_type = 'cash_movement') as entries`;
  return { ...row! };
}

t.test('a cashier records cash in and out of the drawer: 201, attached to their open shift, moving its expected cash', async (t) => {
  const { cashier } = await staffedShop(api);
  const shift = await openShift(api, cashier.token, 5_000);
  const reply = await cash(cashier.token, { direction: 'in', amount_xaf: 2_000, reason: 'Monnaie du coffre' });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const movement = reply.body.data;
  t.strictSame(Object.keys(movement).sort(), MOVEMENT_KEYS);
  t.match(movement, { shift_id: shift.id, user_id: cashier.user.id, direction: 'in', amount_xaf: 2_000, reason: 'Monnaie du coffre' });
  t.equal(movement.updated_at, movement.created_at, 'a movement is never changed');
  await moveCash(api, cashier.token, 'out', 3_500, 'Dépôt banque');
  const live = await currentShift(api, cashier.token);
  t.match(live.totals, { cash_in_xaf: 2_000, cash_out_xaf: 3_500, expected_cash_xaf: 3_500 });
  t.equal(live.expected_cash_xaf, 3_500);
});

t.test('with no open shift a cash movement is 409 no_open_shift and nothing is recorded', async (t) => {
  const { owner, cashier, manager } = await staffedShop(api);
  await openShift(api, manager.token, 0);
  expectConflict(t, await cash(cashier.token, { direction: 'out', amount_xaf: 1_000, reason: 'Achat' }), 'no_open_shift', 'never opened');
  await openShift(api, cashier.token, 0);
  await closeShift(api, cashier.token);
  const before = await movementCount(owner.shop.id);
  expectConflict(t, await cash(cashier.token, { direction: 'in', amount_xaf: 1_000, reason: 'Fond' }), 'no_open_shift', 'after closing');
  t.strictSame(await movementCount(owner.shop.id), before, 'no movement, no journal entry');
  t.equal((await currentShift(api, manager.token)).totals.cash_in_xaf, 0, 'never put on another user\'s shift');
});

t.test('direction is in or out', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  for (const direction of ['in', 'out']) t.equal((await cash(cashier.token, { direction, amount_xaf: 1, reason: 'x' })).body.data.direction, direction, direction);
  const before = await movementCount(owner.shop.id);
  for (const direction of ['IN', 'deposit', '', null, 1]) {
    expectInvalid(t, await cash(cashier.token, { direction, amount_xaf: 1, reason: 'x' }), 'direction', JSON.stringify(direction));
  }
  expectInvalid(t, await cash(cashier.token, { amount_xaf: 1, reason: 'x' }), 'direction', 'missing');
  t.strictSame(await movementCount(owner.shop.id), before);
});

t.test('amount_xaf is required, an integer from 1 to the maximum', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  t.equal((await cash(cashier.token, { direction: 'in', amount_xaf: 1, reason: 'x' })).body.data.amount_xaf, 1, '1');
  t.equal((await cash(cashier.token, { direction: 'in', amount_xaf: MAX_XAF, reason: 'x' })).body.data.amount_xaf, MAX_XAF, 'the maximum');
  const before = await movementCount(owner.shop.id);
  for (const amount of [0, -1, 1.5, MAX_XAF + 1, '10', null]) {
    expectInvalid(t, await cash(cashier.token, { direction: 'out', amount_xaf: amount, reason: 'x' }), 'amount_xaf', JSON.stringify(amount));
  }
  expectInvalid(t, await cash(cashier.token, { direction: 'out', reason: 'x' }), 'amount_xaf', 'missing');
  t.strictSame(await movementCount(owner.shop.id), before);
});

t.test('reason is required, at most 160 characters: an unexplained withdrawal is not allowed', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  t.equal((await cash(cashier.token, { direction: 'out', amount_xaf: 1, reason: chars(160) })).body.data.reason, chars(160), '160 characters');
  t.equal((await cash(cashier.token, { direction: 'out', amount_xaf: 1, reason: 'a' })).body.data.reason, 'a', '1 character');
  const before = await movementCount(owner.shop.id);
  for (const reason of [chars(161), '', '   ', null, 7]) {
    expectInvalid(t, await cash(cashier.token, { direction: 'out', amount_xaf: 1, reason }), 'reason', JSON.stringify(reason));
  }
  expectInvalid(t, await cash(cashier.token, { direction: 'out', amount_xaf: 1 }), 'reason', 'missing');
  t.strictSame(await movementCount(owner.shop.id), before);
});

t.test('a cash movement posts a balanced entry: in debits 571 and credits 588, out the reverse', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  const into = await moveCash(api, cashier.token, 'in', 7_000, 'Fond de caisse');
  const out = await moveCash(api, cashier.token, 'out', 2_500, 'Versement banque');
  t.strictSame(await journalLines(api, 'cash_movement', into.id), [
    { shop_id: owner.shop.id, account: '571', debit_xaf: 7_000, credit_xaf: 0 },
    { shop_id: owner.shop.id, account: '588', debit_xaf: 0, credit_xaf: 7_000 },
  ], 'cash in');
  t.strictSame(await journalLines(api, 'cash_movement', out.id), [
    { shop_id: owner.shop.id, account: '588', debit_xaf: 2_500, credit_xaf: 0 },
    { shop_id: owner.shop.id, account: '571', debit_xaf: 0, credit_xaf: 2_500 },
  ], 'cash out');
  const [memo] = await api.ownerSql`select memo from journal_entries where source_id = ${out.id}`;
  t.equal(memo!.memo, 'Versement banque', 'the reason is the memo');
  t.strictSame((await ledgerInvariants(api, owner.shop.id)).unbalancedEntries, []);
});

t.test('managers and owners record cash movements on their own shifts', async (t) => {
  const { owner, manager } = await staffedShop(api);
  for (const who of [owner, manager]) {
    const shift = await openShift(api, who.token, 0);
    t.equal((await moveCash(api, who.token, 'in', 100)).shift_id, shift.id);
  }
});

t.test('two users\' movements at the same moment each go to their own drawer', async (t) => {
  const { cashier, manager } = await staffedShop(api);
  const cashierShift = await openShift(api, cashier.token, 0);
  const managerShift = await openShift(api, manager.token, 0);
  const replies = await Promise.all([
    ...Array.from({ length: 5 }, () => cash(cashier.token, { direction: 'in', amount_xaf: 100, reason: 'x' })),
    ...Array.from({ length: 5 }, () => cash(manager.token, { direction: 'out', amount_xaf: 10, reason: 'x' })),
  ]);
  t.ok(replies.every((r) => r.status === 201));
  t.strictSame(new Set(replies.slice(0, 5).map((r) => r.body.data.shift_id)), new Set([cashierShift.id]));
  t.strictSame(new Set(replies.slice(5).map((r) => r.body.data.shift_id)), new Set([managerShift.id]));
  t.equal((await currentShift(api, cashier.token)).expected_cash_xaf, 500);
  t.equal((await currentShift(api, manager.token)).expected_cash_xaf, -50, 'the drawer may show less than nothing: the count will tell');
});

t.test('a movement racing a close either lands before it and is counted, or finds no open shift', async (t) => {
  const { cashier } = await staffedShop(api);
  for (let round = 1; round <= 5; round++) {
    const shift = await openShift(api, cashier.token, 1_000);
    const [movement, closed] = await Promise.all([
      cash(cashier.token, { direction: 'in', amount_xaf: 500, reason: 'x' }),
      api.request('POST', '/shift/close', { token: cashier.token, body: { counted_cash_xaf: 1_500 } }),
    ]);
    t.equal(closed.status, 200, `round ${round}: closed`);
    const [stored] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from cash_movements where shift_id = ${shift.id}`;
    if (movement.status === 201) {
      t.equal(closed.body.data.expected_cash_xaf, 1_500, `round ${round}: the movement is counted in the close`);
      t.equal(stored!.n, 1);
    } else {
      expectConflict(t, movement, 'no_open_shift', `round ${round}`);
      t.equal(closed.body.data.expected_cash_xaf, 1_000, `round ${round}: nothing lands on the closed shift`);
      t.equal(stored!.n, 0);
    }
  }
});

t.test('with the subscription ended a cash movement is 402 and nothing is recorded', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await cash(cashier.token, { direction: 'out', amount_xaf: 100, reason: 'x' }), 402, SUBSCRIPTION_REQUIRED);
  t.strictSame(await movementCount(owner.shop.id), { movements: 0, entries: 0 });
});
