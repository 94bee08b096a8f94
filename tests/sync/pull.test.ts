import t from 'tap';
import { createCategory, createProduct, postVariant, registerShop, staffedShop, waitFor } from '../support/fixtures.ts';
import { expectError, expectInvalid, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { productWithVariants } from '../sales/sale-fixtures.ts';
import { catchUp, emptyReplica, ENTITIES, offlineSale, pairDevice, pull, push, type SyncAuth } from './sync-fixtures.ts';

const api = await startService(t);

const DEVICE_UNAUTHENTICATED = { message: "Identifiants de l'appareil manquants.", code: 'device_unauthenticated' };

/** Pulls with the till's cursor until `found` holds: another test file's open transaction may hold the horizon back a moment. */
async function pullUntil(auth: SyncAuth, since: string | undefined, found: (body: any) => boolean, query: Record<string, string | number> = {}) {
  let cursor = since;
  const seen: any[] = [];
  return waitFor(async () => {
    const reply = await pull(api, auth, { ...query, ...(cursor ? { since: cursor } : {}) });
    if (reply.status !== 200) throw new Error(`pull failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    seen.push(reply.body);
    cursor = reply.body.cursor;
    return found(reply.body) && { body: reply.body, seen };
  }, 'the pull to serve the change');
}

t.test('device sync without device credentials is a 401 with the French message', async (t) => {
  const { owner } = await staffedShop(api);
  expectError(t, await api.request('GET', '/device/sync/pull'), 401, DEVICE_UNAUTHENTICATED, 'no header');
  expectError(t, await api.request('GET', '/device/sync/pull', { token: owner.token }), 401, DEVICE_UNAUTHENTICATED, 'a user\'s bearer token');
  expectError(t, await pull(api, { device: 'not-a-device-token' }), 401, DEVICE_UNAUTHENTICATED, 'an unknown token');
  expectError(t, await api.request('POST', '/device/sync/push', { body: {} }), 401, DEVICE_UNAUTHENTICATED, 'push without credentials');
  expectError(t, await api.request('GET', '/sync/pull'), 401, UNAUTHENTICATED, '/sync/pull takes a bearer token');
});

t.test('a revoked device\'s token stops working at once', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  t.equal((await pull(api, { device: device.token })).status, 200);
  t.equal((await api.request('DELETE', `/devices/${device.id}`, { token: owner.token })).status, 204);
  expectError(t, await pull(api, { device: device.token }), 401, DEVICE_UNAUTHENTICATED);
});

t.test('pull answers every entity, and sales only when include_sales is truthy', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, {}, 10);
  const sold = await push(api, { device: device.token }, { sales: [offlineSale(crypto.randomUUID(), product.id, 1)] });
  t.equal(sold.body.data.results[0].status, 'applied');

  const plain = await pullUntil({ device: device.token }, undefined, (body) => body.data.products.length === 1);
  t.strictSame(Object.keys(plain.body.data).sort(), [...ENTITIES].sort(), 'every entity is present');
  t.strictSame(Object.keys(plain.body.has_more).sort(), [...ENTITIES].sort());
  t.strictSame(plain.body.data.sales, [], 'no sales without include_sales');
  t.equal(plain.body.has_more.sales, false);
  // The tiers are older than the product: a horizon held back by another test's transaction may have
  // let them through in an earlier pull than the product's.
  t.ok(plain.seen.some((body) => body.data.loyalty_tiers.length > 0), 'the shop\'s default tiers');
  t.match(plain.body.data.products[0], { id: product.id, on_hand: 9, deleted_at: null });

  // The product may have come by its creation, before the sale's transaction was below the horizon
  // (another test's open transaction holds it back): wait for the sale once.
  await pullUntil({ device: device.token }, undefined, (body) => body.data.sales.length === 1, { include_sales: 1 });
  for (const value of ['1', 'true', 'yes', 'TRUE']) {
    const withSales = await pull(api, { device: device.token }, { include_sales: value });
    t.equal(withSales.body.data.sales.length, 1, `include_sales=${value}`);
    t.match(withSales.body.data.sales[0], { id: sold.body.data.results[0].id, offline: true, items: [{ product_id: product.id, quantity: 1 }], deleted_at: null });
  }
  for (const value of ['0', 'false', 'no', '']) {
    t.strictSame((await pull(api, { device: device.token }, { include_sales: value })).body.data.sales, [], `include_sales=${value}`);
  }
  const byUser = await pull(api, { bearer: cashier.token }, { include_sales: 1 });
  t.equal(byUser.status, 200, '/sync/pull with a cashier\'s token');
  t.equal(byUser.body.data.sales.length, 1);
});

t.test('limit defaults to 200 and is clamped to 1..1000 per entity', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  await api.ownerSql`
    insert into categories (shop_id, name) select ${owner.shop.id}, 'Rayon ' || n from generate_series(1, 1005) n`;
  const full = await pullUntil({ device: device.token }, undefined, (body) => body.data.categories.length === 200);
  t.equal(full.body.has_more.categories, true, 'default 200');
  t.equal((await pull(api, { device: device.token }, { limit: 0 })).body.data.categories.length, 1, 'limit 0 clamps to 1');
  t.equal((await pull(api, { device: device.token }, { limit: -5 })).body.data.categories.length, 1, 'negative clamps to 1');
  t.equal((await pull(api, { device: device.token }, { limit: 7 })).body.data.categories.length, 7);
  const most = await pull(api, { device: device.token }, { limit: 5000 });
  t.equal(most.body.data.categories.length, 1000, 'limit 5000 clamps to 1000');
  t.equal(most.body.has_more.categories, true);
  expectInvalid(t, await pull(api, { device: device.token }, { limit: 'lots' }), 'limit');
});

t.test('pages follow the cursor without repeating or skipping a record', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const made = new Set<string>();
  for (let i = 0; i < 7; i++) made.add((await createCategory(api, owner.token)).id);
  await waitFor(async () => (await catchUp(api, { device: device.token }, emptyReplica())).records.categories.size === 7, 'all 7 categories');
  const replica = emptyReplica();
  const received: string[] = [];
  let cursor: string | undefined;
  do {
    const reply = await pull(api, { device: device.token }, { limit: 2, ...(cursor ? { since: cursor } : {}) });
    received.push(...reply.body.data.categories.map((c: { id: string }) => c.id));
    t.ok(reply.body.data.categories.length <= 2);
    cursor = reply.body.cursor;
    replica.pages++;
    if (!reply.body.has_more.categories) break;
  } while (replica.pages < 20);
  t.equal(replica.pages, 4, '7 records in pages of 2');
  t.strictSame(new Set(received), made);
  t.equal(received.length, 7, 'no record twice');
  const after = await pull(api, { device: device.token }, { since: cursor! });
  t.strictSame(after.body.data.categories, [], 'nothing new');
});

t.test('a sale\'s stock change reaches the next pull, product and variant, without restamping their catalogue rows', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const plain = await createProduct(api, owner.token, { price_xaf: 500 }, 10);
  const { product: sized, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 700, on_hand: 4 } });
  const first = await pullUntil({ device: device.token }, undefined, (body) => body.data.variants.some((v: any) => v.id === variants.M.id));
  const stamps = async () =>
    (await api.ownerSql<{ id: string; txid: string }[]>`select id, txid::text from products where id in (${plain.id}, ${sized.id}) union all select id, txid::text from variants where id = ${variants.M.id} order by 1`);
  const before = await stamps();

  const sale = await api.request('POST', '/sales', { token: cashier.token, body: {
    items: [{ product_id: plain.id, quantity: 3 }, { product_id: sized.id, variant_id: variants.M.id, quantity: 1 }],
    payments: [{ method: 'cash', amount_xaf: 2200 }],
  } });
  t.equal(sale.status, 201);
  t.same(await stamps(), before, 'the catalogue rows keep their sync stamps');

  const next = await pullUntil({ device: device.token }, first.body.cursor, (body) =>
    body.data.products.some((p: any) => p.id === plain.id) && body.data.products.some((p: any) => p.id === sized.id) &&
    body.data.variants.some((v: any) => v.id === variants.M.id));
  t.match(next.body.data.products.find((p: any) => p.id === plain.id), { on_hand: 7 });
  t.match(next.body.data.products.find((p: any) => p.id === sized.id), { on_hand: 3 });
  t.match(next.body.data.variants.find((v: any) => v.id === variants.M.id), { on_hand: 3 });
  t.equal(next.body.data.products.filter((p: any) => p.id === plain.id).length, 1, 'served once');
});

t.test('a record changed both in the catalogue and in stock in one transaction is served once', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 500 }, 10);
  const first = await pullUntil({ device: device.token }, undefined, (body) => body.data.products.some((p: any) => p.id === product.id));
  await api.ownerSql.begin(async (tx) => {
    await tx`update products set price_xaf = 650 where id = ${product.id}`;
    await tx`update products set on_hand = on_hand - 1 where id = ${product.id}`;
  });
  const next = await pullUntil({ device: device.token }, first.body.cursor, (body) => body.data.products.some((p: any) => p.id === product.id));
  t.equal(next.body.data.products.filter((p: any) => p.id === product.id).length, 1);
  t.match(next.body.data.products[0], { id: product.id, price_xaf: 650, on_hand: 9 });
});

t.test('a first sync serves each product once, at its latest change, though it was created, stocked and sold in three transactions', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const products: any[] = [];
  for (let i = 0; i < 3; i++) products.push(await createProduct(api, owner.token, { price_xaf: 500 }, 10));
  const sold = await api.request('POST', '/sales', { token: cashier.token, body: {
    items: [{ product_id: products[0].id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 500 }] } });
  t.equal(sold.status, 201);
  // Pages of one record, from nothing, until the sale's stock change has been served.
  const served: string[] = [];
  await pullUntil({ device: device.token }, undefined, (body) => {
    served.push(...body.data.products.map((p: any) => p.id));
    return body.data.products.some((p: any) => p.id === products[0].id && p.on_hand === 9) && !body.has_more.products;
  }, { limit: 1 });
  t.same([...served].sort(), products.map((p) => p.id).sort(), 'each product once');
});

t.test('a change to a record sends it again; a deletion comes back once with deleted_at', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { name: 'Savon' });
  const first = await pullUntil({ device: device.token }, undefined, (body) => body.data.products.length === 1);
  const renamed = await api.request('PUT', `/products/${product.id}`, { token: owner.token, body: { name: 'Savon de Marseille' } });
  t.equal(renamed.status, 200);
  const update = await pullUntil({ device: device.token }, first.body.cursor, (body) => body.data.products.length === 1);
  t.match(update.body.data.products[0], { id: product.id, name: 'Savon de Marseille', deleted_at: null });

  t.equal((await api.request('DELETE', `/products/${product.id}`, { token: owner.token })).status, 204);
  const deletion = await pullUntil({ device: device.token }, update.body.cursor, (body) => body.data.products.length === 1);
  t.equal(deletion.body.data.products[0].id, product.id);
  t.type(deletion.body.data.products[0].deleted_at, 'string');
  const next = await pull(api, { device: device.token }, { since: deletion.body.cursor });
  t.strictSame(next.body.data.products, [], 'the deletion comes once');
});

t.test('adding or deleting a variant sends its product again, with has_variants', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { name: 'Chemise' });
  const first = await pullUntil({ device: device.token }, undefined, (body) => body.data.products.length === 1);
  t.equal(first.body.data.products[0].has_variants, false);
  const variant = await postVariant(api, owner.token, product.id, { options: { Taille: 'M' } });
  t.equal(variant.status, 201);
  const added = await pullUntil({ device: device.token }, first.body.cursor, (body) => body.data.variants.length === 1 && body.data.products.length === 1);
  t.match(added.body.data.products[0], { id: product.id, has_variants: true });
  t.equal((await api.request('DELETE', `/variants/${variant.body.data.id}`, { token: owner.token })).status, 204);
  const removed = await pullUntil({ device: device.token }, added.body.cursor, (body) => body.data.products.length === 1);
  t.match(removed.body.data.products[0], { id: product.id, has_variants: false });
  t.type(removed.body.data.variants[0]?.deleted_at, 'string', 'the variant comes back deleted');
});

t.test('a new device receives no deletion older than its first pull', async (t) => {
  const owner = await registerShop(api);
  const gone = await createProduct(api, owner.token, { name: 'Retiré' });
  const kept = await createProduct(api, owner.token, { name: 'Gardé' });
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: owner.token })).status, 204);
  // "Older than the first pull" is measured by the sync horizon: while any transaction of the cluster
  // that began before the deletion is still open, the deletion is not behind it yet (and is rightly
  // sent, since a deletion must never be lost). Wait until it is.
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ passed: boolean }[]>`select txid < pg_snapshot_xmin(pg_current_snapshot()) as passed from products where id = ${gone.id}`;
    return row!.passed;
  }, 'the sync horizon to pass the deletion');
  const device = await pairDevice(api, owner.token);
  const first = await pullUntil({ device: device.token }, undefined, (body) => body.data.products.length >= 1);
  t.strictSame(first.body.data.products.map((p: { id: string }) => p.id), [kept.id]);
});

t.test('a transaction that commits after a pull still reaches the next pull', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const replica = await catchUp(api, { device: device.token }, emptyReplica());

  // A write transaction starts and stays open...
  const held = await api.ownerSql.reserve();
  try {
    await held`begin`;
    const [late] = await held<{ id: string }[]>`insert into categories (shop_id, name) values (${owner.shop.id}, 'Validée tard') returning id`;
    // ...while another, started later, commits first.
    const early = await createCategory(api, owner.token, { name: 'Validée tôt' });
    const during = await pull(api, { device: device.token }, { since: replica.cursor! });
    t.equal(during.status, 200);
    const duringIds = during.body.data.categories.map((c: { id: string }) => c.id);
    t.notOk(duringIds.includes(late!.id), 'the open transaction\'s row is not visible yet');
    await held`commit`;

    const after = await pullUntil({ device: device.token }, during.body.cursor, (body) =>
      body.data.categories.some((c: { id: string }) => c.id === late!.id));
    const all = [...duringIds, ...after.seen.flatMap((body) => body.data.categories.map((c: { id: string }) => c.id))];
    t.equal(all.filter((id) => id === late!.id).length, 1, 'the late row arrives, once');
    t.equal(all.filter((id) => id === early.id).length, 1, 'the early row arrives, once');
  } finally {
    held.release();
  }
});

t.test('since takes the previous cursor or an ISO-8601 time; anything else is a 422 on since', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const old = await createCategory(api, owner.token, { name: 'Ancien' });
  await api.ownerSql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`; // past the trigger that stamps updated_at
    await tx`update categories set updated_at = now() - interval '2 days' where id = ${old.id}`;
  });
  const fresh = await createCategory(api, owner.token, { name: 'Récent' });
  const since = new Date(Date.now() - 60 * 60 * 1000).toISOString();
  const recent = await pullUntil({ device: device.token }, since, (body) => body.data.categories.length >= 1);
  t.strictSame(recent.body.data.categories.map((c: { id: string }) => c.id), [fresh.id], 'only what changed after the time');
  expectInvalid(t, await pull(api, { device: device.token }, { since: 'not-a-cursor' }), 'since');
  expectInvalid(t, await pull(api, { device: device.token }, { since: Buffer.from('[1,null,[]]').toString('base64url') }), 'since');
});

t.test('a device sees its own shop only', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const device = await pairDevice(api, mine.token);
  const own = await createProduct(api, mine.token);
  const other = await createProduct(api, theirs.token);
  const replica = await waitFor(async () => {
    const r = await catchUp(api, { device: device.token }, emptyReplica());
    return r.records.products.has(own.id) && r;
  }, 'the shop\'s product');
  t.notOk(replica.records.products.has(other.id));
  t.equal(replica.records.products.size, 1);
});

t.test('sync stamps the device\'s last seen and last sync', async (t) => {
  const owner = await registerShop(api);
  const device = await pairDevice(api, owner.token);
  const before = (await api.request('GET', '/devices', { token: owner.token })).body.data[0];
  t.equal(before.last_sync_at, null);
  await pull(api, { device: device.token });
  const after = (await api.request('GET', '/devices', { token: owner.token })).body.data[0];
  t.type(after.last_seen_at, 'string');
  t.type(after.last_sync_at, 'string');
});

t.test('a cursor written before quotes were served (eight positions) still pulls, and starts quotes from the beginning', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { name: 'Ciment 50 kg', price_xaf: 5_500 });
  const quote = await api.request('POST', '/quotes', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 10 }] } });
  t.equal(quote.status, 201);
  const { body } = await pullUntil({ bearer: owner.token }, undefined, (page) => page.data.quotes.some((q: { id: string }) => q.id === quote.body.data.id));
  const [version, since, slots] = JSON.parse(Buffer.from(body.cursor, 'base64url').toString('utf8'));
  t.equal(slots.length, ENTITIES.length, 'today\'s cursor has a position per entity');
  const older = Buffer.from(JSON.stringify([version, since, slots.slice(0, 8)])).toString('base64url');
  const reply = await pull(api, { bearer: owner.token }, { since: older });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data.quotes.map((q: { id: string }) => q.id), [quote.body.data.id], 'the quote again, from the beginning');
  t.strictSame(reply.body.data.products, [], 'the other entities go on from where the cursor stood');
  expectInvalid(t, await pull(api, { bearer: owner.token }, { since: Buffer.from(JSON.stringify([version, since, slots.slice(0, 7)])).toString('base64url') }), 'since', 'seven positions');
});
