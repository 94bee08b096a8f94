import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, expireSubscription, ledgerInvariants, postVariant, registerShop, staffedShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectError } from '../support/replies.ts';
import { saleCount } from '../sales/sale-fixtures.ts';
import { openShift } from '../shifts/shift-fixtures.ts';
import { startService } from '../support/service.ts';
import { catchUp, emptyReplica, offlineSale, pairDevice, push, type SyncAuth } from './sync-fixtures.ts';

const api = await startService(t);
const mailbox = await startMailbox(t);

const PAYLOAD_TOO_LARGE = { message: 'Payload too large.', code: 'payload_too_large' };
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/** Pushes and answers the results (the push itself must succeed). */
async function pushed(auth: SyncAuth, body: unknown): Promise<any[]> {
  const reply = await push(api, auth, body);
  if (reply.status !== 200) throw new Error(`push failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.results;
}

async function saleRow(id: string) {
  const [row] = await api.ownerSql<{ receipt_no: number; created_at: Date; device_id: string | null; cashier_id: string | null; offline: boolean; shift_id: string | null }[]>`
    select receipt_no, created_at, device_id, cashier_id, offline, shift_id from sales where id = ${id}`;
  return row;
}

t.test('an offline sale is recorded with its own time, its device and the offline flag; a retry is a duplicate', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 1500 }, 10);
  const sale = offlineSale(randomUUID(), product.id, 2, { created_at: hoursAgo(3), user_id: cashier.user.id });
  const [first] = await pushed({ device: device.token }, { sales: [sale] });
  t.match(first, { entity: 'sales', id: sale.id, status: 'applied', receipt_no: 1 });
  const row = (await saleRow(sale.id))!;
  t.equal(row.created_at.toISOString(), sale.created_at, 'created_at kept');
  t.equal(row.device_id, device.id);
  t.equal(row.cashier_id, cashier.user.id, 'the till\'s user is the cashier');
  t.equal(row.offline, true);
  const [again] = await pushed({ device: device.token }, { sales: [sale] });
  t.match(again, { id: sale.id, status: 'duplicate', receipt_no: 1 });
  const [changed] = await pushed({ device: device.token }, { sales: [{ ...sale, note: 'retry with a note' }] });
  t.match(changed, { status: 'duplicate' }, 'the same id is the same sale, whatever the retry carries');
  const [copies] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sales where id = ${sale.id}`;
  t.equal(copies!.n, 1);
  const stock = await api.request('GET', `/products/${product.id}`, { token: owner.token });
  t.equal(stock.body.data.on_hand, 8, 'stock moved once');
});

t.test('a sale pushed by a device carries that device, whatever device_id the record names', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token, 'Caisse 1');
  const other = await pairDevice(api, owner.token, 'Caisse 2');
  const product = await createProduct(api, owner.token, {}, 10);
  const sales = [offlineSale(randomUUID(), product.id, 1, { device_id: other.id }), offlineSale(randomUUID(), product.id, 1, { device_id: randomUUID() })];
  const results = await pushed({ device: device.token }, { sales });
  t.strictSame(results.map((r) => r.status), ['applied', 'applied']);
  for (const sale of sales) t.equal((await saleRow(sale.id))!.device_id, device.id);
});

t.test('a sale pushed with a bearer token names one of the shop\'s devices or none: another shop\'s or an unknown one is rejected on device_id', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const theirs = await registerShop(api);
  const mine = await pairDevice(api, owner.token);
  const revoked = await pairDevice(api, owner.token, 'Caisse retirée');
  const their = await pairDevice(api, theirs.token);
  const product = await createProduct(api, owner.token, {}, 10);
  t.equal((await api.request('DELETE', `/devices/${revoked.id}`, { token: owner.token })).status, 204);
  const sales = [
    offlineSale(randomUUID(), product.id, 1, { device_id: their.id }),
    offlineSale(randomUUID(), product.id, 1, { device_id: randomUUID() }),
    offlineSale(randomUUID(), product.id, 1, { device_id: mine.id }),
    offlineSale(randomUUID(), product.id, 1, { device_id: revoked.id, created_at: hoursAgo(2) }),
    offlineSale(randomUUID(), product.id, 1),
  ];
  const results = await pushed({ bearer: cashier.token }, { sales });
  t.strictSame(results.map((r) => r.status), ['rejected', 'rejected', 'applied', 'applied', 'applied']);
  for (const i of [0, 1]) {
    t.equal(results[i].code, 'validation_failed', `record ${i}: validation_failed`);
    t.strictSame(Object.keys(results[i].errors), ['device_id'], `record ${i}: errors name device_id`);
  }
  t.equal((await saleRow(sales[2]!.id))!.device_id, mine.id, 'the shop\'s device is kept');
  t.equal((await saleRow(sales[3]!.id))!.device_id, revoked.id, 'a device revoked since is kept: the sale happened on it');
  t.equal((await saleRow(sales[4]!.id))!.device_id, null, 'no device');
  t.equal(await saleCount(api, owner.shop.id), 3);
  t.equal(await saleCount(api, theirs.shop.id), 0);
});

t.test('a sale first posted online and then pushed is a duplicate', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 5);
  const id = randomUUID();
  const online = await api.request('POST', '/sales', { token: owner.token, body: { id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1000 }] } });
  t.equal(online.status, 201);
  const [result] = await pushed({ bearer: owner.token }, { sales: [offlineSale(id, product.id, 1)] });
  t.match(result, { status: 'duplicate', receipt_no: online.body.data.receipt_no });
});

t.test('an offline sale is never refused for stock: on-hand goes negative and the owners and managers get a stock alert', async (t) => {
  await startMailWorker(t, api, mailbox);
  const { owner, manager } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { name: 'Lait en poudre' }, 2);
  const [result] = await pushed({ device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 5)] });
  t.equal(result.status, 'applied');
  const read = await api.request('GET', `/products/${product.id}`, { token: owner.token });
  t.equal(read.body.data.on_hand, -3);
  const { stockMismatches, unbalancedEntries } = await ledgerInvariants(api, owner.shop.id);
  t.strictSame([stockMismatches, unbalancedEntries], [[], []]);
  for (const email of [owner.email, manager.email]) {
    const mail = await mailbox.next(email);
    t.match(mail.subject, /Lait en poudre/);
    t.match(mail.text, /-3/);
  }
});

t.test('an online sale beyond stock is still refused', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 1);
  const online = await api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 2 }], payments: [{ method: 'cash', amount_xaf: 2000 }] } });
  t.equal(online.status, 422);
  t.equal(online.body.code, 'insufficient_stock');
});

t.test('an offline sale of a product or variant deleted since, or of a product given variants since, is recorded at the till\'s price without moving stock', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const withdrawn = await createProduct(api, owner.token, { name: 'Guirlande', price_xaf: 2000, vat_rate: 19.25 }, 5);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise', price_xaf: 6000 });
  const small = (await postVariant(api, owner.token, shirt.id, { options: { Taille: 'S' }, price_xaf: 5500 })).body.data;
  const plain = await createProduct(api, owner.token, { name: 'Pagne', price_xaf: 4000 });
  // The till pulled all of this, then went offline; meanwhile on the server:
  t.equal((await api.request('DELETE', `/products/${withdrawn.id}`, { token: owner.token })).status, 204);
  t.equal((await api.request('DELETE', `/variants/${small.id}`, { token: owner.token })).status, 204);
  t.equal((await postVariant(api, owner.token, plain.id, { options: { Motif: 'Wax' } })).status, 201);
  const sale = {
    id: randomUUID(),
    items: [
      { product_id: withdrawn.id, quantity: 2 },
      { product_id: shirt.id, variant_id: small.id, quantity: 1, unit_price_xaf: 5000 },
      { product_id: plain.id, quantity: 1 },
    ],
    payments: [{ method: 'cash', amount_xaf: 13_000 }],
  };
  const [result] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(result.status, 'applied');
  const read = await api.request('GET', `/sales/${sale.id}`, { token: owner.token });
  t.match(read.body.data.items, [
    { product_id: null, name: 'Guirlande', quantity: 2, unit_price_xaf: 2000, total_xaf: 4000, vat_rate: 19.25 },
    { product_id: null, name: 'Chemise (S)', quantity: 1, unit_price_xaf: 5000 },
    { product_id: null, name: 'Pagne', quantity: 1, unit_price_xaf: 4000 },
  ]);
  t.equal(read.body.data.total_xaf, 13_000);
  const [moved] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from stock_movements where source_id = ${sale.id}`;
  t.equal(moved!.n, 0, 'no stock moved for lines the catalogue no longer holds');
  const [again] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(again.status, 'duplicate');
});

t.test('an offline sale for a customer deleted since restores the customer, who owes what they bought on credit', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 3000 }, 5);
  const customer = (await api.request('POST', '/customers', { token: owner.token, body: { name: 'Jeanne' } })).body.data;
  t.equal((await api.request('DELETE', `/customers/${customer.id}`, { token: owner.token })).status, 204);
  const sale = { id: randomUUID(), customer_id: customer.id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'credit', amount_xaf: 3000 }] };
  const [result] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(result.status, 'applied');
  const read = await api.request('GET', `/customers/${customer.id}`, { token: owner.token });
  t.equal(read.status, 200, 'the customer is back');
  t.equal(read.body.data.balance_xaf, 3000);
});

t.test('points redeemed offline beyond what the customer still has are redeemed up to it, the rest given as a discount', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 10_000 }, 5);
  const rate = (await api.request('GET', '/shop', { token: owner.token })).body.data.loyalty_redeem_rate_xaf as number;
  const customer = (await api.request('POST', '/customers', { token: owner.token, body: { name: 'Fidèle' } })).body.data;
  const corrected = await api.request('POST', `/customers/${customer.id}/points`, { token: owner.token, body: { delta: 100, reason: 'Cadeau' } });
  t.equal(corrected.status, 201);
  // The till saw 150 points (another till spent 50 meanwhile) and took them off the bill.
  const paid = 10_000 - 150 * rate;
  const sale = { id: randomUUID(), customer_id: customer.id, redeem_points: 150, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: paid }] };
  const [result] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(result.status, 'applied');
  const read = (await api.request('GET', `/sales/${sale.id}`, { token: owner.token })).body.data;
  t.match(read, { total_xaf: paid, points_redeemed: 100, change_xaf: 0, credit_xaf: 0 });
  t.equal(read.items[0].discount_xaf, 50 * rate, 'the 50 missing points\' value is a discount');
  const after = (await api.request('GET', `/customers/${customer.id}`, { token: owner.token })).body.data;
  t.equal(after.points - read.points_earned, 0, 'the customer\'s points are spent, never below zero');
});

t.test('an offline sale made by a cashier removed from the shop since is recorded under that cashier', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 5);
  t.equal((await api.request('DELETE', `/users/${cashier.user.id}`, { token: owner.token })).status, 204);
  const sale = offlineSale(randomUUID(), product.id, 1, { user_id: cashier.user.id });
  const [result] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(result.status, 'applied');
  t.equal((await saleRow(sale.id))!.cashier_id, cashier.user.id);
  const [expense] = await pushed({ device: device.token }, { expenses: [{ id: randomUUID(), category: 'other', amount_xaf: 100, payment_method: 'cash', user_id: cashier.user.id }] });
  t.match(expense, { status: 'rejected', code: 'validation_failed' }, 'a removed user grants nothing else');
});

t.test('an offline sale by a cashier keeps the till\'s prices, VAT rates and discounts, and records the catalogue\'s figures beside them', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  const sale = {
    id: randomUUID(),
    items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1, vat_rate: 0 }, { product_id: product.id, quantity: 2, discount_xaf: 1000 }, { name: 'Sachet', quantity: 1, unit_price_xaf: 50 }],
    payments: [{ method: 'cash', amount_xaf: 1051 }],
  };
  const [result] = await pushed({ bearer: cashier.token }, { sales: [sale] });
  t.equal(result.status, 'applied', 'never refused offline, though a cashier may not do this online');
  const read = (await api.request('GET', `/sales/${sale.id}`, { token: owner.token })).body.data;
  t.match(read.items, [{ unit_price_xaf: 1, vat_rate: 0, total_xaf: 1 }, { unit_price_xaf: 1000, discount_xaf: 1000, total_xaf: 1000 }, { product_id: null, total_xaf: 50 }]);
  const lines = await api.ownerSql<{ catalogue_price_xaf: number | null; catalogue_vat_rate: number | null }[]>`
    select catalogue_price_xaf, catalogue_vat_rate from sale_items where sale_id = ${sale.id} order by line_no`;
  t.strictSame(lines.map((l) => [l.catalogue_price_xaf, l.catalogue_vat_rate]), [[1000, 19.25], [1000, 19.25], [null, null]], 'a free line has no catalogue');
});

t.test('an offline sale is recorded after the trial and subscription have ended', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 5);
  await expireSubscription(api, owner.shop.id);
  const [viaDevice] = await pushed({ device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 1)] });
  t.equal(viaDevice.status, 'applied');
  const [viaUser] = await pushed({ bearer: owner.token }, { sales: [offlineSale(randomUUID(), product.id, 1)] });
  t.equal(viaUser.status, 'applied');
});

t.test('an offline sale may leave a named customer beyond the credit ceiling', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 5000 }, 5);
  const customer = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa', credit_ceiling_xaf: 1000 } });
  const sale = { id: randomUUID(), customer_id: customer.body.data.id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'credit', amount_xaf: 5000 }] };
  const [result] = await pushed({ device: device.token }, { sales: [sale] });
  t.equal(result.status, 'applied');
  const read = await api.request('GET', `/customers/${customer.body.data.id}`, { token: owner.token });
  t.equal(read.body.data.balance_xaf, 5000);
});

t.test('receipt numbers follow the push order', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 100);
  const sales = Array.from({ length: 6 }, (_, i) => offlineSale(randomUUID(), product.id, 1, { created_at: hoursAgo(6 - i) }));
  const shuffled = [sales[3], sales[0], sales[5], sales[1], sales[4], sales[2]];
  const results = await pushed({ device: device.token }, { sales: shuffled });
  t.strictSame(results.map((r) => r.receipt_no), [1, 2, 3, 4, 5, 6]);
  t.strictSame(results.map((r) => r.id), shuffled.map((s) => s!.id));
});

t.test('one bad record is rejected with its errors and the others apply', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 100);
  const good1 = offlineSale(randomUUID(), product.id, 1);
  const good2 = offlineSale(randomUUID(), product.id, 2);
  const results = await pushed({ device: device.token }, {
    sales: [
      good1,
      offlineSale(randomUUID(), product.id, -1),
      { id: randomUUID(), items: [{ product_id: randomUUID(), quantity: 1 }] },
      { id: 'not-a-uuid', items: [] },
      42,
      null,
      good2,
    ],
  });
  t.strictSame(results.map((r) => r.status), ['applied', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'applied']);
  t.ok(results[1].errors['items.0.quantity'], 'the bad line is named');
  t.ok(results[2].errors['items.0.product_id'], 'an unknown product is named');
  t.equal(results[3].id, 'not-a-uuid');
  t.ok(results[3].errors.id && results[3].errors.items);
  t.equal(results[4].id, null);
  t.strictSame([results[0].receipt_no, results[6].receipt_no], [1, 2], 'no number lost to the rejected ones');
  t.equal(await saleCount(api, owner.shop.id), 2);
});

t.test('customers created offline are merged by id', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const customer = { id: randomUUID(), name: 'Mireille', phone: '+237 690 00 00 01' };
  const product = await createProduct(api, owner.token, {}, 10);
  // The customer and a sale for them in the same push: customers are applied first.
  const results = await pushed({ device: device.token }, { sales: [offlineSale(randomUUID(), product.id, 1, { customer_id: customer.id })], customers: [customer] });
  t.strictSame(results.map((r) => [r.entity, r.status]), [['customers', 'applied'], ['sales', 'applied']]);
  const read = await api.request('GET', `/customers/${customer.id}`, { token: owner.token });
  t.match(read.body.data, { id: customer.id, name: 'Mireille', phone: '+237 690 00 00 01' });
  const [again] = await pushed({ device: device.token }, { customers: [customer] });
  t.equal(again.status, 'duplicate', 'the same customer again');
});

t.test('a customer update newer than the server\'s version applies; an older one is rejected as stale with the server\'s record', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const created = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Paul', phone: '111' } });
  const pulledVersion = created.body.data.updated_at as string;
  // The till edits the version it pulled: applies.
  const [fresh] = await pushed({ device: device.token }, { customers: [{ id: created.body.data.id, name: 'Paul', phone: '222', updated_at: pulledVersion }] });
  t.equal(fresh.status, 'applied');
  // Another till edits the same old version afterwards: the server's record has changed since.
  const [stale] = await pushed({ device: device.token }, { customers: [{ id: created.body.data.id, name: 'Paul N.', updated_at: pulledVersion }] });
  t.match(stale, { status: 'rejected', code: 'stale', record: { id: created.body.data.id, name: 'Paul', phone: '222' } });
  const read = await api.request('GET', `/customers/${created.body.data.id}`, { token: owner.token });
  t.equal(read.body.data.phone, '222', 'the stale update changed nothing');
  const [noVersion] = await pushed({ device: device.token }, { customers: [{ id: created.body.data.id, name: 'Paul N.' }] });
  t.equal(noVersion.code, 'stale', 'a change to a known customer without a version is stale');
  const [reconciled] = await pushed({ device: device.token }, { customers: [{ id: created.body.data.id, name: 'Paul N.', updated_at: stale.record.updated_at }] });
  t.equal(reconciled.status, 'applied', 'after reconciling with the server\'s record');
});

t.test('a credit ceiling pushed by a till or a cashier is refused; by a manager it applies', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const [byDevice] = await pushed({ device: device.token }, { customers: [{ id: randomUUID(), name: 'A', credit_ceiling_xaf: 5000 }] });
  t.match(byDevice, { status: 'rejected', code: 'forbidden' });
  const [byCashier] = await pushed({ bearer: cashier.token }, { customers: [{ id: randomUUID(), name: 'B', credit_ceiling_xaf: 5000 }] });
  t.match(byCashier, { status: 'rejected', code: 'forbidden' });
  const [byManager] = await pushed({ bearer: manager.token }, { customers: [{ id: randomUUID(), name: 'C', credit_ceiling_xaf: 5000 }] });
  t.equal(byManager.status, 'applied');
  const [noCeiling] = await pushed({ device: device.token }, { customers: [{ id: randomUUID(), name: 'D', credit_ceiling_xaf: 0 }] });
  t.equal(noCeiling.status, 'applied');
});

t.test('a customer pushed with a card number another customer holds is rejected', async (t) => {
  const owner = await registerShop(api);
  await api.request('POST', '/customers', { token: owner.token, body: { name: 'Holder', card_no: 'CARD-1' } });
  const [result] = await pushed({ bearer: owner.token }, { customers: [{ id: randomUUID(), name: 'Other', card_no: 'CARD-1' }] });
  t.match(result, { status: 'rejected', code: 'card_taken' });
});

t.test('an id another shop uses is a record of my shop: it applies here, each shop reads its own, and nothing of theirs changes', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const theirProduct = await createProduct(api, theirs.token, { price_xaf: 1000 }, 5);
  const theirCustomer = await api.request('POST', '/customers', { token: theirs.token, body: { name: 'Theirs' } });
  const theirBasket = { items: [{ product_id: theirProduct.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1000 }] };
  t.equal((await api.request('POST', '/sales', { token: theirs.token, body: theirBasket })).status, 201);
  const theirSale = await api.request('POST', '/sales', { token: theirs.token, body: theirBasket });
  const customerId: string = theirCustomer.body.data.id;
  const saleId: string = theirSale.body.data.id;
  const read = (token: string, path: string) => api.request('GET', path, { token });
  const theirsBefore = [(await read(theirs.token, `/customers/${customerId}`)).body, (await read(theirs.token, `/sales/${saleId}`)).body];
  const myProduct = await createProduct(api, mine.token, { price_xaf: 2500 }, 5);
  const sale = offlineSale(saleId, myProduct.id, 2, { customer_id: customerId, payments: [{ method: 'credit', amount_xaf: 5000 }] });
  const results = await pushed({ bearer: mine.token }, { customers: [{ id: customerId, name: 'Mine' }], sales: [sale] });
  t.match(results, [{ entity: 'customers', id: customerId, status: 'applied' }, { entity: 'sales', id: saleId, status: 'applied', receipt_no: 1 }], 'both applied in my shop');
  t.match((await read(mine.token, `/customers/${customerId}`)).body.data, { name: 'Mine', balance_xaf: 5000 }, 'my customer owes my credit sale');
  t.match((await read(theirs.token, `/customers/${customerId}`)).body.data, { name: 'Theirs', balance_xaf: 0 });
  const mySale = (await read(mine.token, `/sales/${saleId}`)).body.data;
  t.match(mySale, { receipt_no: 1, total_xaf: 5000, customer_id: customerId, offline: true }, 'my sale: my first receipt, my basket');
  t.strictSame(mySale.items.map((item: any) => [item.product_id, item.quantity]), [[myProduct.id, 2]]);
  t.match((await read(theirs.token, `/sales/${saleId}`)).body.data, { receipt_no: 2, total_xaf: 1000, customer_id: null, offline: false });
  t.strictSame([(await read(theirs.token, `/customers/${customerId}`)).body, (await read(theirs.token, `/sales/${saleId}`)).body], theirsBefore, 'their customer and sale are exactly as they were');
  t.equal((await read(theirs.token, `/products/${theirProduct.id}`)).body.data.on_hand, 3, 'their stock moved by their two sales only');
  t.equal((await read(mine.token, `/products/${myProduct.id}`)).body.data.on_hand, 3);
  const again = await pushed({ bearer: mine.token }, { customers: [{ id: customerId, name: 'Mine' }], sales: [sale] });
  t.match(again, [{ status: 'duplicate' }, { status: 'duplicate', receipt_no: 1 }], 'a retry in my shop finds my records');
  t.equal(await saleCount(api, mine.shop.id), 1);
  t.equal(await saleCount(api, theirs.shop.id), 2);
});

t.test('expenses pushed need a manager; a retry is a duplicate', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const expense = { id: randomUUID(), category: 'transport', amount_xaf: 2500, payment_method: 'cash', description: 'Moto-taxi' };
  const [byCashier] = await pushed({ bearer: cashier.token }, { expenses: [expense] });
  t.match(byCashier, { status: 'rejected', code: 'forbidden' });
  const [anonymous] = await pushed({ device: device.token }, { expenses: [expense] });
  t.match(anonymous, { status: 'rejected', code: 'forbidden' }, 'a till naming no manager');
  const [applied] = await pushed({ device: device.token }, { expenses: [{ ...expense, user_id: manager.user.id }] });
  t.equal(applied.status, 'applied');
  const [again] = await pushed({ device: device.token }, { expenses: [{ ...expense, user_id: manager.user.id }] });
  t.equal(again.status, 'duplicate');
  const list = await api.request('GET', '/expenses', { token: owner.token });
  t.match(list.body.data, [{ id: expense.id, amount_xaf: 2500, user_id: manager.user.id }]);
  const [unknownUser] = await pushed({ device: device.token }, { expenses: [{ ...expense, id: randomUUID(), user_id: randomUUID() }] });
  t.match(unknownUser, { status: 'rejected', code: 'validation_failed' });
  t.ok(unknownUser.errors.user_id);
});

t.test('cash movements pushed go to the open shift of their user; without one they are rejected', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const movement = { id: randomUUID(), direction: 'out', amount_xaf: 20_000, reason: 'Dépôt banque', created_at: hoursAgo(1) };
  const [noShift] = await pushed({ device: device.token }, { cash_movements: [{ ...movement, user_id: cashier.user.id }] });
  t.match(noShift, { status: 'rejected', code: 'no_open_shift' });
  const shiftId = (await openShift(api, cashier.token, 10_000)).id;
  const [applied] = await pushed({ device: device.token }, { cash_movements: [{ ...movement, user_id: cashier.user.id }] });
  t.equal(applied.status, 'applied');
  const [row] = await api.ownerSql<{ shift_id: string; user_id: string; created_at: Date }[]>`select shift_id, user_id, created_at from cash_movements where id = ${movement.id}`;
  t.strictSame([row!.shift_id, row!.user_id, row!.created_at.toISOString()], [shiftId, cashier.user.id, movement.created_at]);
  const [again] = await pushed({ device: device.token }, { cash_movements: [{ ...movement, user_id: cashier.user.id }] });
  t.equal(again.status, 'duplicate');
});

t.test('offline sales of a user with an open shift land on it', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, {}, 10);
  const shiftId = (await openShift(api, cashier.token, 10_000)).id;
  const sale = offlineSale(randomUUID(), product.id, 1);
  await pushed({ bearer: cashier.token }, { sales: [sale] });
  t.equal((await saleRow(sale.id))!.shift_id, shiftId);
});

t.test('a push of 500 sales fits in 8 MiB and applies; more than 500 sales or 8 MiB is a 413', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const products = await Promise.all(Array.from({ length: 5 }, () => createProduct(api, owner.token, {}, 10_000)));
  const sale = (i: number) => ({
    ...offlineSale(randomUUID(), products[i % 5]!.id, 1 + (i % 3), { note: `Vente hors ligne numéro ${i}`, created_at: hoursAgo(5) }),
    items: products.map((p) => ({ product_id: p.id, quantity: 1 + (i % 2), discount_xaf: 0, vat_rate: 19.25 })),
  });
  const batch = Array.from({ length: 500 }, (_, i) => sale(i));
  t.ok(JSON.stringify({ sales: batch }).length < 8 * 1024 * 1024);
  const results = await pushed({ device: device.token }, { sales: batch });
  t.equal(results.length, 500);
  t.ok(results.every((r) => r.status === 'applied'), 'all applied');
  t.strictSame(results.map((r) => r.receipt_no), Array.from({ length: 500 }, (_, i) => i + 1));

  expectError(t, await push(api, { device: device.token }, { sales: [...batch, sale(500)] }), 413, PAYLOAD_TOO_LARGE, '501 sales');
  const padding = 'x'.repeat(9 * 1024 * 1024);
  const huge = await api.request('POST', '/device/sync/push', { headers: { authorization: `Device ${device.token}` }, rawBody: JSON.stringify({ sales: [], padding }) });
  expectError(t, huge, 413, PAYLOAD_TOO_LARGE, 'over 8 MiB');
  t.equal(await saleCount(api, owner.shop.id), 500, 'the refused pushes applied nothing');
});

t.test('a push body that is not the contract\'s shape is a 422; an empty one answers no result', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const bad = await push(api, { device: device.token }, { sales: 'many' });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.sales);
  t.equal((await push(api, { device: device.token }, [])).status, 422);
  t.strictSame(await pushed({ device: device.token }, {}), []);
});

t.test('after a push the device pulls what it pushed', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 10);
  const customer = { id: randomUUID(), name: 'Nouvelle cliente' };
  const sale = offlineSale(randomUUID(), product.id, 3, { customer_id: customer.id });
  await pushed({ device: device.token }, { customers: [customer], sales: [sale] });
  const replica = await waitFor(async () => {
    const r = await catchUp(api, { device: device.token }, emptyReplica(), { include_sales: 1 });
    return r.records.sales.has(sale.id) && r;
  }, 'the pushed sale in the pull');
  t.equal(replica.records.customers.get(customer.id).name, 'Nouvelle cliente');
  t.equal(replica.records.products.get(product.id).on_hand, 7);
  t.equal(replica.records.sales.get(sale.id).customer_id, customer.id);
});
