import t from 'tap';
import { startService } from '../support/service.ts';
import { MAX_XAF } from '../../api/schemas.ts';
import { hashPassword } from '../../api/lib/password.ts';
import { addStaff, chars, createProduct, expireSubscription, login, PASSWORD, registerShop, staffedShop, uniqueEmail } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { closeShift, currentShift, moveCash, openShift, recordSale, shopDay, spend } from './shift-fixtures.ts';

const api = await startService(t);

const SHIFT_KEYS = [
  'by_method', 'closed_at', 'counted_cash_xaf', 'created_at', 'difference_xaf', 'expected_cash_xaf', 'id', 'note',
  'opened_at', 'opening_float_xaf', 'status', 'updated_at', 'user_id', 'user_name',
];
const TOTALS_KEYS = ['by_method', 'cash_expenses_xaf', 'cash_in_xaf', 'cash_out_xaf', 'cash_refunds_xaf', 'cash_sales_xaf', 'cash_settlements_xaf', 'cash_supplier_payments_xaf', 'expected_cash_xaf', 'opening_float_xaf'];

const open = (token: string, body: unknown) => api.request('POST', '/shift/open', { token, body });
const close = (token: string, body: unknown) => api.request('POST', '/shift/close', { token, body });
const listShifts = (token: string, query = '') => api.request('GET', `/shifts${query}`, { token });
const isUtcTimestamp = (value: unknown) => typeof value === 'string' && value.endsWith('Z') && !Number.isNaN(Date.parse(value));

async function storedShifts(userId: string) {
  const rows = await api.ownerSql<{ id: string; status: string }[]>`select id, status from shifts where user_id = ${userId} order by opened_at`;
  return rows.map((row) => ({ ...row }));
}

// Opening

t.test('GET /shift answers {"data": null} when the caller has no open shift', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const reply = await api.request('GET', '/shift', { token: cashier.token });
  t.equal(reply.status, 200);
  t.strictSame(reply.body, { data: null });
  await openShift(api, owner.token, 5_000);
  t.strictSame((await api.request('GET', '/shift', { token: cashier.token })).body, { data: null }, 'another user\'s open shift is not the caller\'s');
  await openShift(api, cashier.token);
  await closeShift(api, cashier.token);
  t.strictSame((await api.request('GET', '/shift', { token: cashier.token })).body, { data: null }, 'null again once closed');
});

t.test('a cashier opens a shift: 201 with the float, open, theirs, expected cash equal to the float', async (t) => {
  const { cashier } = await staffedShop(api);
  const reply = await open(cashier.token, { opening_float_xaf: 25_000 });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const shift = reply.body.data;
  t.strictSame(Object.keys(shift).sort(), SHIFT_KEYS);
  t.match(shift, {
    user_id: cashier.user.id, user_name: 'A cashier', status: 'open', opening_float_xaf: 25_000, expected_cash_xaf: 25_000,
    counted_cash_xaf: null, difference_xaf: null, by_method: null, note: null, closed_at: null,
  });
  for (const key of ['opened_at', 'created_at', 'updated_at']) t.ok(isUtcTimestamp(shift[key]), `${key} is ISO-8601 UTC`);

  const live = await currentShift(api, cashier.token);
  t.strictSame(Object.keys(live).sort(), [...SHIFT_KEYS, 'totals'].sort());
  t.equal(live.id, shift.id, 'GET /shift answers it');
  t.strictSame(Object.keys(live.totals).sort(), TOTALS_KEYS);
  t.strictSame(live.totals, {
    opening_float_xaf: 25_000, cash_sales_xaf: 0, cash_refunds_xaf: 0, cash_settlements_xaf: 0, cash_in_xaf: 0, cash_out_xaf: 0, cash_expenses_xaf: 0, cash_supplier_payments_xaf: 0,
    expected_cash_xaf: 25_000, by_method: { cash: 25_000, carrier1_momo: 0, carrier2_money: 0, card: 0, bank: 0 },
  });
});

t.test('opening_float_xaf is required, an integer from 0 to the service\'s maximum', async (t) => {
  const shop = await registerShop(api);
  for (const float of [0, MAX_XAF]) {
    const staff = await addStaff(api, shop, 'cashier');
    const reply = await open(staff.token, { opening_float_xaf: float });
    t.equal(reply.status, 201, `${float}`);
    t.equal(reply.body.data.opening_float_xaf, float);
  }
  const cashier = await addStaff(api, shop, 'cashier');
  for (const float of [-1, 1.5, MAX_XAF + 1, '100', null, true]) {
    expectInvalid(t, await open(cashier.token, { opening_float_xaf: float }), 'opening_float_xaf', JSON.stringify(float));
  }
  expectInvalid(t, await open(cashier.token, {}), 'opening_float_xaf', 'missing');
  t.strictSame(await storedShifts(cashier.user.id), [], 'no shift was opened');
});

t.test('one open shift per user: a second open is 409 shift_already_open; another user opens their own; after closing one may open again', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const first = await openShift(api, cashier.token, 1_000);
  expectConflict(t, await open(cashier.token, { opening_float_xaf: 2_000 }), 'shift_already_open');
  t.equal((await currentShift(api, cashier.token)).id, first.id, 'the first shift is untouched');
  t.equal((await currentShift(api, cashier.token)).opening_float_xaf, 1_000);
  await openShift(api, owner.token, 3_000);
  await closeShift(api, cashier.token);
  const second = await openShift(api, cashier.token, 4_000);
  t.not(second.id, first.id, 'a new shift');
  t.strictSame((await storedShifts(cashier.user.id)).map((s) => s.status), ['closed', 'open']);
});

t.test('two opens at the same moment give one shift and one 409', async (t) => {
  const shop = await registerShop(api);
  for (let round = 1; round <= 5; round++) {
    const cashier = await addStaff(api, shop, 'cashier');
    const replies = await Promise.all([1, 2, 3].map((n) => open(cashier.token, { opening_float_xaf: n * 1_000 })));
    t.strictSame(replies.map((r) => r.status).sort(), [201, 409, 409], `round ${round}: one opened`);
    for (const refused of replies.filter((r) => r.status === 409)) expectConflict(t, refused, 'shift_already_open', `round ${round}`);
    t.equal((await storedShifts(cashier.user.id)).length, 1, `round ${round}: one shift stored`);
  }
});

// Expected cash

t.test('expected cash = float + cash sales - change - cash refunds and voids + cash in - cash out - cash expenses', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const shift = await openShift(api, cashier.token, 10_000);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'cash', 5_000], ['change', 'cash', -500]]);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'cash', 2_000], ['payment', 'card', 3_000]]);
  await recordSale(api, owner.shop.id, shift.id, [['refund', 'cash', -700]]);
  await recordSale(api, owner.shop.id, shift.id, [['void', 'cash', -300], ['void', 'card', -1_000]]);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'carrier1_momo', 4_000], ['payment', 'carrier2_money', 1_500], ['payment', 'bank', 8_000]]);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'cash', 1_000], ['payment', 'credit', 6_000]]);
  await moveCash(api, cashier.token, 'in', 3_000);
  await moveCash(api, cashier.token, 'out', 1_200, 'Dépôt à la banque');
  // Cash the manager spends comes from the manager's drawer, never from the cashier's.
  await spend(api, manager.token, { amount_xaf: 999, payment_method: 'cash' });

  const live = await currentShift(api, cashier.token);
  t.strictSame(live.totals, {
    opening_float_xaf: 10_000,
    cash_sales_xaf: 7_500,
    cash_refunds_xaf: 1_000,
    cash_settlements_xaf: 0,
    cash_in_xaf: 3_000,
    cash_out_xaf: 1_200,
    cash_expenses_xaf: 0,
    cash_supplier_payments_xaf: 0,
    expected_cash_xaf: 18_300,
    by_method: { cash: 18_300, carrier1_momo: 4_000, carrier2_money: 1_500, card: 2_000, bank: 8_000 },
  }, '10000 + 5000 - 500 + 2000 + 1000 - 700 - 300 + 3000 - 1200; credit is not drawer money');
  t.equal(live.expected_cash_xaf, 18_300, 'the shift shows the live expected cash');
});

t.test('real sales land on the seller\'s shift: cash net of change, card apart; a void gives the cash back from the drawer that took it', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1_500, tracked: false });
  const sell = async (payments: { method: string; amount_xaf: number }[]) => {
    const reply = await api.request('POST', '/sales', { token: cashier.token, body: { items: [{ product_id: product.id, quantity: 2 }], payments } });
    if (reply.status !== 201) throw new Error(`sale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };
  const shift = await openShift(api, cashier.token, 5_000);
  const cashSale = await sell([{ method: 'cash', amount_xaf: 5_000 }]);
  t.equal(cashSale.shift_id, shift.id, 'the sale is attached to the cashier\'s open shift');
  t.equal(cashSale.change_xaf, 2_000);
  await sell([{ method: 'card', amount_xaf: 3_000 }]);
  const live = await currentShift(api, cashier.token);
  t.match(live.totals, { cash_sales_xaf: 3_000, expected_cash_xaf: 8_000 }, '5000 taken, 2000 given back');
  t.match(live.totals.by_method, { cash: 8_000, card: 3_000 });

  await openShift(api, manager.token, 10_000);
  t.equal((await api.request('POST', `/sales/${cashSale.id}/void`, { token: manager.token, body: { reason: 'Erreur' } })).status, 200);
  t.match((await currentShift(api, cashier.token)).totals, { cash_refunds_xaf: 3_000, expected_cash_xaf: 5_000 }, 'the 3000 went back from the cashier\'s drawer, still open');
  t.equal((await currentShift(api, manager.token)).expected_cash_xaf, 10_000, 'the manager\'s drawer is untouched');
});

t.test('cash expenses of the shift lower expected cash; other methods\', deleted ones and other shifts\' do not', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const cashierShift = await openShift(api, cashier.token, 1_000);
  const managerShift = await openShift(api, manager.token, 50_000);
  const kept = await spend(api, manager.token, { amount_xaf: 4_000, payment_method: 'cash' });
  const deleted = await spend(api, manager.token, { amount_xaf: 2_500, payment_method: 'cash' });
  await spend(api, manager.token, { amount_xaf: 7_000, payment_method: 'carrier1_momo' });
  await spend(api, manager.token, { amount_xaf: 3_000, payment_method: 'cash', spent_at: await shopDay(api, owner.shop.id, 1) });
  t.equal((await api.request('DELETE', `/expenses/${deleted.id}`, { token: owner.token })).status, 204);
  t.equal(kept.shift_id, managerShift.id, 'a cash expense joins the spender\'s open shift');

  const live = await currentShift(api, manager.token);
  t.equal(live.totals.cash_expenses_xaf, 4_000, 'only the standing cash expense of today');
  t.equal(live.totals.expected_cash_xaf, 46_000);
  t.equal(live.totals.by_method.carrier1_momo, 0, 'a mobile money expense is not a sale payment');
  t.equal((await currentShift(api, cashier.token)).expected_cash_xaf, cashierShift.expected_cash_xaf, 'the other drawer is untouched');
});

t.test('payments of another shift, of no shift or of another shop never count', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const other = await staffedShop(api);
  const mine = await openShift(api, cashier.token, 0);
  const theirs = await openShift(api, other.cashier.token, 0);
  await recordSale(api, owner.shop.id, mine.id, [['payment', 'cash', 1_000]]);
  await recordSale(api, owner.shop.id, null, [['payment', 'cash', 20_000]]);
  await recordSale(api, other.owner.shop.id, theirs.id, [['payment', 'cash', 300_000], ['payment', 'card', 1]]);
  const live = await currentShift(api, cashier.token);
  t.equal(live.expected_cash_xaf, 1_000);
  t.strictSame(live.totals.by_method, { cash: 1_000, carrier1_momo: 0, carrier2_money: 0, card: 0, bank: 0 });
  t.equal((await currentShift(api, other.cashier.token)).expected_cash_xaf, 300_000);
});

// Closing

t.test('closing stores expected, counted and the difference, in total and per method', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const shift = await openShift(api, cashier.token, 10_000);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'cash', 6_000], ['change', 'cash', -1_000], ['payment', 'card', 12_000]]);
  await recordSale(api, owner.shop.id, shift.id, [['payment', 'carrier1_momo', 3_000], ['payment', 'bank', 2_000]]);
  await moveCash(api, cashier.token, 'out', 4_000, 'Versement au coffre');

  const reply = await close(cashier.token, { counted_cash_xaf: 10_500, note: 'Manque un billet', counted_by_method: [10_500, 3_000, 0, 11_000] });
  t.equal(reply.status, 200);
  const closed = reply.body.data;
  t.strictSame(Object.keys(closed).sort(), SHIFT_KEYS);
  t.match(closed, { id: shift.id, status: 'closed', opening_float_xaf: 10_000, expected_cash_xaf: 11_000, counted_cash_xaf: 10_500, difference_xaf: -500, note: 'Manque un billet' });
  t.ok(isUtcTimestamp(closed.closed_at), 'closed_at is set');
  t.strictSame(closed.by_method, {
    cash: { expected_xaf: 11_000, counted_xaf: 10_500, difference_xaf: -500 },
    carrier1_momo: { expected_xaf: 3_000, counted_xaf: 3_000, difference_xaf: 0 },
    carrier2_money: { expected_xaf: 0, counted_xaf: 0, difference_xaf: 0 },
    card: { expected_xaf: 12_000, counted_xaf: 11_000, difference_xaf: -1_000 },
    bank: { expected_xaf: 2_000, counted_xaf: null, difference_xaf: null },
  }, 'counts in the order cash, carrier1_momo, carrier2_money, card, bank; bank left uncounted');
  const [stored] = await api.ownerSql`select status, expected_cash_xaf, counted_cash_xaf, difference_xaf, by_method, note from shifts where id = ${shift.id}`;
  t.match(stored, { status: 'closed', expected_cash_xaf: 11_000, counted_cash_xaf: 10_500, difference_xaf: -500, note: 'Manque un billet' }, 'stored');
  t.strictSame(stored!.by_method, closed.by_method, 'by_method stored');

  const listed = (await listShifts(cashier.token)).body.data[0];
  t.strictSame(listed, closed, 'the list shows the closed shift as the close answered it');
});

t.test('a close without counts per method counts cash only; a surplus is a positive difference', async (t) => {
  const { cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 2_000);
  const closed = await closeShift(api, cashier.token, { counted_cash_xaf: 2_300 });
  t.match(closed, { expected_cash_xaf: 2_000, counted_cash_xaf: 2_300, difference_xaf: 300, note: null });
  t.strictSame(closed.by_method, {
    cash: { expected_xaf: 2_000, counted_xaf: 2_300, difference_xaf: 300 },
    carrier1_momo: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
    carrier2_money: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
    card: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
    bank: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
  });
  for (const counts of [null, []]) {
    await openShift(api, cashier.token, 0);
    const again = await closeShift(api, cashier.token, { counted_cash_xaf: 0, counted_by_method: counts });
    t.equal(again.by_method.card.counted_xaf, null, `${JSON.stringify(counts)}: nothing but cash counted`);
  }
});

t.test('closing with no open shift is 409 no_open_shift, and a shift closes once', async (t) => {
  const { cashier, manager } = await staffedShop(api);
  expectConflict(t, await close(cashier.token, { counted_cash_xaf: 0 }), 'no_open_shift', 'never opened');
  await openShift(api, cashier.token, 0);
  await openShift(api, manager.token, 0);
  await closeShift(api, cashier.token);
  expectConflict(t, await close(cashier.token, { counted_cash_xaf: 0 }), 'no_open_shift', 'already closed');
  t.equal((await currentShift(api, manager.token)).status, 'open', 'a close never touches another user\'s shift');
});

t.test('two closes at the same moment close the shift once', async (t) => {
  const { cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 500);
  const replies = await Promise.all([close(cashier.token, { counted_cash_xaf: 500 }), close(cashier.token, { counted_cash_xaf: 400 })]);
  t.strictSame(replies.map((r) => r.status).sort(), [200, 409]);
  const [stored] = await api.ownerSql`select count(*)::int as closed from shifts where user_id = ${cashier.user.id} and status = 'closed'`;
  t.equal(stored!.closed, 1);
});

t.test('counted_cash_xaf is required, an integer from 0 to the maximum', async (t) => {
  const { cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  for (const counted of [-1, 1.5, MAX_XAF + 1, '100', null]) {
    expectInvalid(t, await close(cashier.token, { counted_cash_xaf: counted }), 'counted_cash_xaf', JSON.stringify(counted));
  }
  expectInvalid(t, await close(cashier.token, {}), 'counted_cash_xaf', 'missing');
  t.equal((await currentShift(api, cashier.token)).status, 'open', 'still open');
  t.equal((await closeShift(api, cashier.token, { counted_cash_xaf: 0 })).counted_cash_xaf, 0, '0');
  await openShift(api, cashier.token, 0);
  t.equal((await closeShift(api, cashier.token, { counted_cash_xaf: MAX_XAF })).difference_xaf, MAX_XAF, 'the maximum');
});

t.test('note is at most 255 characters, or null', async (t) => {
  const { cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  expectInvalid(t, await close(cashier.token, { counted_cash_xaf: 0, note: chars(256) }), 'note', '256 characters');
  expectInvalid(t, await close(cashier.token, { counted_cash_xaf: 0, note: 12 }), 'note', 'a number');
  t.equal((await closeShift(api, cashier.token, { counted_cash_xaf: 0, note: chars(255) })).note, chars(255), '255 characters');
  await openShift(api, cashier.token, 0);
  t.equal((await closeShift(api, cashier.token, { counted_cash_xaf: 0, note: null })).note, null, 'null');
});

t.test('counted_by_method is a list of at most 5 integers from 0, cash first and equal to counted_cash_xaf', async (t) => {
  const { cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 0);
  const refusals: [unknown, string][] = [
    [[0, -1], 'counted_by_method.1'],
    [[0, 1.5], 'counted_by_method.1'],
    [[0, 0, 0, 0, MAX_XAF + 1], 'counted_by_method.4'],
    [[0, '5'], 'counted_by_method.1'],
    [[0, null], 'counted_by_method.1'],
    [[0, 0, 0, 0, 0, 0], 'counted_by_method'],
    [{ cash: 0 }, 'counted_by_method'],
    ['0,0', 'counted_by_method'],
    [[1], 'counted_by_method.0'],
  ];
  for (const [counts, key] of refusals) {
    expectInvalid(t, await close(cashier.token, { counted_cash_xaf: 0, counted_by_method: counts }), key, JSON.stringify(counts));
  }
  t.equal((await currentShift(api, cashier.token)).status, 'open', 'still open');
  const closed = await closeShift(api, cashier.token, { counted_cash_xaf: 7, counted_by_method: [7, 1, 2, 3, MAX_XAF] });
  t.strictSame(
    Object.fromEntries(Object.entries(closed.by_method).map(([method, count]: [string, any]) => [method, count.counted_xaf])),
    { cash: 7, carrier1_momo: 1, carrier2_money: 2, card: 3, bank: MAX_XAF },
    'five counts, one per method in order',
  );
});

// Listing

t.test('a cashier lists only their own shifts; managers and owners list everyone\'s, newest first', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const colleague = await addStaff(api, owner, 'cashier');
  const a = await openShift(api, cashier.token, 1);
  await closeShift(api, cashier.token);
  const b = await openShift(api, colleague.token, 2);
  const c = await openShift(api, cashier.token, 3);
  const d = await openShift(api, manager.token, 4);

  const own = await listShifts(cashier.token);
  t.equal(own.status, 200);
  t.strictSame(own.body.data.map((s: any) => s.id), [c.id, a.id], 'the cashier\'s own, newest first');
  t.strictSame(own.body.meta, { next_cursor: null });
  t.strictSame((await listShifts(cashier.token, `?cashier=${colleague.user.id}`)).body.data, [], 'a colleague\'s shifts stay hidden, even when asked for');
  t.strictSame((await listShifts(cashier.token, `?cashier=${cashier.user.id}`)).body.data.map((s: any) => s.id), [c.id, a.id]);

  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    const all = await listShifts(token);
    t.strictSame(all.body.data.map((s: any) => s.id), [d.id, c.id, b.id, a.id], `${who}: everyone's`);
    t.strictSame((await listShifts(token, `?cashier=${colleague.user.id}`)).body.data.map((s: any) => s.id), [b.id], `${who}: one cashier's`);
  }
  t.strictSame((await listShifts(owner.token, '?status=closed')).body.data.map((s: any) => s.id), [a.id], 'closed only');
  t.strictSame((await listShifts(owner.token, '?status=open')).body.data.map((s: any) => s.id), [d.id, c.id, b.id], 'open only');
  t.equal((await listShifts(owner.token)).body.data[0].expected_cash_xaf, 4, 'an open shift shows its live expected cash');
});

t.test('shifts are filtered by the day they opened, in the shop\'s calendar', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const old = await openShift(api, cashier.token, 0);
  await closeShift(api, cashier.token);
  const recent = await openShift(api, cashier.token, 0);
  await api.ownerSql`update shifts set opened_at = now() - interval '10 days' where id = ${old.id}`;
  const [today, tenDaysAgo, nineDaysAgo] = [await shopDay(api, owner.shop.id), await shopDay(api, owner.shop.id, 10), await shopDay(api, owner.shop.id, 9)];
  const ids = async (query: string) => (await listShifts(owner.token, query)).body.data.map((s: any) => s.id);
  t.strictSame(await ids(`?from=${today}`), [recent.id], 'from today');
  t.strictSame(await ids(`?to=${nineDaysAgo}`), [old.id], 'up to nine days ago');
  t.strictSame(await ids(`?from=${tenDaysAgo}&to=${tenDaysAgo}`), [old.id], 'one day');
  t.strictSame(await ids(`?from=${tenDaysAgo}&to=${today}`), [recent.id, old.id], 'both ends included');
  t.strictSame(await ids(`?from=${nineDaysAgo}&to=${await shopDay(api, owner.shop.id, 1)}`), [], 'none in between');
});

t.test('the list\'s query is validated: dates, to on or after from, cashier, status, limit and cursor', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await listShifts(owner.token, '?from=2025-03-10&to=2025-03-09'), 'to', 'to before from');
  t.equal((await listShifts(owner.token, '?from=2025-03-10&to=2025-03-10')).status, 200, 'to equal to from');
  for (const bad of ['2025-13-01', '2025-02-30', 'yesterday', '2025-03-10T10:00:00Z']) {
    expectInvalid(t, await listShifts(owner.token, `?from=${bad}`), 'from', bad);
    expectInvalid(t, await listShifts(owner.token, `?to=${bad}`), 'to', bad);
  }
  expectInvalid(t, await listShifts(owner.token, '?cashier=someone'), 'cashier');
  expectInvalid(t, await listShifts(owner.token, '?status=lost'), 'status');
  for (const limit of ['0', '201', 'x']) expectInvalid(t, await listShifts(owner.token, `?limit=${limit}`), 'limit', `limit ${limit}`);
  expectInvalid(t, await listShifts(owner.token, '?cursor=not-a-cursor'), 'cursor');
});

t.test('the list pages with limit and an opaque cursor, losing and repeating nothing', async (t) => {
  const shop = await registerShop(api);
  const opened: string[] = [];
  for (let i = 0; i < 5; i++) {
    const cashier = await addStaff(api, shop, 'cashier');
    opened.unshift((await openShift(api, cashier.token, i)).id);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: any = await listShifts(shop.token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(reply.status, 200);
    t.ok(reply.body.data.length <= 2);
    seen.push(...reply.body.data.map((s: any) => s.id));
    cursor = reply.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3);
  t.strictSame(seen, opened, 'every shift once, newest first');
});

// Roles, tenancy, authentication, subscription

t.test('managers and owners open and close their own shifts too', async (t) => {
  const { owner, manager } = await staffedShop(api);
  for (const who of [owner, manager]) {
    await openShift(api, who.token, 100);
    t.equal((await currentShift(api, who.token)).user_id, who.user.id);
    t.equal((await closeShift(api, who.token, { counted_cash_xaf: 100 })).difference_xaf, 0);
  }
});

t.test('another shop\'s shifts are never seen', async (t) => {
  const mine = await staffedShop(api);
  const theirs = await staffedShop(api);
  const foreign = await openShift(api, theirs.cashier.token, 9_999);
  await openShift(api, mine.cashier.token, 1);
  const listed = (await listShifts(mine.owner.token)).body.data;
  t.equal(listed.length, 1);
  t.notOk(listed.some((s: any) => s.id === foreign.id));
  t.strictSame((await listShifts(mine.owner.token, `?cashier=${theirs.cashier.user.id}`)).body.data, [], 'not even asked for by cashier');
  expectConflict(t, await close(mine.manager.token, { counted_cash_xaf: 0 }), 'no_open_shift', 'a close only ever finds the caller\'s shift');
  t.equal((await currentShift(api, theirs.cashier.token)).status, 'open');
});

t.test('without a valid token every shift operation is 401', async (t) => {
  for (const [method, path] of [['GET', '/shift'], ['GET', '/shifts'], ['POST', '/shift/open'], ['POST', '/shift/close'], ['POST', '/shift/cash']] as const) {
    expectError(t, await api.request(method, path, { body: method === 'POST' ? {} : undefined }), 401, UNAUTHENTICATED, `${method} ${path}`);
    expectError(t, await api.request(method, path, { token: 'nope' }), 401, UNAUTHENTICATED, `${method} ${path} bad token`);
  }
});

t.test('a platform administrator has no shop and no shift: 403', async (t) => {
  const email = uniqueEmail('admin');
  await api.ownerSql`insert into users (kind, name, email, password_hash) values ('admin', 'Admin', ${email}, ${await hashPassword(PASSWORD, 4)})`;
  const token = await login(api, email);
  for (const [method, path, body] of [
    ['GET', '/shift', undefined],
    ['GET', '/shifts', undefined],
    ['POST', '/shift/open', { opening_float_xaf: 0 }],
    ['POST', '/shift/close', { counted_cash_xaf: 0 }],
    ['POST', '/shift/cash', { direction: 'in', amount_xaf: 1, reason: 'Float' }],
  ] as const) {
    expectError(t, await api.request(method, path, { token, body }), 403, FORBIDDEN, `${method} ${path}`);
  }
});

t.test('with the subscription ended, opening and cash movements are 402; reading and closing still work', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await openShift(api, cashier.token, 1_000);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await open(owner.token, { opening_float_xaf: 0 }), 402, SUBSCRIPTION_REQUIRED, 'open');
  expectError(t, await api.request('POST', '/shift/cash', { token: cashier.token, body: { direction: 'in', amount_xaf: 5, reason: 'x' } }), 402, SUBSCRIPTION_REQUIRED, 'cash');
  t.equal((await api.request('GET', '/shift', { token: cashier.token })).status, 200, 'GET /shift');
  t.equal((await listShifts(owner.token)).status, 200, 'GET /shifts');
  const closed = await close(cashier.token, { counted_cash_xaf: 1_000 });
  t.equal(closed.status, 200, 'a shop can always close its drawer');
  t.equal(closed.body.data.status, 'closed');
});
