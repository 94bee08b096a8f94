import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  adjust,
  adjustTo,
  allPages,
  deleteProduct,
  expectLedgerInvariants,
  journalEntryCount,
  journalLines,
  movementCount,
  productRecord,
  productWithVariants,
  staffedShop,
} from './stock-fixtures.ts';

const api = await startService(t);

const MOVEMENT_KEYS = [
  'created_at',
  'id',
  'on_hand_after',
  'product_id',
  'quantity',
  'reason',
  'source_id',
  'source_type',
  'type',
  'user_id',
  'user_name',
  'variant_id',
];

const movements = (token: string, productId: string, query = '') => api.request('GET', `/products/${productId}/movements${query}`, { token });

/** What the database holds for the product's stock, read past row-level security. */
async function storedOnHand(productId: string): Promise<number> {
  const [row] = await api.ownerSql<{ on_hand: number }[]>`select on_hand from products where id = ${productId}`;
  return row!.on_hand;
}

// Setting the stock

t.test('an adjustment sets on-hand to the counted figure and answers the product and the movement', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 12);
  const reply = await adjust(api, manager.token, product.id, { new_quantity: 9, reason: 'Casse' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.strictSame(Object.keys(reply.body).sort(), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), ['movement', 'product']);
  t.equal(reply.body.data.product.id, product.id);
  t.equal(reply.body.data.product.on_hand, 9, 'the product answered carries the new on-hand');
  t.strictSame(Object.keys(reply.body.data.movement).sort(), MOVEMENT_KEYS);
  t.equal(await storedOnHand(product.id), 9, 'stored');
  t.equal((await productRecord(api, manager.token, product.id)).on_hand, 9, 'read back');
  t.equal((await adjust(api, owner.token, product.id, { new_quantity: 20 })).status, 200, 'the owner adjusts too');
  t.equal(await storedOnHand(product.id), 20);
});

t.test('the movement is an adjustment of the signed difference, with the resulting on-hand, the reason and who made it', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 10);
  const loss = await adjust(api, manager.token, product.id, { new_quantity: 7.5, reason: 'Périmé' });
  t.match(loss.body.data.movement, {
    product_id: product.id,
    variant_id: null,
    type: 'adjustment',
    quantity: -2.5,
    on_hand_after: 7.5,
    reason: 'Périmé',
    user_id: manager.user.id,
    user_name: manager.user.name,
  });
  t.ok(Number.isFinite(Date.parse(loss.body.data.movement.created_at)), 'dated');
  const gain = await adjust(api, owner.token, product.id, { new_quantity: 11.125, reason: null });
  t.match(gain.body.data.movement, { type: 'adjustment', quantity: 3.625, on_hand_after: 11.125, reason: null, user_id: owner.user.id, user_name: owner.user.name });
  const toZero = await adjust(api, owner.token, product.id, { new_quantity: 0 });
  t.match(toZero.body.data.movement, { quantity: -11.125, on_hand_after: 0, reason: null });
  t.equal(toZero.body.data.product.on_hand, 0);
});

t.test('new_quantity is required and at least 0', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: -0.001 }), 'new_quantity', '-0.001');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: -1 }), 'new_quantity', '-1');
  expectInvalid(t, await adjust(api, owner.token, product.id, {}), 'new_quantity', 'missing');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: null }), 'new_quantity', 'null');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: '3' }), 'new_quantity', 'a string');
  t.equal(await storedOnHand(product.id), 5, 'nothing refused was applied');
  const zero = await adjust(api, owner.token, product.id, { new_quantity: 0 });
  t.equal(zero.status, 200, '0 is accepted');
  t.equal(await storedOnHand(product.id), 0);
});

t.test('new_quantity has at most 3 decimals', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { unit: 'kg' }, 5);
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 1.0005 }), 'new_quantity', '1.0005');
  t.equal(await storedOnHand(product.id), 5);
  const reply = await adjust(api, owner.token, product.id, { new_quantity: 2.125 });
  t.equal(reply.status, 200, '2.125 is accepted');
  t.equal(reply.body.data.product.on_hand, 2.125);
  t.equal(reply.body.data.movement.quantity, -2.875);
  t.equal(await storedOnHand(product.id), 2.125);
});

t.test('reason is at most 160 characters, or null', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 6, reason: chars(161) }), 'reason', '161 characters');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 6, reason: 42 }), 'reason', 'a number');
  t.equal(await storedOnHand(product.id), 5);
  const longest = await adjust(api, owner.token, product.id, { new_quantity: 6, reason: chars(160) });
  t.equal(longest.status, 200, '160 characters');
  t.equal(longest.body.data.movement.reason, chars(160));
  const none = await adjust(api, owner.token, product.id, { new_quantity: 7, reason: null });
  t.equal(none.status, 200, 'null');
  t.equal(none.body.data.movement.reason, null);
  const omitted = await adjust(api, owner.token, product.id, { new_quantity: 8 });
  t.equal(omitted.status, 200, 'omitted');
  t.equal(omitted.body.data.movement.reason, null);
});

t.test('a count equal to the stock writes no movement and posts nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { cost_xaf: 500 }, 4.5);
  const movementsBefore = await movementCount(api, owner.shop.id);
  const entriesBefore = await journalEntryCount(api, owner.shop.id);
  const reply = await adjust(api, owner.token, product.id, { new_quantity: 4.5, reason: 'Recompté' });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.movement, null, 'movement null');
  t.equal(reply.body.data.product.on_hand, 4.5);
  t.equal(await movementCount(api, owner.shop.id), movementsBefore, 'no movement written');
  t.equal(await journalEntryCount(api, owner.shop.id), entriesBefore, 'no journal entry');
});

// Which stock

t.test('an untracked product cannot be adjusted (422 product_not_tracked on product_id)', async (t) => {
  const { owner } = await staffedShop(api);
  const service = await createProduct(api, owner.token, { tracked: false, name: 'Recharge téléphone' });
  expectInvalid(t, await adjust(api, owner.token, service.id, { new_quantity: 3 }), 'product_id', '', 'product_not_tracked');
  t.equal(await storedOnHand(service.id), 0);
  t.equal(await movementCount(api, owner.shop.id), 0, 'no movement written');
});

t.test('a product with variants needs variant_id (422 variant_required)', async (t) => {
  const { owner } = await staffedShop(api);
  const { product } = await productWithVariants(api, owner.token, { M: 2, L: 3 });
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9 }), 'variant_id', 'omitted', 'variant_required');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9, variant_id: null }), 'variant_id', 'null', 'variant_required');
  t.equal(await storedOnHand(product.id), 5, 'unchanged');
});

t.test('adjusting a variant changes its on-hand and the product\'s, which is the sum of its variants', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { M: 2, L: 3 });
  t.equal(product.on_hand, 5, 'opening: 2 + 3');
  const reply = await adjust(api, manager.token, product.id, { new_quantity: 6.5, variant_id: variants.M.id, reason: 'Réception' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data.movement, { product_id: product.id, variant_id: variants.M.id, type: 'adjustment', quantity: 4.5, on_hand_after: 6.5 });
  t.equal(reply.body.data.product.on_hand, 9.5, 'the product answered is the sum 6.5 + 3');
  const read = await productRecord(api, manager.token, product.id);
  t.equal(read.on_hand, 9.5);
  const byId = Object.fromEntries(read.variants.map((v: any) => [v.id, v.on_hand]));
  t.strictSame(byId, { [variants.M.id]: 6.5, [variants.L.id]: 3 }, 'only the variant counted moved');
  const down = await adjust(api, manager.token, product.id, { new_quantity: 0, variant_id: variants.L.id });
  t.match(down.body.data.movement, { variant_id: variants.L.id, quantity: -3, on_hand_after: 0 });
  t.equal(down.body.data.product.on_hand, 6.5);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a variant that is not one of the product\'s is 422 on variant_id', async (t) => {
  const { owner } = await staffedShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { M: 1 });
  const other = await productWithVariants(api, owner.token, { S: 4 });
  const plain = await createProduct(api, owner.token, {}, 2);
  const theirs = await registerShop(api);
  const foreign = await productWithVariants(api, theirs.token, { XL: 7 });
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9, variant_id: other.variants.S.id }), 'variant_id', 'another product\'s variant');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9, variant_id: foreign.variants.XL.id }), 'variant_id', 'another shop\'s variant');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9, variant_id: randomUUID() }), 'variant_id', 'an unknown variant');
  expectInvalid(t, await adjust(api, owner.token, plain.id, { new_quantity: 9, variant_id: variants.M.id }), 'variant_id', 'a product without variants');
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 9, variant_id: 'not-a-uuid' }), 'variant_id', 'malformed');
  t.equal(await storedOnHand(product.id), 1);
  t.equal(await storedOnHand(other.product.id), 4);
  t.equal(await storedOnHand(plain.id), 2);
  t.equal(await storedOnHand(foreign.product.id), 7, 'the other shop\'s stock is untouched');
});

// The journal

t.test('a loss is posted at last cost: debit 6031, credit 31, rounded half away from zero', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { cost_xaf: 3333, unit: 'kg' }, 10);
  const reply = await adjust(api, owner.token, product.id, { new_quantity: 7.5, reason: 'Avarie' });
  t.equal(reply.body.data.movement.quantity, -2.5);
  // 2.5 x 3333 = 8332.5: half away from zero gives 8333 (half-even or Math.round on the negative would give 8332).
  t.strictSame(await journalLines(api, 'stock_adjustment', reply.body.data.movement.id), [
    { account: '6031', debit_xaf: 8333, credit_xaf: 0 },
    { account: '31', debit_xaf: 0, credit_xaf: 8333 },
  ]);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a gain is posted at last cost: debit 31, credit 6031', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { cost_xaf: 3333, unit: 'kg' }, 7.5);
  const reply = await adjust(api, owner.token, product.id, { new_quantity: 10 });
  t.equal(reply.body.data.movement.quantity, 2.5);
  t.strictSame(await journalLines(api, 'stock_adjustment', reply.body.data.movement.id), [
    { account: '31', debit_xaf: 8333, credit_xaf: 0 },
    { account: '6031', debit_xaf: 0, credit_xaf: 8333 },
  ]);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a change worth nothing at last cost posts nothing to the journal', async (t) => {
  const { owner } = await staffedShop(api);
  const free = await createProduct(api, owner.token, { cost_xaf: 0 });
  const entriesBefore = await journalEntryCount(api, owner.shop.id);
  const reply = await adjust(api, owner.token, free.id, { new_quantity: 25 });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.movement.quantity, 25, 'the movement is still written');
  t.strictSame(await journalLines(api, 'stock_adjustment', reply.body.data.movement.id), [], 'cost 0: no entry');
  const cheap = await createProduct(api, owner.token, { cost_xaf: 400, unit: 'g' });
  const tiny = await adjust(api, owner.token, cheap.id, { new_quantity: 0.001 });
  t.strictSame(await journalLines(api, 'stock_adjustment', tiny.body.data.movement.id), [], '0.001 x 400 = 0.4 rounds to 0: no entry');
  t.equal(await journalEntryCount(api, owner.shop.id), entriesBefore);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('every adjustment leaves on-hand equal to the sum of movements and every journal entry balanced', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { cost_xaf: 777, unit: 'l' });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: 0, L: 0 }, { cost_xaf: 1999 });
  for (const [quantity, variant] of [[3.333, null], [1.001, 'M'], [0.5, null], [12, 'L'], [7.777, 'M'], [0, 'L'], [0.25, null]] as const) {
    if (variant) await adjustTo(api, manager.token, shirt.id, quantity, variants[variant].id);
    else await adjustTo(api, manager.token, product.id, quantity);
    await expectLedgerInvariants(t, api, owner.shop.id, `after ${quantity}${variant ? ` on ${variant}` : ''}`);
  }
  const [row] = await api.ownerSql<{ stock: number; valued: number }[]>`
    select (select coalesce(sum(l.debit_xaf - l.credit_xaf), 0)::bigint from journal_lines l where l.shop_id = ${owner.shop.id} and l.account = '31') as stock,
           (select coalesce(sum(round(m.quantity * p.cost_xaf)), 0)::bigint from stock_movements m join products p on p.id = m.product_id
             where m.shop_id = ${owner.shop.id}) as valued`;
  t.equal(row!.stock, row!.valued, 'account 31 moved by the value of each movement at last cost');
});

t.test('concurrent adjustments of one product are applied one after the other', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { cost_xaf: 250 }, 10);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: 4, L: 6 }, { cost_xaf: 900 });
  const counts = [3, 7.5, 12, 0.25, 9];
  const replies = await Promise.all([
    ...counts.map((quantity, index) => adjust(api, index % 2 ? manager.token : owner.token, product.id, { new_quantity: quantity })),
    ...counts.map((quantity, index) => adjust(api, owner.token, shirt.id, { new_quantity: quantity, variant_id: index % 2 ? variants.M.id : variants.L.id })),
  ]);
  t.strictSame(replies.map((reply) => reply.status), replies.map(() => 200), 'every adjustment answers 200');
  t.ok(counts.includes(await storedOnHand(product.id)), 'on-hand is one of the counts, never a mix of them');
  const ledger = (await movements(owner.token, product.id, '?limit=200')).body.data.slice().reverse();
  let running = 0;
  for (const movement of ledger) {
    running = Math.round((running + movement.quantity) * 1000) / 1000;
    t.equal(movement.on_hand_after, running, 'each movement starts from the on-hand the previous one left');
  }
  t.equal(await storedOnHand(shirt.id), (await productRecord(api, owner.token, shirt.id)).variants.reduce((sum: number, v: any) => sum + v.on_hand, 0), 'the product is the sum of its variants');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('an adjustment within the accepted bounds never answers 500', async (t) => {
  const { owner } = await staffedShop(api);
  // cost_xaf and new_quantity at their maxima (10^9 each): a value of 10^18 XAF, which a bigint holds.
  const product = await createProduct(api, owner.token, { cost_xaf: 1_000_000_000 });
  const reply = await adjust(api, owner.token, product.id, { new_quantity: 1_000_000_000 });
  t.equal(reply.status, 200, `answered ${reply.status} ${JSON.stringify(reply.body)}`);
  expectInvalid(t, await adjust(api, owner.token, product.id, { new_quantity: 1_000_000_000.001 }), 'new_quantity', 'just above the quantity bound');
  expectInvalid(t, await api.request('POST', '/products', { token: owner.token, body: { name: 'Trop cher', price_xaf: 1, cost_xaf: 1_000_000_001 } }), 'cost_xaf', 'just above the unit cost bound');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

// Who may adjust, and which product

t.test('a cashier may not adjust stock (403)', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  expectError(t, await adjust(api, cashier.token, product.id, { new_quantity: 1 }), 403, FORBIDDEN);
  expectError(t, await adjust(api, cashier.token, product.id, { new_quantity: -1 }), 403, FORBIDDEN, 'even with an invalid body');
  t.equal(await storedOnHand(product.id), 5);
});

t.test('without a token an adjustment is 401', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  expectError(t, await api.request('POST', `/products/${product.id}/adjust`, { body: { new_quantity: 1 } }), 401, UNAUTHENTICATED);
  t.equal(await storedOnHand(product.id), 5);
});

t.test('another shop\'s product is 404 and keeps its stock', async (t) => {
  const { manager } = await staffedShop(api);
  const theirs = await registerShop(api);
  const product = await createProduct(api, theirs.token, {}, 5);
  expectError(t, await adjust(api, manager.token, product.id, { new_quantity: 1 }), 404, NOT_FOUND);
  t.equal(await storedOnHand(product.id), 5);
  t.equal(await movementCount(api, theirs.shop.id), 1, 'only the opening movement');
});

t.test('an unknown or deleted product is 404, a malformed id 422 on product_id', async (t) => {
  const { owner } = await staffedShop(api);
  expectError(t, await adjust(api, owner.token, randomUUID(), { new_quantity: 1 }), 404, NOT_FOUND, 'unknown');
  const gone = await createProduct(api, owner.token, {}, 3);
  await deleteProduct(api, owner.token, gone.id);
  expectError(t, await adjust(api, owner.token, gone.id, { new_quantity: 1 }), 404, NOT_FOUND, 'deleted');
  t.equal(await storedOnHand(gone.id), 3);
  expectInvalid(t, await adjust(api, owner.token, 'not-a-uuid', { new_quantity: 1 }), 'product_id', 'malformed');
});

t.test('once the subscription has ended an adjustment is 402, and the ledger still reads', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await adjust(api, token, product.id, { new_quantity: 1 }), 402, SUBSCRIPTION_REQUIRED, who);
    t.equal((await movements(token, product.id)).status, 200, `${who} reads the ledger`);
  }
  t.equal(await storedOnHand(product.id), 5);
  t.equal(await movementCount(api, owner.shop.id), 1);
});

// The ledger

t.test('the ledger lists the product\'s movements newest first', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 1);
  const other = await createProduct(api, owner.token, {}, 9);
  for (const quantity of [4, 2.5, 8]) await adjustTo(api, manager.token, product.id, quantity);
  const reply = await movements(manager.token, product.id);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.strictSame(reply.body.data.map((m: any) => m.on_hand_after), [8, 2.5, 4, 1], 'newest first');
  t.strictSame(reply.body.data.map((m: any) => m.quantity), [5.5, -1.5, 3, 1], 'signed deltas');
  t.ok(reply.body.data.every((m: any) => m.product_id === product.id), 'only this product\'s');
  for (const movement of reply.body.data) t.strictSame(Object.keys(movement).sort(), MOVEMENT_KEYS);
  t.match(reply.body.data[0], { type: 'adjustment', source_type: 'adjustment', user_id: manager.user.id, user_name: manager.user.name });
  t.match(reply.body.data[3], { reason: 'Opening stock', user_id: owner.user.id });
  const times = reply.body.data.map((m: any) => Date.parse(m.created_at));
  t.strictSame(times, [...times].sort((a, b) => b - a), 'created_at never increases down the list');
  t.equal((await movements(manager.token, other.id)).body.data.length, 1, 'the other product has its own ledger');
});

t.test('the ledger pages with limit=1 visit every movement once, in order', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 1);
  for (const quantity of [2, 3, 4, 5]) await adjustTo(api, owner.token, product.id, quantity);
  const full = (await movements(owner.token, product.id)).body.data.map((m: any) => m.id);
  t.equal(full.length, 5);
  const pages = await allPages(api, owner.token, `/products/${product.id}/movements`, 1);
  t.equal(pages.length, 5, 'five pages');
  t.ok(pages.every((page) => page.body.data.length === 1), 'one movement per page');
  t.strictSame(pages.flatMap((page) => page.body.data.map((m: any) => m.id)), full, 'each once, newest first');
  t.equal(pages[4]!.body.meta.next_cursor, null, 'the last page says so');
  expectInvalid(t, await movements(owner.token, product.id, '?limit=0'), 'limit', 'limit 0');
  expectInvalid(t, await movements(owner.token, product.id, '?limit=201'), 'limit', 'limit 201');
  t.equal((await movements(owner.token, product.id, '?limit=200')).status, 200, 'limit 200');
  expectInvalid(t, await movements(owner.token, product.id, '?cursor=garbage'), 'cursor', 'a tampered cursor');
});

t.test('the ledger filters by variant_id', async (t) => {
  const { owner } = await staffedShop(api);
  const { product, variants } = await productWithVariants(api, owner.token, { M: 2, L: 3 });
  await adjustTo(api, owner.token, product.id, 5, variants.M.id);
  const onlyM = await movements(owner.token, product.id, `?variant_id=${variants.M.id}`);
  t.equal(onlyM.status, 200);
  t.strictSame(onlyM.body.data.map((m: any) => [m.variant_id, m.on_hand_after]), [[variants.M.id, 5], [variants.M.id, 2]]);
  const onlyL = await movements(owner.token, product.id, `?variant_id=${variants.L.id}`);
  t.strictSame(onlyL.body.data.map((m: any) => [m.variant_id, m.on_hand_after]), [[variants.L.id, 3]]);
  t.equal((await movements(owner.token, product.id)).body.data.length, 3, 'without the filter, all of them');
  expectInvalid(t, await movements(owner.token, product.id, '?variant_id=nope'), 'variant_id', 'malformed');
});

t.test('a cashier may not read the ledger (403)', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 2);
  expectError(t, await movements(cashier.token, product.id), 403, FORBIDDEN);
});

t.test('another shop\'s product has no ledger here (404)', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const product = await createProduct(api, theirs.token, {}, 2);
  expectError(t, await movements(owner.token, product.id), 404, NOT_FOUND, 'another shop');
  expectError(t, await movements(owner.token, randomUUID()), 404, NOT_FOUND, 'unknown');
});
