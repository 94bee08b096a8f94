import t from 'tap';
import { startService } from '../support/service.ts';
import { chars, createProduct, ledgerInvariants, postVariant, registerShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { batchesOf, createSupplier, netPerAccount, receive, sell, supplierBalance } from './purchase-fixtures.ts';

const api = await startService(t);

const RETURN_KEYS = ['created_at', 'id', 'items', 'subtotal_xaf', 'total_xaf', 'user_id', 'vat_xaf'];
const RETURN_ITEM_KEYS = ['id', 'purchase_item_id', 'quantity', 'reason', 'total_xaf'];

type ReturnLine = { purchase_item_id: string; quantity: number; reason?: string | null };
const giveBack = (token: string, id: string, items: unknown) => api.request('POST', `/purchases/${id}/returns`, { token, body: { items } });
const read = async (token: string, id: string) => (await api.request('GET', `/purchases/${id}`, { token })).body.data;
const onHand = async (token: string, id: string) => (await api.request('GET', `/products/${id}`, { token })).body.data.on_hand;
const pay = async (token: string, id: string, amount: number) => {
  const reply = await api.request('POST', `/purchases/${id}/pay`, { token, body: { amount_xaf: amount, method: 'bank' } });
  if (reply.status !== 201) throw new Error(`pay failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** POST /purchases/{id}/returns; throws unless 201. Answers the purchase. */
async function sendBack(token: string, id: string, items: ReturnLine[]): Promise<any> {
  const reply = await giveBack(token, id, items);
  if (reply.status !== 201) throw new Error(`return failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Half away from zero, as the service rounds money. */
const round = (value: number) => Math.sign(value) * Math.round(Math.abs(value));

/** What returns wrote for a shop, straight from the database. */
async function returnsWritten(shopId: string) {
  const [row] = await api.ownerSql<{ returns: number; lines: number; entries: number; movements: number }[]>`
    select (select count(*)::int from purchase_returns where shop_id = ${shopId}) as returns,
           (select count(*)::int from purchase_return_items where shop_id = ${shopId}) as lines,
           (select count(*)::int from journal_entries where shop_id = ${shopId} and source_type = 'purchase_return') as entries,
           (select count(*)::int from stock_movements where shop_id = ${shopId} and type = 'purchase_return') as movements`;
  return { ...row! };
}

t.test('a return answers the purchase with the return in it: its lines, figures, who and when', async (t) => {
  const owner = await registerShop(api);
  const milk = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: milk.id, quantity: 12, unit_cost_xaf: 450 }] });
  const reply = await giveBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 2, reason: null }]);
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const [back] = reply.body.data.returns;
  t.strictSame(Object.keys(back).sort(), RETURN_KEYS);
  t.strictSame(Object.keys(back.items[0]).sort(), RETURN_ITEM_KEYS);
  t.match(back, { subtotal_xaf: 900, vat_xaf: 0, total_xaf: 900, user_id: owner.user.id, items: [{ quantity: 2, total_xaf: 900, reason: null }] });
  t.ok(back.created_at.endsWith('Z'));
});

t.test('a return lists its lines in the order they were sent', async (t) => {
  const owner = await registerShop(api);
  const purchase = await receive(api, owner.token, { items: Array.from({ length: 8 }, (_, i) => ({ name: `Carton ${i + 1}`, quantity: 10, unit_cost_xaf: 100 })) });
  const sent = purchase.items.map((item: any, i: number) => ({ purchase_item_id: item.id, quantity: i + 1 }));
  const after = await sendBack(owner.token, purchase.id, sent);
  t.strictSame(after.returns[0].items.map((item: any) => item.quantity), [1, 2, 3, 4, 5, 6, 7, 8], 'the order sent');
});

t.test('a line named twice in one return counts twice: together no more than received', async (t) => {
  const owner = await registerShop(api);
  const sugar = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: sugar.id, quantity: 5, unit_cost_xaf: 3 }] });
  const line = purchase.items[0].id;
  expectInvalid(t, await giveBack(owner.token, purchase.id, [{ purchase_item_id: line, quantity: 3 }, { purchase_item_id: line, quantity: 2.001 }]), 'items.1.quantity', '', 'return_exceeds_received');
  t.equal((await read(owner.token, purchase.id)).items[0].returned_quantity, 0, 'nothing kept');
  // 2.5 x 3 = 7.5 -> 8, then the rest of the line's 15: 7.
  const after = await sendBack(owner.token, purchase.id, [{ purchase_item_id: line, quantity: 2.5 }, { purchase_item_id: line, quantity: 2.5 }]);
  t.strictSame(after.returns[0].items.map((item: any) => item.total_xaf).sort(), [7, 8]);
  t.match(after, { returned_xaf: 15, balance_xaf: 0, status: 'paid' });
  t.match(after.items[0], { returned_quantity: 5 });
  t.equal(await onHand(owner.token, sugar.id), 0);
});

t.test('a line returned in pieces never gives back more than it cost, and its last piece takes exactly what is left', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const beef = await createProduct(api, owner.token);
  // 2.001 kg at 1001 a kg = 2003.001 -> 2003; each half kilo is 500.5 -> 501.
  const purchase = await receive(api, owner.token, {
    supplier_id: supplier.id, items: [{ product_id: beef.id, quantity: 2.001, unit_cost_xaf: 1_001 }, { name: 'Transport', quantity: 1, unit_cost_xaf: 1_000 }],
  });
  const line = purchase.items[0];
  t.equal(line.total_xaf, 2_003);
  const backForLine = (purchase: any) =>
    purchase.returns.flatMap((back: any) => back.items).filter((item: any) => item.purchase_item_id === line.id).reduce((sum: number, item: any) => sum + item.total_xaf, 0);
  let last: any = null;
  for (const quantity of [0.5, 0.5, 0.5, 0.5, 0.001]) {
    const reply = await giveBack(owner.token, purchase.id, [{ purchase_item_id: line.id, quantity }]);
    t.equal(reply.status, 201, `return ${quantity} kg`);
    if (reply.status !== 201) break;
    last = reply.body.data;
    t.ok(backForLine(last) <= line.total_xaf, `after ${quantity} kg: no more back than the line cost (${backForLine(last)})`);
  }
  t.equal(backForLine(last), 2_003, 'the whole line, to the franc');
  t.equal(await supplierBalance(api, owner.token, supplier.id), 1_000, 'the supplier is owed the transport only');
});

t.test('returned in pieces over several lines, the VAT given back stays the purchase\'s share and ends at its vat_xaf exactly', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const tea = await createProduct(api, owner.token);
  const rice = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, {
    supplier_id: supplier.id, vat_rate: 19.25,
    items: [
      { product_id: tea.id, quantity: 3, unit_cost_xaf: 1_001 },
      { product_id: rice.id, quantity: 2.5, unit_cost_xaf: 799 },
      { name: 'Transport', quantity: 1, unit_cost_xaf: 1_500 },
    ],
  });
  // 3003 + 1997.5 -> 1998 + 1500 = 6501; VAT 6501 x 19.25% = 1251.44 -> 1251; total 7752.
  t.match(purchase, { subtotal_xaf: 6_501, vat_xaf: 1_251, total_xaf: 7_752 });
  const [teaLine, riceLine, transport] = purchase.items.map((item: any) => item.id);
  const pieces: ReturnLine[][] = [
    [{ purchase_item_id: teaLine, quantity: 1 }],
    [{ purchase_item_id: teaLine, quantity: 1 }, { purchase_item_id: riceLine, quantity: 0.5 }],
    [{ purchase_item_id: transport, quantity: 1 }],
    [{ purchase_item_id: riceLine, quantity: 2 }, { purchase_item_id: teaLine, quantity: 1 }],
  ];
  let after: any = purchase;
  let subtotal = 0;
  let vat = 0;
  for (const [i, items] of pieces.entries()) {
    after = await sendBack(owner.token, purchase.id, items);
    const back = after.returns[i];
    subtotal += back.subtotal_xaf;
    vat += back.vat_xaf;
    t.equal(back.subtotal_xaf, back.items.reduce((sum: number, item: any) => sum + item.total_xaf, 0), `return ${i + 1}: its subtotal is its lines`);
    t.equal(back.total_xaf, back.subtotal_xaf + back.vat_xaf, `return ${i + 1}: total = subtotal + VAT`);
    t.equal(vat, round((1_251 * subtotal) / 6_501), `return ${i + 1}: the VAT back so far is the subtotal's share of 1251`);
    t.equal(after.returned_xaf, subtotal + vat, `return ${i + 1}: returned_xaf`);
  }
  t.equal(subtotal, 6_501, 'every line back, to the franc');
  t.equal(vat, 1_251, 'all of the VAT, no more');
  t.match(after, { returned_xaf: 7_752, paid_xaf: 0, balance_xaf: 0, status: 'paid' });
  t.equal(await supplierBalance(api, owner.token, supplier.id), 0);
  const [entries] = await api.ownerSql<{ net4452: number; net401: number; net601: number }[]>`
    select coalesce(sum(l.debit_xaf - l.credit_xaf) filter (where l.account = '4452'), 0)::int as net4452,
           coalesce(sum(l.debit_xaf - l.credit_xaf) filter (where l.account = '401'), 0)::int as net401,
           coalesce(sum(l.debit_xaf - l.credit_xaf) filter (where l.account = '601'), 0)::int as net601
      from journal_entries e join journal_lines l on l.entry_id = e.id
     where e.shop_id = ${owner.shop.id} and e.source_type in ('purchase', 'purchase_return')`;
  t.strictSame({ ...entries }, { net4452: 0, net401: 0, net601: 0 }, 'the journal is back where it started');
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('returning what is not stock (a cost line, an untracked product) reduces the invoice and moves no stock', async (t) => {
  const owner = await registerShop(api);
  const bags = await createProduct(api, owner.token, { tracked: false });
  const purchase = await receive(api, owner.token, {
    vat_rate: 10, items: [{ product_id: bags.id, quantity: 100, unit_cost_xaf: 15 }, { name: 'Transport', quantity: 1, unit_cost_xaf: 500 }],
  });
  const after = await sendBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 40 }, { purchase_item_id: purchase.items[1].id, quantity: 1 }]);
  // 40 x 15 + 500 = 1100 of 2000; VAT 200 x 1100 / 2000 = 110.
  t.match(after.returns[0], { subtotal_xaf: 1_100, vat_xaf: 110, total_xaf: 1_210 });
  t.match(after, { returned_xaf: 1_210, balance_xaf: 990, status: 'unpaid' });
  t.equal((await returnsWritten(owner.shop.id)).movements, 0, 'no movement');
  t.strictSame(await netPerAccount(api, 'purchase_return', after.returns[0].id), { '401': 1_210, '4452': -110, '601': -1_100 }, 'no 31 nor 6031');
});

t.test('a variant\'s line goes back out of the variant\'s stock, and out of its batch', async (t) => {
  const owner = await registerShop(api);
  const shoe = await createProduct(api, owner.token);
  const size40 = (await postVariant(api, owner.token, shoe.id, { options: { Pointure: '40' } })).body.data;
  const size41 = (await postVariant(api, owner.token, shoe.id, { options: { Pointure: '41' } })).body.data;
  const purchase = await receive(api, owner.token, {
    items: [{ variant_id: size40.id, quantity: 6, unit_cost_xaf: 7_000, batch_number: 'CH-40' }, { variant_id: size41.id, quantity: 4, unit_cost_xaf: 7_000 }],
  });
  await sendBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 2 }]);
  const variants = (await api.request('GET', `/products/${shoe.id}/variants`, { token: owner.token })).body.data;
  t.strictSame(Object.fromEntries(variants.map((v: any) => [v.id, v.on_hand])), { [size40.id]: 4, [size41.id]: 4 });
  t.strictSame(await batchesOf(api, shoe.id), [['CH-40', 4]]);
  t.equal(await onHand(owner.token, shoe.id), 8, 'the product is the sum of its variants');
  expectInvalid(t, await giveBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[1].id, quantity: 4.001 }]), 'items.0.quantity', 'beyond received', 'return_exceeds_received');
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('a refused return writes nothing, whichever line fails and however', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const juice = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, {
    supplier_id: supplier.id, vat_rate: 19.25, items: [{ product_id: juice.id, quantity: 5, unit_cost_xaf: 400 }, { product_id: juice.id, quantity: 5, unit_cost_xaf: 400 }],
  });
  const [one, two] = purchase.items.map((item: any) => item.id);
  const other = await receive(api, owner.token, { items: [{ product_id: juice.id, quantity: 1, unit_cost_xaf: 400 }] });
  const refusals: [unknown, string, string][] = [
    [[{ purchase_item_id: one, quantity: 2 }, { purchase_item_id: two, quantity: 6 }], 'items.1.quantity', 'return_exceeds_received'],
    [[{ purchase_item_id: one, quantity: 2 }, { purchase_item_id: other.items[0].id, quantity: 1 }], 'items.1.purchase_item_id', 'validation_failed'],
    [[{ purchase_item_id: one, quantity: 2 }, { purchase_item_id: crypto.randomUUID(), quantity: 1 }], 'items.1.purchase_item_id', 'validation_failed'],
  ];
  for (const [items, key, code] of refusals) expectInvalid(t, await giveBack(owner.token, purchase.id, items), key, key, code);
  t.strictSame(await returnsWritten(owner.shop.id), { returns: 0, lines: 0, entries: 0, movements: 0 });
  t.match(await read(owner.token, purchase.id), { returned_xaf: 0, balance_xaf: purchase.total_xaf, items: [{ returned_quantity: 0 }, { returned_quantity: 0 }] });
  t.equal(await onHand(owner.token, juice.id), 11);
  t.equal(await supplierBalance(api, owner.token, supplier.id), purchase.total_xaf, "the supplier's balance untouched");
});

t.test('a line of another shop\'s purchase is a 422 on items.N.purchase_item_id', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const mine = await receive(api, owner.token, { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 100 }] });
  const theirs = await receive(api, other.token, { items: [{ name: 'Colis', quantity: 1, unit_cost_xaf: 100 }] });
  expectInvalid(t, await giveBack(owner.token, mine.id, [{ purchase_item_id: theirs.items[0].id, quantity: 1 }]), 'items.0.purchase_item_id');
  t.equal((await read(other.token, theirs.id)).items[0].returned_quantity, 0, 'theirs untouched');
});

t.test('return bounds: 1 to 500 lines, a uuid line, a quantity over 0 with at most 3 decimals, a reason up to 255', async (t) => {
  const owner = await registerShop(api);
  const flour = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: flour.id, quantity: 10, unit_cost_xaf: 1_000 }] });
  const line = purchase.items[0].id;
  const many = await sendBack(owner.token, purchase.id, Array.from({ length: 500 }, () => ({ purchase_item_id: line, quantity: 0.001 })));
  t.equal(many.returns[0].items.length, 500, '500 lines');
  t.equal(many.items[0].returned_quantity, 0.5);
  const reason = await sendBack(owner.token, purchase.id, [{ purchase_item_id: line, quantity: 0.5, reason: chars(255) }]);
  t.equal(reason.returns[1].items[0].reason, chars(255), 'a reason of 255');
  const before = await returnsWritten(owner.shop.id);
  const bad: [unknown, string][] = [
    [{}, 'items'],
    [{ items: [] }, 'items'],
    [{ items: Array.from({ length: 501 }, () => ({ purchase_item_id: line, quantity: 0.001 })) }, 'items'],
    [{ items: [{ quantity: 1 }] }, 'items.0.purchase_item_id'],
    [{ items: [{ purchase_item_id: 'ligne-1', quantity: 1 }] }, 'items.0.purchase_item_id'],
    [{ items: [{ purchase_item_id: line }] }, 'items.0.quantity'],
    [{ items: [{ purchase_item_id: line, quantity: -1 }] }, 'items.0.quantity'],
    [{ items: [{ purchase_item_id: line, quantity: 0.0001 }] }, 'items.0.quantity'],
    [{ items: [{ purchase_item_id: line, quantity: '1' }] }, 'items.0.quantity'],
  ];
  for (const [body, key] of bad) {
    expectInvalid(t, await api.request('POST', `/purchases/${purchase.id}/returns`, { token: owner.token, body }), key, JSON.stringify(body).slice(0, 80));
  }
  expectInvalid(t, await giveBack(owner.token, 'achat-1', [{ purchase_item_id: line, quantity: 1 }]), 'purchase_id', 'a malformed purchase id');
  t.strictSame(await returnsWritten(owner.shop.id), before, 'nothing written');
});

t.test('the status follows returns: what returns take off can settle a purchase partly paid', async (t) => {
  const owner = await registerShop(api);
  const soap = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { items: [{ product_id: soap.id, quantity: 10, unit_cost_xaf: 100 }] });
  const line = purchase.items[0].id;
  t.match(await sendBack(owner.token, purchase.id, [{ purchase_item_id: line, quantity: 1 }]), { status: 'unpaid', balance_xaf: 900 }, 'an unpaid purchase partly returned stays unpaid');
  t.match(await pay(owner.token, purchase.id, 500), { status: 'partially_paid', balance_xaf: 400 });
  const over = await api.request('POST', `/purchases/${purchase.id}/pay`, { token: owner.token, body: { amount_xaf: 401, method: 'cash' } });
  expectInvalid(t, over, 'amount_xaf', 'the return is not owed', 'overpayment');
  t.match(await sendBack(owner.token, purchase.id, [{ purchase_item_id: line, quantity: 4 }]), { status: 'paid', paid_xaf: 500, returned_xaf: 500, balance_xaf: 0 });
});

t.test('sending everything back after a part payment leaves the supplier owing the shop what was paid', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const cement = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: cement.id, quantity: 20, unit_cost_xaf: 4_500 }] });
  await pay(owner.token, purchase.id, 30_000);
  const after = await sendBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 20 }]);
  t.match(after, { status: 'paid', paid_xaf: 30_000, returned_xaf: 90_000, balance_xaf: -30_000 });
  t.equal(await supplierBalance(api, owner.token, supplier.id), -30_000);
  expectInvalid(t, await api.request('POST', `/purchases/${purchase.id}/pay`, { token: owner.token, body: { amount_xaf: 1, method: 'cash' } }), 'amount_xaf', '', 'overpayment');
});

t.test('two returns of the whole remainder at once: one is recorded, the other is a 422 return_exceeds_received', async (t) => {
  const owner = await registerShop(api);
  const supplier = await createSupplier(api, owner.token);
  const oil = await createProduct(api, owner.token);
  const purchase = await receive(api, owner.token, { supplier_id: supplier.id, items: [{ product_id: oil.id, quantity: 4, unit_cost_xaf: 1_000 }] });
  const replies = await Promise.all([1, 2].map(() => giveBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 4 }])));
  t.strictSame(replies.map((reply) => reply.status).sort(), [201, 422]);
  t.equal(replies.find((reply) => reply.status === 422)!.body.code, 'return_exceeds_received');
  t.match(await read(owner.token, purchase.id), { returned_xaf: 4_000, returns: [{ total_xaf: 4_000 }] });
  t.equal(await onHand(owner.token, oil.id), 0);
  t.equal(await supplierBalance(api, owner.token, supplier.id), 0);
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});

t.test('goods sold since they came in cannot go back: the return waits for stock, then takes only what is there', async (t) => {
  const owner = await registerShop(api);
  const beer = await createProduct(api, owner.token, { price_xaf: 700 });
  const purchase = await receive(api, owner.token, { items: [{ product_id: beer.id, quantity: 24, unit_cost_xaf: 450 }] });
  await sell(api, owner.token, { product_id: beer.id }, 20);
  const refused = await giveBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 5 }]);
  expectInvalid(t, refused, 'items.0.quantity', 'four left', 'insufficient_stock');
  t.match(refused.body.errors['items.0.quantity'][0], /4/);
  t.match(await sendBack(owner.token, purchase.id, [{ purchase_item_id: purchase.items[0].id, quantity: 4 }]), { returned_xaf: 1_800, items: [{ returned_quantity: 4 }] });
  t.equal(await onHand(owner.token, beer.id), 0);
});

t.test('a return takes the line\'s goods from its own batch, not the soonest; an unbatched line from unbatched stock', async (t) => {
  const { token } = await registerShop(api);
  const product = await createProduct(api, token, { price_xaf: 100 });
  const purchase = await receive(api, token, {
    items: [
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'LATE', expiry_date: '2028-01-01' },
      { product_id: product.id, quantity: 4, unit_cost_xaf: 50, batch_number: 'SOON', expiry_date: '2027-01-01' },
      { product_id: product.id, quantity: 2, unit_cost_xaf: 50 },
    ],
  });
  const line = (index: number, quantity: number): ReturnLine[] => [{ purchase_item_id: purchase.items[index].id, quantity }];
  t.equal((await giveBack(token, purchase.id, line(0, 1))).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 4], ['LATE', 3]], 'from LATE, its own batch');
  t.equal((await giveBack(token, purchase.id, line(2, 2))).status, 201);
  t.strictSame(await batchesOf(api, product.id), [['SOON', 4], ['LATE', 3]], 'the unbatched units');
  await sell(api, token, { product_id: product.id }, 4);
  expectInvalid(t, await giveBack(token, purchase.id, line(1, 1)), 'items.0.quantity', 'SOON was sold', 'insufficient_stock');
});
