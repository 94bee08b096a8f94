import t from 'tap';
import { startService } from '../support/service.ts';
import { MAX_XAF } from '../../api/schemas.ts';
import { createProduct, expireSubscription, ledgerInvariants, postVariant, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, MALFORMED_JSON, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { closeShift, currentShift, journalLines, openShift } from '../shifts/shift-fixtures.ts';
import { createSupplier, netPerAccount, receive } from './purchase-fixtures.ts';

const api = await startService(t);

const PURCHASE_KEYS = [
  'balance_xaf', 'created_at', 'id', 'items', 'note', 'paid_xaf', 'payments', 'reference', 'returned_xaf', 'returns', 'status', 'subtotal_xaf',
  'supplier_id', 'supplier_name', 'total_xaf', 'updated_at', 'user_id', 'vat_rate', 'vat_xaf',
];
const PAYMENT_KEYS = ['amount_xaf', 'created_at', 'id', 'method', 'reference', 'shift_id', 'user_id'];
const MAX_UNIT_COST = 1_000_000_000;
const MAX_QUANTITY = 1_000_000_000;

const post = (token: string, body: unknown, headers?: Record<string, string>) => api.request('POST', '/purchases', { token, body, headers });
const pay = (token: string, id: string, body: unknown, headers?: Record<string, string>) => api.request('POST', `/purchases/${id}/pay`, { token, body, headers });
const read = (token: string, id: string) => api.request('GET', `/purchases/${id}`, { token });
const list = async (token: string, query = '') => {
  const reply = await api.request('GET', `/purchases${query}`, { token });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
};
const ids = (purchases: { id: string }[]) => purchases.map((purchase) => purchase.id);
const product = async (token: string, id: string) => (await api.request('GET', `/products/${id}`, { token })).body.data;
const movements = async (token: string, id: string) => (await api.request('GET', `/products/${id}/movements`, { token })).body.data;

/** What a shop has written of purchases, straight from the database. */
async function written(shopId: string) {
  const [row] = await api.ownerSql<{ purchases: number; payments: number; entries: number; movements: number }[]>`
    select (select count(*)::int from purchases where shop_id = ${shopId}) as purchases,
           (select count(*)::int from purchase_payments where shop_id = ${shopId}) as payments,
           (select count(*)::int from journal_entries where shop_id = ${shopId} and source_type like 'purchase%') as entries,
           (select count(*)::int from stock_movements where shop_id = ${shopId} and type = 'purchase') as movements`;
  return { ...row! };
}

// The records

t.test('a purchase is a record like any other: id, created_at and updated_at in UTC', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 2_000 }] });
  t.strictSame(Object.keys(purchase).sort(), PURCHASE_KEYS, 'the keys of a Purchase');
  t.ok(String(purchase.updated_at).endsWith('Z'), 'updated_at is UTC');
  t.ok(purchase.created_at.endsWith('Z'), 'created_at is UTC');
});

t.test('a payment answers the purchase with the payment in it: amount, method, reference, drawer, who, when', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Sacs de ciment', quantity: 10, unit_cost_xaf: 4_500 }] });
  const reply = await pay(manager.token, purchase.id, { amount_xaf: 5_000, method: 'carrier2_money', reference: 'OM-0042' });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const [payment] = reply.body.data.payments;
  t.strictSame(Object.keys(payment).sort(), PAYMENT_KEYS);
  t.match(payment, { amount_xaf: 5_000, method: 'carrier2_money', reference: 'OM-0042', shift_id: null, user_id: manager.user.id });
  t.ok(payment.created_at.endsWith('Z'));
  t.equal((await pay(owner.token, purchase.id, { amount_xaf: 1, method: 'bank', reference: null })).body.data.payments[1].reference, null, 'reference null');
});

t.test('GET /purchases/{id} shows the lines in order, the payments and the returns oldest first', async (t) => {
  const owner = await registerShop(api);
  const soap = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, {
    items: [{ product_id: soap.id, quantity: 6, unit_cost_xaf: 300 }, { name: 'Transport', quantity: 1, unit_cost_xaf: 1_000 }, { product_id: soap.id, quantity: 4, unit_cost_xaf: 300 }],
  });
  for (const amount of [500, 700]) await pay(owner.token, purchase.id, { amount_xaf: amount, method: 'cash' });
  for (const quantity of [1, 2]) {
    await api.request('POST', `/purchases/${purchase.id}/returns`, { token: owner.token, body: { items: [{ purchase_item_id: purchase.items[0].id, quantity }] } });
  }
  const { data } = (await read(owner.token, purchase.id)).body;
  t.strictSame(data.items.map((item: any) => item.line_no), [1, 2, 3]);
  t.strictSame(data.payments.map((payment: any) => payment.amount_xaf), [500, 700]);
  t.strictSame(data.returns.map((back: any) => back.items[0].quantity), [1, 2]);
  t.strictSame((await list(owner.token)).data, [data], 'the list shows the same record');
  expectError(t, await read(owner.token, crypto.randomUUID()), 404, NOT_FOUND, 'an unknown id');
});

// Receiving: figures

t.test('line totals and VAT round half away from zero', async (t) => {
  const owner = await registerShop(api);
  // 2.5 x 1 = 2.5 -> 3 and 0.5 x 3 = 1.5 -> 2 (half to even would give 2 and 2); VAT 5 x 10% = 0.5 -> 1 (half to even: 0).
  const purchase = await receive(api, owner.token, { vat_rate: 10, items: [{ name: 'Ficelle', quantity: 2.5, unit_cost_xaf: 1 }, { name: 'Scotch', quantity: 0.5, unit_cost_xaf: 3 }] });
  t.strictSame(purchase.items.map((item: any) => item.total_xaf), [3, 2]);
  t.match(purchase, { subtotal_xaf: 5, vat_xaf: 1, total_xaf: 6, balance_xaf: 6 });
  // 0.001 x 499 = 0.499 -> 0; 0.001 x 500 = 0.5 -> 1.
  const tiny = await receive(api, owner.token, { items: [{ name: 'Epice', quantity: 0.001, unit_cost_xaf: 499 }, { name: 'Epice', quantity: 0.001, unit_cost_xaf: 500 }] });
  t.strictSame(tiny.items.map((item: any) => item.total_xaf), [0, 1]);
});

t.test('a vat_rate of null is no VAT, like an absent one', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { vat_rate: null, items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 1_000 }] });
  t.match(purchase, { vat_rate: 0, vat_xaf: 0, total_xaf: 1_000 });
  t.strictSame(await netPerAccount(api, 'purchase', purchase.id), { '401': -1_000, '601': 1_000 }, 'no 4452 line');
});

t.test('a line takes the catalogue\'s name unless it gives its own', async (t) => {
  const owner = await registerShop(api);
  const rice = await createProduct(api, owner.token, { name: 'Riz parfumé 25 kg' });
  const purchase = await receive(api, owner.token, {
    items: [{ product_id: rice.id, quantity: 1, unit_cost_xaf: 12_000 }, { product_id: rice.id, quantity: 1, unit_cost_xaf: 12_000, name: '  Riz Uncle Sam (facture)  ' }],
  });
  t.strictSame(purchase.items.map((item: any) => item.name), ['Riz parfumé 25 kg', 'Riz Uncle Sam (facture)']);
});

t.test('a line that is only a name is a cost: no stock moves, no cost changes, no stock in the journal', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { vat_rate: 19.25, items: [{ name: 'Transport Douala-Bafoussam', quantity: 1, unit_cost_xaf: 15_000 }] });
  t.match(purchase.items[0], { product_id: null, variant_id: null, batch_id: null, total_xaf: 15_000 });
  t.equal((await written(owner.shop.id)).movements, 0, 'no movement');
  // VAT 15000 x 19.25% = 2887.5 -> 2888.
  t.strictSame(await netPerAccount(api, 'purchase', purchase.id), { '401': -17_888, '4452': 2_888, '601': 15_000 });
});

t.test('an untracked product takes its new cost but writes no movement', async (t) => {
  const owner = await registerShop(api);
  const bags = await createProduct(api, owner.token, { tracked: false, cost_xaf: 10 });
  await receive(api, owner.token, { items: [{ product_id: bags.id, quantity: 1_000, unit_cost_xaf: 12 }] });
  t.match(await product(owner.token, bags.id), { cost_xaf: 12 });
  t.strictSame(await movements(owner.token, bags.id), []);
});

t.test('a variant line may name its product too; a variant of another product is a 422 on items.N.variant_id', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const small = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'S' } })).body.data;
  const soap = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: shirt.id, variant_id: small.id, quantity: 3, unit_cost_xaf: 2_000 }] });
  t.match(purchase.items[0], { product_id: shirt.id, variant_id: small.id });
  t.match(await movements(owner.token, shirt.id), [{ type: 'purchase', quantity: 3, on_hand_after: 3 }]);
  const before = await written(owner.shop.id);
  expectInvalid(t, await post(owner.token, { items: [{ product_id: soap.id, variant_id: small.id, quantity: 1, unit_cost_xaf: 1 }] }), 'items.0.variant_id');
  t.strictSame(await written(owner.shop.id), before, 'nothing written');
});

t.test('a deleted or unknown product or variant cannot be received: 422 on its key', async (t) => {
  const owner = await registerShop(api);
  const gone = await createProduct(api, owner.token);
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: owner.token })).status, 204);
  const shirt = await createProduct(api, owner.token);
  const small = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'S' } })).body.data;
  const large = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'L' } })).body.data;
  t.equal((await api.request('DELETE', `/variants/${large.id}`, { token: owner.token })).status, 204);
  const good = { variant_id: small.id, quantity: 1, unit_cost_xaf: 100 };
  expectInvalid(t, await post(owner.token, { items: [good, { product_id: gone.id, quantity: 1, unit_cost_xaf: 1 }] }), 'items.1.product_id', 'a deleted product');
  expectInvalid(t, await post(owner.token, { items: [good, { product_id: crypto.randomUUID(), quantity: 1, unit_cost_xaf: 1 }] }), 'items.1.product_id', 'an unknown product');
  expectInvalid(t, await post(owner.token, { items: [good, { variant_id: large.id, quantity: 1, unit_cost_xaf: 1 }] }), 'items.1.variant_id', 'a deleted variant');
  t.strictSame(await written(owner.shop.id), { purchases: 0, payments: 0, entries: 0, movements: 0 }, 'nothing written, not even the good first line');
});

t.test('the largest purchase the service takes is refused with a 422 on items, never a 500', async (t) => {
  const owner = await registerShop(api);
  const line = { name: 'Conteneur', quantity: MAX_QUANTITY, unit_cost_xaf: MAX_UNIT_COST };
  expectInvalid(t, await post(owner.token, { items: [line] }), 'items', 'one line of 10^18');
  t.equal((await written(owner.shop.id)).purchases, 0);
});

t.test('ten lines at the largest quantity and unit cost are a 422 on items, never a 500', async (t) => {
  const owner = await registerShop(api);
  const line = { name: 'Conteneur', quantity: MAX_QUANTITY, unit_cost_xaf: MAX_UNIT_COST };
  const reply = await post(owner.token, { items: Array.from({ length: 10 }, () => line) });
  t.equal(reply.status, 422, 'status 422');
  t.strictSame(Object.keys(reply.body.errors ?? {}), ['items'], 'errors name items');
  t.equal((await written(owner.shop.id)).purchases, 0, 'nothing written');
});

t.test('receiving more than the stock can count is a 422, never a 500', async (t) => {
  const owner = await registerShop(api);
  const sand = await createProduct(api, owner.token);
  const reply = await post(owner.token, { items: Array.from({ length: 101 }, () => ({ product_id: sand.id, quantity: MAX_QUANTITY, unit_cost_xaf: 0 })) });
  t.equal(reply.status, 422, 'status 422');
  t.equal((await product(owner.token, sand.id)).on_hand, 0, 'no stock moved');
});

t.test('a purchase takes up to 500 lines', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: Array.from({ length: 500 }, (_, i) => ({ name: `Article ${i + 1}`, quantity: 1, unit_cost_xaf: 10 })) });
  t.equal(purchase.items.length, 500);
  t.equal(purchase.items[499].line_no, 500);
  t.equal(purchase.subtotal_xaf, 5_000);
});

t.test('a body that is not JSON is a 400; a body that is not an object or lines that are not objects are 422', async (t) => {
  const owner = await registerShop(api);
  expectError(t, await api.request('POST', '/purchases', { token: owner.token, rawBody: '{"items": [' }), 400, MALFORMED_JSON);
  expectInvalid(t, await post(owner.token, []), 'body', 'an array');
  expectInvalid(t, await post(owner.token, { items: 'riz' }), 'items', 'items a string');
  expectInvalid(t, await post(owner.token, { items: [null] }), 'items.0', 'a null line');
  expectInvalid(t, await post(owner.token, { items: [{ name: ' ', quantity: 1, unit_cost_xaf: 1 }] }), 'items.0.name', 'a blank name');
  expectInvalid(t, await post(owner.token, { items: [{ name: 'Riz', quantity: '1', unit_cost_xaf: 1 }] }), 'items.0.quantity', 'a quantity in a string');
  expectInvalid(t, await post(owner.token, { items: [{ name: 'Riz', quantity: MAX_QUANTITY + 1, unit_cost_xaf: 1 }] }), 'items.0.quantity', 'over a billion units');
  expectInvalid(t, await post(owner.token, { items: [{ name: 'Riz', quantity: 1, unit_cost_xaf: MAX_UNIT_COST + 1 }] }), 'items.0.unit_cost_xaf', 'over a billion francs a unit');
  t.equal((await written(owner.shop.id)).purchases, 0);
});

t.test('purchases of one product received at the same moment all count', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const oil = await createProduct(api, owner.token);
  const replies = await Promise.all([1, 2, 3, 4, 5].map((n) => post(owner.token, { supplier_id: supplier.id, items: [{ product_id: oil.id, quantity: n, unit_cost_xaf: 100 }] })));
  t.strictSame(replies.map((reply) => reply.status), [201, 201, 201, 201, 201]);
  t.equal((await product(owner.token, oil.id)).on_hand, 15);
  const ledger = (await movements(owner.token, oil.id)).map((m: any) => [m.quantity, m.on_hand_after]).sort((a: number[], b: number[]) => a[1]! - b[1]!);
  t.ok(ledger.every(([quantity, after]: number[], i: number) => after === (i === 0 ? 0 : ledger[i - 1][1]) + quantity), 'each movement starts where the previous one ended');
  const [row] = await api.ownerSql<{ balance_xaf: number }[]>`select balance_xaf from suppliers where id = ${supplier.id}`;
  t.equal(Number(row!.balance_xaf), 1_500, 'the supplier is owed every purchase');
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

// Idempotency

t.test('an Idempotency-Key replays the stored purchase, and refuses another body with a 409 idempotency_conflict', async (t) => {
  const owner = await registerShop(api);
  const tea = await createProduct(api, owner.token);
  const body = { reference: 'BL-77', items: [{ product_id: tea.id, quantity: 2, unit_cost_xaf: 1_500 }] };
  const headers = { 'idempotency-key': `achat-${crypto.randomUUID()}` };
  const first = await post(owner.token, body, headers);
  t.equal(first.status, 201);
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');
  const retry = await post(owner.token, body, headers);
  t.equal(retry.status, 201);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.strictSame(retry.body, first.body);
  expectConflict(t, await post(owner.token, { ...body, reference: 'BL-78' }, headers), 'idempotency_conflict');
  t.strictSame(await written(owner.shop.id), { purchases: 1, payments: 0, entries: 1, movements: 1 }, 'one purchase, one entry, one movement');
  t.equal((await product(owner.token, tea.id)).on_hand, 2);
});

t.test('an Idempotency-Key on a payment pays once however often it is sent', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 10_000 }] });
  const headers = { 'idempotency-key': `reglement-${crypto.randomUUID()}` };
  const body = { amount_xaf: 4_000, method: 'cash' };
  const first = await pay(owner.token, purchase.id, body, headers);
  const retry = await pay(owner.token, purchase.id, body, headers);
  t.equal(first.status, 201);
  t.strictSame(retry.body, first.body);
  expectConflict(t, await pay(owner.token, purchase.id, { ...body, amount_xaf: 4_001 }, headers), 'idempotency_conflict');
  t.match((await read(owner.token, purchase.id)).body.data, { paid_xaf: 4_000, balance_xaf: 6_000, payments: [{ amount_xaf: 4_000 }] });
  t.equal((await read(owner.token, purchase.id)).body.data.payments.length, 1);
});

// Paying

t.test('nothing is left to pay on a purchase fully paid or fully returned: any payment is a 422 overpayment', async (t) => {
  const owner = await registerShop(api);
  const salt = await createProduct(api, owner.token);
  const paid = await receive(api, owner.token, { items: [{ product_id: salt.id, quantity: 2, unit_cost_xaf: 500 }] });
  await pay(owner.token, paid.id, { amount_xaf: 1_000, method: 'card' });
  expectInvalid(t, await pay(owner.token, paid.id, { amount_xaf: 1, method: 'card' }), 'amount_xaf', 'paid', 'overpayment');
  const free = await receive(api, owner.token, { items: [{ product_id: salt.id, quantity: 2, unit_cost_xaf: 0 }] });
  expectInvalid(t, await pay(owner.token, free.id, { amount_xaf: 1, method: 'cash' }), 'amount_xaf', 'nothing to pay', 'overpayment');
  const returned = await receive(api, owner.token, { items: [{ product_id: salt.id, quantity: 2, unit_cost_xaf: 500 }] });
  await api.request('POST', `/purchases/${returned.id}/returns`, { token: owner.token, body: { items: [{ purchase_item_id: returned.items[0].id, quantity: 2 }] } });
  expectInvalid(t, await pay(owner.token, returned.id, { amount_xaf: 1, method: 'cash' }), 'amount_xaf', 'all sent back', 'overpayment');
  expectInvalid(t, await pay(owner.token, returned.id, { amount_xaf: MAX_XAF, method: 'cash' }), 'amount_xaf', 'the largest amount', 'overpayment');
  t.equal((await written(owner.shop.id)).payments, 1, 'only the first payment');
});

t.test('amount_xaf is an integer from 1 to the maximum, method one of five, purchase_id a uuid', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 10_000 }] });
  for (const amount of [-5, '5', null, MAX_XAF + 1]) {
    expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: amount, method: 'cash' }), 'amount_xaf', JSON.stringify(amount));
  }
  expectInvalid(t, await pay(owner.token, purchase.id, { method: 'cash' }), 'amount_xaf', 'missing');
  for (const method of ['CASH', 'cheque', 'credit', '', null]) {
    expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 1, method }), 'method', JSON.stringify(method));
  }
  expectInvalid(t, await pay(owner.token, 'facture-12', { amount_xaf: 1, method: 'cash' }), 'purchase_id', 'a malformed id');
  for (const method of ['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank']) {
    t.equal((await pay(owner.token, purchase.id, { amount_xaf: 1, method })).status, 201, method);
  }
  t.equal((await read(owner.token, purchase.id)).body.data.paid_xaf, 5);
});

t.test('a cash payment leaves from the payer\'s own drawer only: another user\'s open shift and other methods are not touched', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Livraison', quantity: 1, unit_cost_xaf: 10_000 }] });
  const shift = await openShift(api, manager.token, 5_000);
  const byOwner = await pay(owner.token, purchase.id, { amount_xaf: 1_000, method: 'cash' });
  t.equal(byOwner.body.data.payments[0].shift_id, null, 'the owner has no open shift');
  const byCard = await pay(manager.token, purchase.id, { amount_xaf: 1_000, method: 'card' });
  t.equal(byCard.body.data.payments[1].shift_id, null, 'a card payment is no drawer\'s');
  t.match((await currentShift(api, manager.token)).totals, { cash_supplier_payments_xaf: 0, expected_cash_xaf: 5_000 });
  const cash = await pay(manager.token, purchase.id, { amount_xaf: 1_200, method: 'cash' });
  t.equal(cash.body.data.payments[2].shift_id, shift.id);
  const closed = await closeShift(api, manager.token, { counted_cash_xaf: 3_800 });
  t.match(closed, { expected_cash_xaf: 3_800, difference_xaf: 0 }, 'the closed shift expected the float less the supplier paid');
  const later = await pay(manager.token, purchase.id, { amount_xaf: 100, method: 'cash' });
  t.equal(later.body.data.payments[3].shift_id, null, 'after closing, no drawer');
});

t.test('each payment posts one entry of its own: 401 debited, the treasury credited', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 10_000 }] });
  const first = (await pay(owner.token, purchase.id, { amount_xaf: 2_500, method: 'carrier2_money' })).body.data.payments[0];
  t.strictSame(await journalLines(api, 'purchase_payment', first.id), [
    { shop_id: owner.shop.id, account: '401', debit_xaf: 2_500, credit_xaf: 0 },
    { shop_id: owner.shop.id, account: '585', debit_xaf: 0, credit_xaf: 2_500 },
  ]);
  t.equal((await written(owner.shop.id)).entries, 2, 'the purchase and the payment');
});

// Lists

t.test('walking next_cursor visits each purchase once, even those received at the same instant', async (t) => {
  const owner = await registerShop(api);
  const made = [];
  for (let i = 0; i < 4; i++) made.push(await receive(api, owner.token, { items: [{ name: `Colis ${i}`, quantity: 1, unit_cost_xaf: 100 }] }));
  await api.ownerSql`update purchases set created_at = '2026-03-10T09:00:00Z' where id in ${api.ownerSql(ids(made.slice(1)))}`;
  const seen: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page: any = await list(owner.token, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.ok(page.data.length <= 1);
    seen.push(...ids(page.data));
    cursor = page.meta.next_cursor;
    if (seen.length > 10) break;
  }
  t.equal(seen[0], made[0].id, 'newest first');
  t.equal(seen.length, 4);
  t.strictSame([...seen].sort(), ids(made).sort(), 'each exactly once');
});

t.test('from and to are days of the shop\'s calendar, both included', async (t) => {
  const owner = await registerShop(api);
  const [shop] = await api.ownerSql<{ timezone: string }[]>`select timezone from shops where id = ${owner.shop.id}`;
  t.equal(shop!.timezone, 'Africa/Douala', 'UTC+1');
  const late = await receive(api, owner.token, { items: [{ name: 'Livraison de nuit', quantity: 1, unit_cost_xaf: 100 }] });
  const early = await receive(api, owner.token, { items: [{ name: 'Livraison du matin', quantity: 1, unit_cost_xaf: 100 }] });
  await api.ownerSql`update purchases set created_at = '2026-03-01T23:30:00Z' where id = ${late.id}`; // 00:30 on 2 March in Douala
  await api.ownerSql`update purchases set created_at = '2026-03-01T22:59:00Z' where id = ${early.id}`; // 23:59 on 1 March
  t.strictSame(ids((await list(owner.token, '?from=2026-03-02&to=2026-03-02')).data), [late.id]);
  t.strictSame(ids((await list(owner.token, '?from=2026-03-01&to=2026-03-01')).data), [early.id]);
  t.strictSame(ids((await list(owner.token, '?from=2026-03-01')).data), [late.id, early.id]);
  t.strictSame(ids((await list(owner.token, '?to=2026-02-28')).data), []);
  t.strictSame(ids((await list(owner.token, '?from=2026-03-01&to=2026-03-01&status=unpaid')).data), [early.id], 'filters combine');
});

t.test('list bounds: limit 1 to 200, supplier_id a uuid, dates real days, status one of three', async (t) => {
  const owner = await registerShop(api);
  await receive(api, owner.token, { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 100 }] });
  t.equal((await list(owner.token, '?limit=1')).data.length, 1);
  t.equal((await list(owner.token, '?limit=200')).data.length, 1);
  t.strictSame((await list(owner.token, `?supplier_id=${crypto.randomUUID()}`)).data, [], 'an unknown supplier has no purchases');
  const bad: [string, string][] = [
    ['limit=0', 'limit'], ['limit=201', 'limit'], ['limit=abc', 'limit'], ['supplier_id=fournisseur', 'supplier_id'],
    ['from=01-03-2026', 'from'], ['to=2026-13-01', 'to'], ['status=partial', 'status'], ['cursor=bm9uc2Vuc2U', 'cursor'],
  ];
  for (const [query, key] of bad) expectInvalid(t, await api.request('GET', `/purchases?${query}`, { token: owner.token }), key, query);
});

// Access

t.test('every purchases route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 100 }] });
  const calls: [string, string, unknown?][] = [
    ['GET', '/purchases'], ['GET', `/purchases/${purchase.id}`],
    ['POST', '/purchases', { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 1 }] }],
    ['POST', `/purchases/${purchase.id}/pay`, { amount_xaf: 1, method: 'cash' }],
    ['POST', `/purchases/${purchase.id}/returns`, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] }],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.strictSame(await written(owner.shop.id), { purchases: 1, payments: 0, entries: 1, movements: 0 });
});

t.test('a manager and the owner may use every purchases route', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const flour = await createProduct(api, owner.token);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    const purchase = await receive(api, token, { items: [{ product_id: flour.id, quantity: 2, unit_cost_xaf: 100 }] });
    t.equal((await pay(token, purchase.id, { amount_xaf: 50, method: 'bank' })).status, 201, `${who} pays`);
    const back = await api.request('POST', `/purchases/${purchase.id}/returns`, { token, body: { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] } });
    t.equal(back.status, 201, `${who} returns`);
    t.equal((await read(token, purchase.id)).status, 200, `${who} reads`);
    t.equal((await list(token)).data.length > 0, true, `${who} lists`);
  }
});

t.test('once the subscription has ended, the list and the payables can still be read', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const purchase = await receive(api, owner.token, { supplier_id: supplier.id, items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 700 }] });
  await expireSubscription(api, owner.shop.id);
  t.strictSame(ids((await list(owner.token)).data), [purchase.id]);
  t.equal((await api.request('GET', '/reports/payables', { token: owner.token })).status, 200);
  expectError(t, await pay(owner.token, purchase.id, { amount_xaf: 700, method: 'cash' }), 402, SUBSCRIPTION_REQUIRED);
  t.equal((await read(owner.token, purchase.id)).body.data.paid_xaf, 0);
});

t.test('payments are never changed nor deleted, and a purchase has no other writes: 405', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 700 }] });
  await pay(owner.token, purchase.id, { amount_xaf: 100, method: 'cash' });
  const calls: [string, string][] = [
    ['PUT', `/purchases/${purchase.id}/pay`], ['DELETE', `/purchases/${purchase.id}/pay`], ['GET', `/purchases/${purchase.id}/pay`],
    ['PUT', `/purchases/${purchase.id}/returns`], ['DELETE', `/purchases/${purchase.id}/returns`],
    ['POST', `/purchases/${purchase.id}`], ['PUT', '/purchases'], ['DELETE', '/purchases'],
  ];
  for (const [method, path] of calls) {
    const reply = await api.request(method, path, { token: owner.token, body: method === 'PUT' || method === 'POST' ? { amount_xaf: 1 } : undefined });
    t.equal(reply.status, 405, `${method} ${path}`);
  }
  t.match((await read(owner.token, purchase.id)).body.data, { paid_xaf: 100, payments: [{ amount_xaf: 100 }] });
});
