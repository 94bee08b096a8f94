import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, UNAUTHENTICATED } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import { productWithVariants, sell, setShop, staffedShop } from '../sales/sale-fixtures.ts';
import { pairDevice, push, type SyncAuth } from '../sync/sync-fixtures.ts';

const api = await startService(t);

const LINE_KEYS = [
  'cashier_id', 'cashier_name', 'catalogue_gross_xaf', 'catalogue_price_xaf', 'catalogue_vat_rate', 'charged_xaf', 'device_id', 'device_name',
  'discount_xaf', 'line_no', 'name', 'offline', 'overrides', 'product_id', 'quantity', 'receipt_no', 'recorded_at', 'sale_id', 'sale_item_id',
  'sale_status', 'sold_at', 'unit_price_xaf', 'variant_id', 'vat_rate',
].sort();

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
/** A day in the shop's calendar (Africa/Douala by default): today, or `daysAgo` before. */
const today = (daysAgo = 0) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Douala' }).format(new Date(Date.now() - daysAgo * 86_400_000));

function report(token: string, query: Record<string, string | number>): Promise<Reply> {
  return api.request('GET', `/reports/price-overrides?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, { token });
}

/** The report of yesterday and today (a sale an hour old may be yesterday's), one page of 200, which must answer 200. */
async function recent(token: string): Promise<any[]> {
  const reply = await report(token, { from: today(1), to: today(), limit: 200 });
  if (reply.status !== 200) throw new Error(`report failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function pushSales(auth: SyncAuth, sales: unknown[]): Promise<any[]> {
  const reply = await push(api, auth, { sales });
  if (reply.status !== 200) throw new Error(`push failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.results;
}

t.test('each line charged at another price or VAT rate than the catalogue\'s, or discounted, is listed against the catalogue with its cashier, device and time', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token, 'Caisse 1');
  const soap = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1000, vat_rate: 19.25 }, 50);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 5 } }, { name: 'Chemise', price_xaf: 2000, vat_rate: 5 });
  const byManager = await sell(api, manager.token, {
    device_id: device.id,
    items: [
      { product_id: soap.id, quantity: 1, unit_price_xaf: 800 },
      { product_id: soap.id, quantity: 1 },
      { name: 'Sachet', quantity: 1, unit_price_xaf: 1, vat_rate: 0, discount_xaf: 1 },
      { product_id: shirt.id, variant_id: variants.M.id, quantity: 1, vat_rate: 0 },
    ],
    payments: cash(10_000),
  });
  const byCashier = await sell(api, cashier.token, { items: [{ product_id: soap.id, quantity: 2, discount_xaf: 150 }], payments: cash(2000) });
  const lines = await recent(manager.token);
  t.strictSame(Object.keys(lines[0]).sort(), LINE_KEYS);
  t.strictSame(lines.map((l) => [l.receipt_no, l.line_no]), [[2, 1], [1, 1], [1, 4]], 'newest sale first, its lines in order; catalogue and free lines left out');
  t.strictSame(lines[0], {
    sale_id: byCashier.id, receipt_no: 2, sale_status: 'completed', sale_item_id: byCashier.items[0].id, line_no: 1,
    product_id: soap.id, variant_id: null, name: 'Savon', quantity: 2,
    catalogue_price_xaf: 1000, catalogue_vat_rate: 19.25, unit_price_xaf: 1000, vat_rate: 19.25, discount_xaf: 150,
    catalogue_gross_xaf: 2000, charged_xaf: 1850, overrides: ['discount'],
    cashier_id: cashier.user.id, cashier_name: cashier.user.name, device_id: null, device_name: null, offline: false,
    sold_at: byCashier.created_at, recorded_at: byCashier.recorded_at,
  }, 'a cashier\'s discount within the cap');
  t.match(lines[1], {
    sale_id: byManager.id, product_id: soap.id, catalogue_price_xaf: 1000, unit_price_xaf: 800, catalogue_vat_rate: 19.25, vat_rate: 19.25,
    catalogue_gross_xaf: 1000, charged_xaf: 800, overrides: ['price'], cashier_id: manager.user.id, cashier_name: manager.user.name,
    device_id: device.id, device_name: 'Caisse 1', offline: false, sold_at: byManager.created_at,
  }, 'a manager\'s price');
  t.match(lines[2], {
    sale_id: byManager.id, variant_id: variants.M.id, name: 'Chemise (M)', catalogue_price_xaf: 2500, unit_price_xaf: 2500,
    catalogue_vat_rate: 5, vat_rate: 0, overrides: ['vat'],
  }, 'a VAT rate, against the variant\'s price and the product\'s rate');
});

t.test('an offline sale by a cashier keeps the till\'s figures and is listed, marked offline, against the catalogue', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token, 'Caisse marché');
  const rice = await createProduct(api, owner.token, { name: 'Riz', price_xaf: 1000, vat_rate: 19.25 }, 50);
  const sale = {
    id: randomUUID(),
    created_at: new Date(Date.now() - 3_600_000).toISOString(),
    user_id: cashier.user.id,
    items: [{ product_id: rice.id, quantity: 1, unit_price_xaf: 1, vat_rate: 0 }, { product_id: rice.id, quantity: 2, discount_xaf: 1000 }],
    payments: cash(1001),
  };
  const [result] = await pushSales({ device: device.token }, [sale]);
  t.equal(result.status, 'applied');
  const lines = await recent(owner.token);
  t.strictSame(lines.map((l) => l.line_no), [1, 2]);
  t.match(lines[0], {
    sale_id: sale.id, offline: true, device_id: device.id, device_name: 'Caisse marché', cashier_id: cashier.user.id, sold_at: sale.created_at,
    catalogue_price_xaf: 1000, catalogue_vat_rate: 19.25, unit_price_xaf: 1, vat_rate: 0, overrides: ['price', 'vat'], catalogue_gross_xaf: 1000, charged_xaf: 1,
  });
  t.match(lines[1], { offline: true, unit_price_xaf: 1000, discount_xaf: 1000, overrides: ['discount'], catalogue_gross_xaf: 2000, charged_xaf: 1000 }, 'a discount beyond a cashier\'s cap');
});

t.test('a line of a product deleted before its offline sale was pushed is listed against the product\'s last figures', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const garland = await createProduct(api, owner.token, { name: 'Guirlande', price_xaf: 2000, vat_rate: 19.25 }, 5);
  t.equal((await api.request('DELETE', `/products/${garland.id}`, { token: owner.token })).status, 204);
  const sale = { id: randomUUID(), items: [{ product_id: garland.id, quantity: 1, unit_price_xaf: 500 }, { product_id: garland.id, quantity: 1 }], payments: cash(2500) };
  const [result] = await pushSales({ bearer: cashier.token }, [sale]);
  t.equal(result.status, 'applied');
  const lines = await recent(owner.token);
  t.strictSame(lines.map((l) => l.line_no), [1], 'the line at the catalogue\'s last price is not listed');
  t.match(lines[0], { product_id: null, name: 'Guirlande', catalogue_price_xaf: 2000, catalogue_vat_rate: 19.25, unit_price_xaf: 500, overrides: ['price'], offline: true });
});

t.test('from and to are days of the shop\'s calendar, both included', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 50);
  const at = ['2024-01-10T12:00:00Z', '2024-01-11T12:00:00Z', '2024-01-11T23:30:00Z', '2024-01-12T12:00:00Z'];
  const ids: string[] = [];
  for (const when of at) {
    const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 900 }], payments: cash(900) });
    await api.ownerSql`update sales set created_at = ${when}::timestamptz where id = ${sale.id}`;
    ids.push(sale.id);
  }
  const listed = async (from: string, to: string) => {
    const reply = await report(manager.token, { from, to });
    t.equal(reply.status, 200, `${from}..${to}`);
    return reply.body.data.map((l: any) => l.sale_id);
  };
  // 23:30 UTC on the 11th is 00:30 on the 12th in Douala (UTC+1).
  t.strictSame(await listed('2024-01-11', '2024-01-11'), [ids[1]], 'one day');
  t.strictSame(await listed('2024-01-12', '2024-01-12'), [ids[3], ids[2]], 'the shop\'s day, not UTC\'s');
  t.strictSame(await listed('2024-01-10', '2024-01-12'), [...ids].reverse(), 'both days included, newest first');
  t.strictSame(await listed('2024-01-13', '2024-12-31'), [], 'nothing after');
  await setShop(api, owner, { timezone: 'UTC' });
  t.strictSame(await listed('2024-01-11', '2024-01-11'), [ids[2], ids[1]], 'the days follow the shop\'s time zone');
});

t.test('from and to are required dates, to on or after from; limit is 1 to 200; a tampered cursor is a 422', async (t) => {
  const { manager } = await staffedShop(api);
  expectInvalid(t, await report(manager.token, { from: '2024-01-12', to: '2024-01-11' }), 'to', 'to before from');
  expectInvalid(t, await report(manager.token, { to: '2024-01-11' }), 'from', 'no from');
  expectInvalid(t, await report(manager.token, { from: '2024-01-11' }), 'to', 'no to');
  expectInvalid(t, await report(manager.token, { from: '11/01/2024', to: '2024-01-11' }), 'from', 'not a date');
  expectInvalid(t, await report(manager.token, { from: '2024-01-11', to: '2024-02-30' }), 'to', 'no such day');
  expectInvalid(t, await report(manager.token, { from: today(), to: today(), limit: 0 }), 'limit', 'limit 0');
  expectInvalid(t, await report(manager.token, { from: today(), to: today(), limit: 201 }), 'limit', 'limit 201');
  expectInvalid(t, await report(manager.token, { from: today(), to: today(), cursor: 'garbage' }), 'cursor', 'a tampered cursor');
  const reply = await report(manager.token, { from: '2024-01-11', to: '2024-01-11', limit: 200 });
  t.equal(reply.status, 200, 'one day, limit 200');
  t.strictSame(reply.body, { data: [], meta: { next_cursor: null } }, 'the list envelope');
});

t.test('only managers and owners read it: a cashier gets 403, no token 401; it still reads once the subscription has ended', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  expectError(t, await report(cashier.token, { from: today(), to: today() }), 403, FORBIDDEN, 'cashier');
  expectError(t, await api.request('GET', `/reports/price-overrides?from=${today()}&to=${today()}`), 401, UNAUTHENTICATED, 'no token');
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    t.equal((await report(token, { from: today(), to: today() })).status, 200, who);
  }
});

t.test('another shop\'s overrides are never listed', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = await createProduct(api, theirs.token, { price_xaf: 1000 }, 10);
  const theirSale = await sell(api, theirs.token, { items: [{ product_id: their.id, quantity: 1, unit_price_xaf: 1 }], payments: cash(1) });
  t.strictSame(await recent(mine.token), [], 'none in my shop');
  t.strictSame((await recent(theirs.token)).map((l) => l.sale_id), [theirSale.id], 'theirs in theirs');
});

t.test('pages run newest sale first, its lines in order, each line once', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 100);
  const overriding = (price: number) => ({ product_id: product.id, quantity: 1, unit_price_xaf: price });
  const first = await sell(api, owner.token, { items: [overriding(100)], payments: cash(100) });
  const second = await sell(api, owner.token, { items: [overriding(200), { product_id: product.id, quantity: 1 }, overriding(300), overriding(400)], payments: cash(1900) });
  const third = await sell(api, owner.token, { items: [overriding(500), overriding(600)], payments: cash(1100) });
  const seen: [string, number][] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: Reply = await report(owner.token, { from: today(1), to: today(), limit: 2, ...(cursor ? { cursor } : {}) });
    t.equal(reply.status, 200);
    t.ok(reply.body.data.length <= 2);
    seen.push(...reply.body.data.map((l: any): [string, number] => [l.sale_id, l.line_no]));
    cursor = reply.body.meta.next_cursor;
    pages += 1;
  } while (cursor && pages < 10);
  t.equal(pages, 3, 'pages of 2, 2 and 2');
  t.strictSame(seen, [[third.id, 1], [third.id, 2], [second.id, 1], [second.id, 3], [second.id, 4], [first.id, 1]]);
});
