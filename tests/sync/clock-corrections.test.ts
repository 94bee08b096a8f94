import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, staffedShop, type StaffedShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { openShift, shopDay } from '../shifts/shift-fixtures.ts';
import { startService } from '../support/service.ts';
import { offlineSale, pairDevice, push, type PairedDevice, type SyncAuth } from './sync-fixtures.ts';

// CONTRACT section 4: a record pushed by a till is never refused for its clock (the sale happened).
// A clock plainly wrong (before 2000, more than a day ahead: a dead clock battery) is replaced by the
// time the server received the record; the till's time is kept (till_created_at) and listed for the owner.

const api = await startService(t);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

async function pushed(auth: SyncAuth, body: unknown): Promise<any[]> {
  const reply = await push(api, auth, body);
  if (reply.status !== 200) throw new Error(`push failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.results;
}

interface Till extends StaffedShop {
  device: PairedDevice;
  productId: string;
}

/** A shop with a paired till, a product in stock and the cashier's shift open (cash movements need one). */
async function till(): Promise<Till> {
  const shop = await staffedShop(api);
  const device = await pairDevice(api, shop.owner.token);
  const product = await createProduct(api, shop.owner.token, { price_xaf: 1000 }, 100);
  await openShift(api, shop.cashier.token, 10_000);
  return { ...shop, device, productId: product.id };
}

/** One sale, one cash movement and one customer, all stamped `at` by the till's clock, pushed by the till. */
async function pushAll(shop: Till, at: string) {
  const sale = offlineSale(randomUUID(), shop.productId, 1, { created_at: at, user_id: shop.cashier.user.id });
  const movement = { id: randomUUID(), direction: 'out', amount_xaf: 500, reason: 'Taxi', created_at: at, user_id: shop.cashier.user.id };
  const customer = { id: randomUUID(), name: 'Client de la caisse', created_at: at };
  const results = await pushed({ device: shop.device.token }, { sales: [sale], cash_movements: [movement], customers: [customer] });
  return { sale, movement, customer, results };
}

/** Each record's created_at and till_created_at as the API and the database hold them. */
async function times(shop: Till, records: Awaited<ReturnType<typeof pushAll>>) {
  const sale = (await api.request('GET', `/sales/${records.sale.id}`, { token: shop.owner.token })).body.data;
  const customer = (await api.request('GET', `/customers/${records.customer.id}`, { token: shop.owner.token })).body.data;
  const [movement] = await api.ownerSql<{ created_at: Date; till_created_at: Date | null }[]>`
    select created_at, till_created_at from cash_movements where id = ${records.movement.id}`;
  return {
    sale: { created_at: sale.created_at, till_created_at: sale.till_created_at, recorded_at: sale.recorded_at },
    cash_movement: { created_at: movement!.created_at.toISOString(), till_created_at: movement!.till_created_at?.toISOString() ?? null },
    customer: { created_at: customer.created_at, till_created_at: customer.till_created_at },
  };
}

async function corrections(token: string, query = '') {
  return api.request('GET', `/sync/clock-corrections${query}`, { token });
}

/** Whether a time the server recorded is the time of the push (it ran between `before` and now). */
const receivedSince = (before: number, at: string) => Date.parse(at) >= before - 1000 && Date.parse(at) <= Date.now() + 1000;

t.test('a record stamped before 2000 is recorded when the server received it, keeps the till\'s time and is listed for the owner', async (t) => {
  const shop = await till();
  const before = Date.now();
  const records = await pushAll(shop, '1970-01-01T00:00:00.000Z');
  t.strictSame(records.results.map((r) => r.status), ['applied', 'applied', 'applied'], 'never refused for its clock');
  const got = await times(shop, records);
  for (const [entity, time] of Object.entries(got)) {
    t.ok(receivedSince(before, time.created_at), `${entity}: created_at ${time.created_at} is when the server received it`);
    t.equal(time.till_created_at, '1970-01-01T00:00:00.000Z', `${entity}: the till's time is kept`);
  }
  t.equal(got.sale.created_at, got.sale.recorded_at, 'the sale happened when it was recorded');

  const listed = await corrections(shop.owner.token);
  t.equal(listed.status, 200);
  const byEntity = Object.fromEntries(listed.body.data.map((row: any) => [row.entity, row]));
  t.strictSame(Object.keys(byEntity).sort(), ['cash_movements', 'customers', 'sales']);
  t.strictSame(byEntity.sales, { entity: 'sales', id: records.sale.id, device_id: shop.device.id, user_id: shop.cashier.user.id, till_created_at: '1970-01-01T00:00:00.000Z', created_at: got.sale.created_at });
  t.strictSame(byEntity.cash_movements, { entity: 'cash_movements', id: records.movement.id, device_id: shop.device.id, user_id: shop.cashier.user.id, till_created_at: '1970-01-01T00:00:00.000Z', created_at: got.cash_movement.created_at });
  t.match(byEntity.customers, { id: records.customer.id, device_id: shop.device.id, till_created_at: '1970-01-01T00:00:00.000Z', created_at: got.customer.created_at });

  const again = await pushed({ device: shop.device.token }, { sales: [records.sale], cash_movements: [records.movement] });
  t.strictSame(again.map((r) => r.status), ['duplicate', 'duplicate'], 'a retry is a duplicate');
  t.equal((await corrections(shop.owner.token)).body.data.length, 3, 'and is listed once');
});

t.test('a record stamped more than a day ahead of the server is recorded when the server received it', async (t) => {
  const shop = await till();
  for (const ahead of [DAY + HOUR, 3 * 365 * DAY]) {
    const at = fromNow(ahead);
    const before = Date.now();
    const records = await pushAll(shop, at);
    t.strictSame(records.results.map((r) => r.status), ['applied', 'applied', 'applied']);
    for (const [entity, time] of Object.entries(await times(shop, records))) {
      t.ok(receivedSince(before, time.created_at), `${entity} stamped ${at}: recorded at ${time.created_at}`);
      t.equal(time.till_created_at, at, `${entity} stamped ${at}: the till's time kept`);
    }
  }
});

t.test('a record stamped less than a day ahead, 2 hours for instance, keeps its time and is not listed', async (t) => {
  const shop = await till();
  for (const at of [fromNow(2 * HOUR), fromNow(DAY - 5 * 60_000)]) {
    const records = await pushAll(shop, at);
    t.strictSame(records.results.map((r) => r.status), ['applied', 'applied', 'applied']);
    for (const [entity, time] of Object.entries(await times(shop, records))) {
      t.strictSame([time.created_at, time.till_created_at], [at, null], `${entity} stamped ${at}: kept`);
    }
  }
  t.strictSame((await corrections(shop.owner.token)).body.data, []);
});

// The 90-day limit kept a sealed day from changing; z_reported_on does that for any age (a day before
// the shop opened counts as sealed), so an old record keeps its time and goes into today's Z.
t.test('an old record stamped after 2000 keeps its time, and its day being sealed it is reported in the next Z', async (t) => {
  const shop = await till();
  const today = await shopDay(api, shop.owner.shop.id);
  for (const at of ['2000-01-01T00:00:00.000Z', fromNow(-400 * DAY)]) {
    const records = await pushAll(shop, at);
    t.strictSame(records.results.map((r) => r.status), ['applied', 'applied', 'applied'], `stamped ${at}: applied`);
    for (const [entity, time] of Object.entries(await times(shop, records))) {
      t.strictSame([time.created_at, time.till_created_at], [at, null], `${entity} stamped ${at}: kept`);
    }
    const [sale] = await api.ownerSql<{ reported_on: string; posted_today: boolean }[]>`
      select s.reported_on::text as reported_on, (select (e.posted_at at time zone 'Africa/Douala')::date = ${today}::date
                                                    from journal_entries e where e.source_type = 'sale' and e.source_id = s.id) as posted_today
        from sales s where s.id = ${records.sale.id}`;
    t.strictSame(sale, { reported_on: today, posted_today: true }, `the sale of ${at} is reported and posted today`);
    const [movement] = await api.ownerSql<{ reported_on: string }[]>`select reported_on::text as reported_on from cash_movements where id = ${records.movement.id}`;
    t.equal(movement!.reported_on, today, `the cash movement of ${at} is reported today`);
  }
  const z = await api.request('GET', '/reports/z', { token: shop.owner.token });
  t.equal(z.body.data.late_sales.count, 2, 'today\'s Z counts both as late sales');
  const [edge] = await pushed({ device: shop.device.token }, { sales: [offlineSale(randomUUID(), shop.productId, 1, { created_at: '1999-12-31T23:59:59.999Z' })] });
  t.equal(edge.status, 'applied');
  t.equal((await corrections(shop.owner.token)).body.data.length, 1, 'a millisecond before 2000 is a clock plainly wrong');
});

t.test('managers and owners list clock corrections newest first by pages; a cashier may not; another shop sees none', async (t) => {
  const shop = await till();
  const sales = [];
  for (const at of ['1980-01-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
    const sale = offlineSale(randomUUID(), shop.productId, 1, { created_at: at });
    t.equal((await pushed({ device: shop.device.token }, { sales: [sale] }))[0].status, 'applied');
    sales.push(sale);
  }
  const first = await corrections(shop.manager.token, '?limit=2');
  t.equal(first.status, 200);
  t.strictSame(first.body.data.map((row: any) => row.till_created_at), ['9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z'], 'newest first, year 1 read back exactly');
  t.type(first.body.meta.next_cursor, 'string');
  const second = await corrections(shop.manager.token, `?limit=2&cursor=${first.body.meta.next_cursor}`);
  t.strictSame(second.body.data.map((row: any) => row.id), [sales[0]!.id]);
  t.equal(second.body.meta.next_cursor, null);
  t.equal((await corrections(shop.cashier.token)).status, 403, 'a cashier gets a 403');
  const other = await staffedShop(api);
  t.strictSame((await corrections(other.owner.token)).body.data, [], 'another shop sees none');
  expectInvalid(t, await corrections(shop.owner.token, '?cursor=nonsense'), 'cursor');
});

t.test('a pushed expense dated before 2000 (0026 for 2026) is rejected with validation_failed on spent_at, never a server error', async (t) => {
  const shop = await till();
  const expense = { id: randomUUID(), category: 'transport', amount_xaf: 1500, payment_method: 'cash', user_id: shop.manager.user.id };
  const results = await pushed({ device: shop.device.token }, { expenses: [{ ...expense, spent_at: '0026-11-29' }, { ...expense, id: randomUUID(), spent_at: '1999-12-31' }] });
  for (const result of results) {
    t.match(result, { entity: 'expenses', status: 'rejected', code: 'validation_failed' });
    t.strictSame(Object.keys(result.errors), ['spent_at']);
  }
  t.equal((await pushed({ device: shop.device.token }, { expenses: [{ ...expense, spent_at: '2000-01-01' }] }))[0].status, 'applied');
});

t.test('a created_at that is no time (year 0000, words) is rejected as malformed on created_at', async (t) => {
  const shop = await till();
  const results = await pushed({ device: shop.device.token }, {
    sales: [offlineSale(randomUUID(), shop.productId, 1, { created_at: '0000-01-01T00:00:00Z' }), offlineSale(randomUUID(), shop.productId, 1, { created_at: 'yesterday' })],
  });
  for (const result of results) {
    t.match(result, { status: 'rejected', code: 'validation_failed' });
    t.ok(result.errors.created_at, 'errors name created_at');
  }
});
