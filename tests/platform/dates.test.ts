import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { createProduct, staffedShop } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';

const api = await startService(t);

// zod takes year 0000 for a valid ISO-8601 date; PostgreSQL has no year 0. Every day or time a
// request carries is checked before it reaches a query.
t.test('a day or a time in year 0 is a 422 on its input, never a failed query', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const day = '0000-01-01';
  const time = '0000-01-01T00:00:00Z';
  const read = (path: string) => api.request('GET', path, { token: owner.token });
  expectInvalid(t, await read(`/sales?from=${day}`), 'from', 'sales list');
  expectInvalid(t, await read(`/expenses?to=${day}`), 'to', 'expenses list');
  expectInvalid(t, await read(`/shifts?from=${day}`), 'from', 'shifts list');
  expectInvalid(t, await read(`/loyalty/report?from=${day}`), 'from', 'loyalty report');
  expectInvalid(t, await api.request('POST', '/expenses', { token: owner.token, body: { category: 'other', amount_xaf: 100, payment_method: 'cash', spent_at: day } }), 'spent_at', 'expense');
  expectInvalid(t, await api.request('POST', '/promotions', { token: owner.token, body: { name: 'Zéro', kind: 'percent', value: 10, starts_at: time } }), 'starts_at', 'promotion');
  expectInvalid(t, await api.request('GET', `/device/sync/pull?since=${time}`, { headers: { authorization: `Device ${device.token}` } }), 'since', 'pull');
  t.equal((await read('/sales?from=0001-01-01')).status, 200, 'year 1 is a real day');
});

// zod 4 runs an object's refinement even when one of its fields failed: "to on or after from" then
// compared a malformed date as text and added a second error on a valid `to`.
t.test('a malformed from or to is a 422 on that key alone, with one message, on every list and report with a period', async (t) => {
  const { owner } = await staffedShop(api);
  const read = (path: string) => api.request('GET', path, { token: owner.token });
  const periods = ['/sales', '/purchases', '/quotes', '/shifts', '/expenses', '/loyalty/report', '/reports/price-overrides', '/reports/sales-summary',
    '/reports/margin', '/reports/analytics', '/reports/losses', '/reports/vat-declaration'];
  for (const path of periods) {
    const badFrom = await read(`${path}?from=2026-13-01&to=2026-11-25`);
    expectInvalid(t, badFrom, 'from', `${path} from=2026-13-01`);
    t.equal(badFrom.body.errors?.from?.length, 1, `${path}: one message on from`);
    const badTo = await read(`${path}?from=zz&to=abc`);
    expectInvalid(t, badTo, ['from', 'to'], `${path} from=zz to=abc`);
    t.equal(badTo.body.errors?.to?.length, 1, `${path}: one message on to`);
  }
});

// postgres.js read dates and timestamps with `new Date(text)`: V8's legacy parser took year 0010 for
// 2030 and 0026 for no date at all. api/lib/pg-time.ts reads PostgreSQL's text field by field.
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
/** Time zones whose offsets have minutes (Kolkata, St John's) and, before standard time, seconds (local mean time: Douala +00:38:48). */
const ZONES = ['UTC', 'Africa/Douala', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Paris', 'Pacific/Kiritimati'] as const;
const anyInstant = fc.date({ min: new Date(FIRST_INSTANT), max: new Date(LAST_INSTANT), noInvalidDate: true });
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

t.test('dates and timestamps read back exactly through the driver for every year from 1 to 9999, in any session time zone', async (t) => {
  const property = fc.asyncProperty(anyInstant, fc.constantFrom(...ZONES), async (at, zone) => {
    const iso = at.toISOString();
    const [row] = await api.ownerSql.begin(async (tx) => {
      await tx`select set_config('TimeZone', ${zone}, true)`;
      return tx<{ tz: Date; tz_text: Date; ts: Date; day: Date; written: string }[]>`
        select ${at}::timestamptz as tz, ${iso}::text::timestamptz as tz_text, ${iso}::text::timestamptz at time zone 'UTC' as ts,
               ${utcDay(at)}::text::date as day, ${at}::timestamptz::text as written`;
    });
    const got = { tz: row!.tz.toISOString(), tz_text: row!.tz_text.toISOString(), ts: row!.ts.toISOString(), day: row!.day.toISOString() };
    const want = { tz: iso, tz_text: iso, ts: iso, day: `${utcDay(at)}T00:00:00.000Z` };
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${zone}, written ${row!.written}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
  });
  await checkProperty(t, property, propertyRun(20_261_129, 300), 'instants of years 1 to 9999', 30_000);
});

t.test('what PostgreSQL writes beyond years 1 to 9999 reads back too: years over 9999, BC, offsets with seconds, microseconds', async (t) => {
  const [row] = await api.ownerSql.begin(async (tx) => {
    await tx`select set_config('TimeZone', 'Africa/Douala', true)`;
    return tx<Record<string, Date>[]>`
      select '0026-11-29'::date as day_26, '0026-11-29'::timestamptz as local_mean_time, '0010-01-31 12:34:56.789999'::timestamp as wall,
             '12345-06-07 08:09:10.5+00'::timestamptz as year_12345, '12345-06-07'::date as day_12345,
             '0044-03-15 12:00:00+00 BC'::timestamptz as ides, '0001-01-01 BC'::date as day_1_bc, 'infinity'::timestamptz as forever`;
  });
  t.equal(row!.day_26!.toISOString(), '0026-11-29T00:00:00.000Z', 'a date of year 26');
  t.equal(row!.local_mean_time!.toISOString(), '0026-11-28T23:21:12.000Z', 'midnight at Douala\'s local mean time, +00:38:48');
  t.equal(row!.wall!.toISOString(), '0010-01-31T12:34:56.789Z', 'a timestamp without time zone, microseconds cut to milliseconds');
  t.equal(row!.year_12345!.toISOString(), '+012345-06-07T08:09:10.500Z', 'year 12345');
  t.equal(row!.day_12345!.toISOString(), '+012345-06-07T00:00:00.000Z', 'a date of year 12345');
  t.equal(row!.ides!.toISOString(), '-000043-03-15T12:00:00.000Z', '44 BC is year -43');
  t.equal(row!.day_1_bc!.toISOString(), '0000-01-01T00:00:00.000Z', '1 BC is year 0');
  t.ok(Number.isNaN(row!.forever!.getTime()), 'infinity is an invalid Date, as before');
  const [back] = await api.ownerSql<{ year_12345: string; bc: string }[]>`
    select ${new Date('+012345-06-07T08:09:10.500Z')}::timestamptz::text as year_12345, ${new Date('-000043-03-15T12:00:00.000Z')}::timestamptz::text as bc`;
  t.strictSame(back, { year_12345: '12345-06-07 08:09:10.5+00', bc: '0044-03-15 12:00:00+00 BC' }, 'a Date of any year is written as PostgreSQL reads it');
});

t.test('the days and times people type read back exactly through the API, and a till\'s time however wrong is kept', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 1000);
  const today = (await api.ownerSql<{ today: string }[]>`select to_char((now() at time zone 'Africa/Douala')::date, 'YYYY-MM-DD') as today`)[0]!.today;
  const businessInstant = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date(LAST_INSTANT), noInvalidDate: true });
  const pastDay = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date(`${today}T00:00:00.000Z`), noInvalidDate: true }).map(utcDay);
  const tillTime = fc.oneof(anyInstant, fc.date({ min: new Date('1999-12-30T00:00:00.000Z'), max: new Date(Date.now() + 3 * 86_400_000), noInvalidDate: true }));
  const offset = fc.constantFrom('Z', '+01:00', '+05:30', '-03:30', '+14:00');
  const written = (at: Date, zone: string) => {
    if (zone === 'Z') return at.toISOString();
    const minutes = (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
    const local = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 23);
    return `${local}${zone}`;
  };
  const property = fc.asyncProperty(
    fc.record({ starts: businessInstant, length: fc.integer({ min: 1, max: 10_000_000 }), zone: offset, spent: pastDay, until: businessInstant.map(utcDay), expiry: businessInstant.map(utcDay), till: tillTime }),
    async ({ starts, length, zone, spent, until, expiry, till }) => {
      const ends = new Date(Math.min(starts.getTime() + length * 1000, LAST_INSTANT));
      if (ends <= starts || written(starts, zone) < '2000' || written(ends, zone) < '2000') return;
      const promotion = await api.request('POST', '/promotions', {
        token: owner.token,
        body: { name: 'Promo', kind: 'percent', value: 10, starts_at: written(starts, zone), ends_at: written(ends, zone), active: false },
      });
      if (promotion.status !== 201) throw new Error(`promotion: ${promotion.status} ${JSON.stringify(promotion.body)}`);
      if (promotion.body.data.starts_at !== starts.toISOString() || promotion.body.data.ends_at !== ends.toISOString()) throw new Error(`promotion read ${JSON.stringify(promotion.body.data)}`);

      const expense = await api.request('POST', '/expenses', { token: owner.token, body: { category: 'other', amount_xaf: 100, payment_method: 'bank', spent_at: spent } });
      if (expense.status !== 201) throw new Error(`expense: ${expense.status} ${JSON.stringify(expense.body)}`);
      // Its day starts at midnight in Douala (UTC+1), unless it is today (spent now).
      const dayStart = new Date(Date.parse(`${spent}T00:00:00.000Z`) - 3_600_000).toISOString();
      if (spent !== today && expense.body.data.spent_at !== dayStart) throw new Error(`expense of ${spent} read ${expense.body.data.spent_at}`);

      const quote = await api.request('POST', '/quotes', { token: owner.token, body: { valid_until: until, items: [{ product_id: product.id, quantity: 1 }] } });
      if (quote.status !== 201 || quote.body.data.valid_until !== until) throw new Error(`quote of ${until}: ${quote.status} ${JSON.stringify(quote.body.data?.valid_until ?? quote.body)}`);

      const purchase = await api.request('POST', '/purchases', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 500, expiry_date: expiry }] } });
      if (purchase.status !== 201 || purchase.body.data.items[0].expiry_date !== expiry) throw new Error(`purchase of ${expiry}: ${purchase.status} ${JSON.stringify(purchase.body)}`);

      const sale = offlineSale(randomUUID(), product.id, 1, { created_at: till.toISOString() });
      const pushed = await push(api, { device: device.token }, { sales: [sale] });
      if (pushed.body.data?.results?.[0]?.status !== 'applied') throw new Error(`push of ${sale.created_at}: ${JSON.stringify(pushed.body)}`);
      const read = (await api.request('GET', `/sales/${sale.id}`, { token: owner.token })).body.data;
      const plain = till.getTime() >= Date.parse('2000-01-01T00:00:00Z') && till.getTime() <= Date.parse(read.recorded_at) + 86_400_000;
      const kept = plain ? read.created_at === sale.created_at && read.till_created_at === null : read.created_at === read.recorded_at && read.till_created_at === sale.created_at;
      if (!kept) throw new Error(`sale stamped ${sale.created_at} read ${JSON.stringify({ created_at: read.created_at, recorded_at: read.recorded_at, till_created_at: read.till_created_at })}`);

      // A customer's record is read through the driver (sales through sale_json): the till's time of any year comes back as sent.
      const customer = { id: randomUUID(), name: 'Client hors ligne', created_at: sale.created_at };
      const customerPush = await push(api, { device: device.token }, { customers: [customer] });
      if (customerPush.body.data?.results?.[0]?.status !== 'applied') throw new Error(`push of a customer of ${customer.created_at}: ${JSON.stringify(customerPush.body)}`);
      const made = (await api.request('GET', `/customers/${customer.id}`, { token: owner.token })).body.data;
      const customerKept = plain ? made.created_at === customer.created_at && made.till_created_at === null : made.till_created_at === customer.created_at;
      if (!customerKept) throw new Error(`customer stamped ${customer.created_at} read ${JSON.stringify({ created_at: made.created_at, till_created_at: made.till_created_at })}`);
    },
  );
  await checkProperty(t, property, propertyRun(20_261_130, 25), 'promotions, expenses, quotes, purchases, pushed sales and customers', 60_000);
});

// CONTRACT section 4: `0026` typed for `2026` must never become a record of year 26.
t.test('a business day or time a person types before 2000-01-01 is a 422 on its key', async (t) => {
  const { owner } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const send = (method: string, path: string, body: unknown) => api.request(method, path, { token: owner.token, body });
  const expense = (spent_at: string) => send('POST', '/expenses', { category: 'other', amount_xaf: 100, payment_method: 'cash', spent_at });
  expectInvalid(t, await expense('0026-11-29'), 'spent_at', 'expense of 0026-11-29');
  expectInvalid(t, await expense('1999-12-31'), 'spent_at', 'expense of 1999-12-31');
  t.equal((await expense('2000-01-01')).status, 201, 'an expense of 2000-01-01 is recorded');

  const promotion = (dates: Record<string, string>) => send('POST', '/promotions', { name: 'Promo', kind: 'percent', value: 10, ...dates });
  expectInvalid(t, await promotion({ starts_at: '0001-01-01T00:00:00Z' }), 'starts_at', 'promotion starting in year 1');
  expectInvalid(t, await promotion({ ends_at: '1999-12-31T23:59:59Z' }), 'ends_at', 'promotion ending in 1999');
  expectInvalid(t, await promotion({ starts_at: '1999-12-31T23:30:00-01:00' }), 'starts_at', 'the date as written counts, offset aside');
  const made = await promotion({ starts_at: '2000-01-01T00:30:00+01:00' });
  t.equal(made.status, 201, 'a promotion from 2000-01-01 as written');
  expectInvalid(t, await send('PUT', `/promotions/${made.body.data.id}`, { ends_at: '0099-01-01T00:00:00Z' }), 'ends_at', 'promotion update');
  expectInvalid(t, await send('POST', '/promotions/preview', { at: '1970-01-01T00:00:00Z', items: [{ product_id: product.id, quantity: 1 }] }), 'at', 'pricing preview');

  expectInvalid(t, await send('POST', '/quotes', { valid_until: '0026-12-31', items: [{ product_id: product.id, quantity: 1 }] }), 'valid_until', 'quote');
  expectInvalid(t, await send('POST', '/purchases', { items: [{ product_id: product.id, quantity: 1, unit_cost_xaf: 500, expiry_date: '1999-06-30' }] }), 'items.0.expiry_date', 'batch expiry');
});

t.test('a report period or day before 2000-01-01 is a 422 on its key', async (t) => {
  const { owner } = await staffedShop(api);
  const read = (path: string) => api.request('GET', path, { token: owner.token });
  for (const report of ['/reports/sales-summary', '/reports/margin', '/reports/analytics', '/reports/losses', '/reports/price-overrides', '/reports/vat-declaration']) {
    expectInvalid(t, await read(`${report}?from=1999-12-31&to=2000-01-05`), 'from', `${report} from 1999-12-31`);
    expectInvalid(t, await read(`${report}?from=0026-01-01&to=0026-01-31`), ['from', 'to'], `${report} in year 26`);
  }
  expectInvalid(t, await read('/reports/z?date=1999-12-31'), 'date', 'Z of 1999-12-31');
  expectInvalid(t, await read('/reports/vat-declaration?month=1999-12'), 'month', 'VAT of 1999-12');
  expectInvalid(t, await read('/loyalty/report?from=0026-01-01'), 'from', 'loyalty report');
  expectInvalid(t, await read('/loyalty/report?to=1999-01-01'), 'to', 'loyalty report');
  t.equal((await read('/reports/sales-summary?from=2000-01-01&to=2000-01-31')).status, 200, 'January 2000 is a period');
  t.equal((await read('/reports/vat-declaration?month=2000-01')).status, 200, '2000-01 is a month');
  t.equal((await read('/expenses?from=1970-01-01')).status, 200, 'a list filter takes any day: an early from only widens the search');
});

t.test('a day before 2000 has one message on its key, in the caller\'s language, and no "on or after from" besides', async (t) => {
  const { owner } = await staffedShop(api);
  const french = await api.request('GET', '/reports/sales-summary?from=1999-12-31&to=1999-01-01', { token: owner.token });
  expectInvalid(t, french, ['from', 'to']);
  t.strictSame(french.body.errors, { from: ['Doit être le 2000-01-01 ou une date postérieure.'], to: ['Doit être le 2000-01-01 ou une date postérieure.'] });
  const month = await api.request('GET', '/reports/vat-declaration?month=1999-12', { token: owner.token });
  t.strictSame(month.body.errors, { month: ['Doit être 2000-01 ou un mois postérieur.'] });
  t.equal((await api.request('PUT', '/profile', { token: owner.token, body: { locale: 'en' } })).status, 200);
  const english = await api.request('POST', '/expenses', { token: owner.token, body: { category: 'other', amount_xaf: 100, payment_method: 'cash', spent_at: '0010-01-31' } });
  t.strictSame(english.body.errors, { spent_at: ['Must be on or after 2000-01-01.'] });
  const malformed = await api.request('GET', '/reports/sales-summary?from=1999-13-01&to=2000-01-05', { token: owner.token });
  t.equal(malformed.body.errors?.from?.length, 1, 'a malformed day has its own message alone');
});

t.test('the document states the 2000-01-01 minimum of every business date: its pattern refuses 1999-12-31, its description says it', async (t) => {
  const doc = (await api.raw('GET', '/openapi.json')).body;
  const parameter = (path: string, method: string, name: string) => doc.paths[`/api/v1${path}`][method].parameters.find((p: any) => p.name === name);
  const property = (component: string, name: string) => doc.components.schemas[component].properties[name];
  const business: [string, any][] = [
    ['CreateExpense.spent_at', property('CreateExpense', 'spent_at')],
    ['CreatePromotion.starts_at', property('CreatePromotion', 'starts_at')],
    ['CreatePromotion.ends_at', property('CreatePromotion', 'ends_at')],
    ['CreateQuote.valid_until', property('CreateQuote', 'valid_until')],
    ['PurchaseItemInput.expiry_date', property('PurchaseItemInput', 'expiry_date')],
    ['GET /reports/sales-summary from', parameter('/reports/sales-summary', 'get', 'from').schema],
    ['GET /reports/z date', parameter('/reports/z', 'get', 'date').schema],
    ['GET /reports/vat-declaration to', parameter('/reports/vat-declaration', 'get', 'to').schema],
    ['GET /loyalty/report from', parameter('/loyalty/report', 'get', 'from').schema],
  ];
  for (const [where, found] of business) {
    const schema = found.anyOf?.find((branch: any) => branch.type === 'string') ?? found;
    const pattern = new RegExp(schema.pattern);
    const sample = schema.format === 'date-time' ? (day: string) => `${day}T00:00:00Z` : (day: string) => day;
    t.ok(pattern.test(sample('2000-01-01')) && pattern.test(sample('2024-02-29')) && pattern.test(sample('9999-12-31')), `${where}: the pattern takes 2000-01-01 to 9999-12-31`);
    t.notOk(pattern.test(sample('1999-12-31')) || pattern.test(sample('0026-11-29')) || pattern.test(sample('2100-02-29')), `${where}: the pattern refuses days before 2000 and 2100-02-29`);
    t.match(schema.description ?? found.description, /2000-01-01/, `${where}: the description says it`);
  }
  t.notOk(new RegExp(parameter('/reports/vat-declaration', 'get', 'month').schema.pattern).test('1999-12'), 'the VAT month from 2000-01');
  t.ok(new RegExp(parameter('/sales', 'get', 'from').schema.pattern).test('0001-01-01'), 'a list filter takes any day');
});
