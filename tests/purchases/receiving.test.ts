import t from 'tap';
import { startService } from '../support/service.ts';
import { chars, createProduct, expireSubscription, ledgerInvariants, postVariant, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { currentShift, openShift } from '../shifts/shift-fixtures.ts';
import { batchesOf, createSupplier, netPerAccount, receive, sell, supplierBalance } from './purchase-fixtures.ts';

const api = await startService(t);

const PURCHASE_KEYS = [
  'balance_xaf', 'created_at', 'id', 'items', 'note', 'paid_xaf', 'payments', 'reference', 'returned_xaf', 'returns', 'status', 'subtotal_xaf',
  'supplier_id', 'supplier_name', 'total_xaf', 'updated_at', 'user_id', 'vat_rate', 'vat_xaf',
];
const ITEM_KEYS = ['batch_id', 'batch_number', 'expiry_date', 'id', 'line_no', 'name', 'product_id', 'quantity', 'returned_quantity', 'total_xaf', 'unit_cost_xaf', 'variant_id'];

const post = (token: string, body: unknown) => api.request('POST', '/purchases', { token, body });
const pay = (token: string, id: string, body: unknown) => api.request('POST', `/purchases/${id}/pay`, { token, body });
const giveBack = (token: string, id: string, body: unknown) => api.request('POST', `/purchases/${id}/returns`, { token, body });
const onHand = async (token: string, id: string) => (await api.request('GET', `/products/${id}`, { token })).body.data;

// Receiving goods

t.test('a purchase answers 201 with the record: lines at round(quantity x unit cost) excluding VAT, VAT on the subtotal, unpaid', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const supplier = await createSupplier(api, manager.token);
  const rice = await createProduct(api, owner.token, { cost_xaf: 100 });
  const reply = await post(manager.token, {
    supplier_id: supplier.id, reference: 'FA-2026-118', note: 'Livraison du matin', vat_rate: 19.25,
    items: [{ product_id: rice.id, quantity: 2.345, unit_cost_xaf: 1_001 }, { name: 'Transport', quantity: 1, unit_cost_xaf: 2_500 }],
  });
  t.equal(reply.status, 201);
  const purchase = reply.body.data;
  t.strictSame(Object.keys(purchase).sort(), PURCHASE_KEYS);
  t.strictSame(Object.keys(purchase.items[0]).sort(), ITEM_KEYS);
  // 2.345 x 1001 = 2347.345 -> 2347; subtotal 4847; VAT 4847 x 19.25% = 933.04 -> 933.
  t.match(purchase, {
    supplier_id: supplier.id, supplier_name: 'Grossiste du Port', reference: 'FA-2026-118', note: 'Livraison du matin', vat_rate: 19.25,
    subtotal_xaf: 4_847, vat_xaf: 933, total_xaf: 5_780, paid_xaf: 0, returned_xaf: 0, balance_xaf: 5_780, status: 'unpaid',
    user_id: manager.user.id, payments: [], returns: [],
  });
  t.match(purchase.items, [
    { line_no: 1, product_id: rice.id, name: rice.name, quantity: 2.345, unit_cost_xaf: 1_001, total_xaf: 2_347, returned_quantity: 0, batch_id: null },
    { line_no: 2, product_id: null, name: 'Transport', total_xaf: 2_500 },
  ]);
  t.ok(purchase.created_at.endsWith('Z'));
  const read = await api.request('GET', `/purchases/${purchase.id}`, { token: owner.token });
  t.strictSame(read.body.data, purchase, 'GET /purchases/{id} answers the same record');
});

t.test('vat_rate defaults to 0, and a purchase of nothing to pay is paid at once', async (t) => {
  const { owner } = await staffedShop(api);
  const soap = await createProduct(api, owner.token);
  const plain = await receive(api, owner.token, { items: [{ product_id: soap.id, quantity: 3, unit_cost_xaf: 250 }] });
  t.match(plain, { vat_rate: 0, vat_xaf: 0, subtotal_xaf: 750, total_xaf: 750, status: 'unpaid', supplier_id: null });
  const free = await receive(api, owner.token, { items: [{ product_id: soap.id, quantity: 3, unit_cost_xaf: 0 }] });
  t.match(free, { total_xaf: 0, status: 'paid', balance_xaf: 0 });
});

t.test('a purchase moves tracked stock in, refreshes the product cost to the last unit cost, and moves nothing for untracked goods', async (t) => {
  const { owner } = await staffedShop(api);
  const oil = await createProduct(api, owner.token, { cost_xaf: 900 }, 4);
  const bag = await createProduct(api, owner.token, { tracked: false, cost_xaf: 10 });
  const purchase = await receive(api, owner.token, {
    items: [
      { product_id: oil.id, quantity: 10, unit_cost_xaf: 950 },
      { product_id: oil.id, quantity: 2, unit_cost_xaf: 975 },
      { product_id: bag.id, quantity: 100, unit_cost_xaf: 15 },
    ],
  });
  t.match(await onHand(owner.token, oil.id), { on_hand: 16, cost_xaf: 975 });
  t.match(await onHand(owner.token, bag.id), { on_hand: 0, cost_xaf: 15 });
  const movements = await api.request('GET', `/products/${oil.id}/movements`, { token: owner.token });
  t.match(movements.body.data.slice(0, 2), [{ type: 'purchase', quantity: 2, on_hand_after: 16 }, { type: 'purchase', quantity: 10, on_hand_after: 14 }]);
  t.equal(movements.body.data[0].source_id, purchase.id);
  t.same((await ledgerInvariants(api, owner.shop.id)).stockMismatches, []);
});

t.test('a variant line needs only the variant: its stock moves and its product takes the cost; a product with variants needs one', async (t) => {
  const { owner } = await staffedShop(api);
  const shirt = await createProduct(api, owner.token, { cost_xaf: 1_000 });
  const medium = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'M' } })).body.data;
  const purchase = await receive(api, owner.token, { items: [{ variant_id: medium.id, quantity: 6, unit_cost_xaf: 1_200 }] });
  t.match(purchase.items[0], { product_id: shirt.id, variant_id: medium.id, name: `${shirt.name} (M)`, quantity: 6 });
  const variants = await api.request('GET', `/products/${shirt.id}/variants`, { token: owner.token });
  t.equal(variants.body.data.find((v: any) => v.id === medium.id).on_hand, 6);
  t.equal((await onHand(owner.token, shirt.id)).cost_xaf, 1_200);
  expectInvalid(t, await post(owner.token, { items: [{ product_id: shirt.id, quantity: 1, unit_cost_xaf: 1 }] }), 'items.0.variant_id', 'no variant named', 'variant_required');
});

t.test('lines and references must belong to the shop: unknown, deleted or foreign supplier, product or variant is a 422 on its key', async (t) => {
  const { owner } = await staffedShop(api);
  const other = await registerShop(api);
  const theirs = await createSupplier(api, other.token);
  const theirProduct = await createProduct(api, other.token);
  const mine = await createProduct(api, owner.token);
  const gone = await createSupplier(api, owner.token, { name: 'Ancien fournisseur' });
  t.equal((await api.request('DELETE', `/suppliers/${gone.id}`, { token: owner.token })).status, 204);
  const line = { product_id: mine.id, quantity: 1, unit_cost_xaf: 100 };
  expectInvalid(t, await post(owner.token, { supplier_id: theirs.id, items: [line] }), 'supplier_id', 'another shop\'s supplier');
  expectInvalid(t, await post(owner.token, { supplier_id: gone.id, items: [line] }), 'supplier_id', 'a deleted supplier');
  expectInvalid(t, await post(owner.token, { supplier_id: crypto.randomUUID(), items: [line] }), 'supplier_id', 'an unknown supplier');
  expectInvalid(t, await post(owner.token, { items: [line, { product_id: theirProduct.id, quantity: 1, unit_cost_xaf: 1 }] }), 'items.1.product_id');
  expectInvalid(t, await post(owner.token, { items: [{ variant_id: crypto.randomUUID(), quantity: 1, unit_cost_xaf: 1 }] }), 'items.0.variant_id');
  expectInvalid(t, await post(owner.token, { items: [{ quantity: 1, unit_cost_xaf: 1 }] }), 'items.0.name', 'a line naming nothing');
  expectInvalid(t, await post(owner.token, { items: [{ name: 'Transport', quantity: 1, unit_cost_xaf: 1, batch_number: 'L1' }] }), 'items.0.batch_number', 'a cost in a batch');
  const [count] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from purchases where shop_id = ${owner.shop.id}`;
  t.equal(count!.n, 0, 'nothing was written');
});

t.test('every bound of a purchase, inside and outside', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const line = { product_id: product.id, quantity: 1, unit_cost_xaf: 100 };
  const ok = async (body: Record<string, unknown>, what: string) => t.equal((await post(owner.token, body)).status, 201, what);
  await ok({ items: [line], reference: chars(120), note: chars(255), vat_rate: 100 }, 'reference 120, note 255, vat_rate 100');
  await ok({ items: [{ ...line, name: chars(200), batch_number: chars(80), expiry_date: '2030-02-28', quantity: 0.001 }] }, 'name 200, batch 80, quantity 0.001');
  await ok({ items: [line], vat_rate: 0, supplier_id: null, reference: null, note: null }, 'nulls');
  const bad: [Record<string, unknown>, string][] = [
    [{ items: [] }, 'items'],
    [{}, 'items'],
    [{ items: Array.from({ length: 501 }, () => line) }, 'items'],
    [{ items: [{ ...line, name: chars(201) }] }, 'items.0.name'],
    [{ items: [{ ...line, batch_number: chars(81) }] }, 'items.0.batch_number'],
    [{ items: [{ ...line, expiry_date: '2030-02-30' }] }, 'items.0.expiry_date'],
    [{ items: [{ ...line, expiry_date: 'demain' }] }, 'items.0.expiry_date'],
    [{ items: [{ ...line, unit_cost_xaf: -1 }] }, 'items.0.unit_cost_xaf'],
    [{ items: [{ ...line, unit_cost_xaf: 1.5 }] }, 'items.0.unit_cost_xaf'],
    [{ items: [{ ...line, unit_cost_xaf: '100' }] }, 'items.0.unit_cost_xaf'],
    [{ items: [{ product_id: product.id, quantity: 1 }] }, 'items.0.unit_cost_xaf'],
    [{ items: [{ ...line, quantity: 0 }] }, 'items.0.quantity'],
    [{ items: [{ ...line, quantity: -1 }] }, 'items.0.quantity'],
    [{ items: [{ ...line, quantity: 1.0001 }] }, 'items.0.quantity'],
    [{ items: [{ product_id: product.id, unit_cost_xaf: 1 }] }, 'items.0.quantity'],
    [{ items: [line], vat_rate: -0.01 }, 'vat_rate'],
    [{ items: [line], vat_rate: 100.01 }, 'vat_rate'],
    [{ items: [line], vat_rate: 19.255 }, 'vat_rate'],
    [{ items: [line], reference: chars(121) }, 'reference'],
    [{ items: [line], note: chars(256) }, 'note'],
    [{ items: [line], supplier_id: 'fournisseur' }, 'supplier_id'],
    [{ items: [{ ...line, product_id: 'riz' }] }, 'items.0.product_id'],
  ];
  for (const [body, key] of bad) expectInvalid(t, await post(owner.token, body), key, JSON.stringify(body).slice(0, 80));
});

t.test('a purchase posts one balanced entry: 601 and 4452 against 401, and the tracked goods into stock at cost (31 against 6031)', async (t) => {
  const { owner } = await staffedShop(api);
  const supplier = await createSupplier(api, owner.token);
  const flour = await createProduct(api, owner.token);
  const service = await createProduct(api, owner.token, { tracked: false });
  const purchase = await receive(api, owner.token, {
    supplier_id: supplier.id, vat_rate: 19.25,
    items: [{ product_id: flour.id, quantity: 4, unit_cost_xaf: 1_500 }, { product_id: service.id, quantity: 1, unit_cost_xaf: 700 }, { name: 'Transport', quantity: 1, unit_cost_xaf: 300 }],
  });
  // Subtotal 7000, VAT 1347.5 -> 1348, total 8348; stock value 6000.
  t.strictSame(await netPerAccount(api, 'purchase', purchase.id), { '31': 6_000, '401': -8_348, '4452': 1_348, '601': 7_000, '6031': -6_000 });
  const [entries] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from journal_entries where source_type = 'purchase' and source_id = ${purchase.id}`;
  t.equal(entries!.n, 1, 'one entry');
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('the supplier\'s balance grows by each purchase and goes down by payments and returns', async (t) => {
  const { owner } = await staffedShop(api);
  const supplier = await createSupplier(api, owner.token);
  const milk = await createProduct(api, owner.token);
  const first = await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: milk.id, quantity: 10, unit_cost_xaf: 500 }] });
  await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: milk.id, quantity: 2, unit_cost_xaf: 500 }] });
  t.equal(await supplierBalance(api, owner.token, supplier.id), 6_000);
  t.equal((await pay(owner.token, first.id, { amount_xaf: 1_500, method: 'bank' })).status, 201);
  t.equal(await supplierBalance(api, owner.token, supplier.id), 4_500);
  t.equal((await giveBack(owner.token, first.id, { items: [{ purchase_item_id: first.items[0].id, quantity: 1 }] })).status, 201);
  t.equal(await supplierBalance(api, owner.token, supplier.id), 4_000);
});

t.test('batches: a line with a batch number or an expiry date goes into that batch, and the same number and date top it up', async (t) => {
  const { owner } = await staffedShop(api);
  const syrup = await createProduct(api, owner.token);
  const first = await receive(api, owner.token, { items: [{ product_id: syrup.id, quantity: 5, unit_cost_xaf: 800, batch_number: 'LOT-A', expiry_date: '2027-03-31' }] });
  const second = await receive(api, owner.token, {
    items: [
      { product_id: syrup.id, quantity: 3, unit_cost_xaf: 820, batch_number: 'LOT-A', expiry_date: '2027-03-31' },
      { product_id: syrup.id, quantity: 2, unit_cost_xaf: 820, expiry_date: '2026-12-31' },
    ],
  });
  t.ok(first.items[0].batch_id);
  t.equal(second.items[0].batch_id, first.items[0].batch_id, 'the same batch');
  t.match(second.items[1], { batch_number: null, expiry_date: '2026-12-31' });
  t.strictSame(await batchesOf(api, syrup.id), [[null, 2], ['LOT-A', 8]]);
});

// Paying

t.test('paying in parts: unpaid, then partially_paid, then paid; beyond what remains is a 422 overpayment on amount_xaf', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, manager.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  const part = await pay(manager.token, purchase.id, { amount_xaf: 4_000, method: 'carrier1_momo', reference: 'MP-7781' });
  t.equal(part.status, 201);
  t.match(part.body.data, { status: 'partially_paid', paid_xaf: 4_000, balance_xaf: 6_000 });
  t.match(part.body.data.payments, [{ amount_xaf: 4_000, method: 'carrier1_momo', reference: 'MP-7781', user_id: manager.user.id, shift_id: null }]);
  const over = await pay(manager.token, purchase.id, { amount_xaf: 6_001, method: 'cash' });
  expectInvalid(t, over, 'amount_xaf', 'one franc too many', 'overpayment');
  t.match(over.body.errors.amount_xaf[0], /6 000 FCFA/);
  const rest = await pay(manager.token, purchase.id, { amount_xaf: 6_000, method: 'bank' });
  t.match(rest.body.data, { status: 'paid', paid_xaf: 10_000, balance_xaf: 0 });
  expectInvalid(t, await pay(manager.token, purchase.id, { amount_xaf: 1, method: 'cash' }), 'amount_xaf', 'nothing left', 'overpayment');
});

t.test('a payment posts 401 against the treasury account of its method', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  const accounts = { cash: '571', card: '521', bank: '521', carrier1_momo: '585', carrier2_money: '585' };
  for (const [method, account] of Object.entries(accounts)) {
    const reply = await pay(owner.token, purchase.id, { amount_xaf: 100, method });
    const payment = reply.body.data.payments.at(-1);
    t.strictSame(await netPerAccount(api, 'purchase_payment', payment.id), { '401': 100, [account]: -100 }, method);
  }
});

t.test('payment bounds: amount 1 or more, a known method, reference up to 120', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  t.equal((await pay(owner.token, purchase.id, { amount_xaf: 1, method: 'cash', reference: chars(120) })).status, 201);
  expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 0, method: 'cash' }), 'amount_xaf');
  expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 1.5, method: 'cash' }), 'amount_xaf');
  expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 1, method: 'credit' }), 'method');
  expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 1 }), 'method');
  expectInvalid(t, await pay(owner.token, purchase.id, { amount_xaf: 1, method: 'cash', reference: chars(121) }), 'reference');
  expectError(t, await pay(owner.token, crypto.randomUUID(), { amount_xaf: 1, method: 'cash' }), 404, NOT_FOUND);
});

t.test('cash paid to a supplier during an open shift comes out of that drawer\'s expected cash', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, manager.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  const shift = await openShift(api, manager.token, 20_000);
  const paid = await pay(manager.token, purchase.id, { amount_xaf: 7_500, method: 'cash' });
  t.equal(paid.body.data.payments[0].shift_id, shift.id);
  await pay(manager.token, purchase.id, { amount_xaf: 500, method: 'bank' });
  const live = await currentShift(api, manager.token);
  t.match(live.totals, { cash_supplier_payments_xaf: 7_500, expected_cash_xaf: 12_500 });
});

t.test('two payments of the whole remainder at once: one is recorded, the other is a 422 overpayment', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  const replies = await Promise.all([1, 2].map(() => pay(owner.token, purchase.id, { amount_xaf: 10_000, method: 'bank' })));
  t.strictSame(replies.map((reply) => reply.status).sort(), [201, 422]);
  const read = await api.request('GET', `/purchases/${purchase.id}`, { token: owner.token });
  t.match(read.body.data, { paid_xaf: 10_000, status: 'paid' });
  t.equal(read.body.data.payments.length, 1);
});

// Returns

t.test('a return takes the goods out with a purchase_return movement and reduces the invoice at the line\'s unit cost, VAT pro rata', async (t) => {
  const { owner } = await staffedShop(api);
  const supplier = await createSupplier(api, owner.token);
  const tea = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { supplier_id: supplier.id, vat_rate: 19.25, items: [{ product_id: tea.id, quantity: 3, unit_cost_xaf: 1_001 }] });
  // Subtotal 3003, VAT 578.08 -> 578, total 3581.
  const first = await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1, reason: 'Cartons abîmés' }] });
  t.equal(first.status, 201);
  t.match(first.body.data.returns, [{ subtotal_xaf: 1_001, vat_xaf: 193, total_xaf: 1_194, items: [{ purchase_item_id: purchase.items[0].id, quantity: 1, total_xaf: 1_001, reason: 'Cartons abîmés' }] }]);
  t.match(first.body.data, { returned_xaf: 1_194, balance_xaf: 2_387, status: 'unpaid' });
  t.equal(first.body.data.items[0].returned_quantity, 1);
  t.equal((await onHand(owner.token, tea.id)).on_hand, 2);
  const movements = await api.request('GET', `/products/${tea.id}/movements`, { token: owner.token });
  t.match(movements.body.data[0], { type: 'purchase_return', quantity: -1, on_hand_after: 2, reason: 'Cartons abîmés' });
  const returnId = first.body.data.returns[0].id;
  t.strictSame(await netPerAccount(api, 'purchase_return', returnId), { '31': -1_001, '401': 1_194, '4452': -193, '601': -1_001, '6031': 1_001 });
  // The rest in two returns: the last takes the exact remainder of the line and of the VAT.
  await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] });
  const last = await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] });
  t.match(last.body.data, { returned_xaf: 3_581, balance_xaf: 0, status: 'paid' });
  t.equal(last.body.data.returns.reduce((sum: number, r: any) => sum + r.vat_xaf, 0), 578, 'all of the VAT, no more');
  t.equal(await supplierBalance(api, owner.token, supplier.id), 0);
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('never more back than received less already returned: 422 return_exceeds_received on items.N.quantity', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 5, unit_cost_xaf: 100 }] });
  await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 2 }] });
  expectInvalid(t, await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 3.001 }] }), 'items.0.quantity', '', 'return_exceeds_received');
});

t.test('never more back than on hand, nor than the line\'s batch holds: 422 insufficient_stock; all or nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const juice = await createProduct(api, owner.token, { price_xaf: 10 });
  const purchase = await receive(api, owner.token, {
    items: [{ product_id: juice.id, quantity: 5, unit_cost_xaf: 100 }, { product_id: juice.id, quantity: 5, unit_cost_xaf: 100, batch_number: 'B1', expiry_date: '2026-12-01' }],
  });
  await sell(api, owner.token, { product_id: juice.id }, 7); // FEFO: all 5 of B1, then 2 unbatched; 3 left.
  const both = { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }, { purchase_item_id: purchase.items[1].id, quantity: 1 }] };
  expectInvalid(t, await giveBack(owner.token, purchase.id, both), 'items.1.quantity', 'the batch is empty', 'insufficient_stock');
  expectInvalid(t, await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 4 }] }), 'items.0.quantity', 'beyond on hand', 'insufficient_stock');
  const read = await api.request('GET', `/purchases/${purchase.id}`, { token: owner.token });
  t.match(read.body.data, { returns: [], returned_xaf: 0 });
  t.equal(read.body.data.items[0].returned_quantity, 0, 'the first line of the refused return was not kept');
  t.equal((await onHand(owner.token, juice.id)).on_hand, 3);
});

t.test('a return line must be a line of this purchase: 422 on items.N.purchase_item_id', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const one = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 5, unit_cost_xaf: 100 }] });
  const two = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 5, unit_cost_xaf: 100 }] });
  expectInvalid(t, await giveBack(owner.token, one.id, { items: [{ purchase_item_id: two.items[0].id, quantity: 1 }] }), 'items.0.purchase_item_id');
  expectInvalid(t, await giveBack(owner.token, one.id, { items: [] }), 'items');
  expectInvalid(t, await giveBack(owner.token, one.id, { items: [{ purchase_item_id: one.items[0].id, quantity: 0 }] }), 'items.0.quantity');
  expectInvalid(t, await giveBack(owner.token, one.id, { items: [{ purchase_item_id: one.items[0].id, quantity: 1, reason: chars(256) }] }), 'items.0.reason');
  expectError(t, await giveBack(owner.token, crypto.randomUUID(), { items: [{ purchase_item_id: one.items[0].id, quantity: 1 }] }), 404, NOT_FOUND);
});

t.test('a return after payment leaves the supplier owing the shop: a negative balance, the purchase still paid', async (t) => {
  const { owner } = await staffedShop(api);
  const supplier = await createSupplier(api, owner.token);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: product.id, quantity: 4, unit_cost_xaf: 1_000 }] });
  await pay(owner.token, purchase.id, { amount_xaf: 4_000, method: 'cash' });
  const back = await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] });
  t.match(back.body.data, { status: 'paid', balance_xaf: -1_000 });
  t.equal(await supplierBalance(api, owner.token, supplier.id), -1_000);
});

// Lists

t.test('GET /purchases lists newest first by pages, and filters by supplier, status and days', async (t) => {
  const { owner } = await staffedShop(api);
  const a = await createSupplier(api, owner.token, { name: 'A' });
  const b = await createSupplier(api, owner.token, { name: 'B' });
  const product = await createProduct(api, owner.token);
  const made = [];
  for (const supplier of [a, b, a]) made.push(await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 100 }] }));
  await pay(owner.token, made[0].id, { amount_xaf: 100, method: 'cash' });
  const first = await api.request('GET', '/purchases?limit=2', { token: owner.token });
  t.strictSame(first.body.data.map((p: any) => p.id), [made[2].id, made[1].id]);
  const second = await api.request('GET', `/purchases?limit=2&cursor=${first.body.meta.next_cursor}`, { token: owner.token });
  t.strictSame(second.body.data.map((p: any) => p.id), [made[0].id]);
  t.equal(second.body.meta.next_cursor, null);
  const ofA = await api.request('GET', `/purchases?supplier_id=${a.id}`, { token: owner.token });
  t.strictSame(ofA.body.data.map((p: any) => p.id), [made[2].id, made[0].id]);
  const paid = await api.request('GET', '/purchases?status=paid', { token: owner.token });
  t.strictSame(paid.body.data.map((p: any) => p.id), [made[0].id]);
  const [today] = await api.ownerSql<{ day: string }[]>`select to_char((now() at time zone timezone)::date, 'YYYY-MM-DD') as day from shops where id = ${owner.shop.id}`;
  t.equal((await api.request('GET', `/purchases?from=${today!.day}&to=${today!.day}`, { token: owner.token })).body.data.length, 3);
  t.equal((await api.request('GET', '/purchases?to=2000-01-01', { token: owner.token })).body.data.length, 0);
  expectInvalid(t, await api.request('GET', '/purchases?from=2026-02-02&to=2026-02-01', { token: owner.token }), 'to');
  expectInvalid(t, await api.request('GET', '/purchases?from=2026-02-30', { token: owner.token }), 'from');
  expectInvalid(t, await api.request('GET', '/purchases?status=settled', { token: owner.token }), 'status');
  expectInvalid(t, await api.request('GET', '/purchases?cursor=nonsense', { token: owner.token }), 'cursor');
});

// Roles and tenancy

t.test('purchases need a manager: a cashier gets 403 on every route', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 100 }] });
  const calls: [string, string, unknown?][] = [
    ['GET', '/purchases'], ['GET', `/purchases/${purchase.id}`], ['GET', '/reports/payables'],
    ['POST', '/purchases', { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 1 }] }],
    ['POST', `/purchases/${purchase.id}/pay`, { amount_xaf: 1, method: 'cash' }],
    ['POST', `/purchases/${purchase.id}/returns`, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] }],
  ];
  for (const [method, path, body] of calls) expectError(t, await api.request(method, path, { token: cashier.token, body }), 403, FORBIDDEN, `${method} ${path}`);
});

t.test('another shop\'s purchase is a 404 everywhere', async (t) => {
  const { owner } = await staffedShop(api);
  const other = await registerShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 100 }] });
  expectError(t, await api.request('GET', `/purchases/${purchase.id}`, { token: other.token }), 404, NOT_FOUND);
  expectError(t, await pay(other.token, purchase.id, { amount_xaf: 1, method: 'cash' }), 404, NOT_FOUND);
  expectError(t, await giveBack(other.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] }), 404, NOT_FOUND);
  t.equal((await api.request('GET', '/purchases', { token: other.token })).body.data.length, 0);
  expectInvalid(t, await api.request('GET', '/purchases/not-a-uuid', { token: owner.token }), 'purchase_id');
});

t.test('purchases are never changed nor deleted: no such route', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 100 }] });
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    const reply = await api.request(method, `/purchases/${purchase.id}`, { token: owner.token, body: method === 'DELETE' ? undefined : { note: 'x' } });
    t.equal(reply.status, 405, `${method}: 405`);
  }
});

t.test('once the subscription has ended purchases can be read but not written: 402', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: product.id, quantity: 2, unit_cost_xaf: 100 }] });
  await expireSubscription(api, owner.shop.id);
  expectError(t, await post(owner.token, { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 1 }] }), 402, SUBSCRIPTION_REQUIRED);
  expectError(t, await pay(owner.token, purchase.id, { amount_xaf: 1, method: 'cash' }), 402, SUBSCRIPTION_REQUIRED);
  expectError(t, await giveBack(owner.token, purchase.id, { items: [{ purchase_item_id: purchase.items[0].id, quantity: 1 }] }), 402, SUBSCRIPTION_REQUIRED);
  t.equal((await api.request('GET', `/purchases/${purchase.id}`, { token: owner.token })).status, 200);
});

t.test('an Idempotency-Key makes a purchase once however often it is sent', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token);
  const body = { items: [{ product_id: product.id, quantity: 3, unit_cost_xaf: 100 }] };
  const headers = { 'idempotency-key': `achat-${crypto.randomUUID()}` };
  const first = await api.request('POST', '/purchases', { token: owner.token, body, headers });
  const again = await api.request('POST', '/purchases', { token: owner.token, body, headers });
  t.equal(first.status, 201);
  t.strictSame(again.body, first.body);
  t.equal((await onHand(owner.token, product.id)).on_hand, 3);
});
