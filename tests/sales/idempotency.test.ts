import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, createProduct, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { createCustomer, movements, onHand, postSale, readCustomer, receiptJobs, receiptNumbers, saleCount, saleJournal, upTo } from './sale-fixtures.ts';

const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

async function paymentRows(saleId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sale_payments where sale_id = ${saleId}`;
  return row!.n;
}

async function customerCount(shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from customers where shop_id = ${shopId}`;
  return row!.n;
}

// A client-supplied sale id

t.test('the same sale id with the same body answers 200 with the stored sale, recorded once', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const customer = await createCustomer(api, owner.token, { email: 'client@example.cm' });
  const id = randomUUID();
  const body = { id, customer_id: customer.id, items: [{ product_id: product.id, quantity: 2 }], payments: cash(2000) };
  const first = await postSale(api, owner.token, body);
  t.equal(first.status, 201, JSON.stringify(first.body));
  const again = await postSale(api, owner.token, body);
  t.equal(again.status, 200, 'a retry answers 200');
  t.strictSame(again.body, first.body, 'the same sale, as stored');
  const reordered = await postSale(api, owner.token, { payments: cash(2000), items: [{ quantity: 2, product_id: product.id }], customer_id: customer.id, id });
  t.equal(reordered.status, 200, 'the same body with its keys in another order is the same request');
  t.equal(reordered.body.data.id, id);
  t.equal(await saleCount(api, owner.shop.id), 1, 'one sale in the database');
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1], 'one receipt number');
  t.equal(await onHand(api, product.id), 8, 'the stock moved once');
  t.equal((await movements(api, product.id)).filter((m) => m.type === 'sale').length, 1, 'one sale movement');
  t.equal(await paymentRows(id), 1, 'one payment');
  t.equal(new Set((await saleJournal(api, id)).map((l) => l.entry_id)).size, 1, 'posted once (one entry, its cost included)');
  t.equal((await readCustomer(api, owner.token, customer.id)).points, 20, 'points earned once');
  t.equal((await receiptJobs(api, id)).length, 1, 'one e-mailed receipt');
});

t.test('the same sale id with another body is 409 idempotency_conflict, and changes nothing', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const id = randomUUID();
  t.equal((await postSale(api, owner.token, { id, items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) })).status, 201);
  expectConflict(t, await postSale(api, owner.token, { id, items: [{ product_id: product.id, quantity: 2 }], payments: cash(2000) }), 'idempotency_conflict', 'another quantity');
  expectConflict(t, await postSale(api, owner.token, { id, items: [{ product_id: product.id, quantity: 1 }], payments: cash(5000) }), 'idempotency_conflict', 'another payment');
  expectConflict(t, await postSale(api, owner.token, { id, note: 'x', items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) }), 'idempotency_conflict', 'a note added');
  t.equal(await saleCount(api, owner.shop.id), 1);
  t.equal(await onHand(api, product.id), 9);
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1]);
  t.equal((await postSale(api, owner.token, { id: randomUUID(), items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) })).body.data.receipt_no, 2);
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1, 2], 'a conflict took no receipt number');
});

t.test('a refused sale leaves its id free: the corrected sale under the same id is recorded (201)', async (t) => {
  const owner = await registerShop(api);
  const id = randomUUID();
  expectInvalid(t, await postSale(api, owner.token, { id, items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(200) }), 'payments', '', 'payment_insufficient');
  const corrected = await postSale(api, owner.token, { id, items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) });
  t.equal(corrected.status, 201);
  t.equal(corrected.body.data.receipt_no, 1);
});

t.test('a sale id another shop already used makes a sale of mine (201): each shop reads its own, a retry here replays mine, and theirs never changes', async (t) => {
  const theirs = await registerShop(api);
  const mine = await registerShop(api);
  const id = randomUUID();
  const theirBody = { id, items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) };
  t.equal((await postSale(api, theirs.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) })).status, 201);
  t.equal((await postSale(api, theirs.token, theirBody)).status, 201);
  const readSale = async (token: string) => (await api.request('GET', `/sales/${id}`, { token })).body;
  const theirsBefore = await readSale(theirs.token);
  const myBody = { id, items: [{ name: 'Lait', quantity: 2, unit_price_xaf: 600 }], payments: cash(1200) };
  const recorded = await postSale(api, mine.token, myBody);
  t.equal(recorded.status, 201, 'recorded in my shop');
  t.match(recorded.body.data, { id, receipt_no: 1, total_xaf: 1200 }, 'my first receipt, my basket');
  const replayed = await postSale(api, mine.token, myBody);
  t.equal(replayed.status, 200, 'the same body again replays my sale');
  t.strictSame(replayed.body, recorded.body);
  expectConflict(t, await postSale(api, mine.token, theirBody), 'idempotency_conflict', 'their body under my sale\'s id');
  t.strictSame(await readSale(mine.token), recorded.body, 'I read my sale');
  t.strictSame(await readSale(theirs.token), theirsBefore, 'they read their sale, as it was');
  t.equal(await saleCount(api, mine.shop.id), 1);
  t.strictSame(await receiptNumbers(api, theirs.shop.id), [1, 2], 'their receipts untouched');
});

t.test('two identical requests at the same moment make one sale, and both answers carry it', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 500 }, 100);
  for (const round of upTo(5)) {
    const body = { id: randomUUID(), items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) };
    const replies = await Promise.all([postSale(api, owner.token, body), postSale(api, owner.token, body)]);
    t.strictSame(replies.map((r) => r.status).sort(), [200, 201], `round ${round}: one 201 and one 200`);
    t.strictSame(replies[0]!.body, replies[1]!.body, `round ${round}: the same sale in both`);
    t.equal(replies[0]!.body.data.id, body.id);
  }
  t.equal(await saleCount(api, owner.shop.id), 5, 'five sales, not ten');
  t.strictSame(await receiptNumbers(api, owner.shop.id), upTo(5));
  t.equal(await onHand(api, product.id), 95);
});

// The Idempotency-Key header

t.test('an Idempotency-Key retried with the same body answers the stored response, marked Idempotent-Replayed', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const key = randomUUID();
  const body = { items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) };
  const first = await postSale(api, owner.token, body, { 'Idempotency-Key': key });
  t.equal(first.status, 201);
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');
  const retry = await postSale(api, owner.token, body, { 'Idempotency-Key': key });
  t.equal(retry.status, 201, 'the stored status');
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.strictSame(retry.body, first.body, 'the stored answer: the same sale id');
  t.equal(await saleCount(api, owner.shop.id), 1);
  t.equal(await onHand(api, product.id), 9);
  const without = await postSale(api, owner.token, body);
  t.equal(without.status, 201, 'without the key the same body is a new sale');
  t.not(without.body.data.id, first.body.data.id);
});

t.test('an Idempotency-Key reused with another body or on another path is 409 idempotency_conflict', async (t) => {
  const owner = await registerShop(api);
  const key = randomUUID();
  const body = { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) };
  t.equal((await postSale(api, owner.token, body, { 'Idempotency-Key': key })).status, 201);
  expectConflict(t, await postSale(api, owner.token, { ...body, note: 'autre' }, { 'Idempotency-Key': key }), 'idempotency_conflict', 'another body');
  expectConflict(t, await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa' }, headers: { 'Idempotency-Key': key } }), 'idempotency_conflict', 'another path');
  t.equal(await saleCount(api, owner.shop.id), 1);
  t.equal(await customerCount(owner.shop.id), 0);
});

t.test('an Idempotency-Key belongs to one shop, lasts 24 hours, and is not kept for a refused request', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const key = randomUUID();
  const body = { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) };
  const mine = await postSale(api, owner.token, body, { 'Idempotency-Key': key });
  const theirs = await postSale(api, other.token, body, { 'Idempotency-Key': key });
  t.equal(theirs.status, 201, 'another shop\'s key of the same name is its own');
  t.equal(theirs.headers.get('idempotent-replayed'), null);
  t.not(theirs.body.data.id, mine.body.data.id);

  await api.ownerSql`update idempotency_keys set created_at = now() - interval '25 hours' where key = ${key} and shop_id = ${owner.shop.id}`;
  const later = await postSale(api, owner.token, { ...body, note: 'le lendemain' }, { 'Idempotency-Key': key });
  t.equal(later.status, 201, 'after 24 hours the key is free again');

  const refusedKey = randomUUID();
  expectInvalid(t, await postSale(api, owner.token, { ...body, payments: cash(1) }, { 'Idempotency-Key': refusedKey }), 'payments', 'refused', 'payment_insufficient');
  const fixed = await postSale(api, owner.token, body, { 'Idempotency-Key': refusedKey });
  t.equal(fixed.status, 201, 'a refused request stored nothing under its key');
  t.equal(fixed.headers.get('idempotent-replayed'), null);
});

t.test('an Idempotency-Key is 1 to 200 characters', async (t) => {
  const owner = await registerShop(api);
  const body = { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 250 }], payments: cash(250) };
  expectInvalid(t, await postSale(api, owner.token, body, { 'Idempotency-Key': chars(201) }), 'Idempotency-Key', '201');
  t.equal((await postSale(api, owner.token, body, { 'Idempotency-Key': chars(200) })).status, 201, '200');
  t.equal(await saleCount(api, owner.shop.id), 1);
});

t.test('two requests with one Idempotency-Key at the same moment make one sale', async (t) => {
  const owner = await registerShop(api);
  for (const round of upTo(5)) {
    const key = randomUUID();
    const body = { items: [{ name: 'Pain', quantity: round, unit_price_xaf: 250 }], payments: cash(250 * round) };
    const replies = await Promise.all([postSale(api, owner.token, body, { 'Idempotency-Key': key }), postSale(api, owner.token, body, { 'Idempotency-Key': key })]);
    t.strictSame(replies.map((r) => r.status), [201, 201], `round ${round}: both answer the stored 201`);
    t.strictSame(replies[0]!.body, replies[1]!.body, `round ${round}: the same sale`);
    t.strictSame(replies.map((r) => r.headers.get('idempotent-replayed')).sort(), ['true', null].sort(), `round ${round}: one of them a replay`);
  }
  t.equal(await saleCount(api, owner.shop.id), 5);
});

t.test('the Idempotency-Key works on other POSTs: one customer for two requests', async (t) => {
  const owner = await registerShop(api);
  const key = randomUUID();
  const body = { name: 'Fatou Sow', phone: '+237690000001' };
  const first = await api.request('POST', '/customers', { token: owner.token, body, headers: { 'Idempotency-Key': key } });
  const second = await api.request('POST', '/customers', { token: owner.token, body, headers: { 'Idempotency-Key': key } });
  t.equal(first.status, 201);
  t.equal(second.status, 201);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
  t.equal(second.body.data.id, first.body.data.id);
  const together = randomUUID();
  const both = await Promise.all([0, 1].map(() => api.request('POST', '/customers', { token: owner.token, body: { name: 'Ali' }, headers: { 'Idempotency-Key': together } })));
  t.equal(both[0]!.body.data.id, both[1]!.body.data.id, 'at the same moment too');
  t.equal(await customerCount(owner.shop.id), 2);
});
