import t from 'tap';
import { CRONTAB } from '../../worker/worker.ts';
import { createProduct, registerShop, waitFor, type ShopFixture } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { openShift, refundSale, sell, voidSale } from '../sales/sale-fixtures.ts';

/**
 * Monthly and yearly closings (CONTRACT section 13): sealed after each period ends in the shop's time
 * zone, chained, with the perpetual total. A period is the entries recorded in it; the tests place
 * entries in time by moving their recorded_at (not part of what is hashed) with the insert-only
 * trigger off, and seal as of a chosen time through fiscal_close_next(shop, now), which the hourly
 * task calls with the clock.
 */
const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

async function shopWithSales(timezone: string, totals: number[]): Promise<{ owner: ShopFixture; sales: any[] }> {
  const owner = await registerShop(api);
  await api.ownerSql`update shops set timezone = ${timezone} where id = ${owner.shop.id}`;
  const product = await createProduct(api, owner.token, { name: 'Riz 5 kg', price_xaf: 1_000, vat_rate: 19.25 }, 1_000);
  // The owner works at an open till: what a void or a refund pays back leaves its drawer.
  await openShift(api, owner.token);
  const sales = [];
  for (const total of totals) {
    sales.push(await sell(api, owner.token, { items: [{ product_id: product.id, quantity: total / 1_000 }], payments: cash(total) }));
  }
  return { owner, sales };
}

/** Places the shop's entries in time: entry n recorded at times[n - 1]. */
async function recordedAt(shopId: string, times: string[]): Promise<void> {
  await api.ownerSql.begin(async (sql) => {
    await sql`set local session_replication_role = replica`;
    for (const [i, time] of times.entries()) {
      await sql`update fiscal_entries set recorded_at = ${time}::timestamptz where shop_id = ${shopId} and chain_no = ${i + 1}`;
    }
  });
}

async function closeAll(shopId: string, now: string): Promise<string[]> {
  const made: string[] = [];
  for (;;) {
    const [row] = await api.ownerSql<{ closing: string | null }[]>`select fiscal_close_next(${shopId}, ${now}::timestamptz) as closing`;
    if (!row!.closing) return made;
    made.push(row!.closing);
  }
}

const closingsOf = (shopId: string) => api.ownerSql<any[]>`
  select c.period, c.starts_on::text, c.ends_on::text, c.first_chain_no::int, c.last_chain_no::int, c.total_xaf::int,
         c.cumulative_total_xaf::int, c.chain_no::int, c.last_hash, e.kind, e.hash
    from fiscal_closings c join fiscal_entries e on e.shop_id = c.shop_id and e.chain_no = c.chain_no
   where c.shop_id = ${shopId} order by c.chain_no`;

t.test('a month is closed once it has ended in the shop\'s time zone: the same instant is November in Douala and October in Abidjan', async (t) => {
  const douala = await shopWithSales('Africa/Douala', [3_000, 5_000]);
  const abidjan = await shopWithSales('Africa/Abidjan', [3_000, 5_000]);
  // 23:30 UTC on 31 October is 00:30 on 1 November in Douala (UTC+1), still 31 October in Abidjan (UTC).
  for (const { owner } of [douala, abidjan]) await recordedAt(owner.shop.id, ['2026-10-31T23:30:00Z', '2026-11-15T12:00:00Z']);

  t.same(await closeAll(douala.owner.shop.id, '2026-11-30T22:30:00Z'), [], 'Douala: November has not ended at 23:30 local');
  t.same(await closeAll(douala.owner.shop.id, '2026-11-30T23:30:00Z'), ['month 2026-11-01'], 'Douala: November is closed at 00:30 on 1 December local');
  t.same(await closeAll(abidjan.owner.shop.id, '2026-11-30T23:30:00Z'), ['month 2026-10-01'], 'Abidjan: October only, November ends an hour later');
  t.same(await closeAll(abidjan.owner.shop.id, '2026-12-01T00:30:00Z'), ['month 2026-11-01'], 'Abidjan: then November');

  const [doualaNovember] = await closingsOf(douala.owner.shop.id);
  t.match(doualaNovember, { period: 'month', starts_on: '2026-11-01', ends_on: '2026-11-30', first_chain_no: 1, last_chain_no: 2, total_xaf: 8_000, cumulative_total_xaf: 8_000 });
  const [october, november] = await closingsOf(abidjan.owner.shop.id);
  t.match(october, { starts_on: '2026-10-01', ends_on: '2026-10-31', first_chain_no: 1, last_chain_no: 1, total_xaf: 3_000, cumulative_total_xaf: 3_000 });
  // November's range starts after October's last entry and takes in October's closing entry (3), worth 0.
  t.match(november, { starts_on: '2026-11-01', first_chain_no: 2, total_xaf: 5_000, cumulative_total_xaf: 8_000 });
});

t.test('a closing is an entry of the chain: kind closing, its hash chained, and the last entry it covers named by its hash', async (t) => {
  const { owner } = await shopWithSales('Africa/Douala', [2_000]);
  await recordedAt(owner.shop.id, ['2026-09-10T10:00:00Z']);
  await closeAll(owner.shop.id, '2026-10-01T06:00:00Z');
  const [closing] = await closingsOf(owner.shop.id);
  t.equal(closing.kind, 'closing');
  t.equal(closing.chain_no, 2, 'appended after the sale');
  const [sale] = await api.ownerSql<{ hash: string }[]>`select hash from fiscal_entries where shop_id = ${owner.shop.id} and chain_no = 1`;
  t.equal(closing.last_hash, sale!.hash, 'names the hash of the last entry it covers');
  const [entry] = await api.ownerSql<{ previous_hash: string; content: string }[]>`
    select previous_hash, content from fiscal_entries where shop_id = ${owner.shop.id} and chain_no = 2`;
  t.equal(entry!.previous_hash, sale!.hash, 'chained to the entry before it');
  t.match(JSON.parse(entry!.content), { period: 'month', starts_on: '2026-09-01', ends_on: '2026-09-30', total_xaf: 2_000, cumulative_total_xaf: 2_000, last_chain_no: 1 });
});

t.test('months with nothing recorded are closed at 0, and a year is closed after its December, with the perpetual total', async (t) => {
  const { owner, sales } = await shopWithSales('Africa/Douala', [4_000, 6_000, 10_000]);
  t.equal((await voidSale(api, owner.token, sales[2].id)).status, 200);
  const refund = await refundSale(api, owner.token, sales[1].id, { method: 'cash', items: [{ sale_item_id: sales[1].items[0].id, quantity: 1 }] });
  t.equal(refund.status, 201);
  // Sales in October and December 2026; the void and the refund (entries 4 and 5) in January 2027.
  await recordedAt(owner.shop.id, ['2026-10-05T09:00:00Z', '2026-12-20T09:00:00Z', '2026-12-21T09:00:00Z', '2027-01-04T09:00:00Z', '2027-01-05T09:00:00Z']);

  const made = await closeAll(owner.shop.id, '2027-02-01T06:00:00Z');
  t.same(made, ['month 2026-10-01', 'month 2026-11-01', 'month 2026-12-01', 'year 2026-01-01', 'month 2027-01-01'], 'oldest first, the year after its December');
  const closings = await closingsOf(owner.shop.id);
  const by = (period: string, starts: string) => closings.find((c) => c.period === period && c.starts_on === starts);
  t.match(by('month', '2026-11-01'), { total_xaf: 0, cumulative_total_xaf: 4_000 }, 'an idle November at 0');
  t.match(by('month', '2026-12-01'), { total_xaf: 16_000, cumulative_total_xaf: 20_000 });
  t.match(by('year', '2026-01-01'), { ends_on: '2026-12-31', first_chain_no: 1, last_chain_no: 3, total_xaf: 20_000, cumulative_total_xaf: 20_000 });
  t.match(by('month', '2027-01-01'), { total_xaf: -11_000, cumulative_total_xaf: 9_000 }, 'the void and the refund take back what they gave');
  t.same(await closeAll(owner.shop.id, '2027-02-01T06:00:00Z'), [], 'nothing more is due');
});

t.test('sealed closings never change: the owner can neither update nor delete them', async (t) => {
  const { owner } = await shopWithSales('Africa/Douala', [1_000]);
  await recordedAt(owner.shop.id, ['2026-08-10T10:00:00Z']);
  await closeAll(owner.shop.id, '2026-09-01T06:00:00Z');
  await t.rejects(api.ownerSql`update fiscal_closings set total_xaf = 0 where shop_id = ${owner.shop.id}`, /insert-only/);
  await t.rejects(api.ownerSql`delete from fiscal_closings where shop_id = ${owner.shop.id}`, /insert-only/);
});

t.test('two workers closing the same shop at once make each closing once', async (t) => {
  const { owner } = await shopWithSales('Africa/Douala', [1_000, 2_000]);
  await recordedAt(owner.shop.id, ['2026-06-10T10:00:00Z', '2026-07-10T10:00:00Z']);
  const runs = await Promise.all(Array.from({ length: 4 }, () => closeAll(owner.shop.id, '2026-09-01T06:00:00Z')));
  t.same(runs.flat().sort(), ['month 2026-06-01', 'month 2026-07-01', 'month 2026-08-01']);
  const closings = await closingsOf(owner.shop.id);
  t.equal(closings.length, 3);
  t.same(closings.map((c) => c.chain_no), [3, 4, 5], 'one entry each, no gap');
});

t.test('the hourly task closes every ended month of every shop in a real graphile-worker', async (t) => {
  t.match(CRONTAB, /^25 \* \* \* \* fiscal__close_periods \?id=fiscal_close_periods&fill=1d$/m);
  await startMailWorker(t, api, await startMailbox(t));
  const { owner } = await shopWithSales('Africa/Douala', [7_000]);
  // Recorded about two months ago: that month and the next have ended, this one has not.
  const [row] = await api.ownerSql<{ at: string; first: string; second: string }[]>`
    select (now() - interval '62 days')::text as at,
           to_char(date_trunc('month', (now() - interval '62 days') at time zone 'Africa/Douala'), 'YYYY-MM-DD') as first,
           to_char(date_trunc('month', (now() - interval '62 days') at time zone 'Africa/Douala') + interval '1 month', 'YYYY-MM-DD') as second`;
  await recordedAt(owner.shop.id, [row!.at]);
  await api.ownerSql`select graphile_worker.add_job('fiscal__close_periods', '{}'::json)`;
  await waitFor(async () => {
    const [jobs] = await api.ownerSql<{ n: number; error: string | null }[]>`
      select count(*)::int as n, max(last_error) as error from graphile_worker.jobs where task_identifier = 'fiscal__close_periods'`;
    if (jobs!.error) throw new Error(`the closing job failed: ${jobs!.error}`);
    return jobs!.n === 0;
  }, 'the closing job');
  const closings = await closingsOf(owner.shop.id);
  t.same(closings.filter((c) => c.period === 'month').map((c) => c.starts_on).slice(0, 2), [row!.first, row!.second]);
  t.equal(closings[0].total_xaf, 7_000);
});
