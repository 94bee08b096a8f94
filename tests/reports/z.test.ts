import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { moneyTakenIn } from '../../api/reports/z.ts';
import { SCHEMA_DIR } from '../../db/migrate.ts';
import { CRONTAB } from '../../worker/worker.ts';
import { addStaff, createProduct, expireSubscription, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { openShift, refundSale, sell, voidSale } from '../sales/sale-fixtures.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { backdate as backdateShop, journalByDay, seal as sealDays, shopDay as dayOf } from './report-fixtures.ts';

/**
 * The Z (GET /reports/z) and its nightly sealing (report__seal_z in a real graphile-worker). Days
 * past are made by moving a shop's records back in time (report-fixtures.ts): the service itself
 * only ever writes "now".
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const shopDay = (shopId: string, offset = 0) => dayOf(api, shopId, offset);
const backdate = (shopId: string, days: number) => backdateShop(api, shopId, days);
const seal = (times = 1) => sealDays(api, times);

const z = (token: string, date?: string) => api.request('GET', `/reports/z${date ? `?date=${date}` : ''}`, { token });

/** What the journal posted to `account` (credit minus debit) on the shop's day. */
const journalNet = async (shopId: string, account: string, day: string) => (await journalByDay(api, shopId, account)).get(day) ?? 0;

async function zShop(locale: 'fr' | 'en' = 'fr') {
  const owner = await registerShop(api, { shop_name: 'Quincaillerie du Port' });
  await api.ownerSql`update shops set locale = ${locale} where id = ${owner.shop.id}`;
  const cashier = await addStaff(api, owner, 'cashier');
  const manager = await addStaff(api, owner, 'manager');
  const taxed = await createProduct(api, owner.token, { name: 'Ciment', price_xaf: 5_000, vat_rate: 19.25 }, 1_000);
  const free = await createProduct(api, owner.token, { name: 'Sable', price_xaf: 2_000, vat_rate: 0 }, 1_000);
  return { owner, cashier, manager, taxed, free };
}

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

t.test('the sealing task is on the crontab, hourly, with a pinned id and a day of backfill', async (t) => {
  t.match(CRONTAB, /^10 \* \* \* \* report__seal_z \?id=report_seal_z&fill=1d$/m);
});

t.test('today\'s Z is live: the day\'s sales, voids, refunds, payments by method, cash movements, expenses and cashiers', async (t) => {
  const { owner, cashier, taxed, free } = await zShop();
  await openShift(api, owner.token);
  const a = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 2 }, { product_id: free.id, quantity: 1 }], payments: cash(15_000) });
  const b = await sell(api, cashier.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: [{ method: 'carrier1_momo', amount_xaf: 5_000 }] });
  t.equal((await voidSale(api, owner.token, b.id)).status, 200);
  const refund = await refundSale(api, owner.token, a.id, { method: 'cash', items: [{ sale_item_id: a.items[1].id, quantity: 1 }] });
  t.equal(refund.status, 201);
  t.equal((await api.request('POST', '/expenses', { token: owner.token, body: { category: 'transport', amount_xaf: 1_500, payment_method: 'cash' } })).status, 201);
  t.equal((await api.request('POST', '/shift/cash', { token: owner.token, body: { direction: 'in', amount_xaf: 10_000, reason: 'Fonds de caisse' } })).status, 201);

  const reply = await z(owner.token);
  t.equal(reply.status, 200);
  const day = reply.body.data;
  t.equal(day.date, await shopDay(owner.shop.id));
  t.match(day, { sealed: false, z_no: null, first_receipt_no: a.receipt_no, last_receipt_no: b.receipt_no });
  t.strictSame(day.sales, { count: 2, gross_xaf: 17_000, discounts_xaf: 0, total_xaf: 17_000, vat_xaf: a.vat_xaf + b.vat_xaf });
  t.strictSame(day.voids, { count: 1, total_xaf: 5_000, vat_xaf: b.vat_xaf });
  t.strictSame(day.refunds, { count: 1, total_xaf: 2_000, vat_xaf: 0 });
  t.equal(day.net_total_xaf, 17_000 - 5_000 - 2_000);
  t.strictSame(day.payments, [{ method: 'carrier1_momo', amount_xaf: 0 }, { method: 'cash', amount_xaf: 15_000 - 3_000 - 2_000 }], 'cash: paid less change less the refund; momo given back by the void');
  t.strictSame(day.vat_per_rate, [
    { rate: 0, base_xaf: 0, vat_xaf: 0, total_xaf: 0 },
    { rate: 19.25, base_xaf: 10_000 - a.vat_xaf, vat_xaf: a.vat_xaf, total_xaf: 10_000 },
  ]);
  t.strictSame(day.cash_movements, { count: 1, in_xaf: 10_000, out_xaf: 0 });
  t.strictSame(day.expenses, { count: 1, total_xaf: 1_500, per_method: { cash: 1_500 } });
  t.strictSame(day.cashiers.map((c: any) => [c.user_id, c.sales_count, c.total_xaf]).sort(), [[cashier.user.id, 1, 5_000], [owner.user.id, 1, 12_000]].sort());
  t.strictSame(day.late_sales, { count: 0, total_xaf: 0 });
  t.equal(day.grand_total_xaf, day.net_total_xaf, 'nothing sealed before: the grand total is today\'s');
});

t.test('the Z\'s net equals what the journal credits 701 for the day, and its VAT what it credits 4431', async (t) => {
  const { owner, taxed, free } = await zShop();
  const sales = [];
  for (let i = 1; i <= 4; i++) {
    sales.push(await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: i, discount_xaf: 37 * i }, { product_id: free.id, quantity: 1 }], payments: cash(40_000) }));
  }
  await voidSale(api, owner.token, sales[0].id);
  await refundSale(api, owner.token, sales[1].id, { method: 'cash', items: [{ sale_item_id: sales[1].items[0].id, quantity: 1 }] });
  const day = (await z(owner.token)).body.data;
  const today = await shopDay(owner.shop.id);
  t.equal(day.net_xaf, await journalNet(owner.shop.id, '701', today), '701');
  t.equal(day.vat_xaf, await journalNet(owner.shop.id, '4431', today), '4431');
  t.equal(day.vat_per_rate.reduce((sum: number, r: any) => sum + r.vat_xaf, 0), day.vat_xaf, 'the rates add up to the VAT');
});

t.test('sealing stores each ended day once: z_no 1, 2... for days with activity, the grand total cumulative, an idle day sealed without a Z', async (t) => {
  const { owner, taxed } = await zShop();
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 2);
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 3 }], payments: cash(15_000) });
  await backdate(owner.shop.id, 1);
  // Sales three days ago and yesterday; none two days ago; one today.
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 2 }], payments: cash(10_000) });
  const [d3, d2, d1, d0] = [await shopDay(owner.shop.id, -3), await shopDay(owner.shop.id, -2), await shopDay(owner.shop.id, -1), await shopDay(owner.shop.id)];
  await seal();
  const first = (await z(owner.token, d3)).body.data;
  t.match(first, { date: d3, sealed: true, z_no: 1, net_total_xaf: 5_000, grand_total_xaf: 5_000 });
  t.ok(first.sealed_at, 'sealed_at');
  const idle = (await z(owner.token, d2)).body.data;
  t.match(idle, { sealed: true, z_no: null, net_total_xaf: 0 });
  t.match((await z(owner.token, d1)).body.data, { sealed: true, z_no: 2, net_total_xaf: 15_000, grand_total_xaf: 20_000 });
  t.match((await z(owner.token, d0)).body.data, { sealed: false, z_no: null, net_total_xaf: 10_000, grand_total_xaf: 30_000 }, 'today is not sealed');
  const rows = await api.ownerSql<{ day: string; z_no: number }[]>`select day::text, z_no::int from z_reports where shop_id = ${owner.shop.id} order by day`;
  t.strictSame([...rows], [{ day: d3, z_no: 1 }, { day: d1, z_no: 2 }]);
});

t.test('the task run again, or by two workers at once, seals each day once', async (t) => {
  // A second graphile-worker beside the file's: the three jobs race across both.
  await startMailWorker(t, api, mailbox);
  const { owner, taxed } = await zShop();
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 1);
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 1);
  await seal(3);
  await seal();
  const rows = await api.ownerSql<{ z_no: number }[]>`select z_no::int from z_reports where shop_id = ${owner.shop.id} order by z_no`;
  t.strictSame(rows.map((row) => row.z_no), [1, 2]);
  const mails = mailbox.received.filter((mail) => mail.to.includes(owner.email));
  t.equal(mails.length, 2, 'one mail per Z');
});

t.test('a sealed Z never changes: a void or a refund today of a sealed day\'s sale goes into today\'s Z', async (t) => {
  const { owner, taxed } = await zShop();
  const old = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 2 }], payments: cash(10_000) });
  const other = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 1);
  await seal();
  const yesterday = await shopDay(owner.shop.id, -1);
  const before = (await z(owner.token, yesterday)).body.data;
  await openShift(api, owner.token);
  t.equal((await voidSale(api, owner.token, old.id)).status, 200);
  t.equal((await refundSale(api, owner.token, other.id, { method: 'cash', items: [{ sale_item_id: other.items[0].id, quantity: 1 }] })).status, 201);
  t.strictSame((await z(owner.token, yesterday)).body.data, before, 'the sealed Z is as it was');
  const today = (await z(owner.token)).body.data;
  t.match(today, { sales: { count: 0 }, voids: { count: 1, total_xaf: 10_000 }, refunds: { count: 1, total_xaf: 5_000 }, net_total_xaf: -15_000 });
  t.equal(today.grand_total_xaf, before.grand_total_xaf - 15_000);
});

t.test('a sale pushed by an offline till for a sealed day is reported in the next Z as a late sale; for a day not sealed, in its own', async (t) => {
  const { owner, taxed } = await zShop();
  const device = await pairDevice(api, owner.token);
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 2);
  await seal();
  const [d2, d1] = [await shopDay(owner.shop.id, -2), await shopDay(owner.shop.id, -1)];
  const sealedBefore = (await z(owner.token, d2)).body.data;
  // Yesterday is sealed too (without a Z: nothing happened); a sale made then and pushed now is late.
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
  const [made] = await api.ownerSql<{ day: string }[]>`
    select ((${hoursAgo(30)}::timestamptz at time zone timezone)::date)::text as day from shops where id = ${owner.shop.id}`;
  const madeOn = made!.day;
  const late = offlineSale(randomUUID(), taxed.id, 2, { created_at: hoursAgo(30), payments: cash(10_000) });
  const pushed = await push(api, { device: device.token }, { sales: [late] });
  t.equal(pushed.status, 200, JSON.stringify(pushed.body));
  t.ok([d2, d1].includes(madeOn), 'made on a sealed day');
  t.strictSame((await z(owner.token, madeOn)).body.data.sales.count, madeOn === d2 ? 1 : 0, 'its own day\'s Z does not change');
  t.strictSame((await z(owner.token, d2)).body.data, sealedBefore);
  const today = (await z(owner.token)).body.data;
  t.match(today, { sales: { count: 1, total_xaf: 10_000 }, late_sales: { count: 1, total_xaf: 10_000 } });
  await seal();
  t.match((await z(owner.token)).body.data, { sealed: false }, 'today is still open');
  // A sale of today pushed today is not late.
  const onTime = offlineSale(randomUUID(), taxed.id, 1, { payments: cash(5_000) });
  t.equal((await push(api, { device: device.token }, { sales: [onTime] })).status, 200);
  t.match((await z(owner.token)).body.data, { sales: { count: 2 }, late_sales: { count: 1 } });
});

t.test('days are the shop\'s: a sale at 23:30 local is in that day\'s Z, one at 00:30 in the next', async (t) => {
  const { owner, taxed } = await zShop();
  await api.ownerSql`update shops set timezone = 'Pacific/Kiritimati' where id = ${owner.shop.id}`;
  const late = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  const early = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 2 }], payments: cash(10_000) });
  const [d2, d1] = [await shopDay(owner.shop.id, -2), await shopDay(owner.shop.id, -1)];
  // Put them at 23:30 two days ago and 00:30 yesterday, local time (UTC+14).
  for (const [id, at] of [[late.id, `${d2} 23:30`], [early.id, `${d1} 00:30`]] as const) {
    await api.ownerSql`update sales set created_at = (${at}::timestamp at time zone 'Pacific/Kiritimati') where id = ${id}`;
    await api.ownerSql`update sale_payments set created_at = (${at}::timestamp at time zone 'Pacific/Kiritimati') where sale_id = ${id}`;
  }
  t.match((await z(owner.token, d2)).body.data, { sales: { count: 1, total_xaf: 5_000 } });
  t.match((await z(owner.token, d1)).body.data, { sales: { count: 1, total_xaf: 10_000 } });
});

t.test('the sealed Z is mailed to the owners, in the shop\'s language; managers and cashiers get none', async (t) => {
  const { owner, manager, cashier, taxed } = await zShop('en');
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await backdate(owner.shop.id, 1);
  await seal();
  const mail = await mailbox.next(owner.email);
  t.match(mail.subject, /Z no\. 1 of \d{2}\/\d{2}\/\d{4}$/);
  t.match(mail.text, /^1 sale: 5,000 FCFA$/m);
  t.match(mail.text, /^Cash: 5,000 FCFA$/m);
  t.strictSame(mailbox.received.filter((m) => m.to.includes(manager.email) || m.to.includes(cashier.email)), []);
});

t.test('the mailed Z names the payment methods as the shop does (payment_method_labels over its language\'s defaults)', async (t) => {
  const { owner, taxed } = await zShop('fr');
  const named = await api.request('PUT', '/shop', { token: owner.token, body: { payment_method_labels: { carrier2_money: 'Orange Money Pro' } } });
  t.equal(named.status, 200);
  await sell(api, owner.token, {
    items: [{ product_id: taxed.id, quantity: 2 }],
    payments: [{ method: 'carrier1_momo', amount_xaf: 4_000, reference: 'MP1' }, { method: 'carrier2_money', amount_xaf: 6_000, reference: 'OM1' }],
  });
  await backdate(owner.shop.id, 1);
  await seal();
  const mail = await mailbox.next(owner.email);
  t.match(mail.text, /^MTN MoMo : 4 000 FCFA$/m, 'the default name of the first carrier');
  t.match(mail.text, /^Orange Money Pro : 6 000 FCFA$/m, 'the shop\'s own name');
  t.notMatch(mail.text, /Mobile money/);
});

t.test('GET /reports/z: manager or owner, even with the subscription ended; a day is a real date not after today', async (t) => {
  const { owner, cashier, manager } = await zShop();
  t.equal((await z(manager.token)).status, 200);
  expectError(t, await z(cashier.token), 403, FORBIDDEN);
  expectInvalid(t, await z(owner.token, await shopDay(owner.shop.id, 1)), 'date', 'tomorrow');
  for (const bad of ['2026-02-30', '26-01-01', 'hier', '0000-01-01']) expectInvalid(t, await z(owner.token, bad), 'date', bad);
  t.match((await z(owner.token, '2001-01-01')).body.data, { sales: { count: 0 }, net_total_xaf: 0 }, 'a day before the shop: nothing');
  await expireSubscription(api, owner.shop.id);
  t.equal((await z(owner.token)).status, 200);
});

t.test('a shop\'s Z shows only its own records', async (t) => {
  const one = await zShop();
  const other: ShopFixture = await registerShop(api);
  await sell(api, one.owner.token, { items: [{ product_id: one.taxed.id, quantity: 1 }], payments: cash(5_000) });
  t.match((await z(other.token)).body.data, { sales: { count: 0 }, net_total_xaf: 0, cashiers: [] });
});

t.test('the report facts stored when a day is sealed are the ones computed live for that day, net of its voids and refunds', async (t) => {
  const { owner, cashier, taxed, free } = await zShop();
  await openShift(api, owner.token);
  const a = await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 3 }, { product_id: free.id, quantity: 2 }], payments: cash(20_000) });
  const b = await sell(api, cashier.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: [{ method: 'card', amount_xaf: 5_000 }] });
  await sell(api, cashier.token, { items: [{ name: 'Livraison', unit_price_xaf: 1_000, quantity: 1 }], payments: cash(1_000) });
  await voidSale(api, owner.token, b.id);
  await refundSale(api, owner.token, a.id, { method: 'cash', items: [{ sale_item_id: a.items[0].id, quantity: 1 }] });
  await backdate(owner.shop.id, 1);
  const day = await shopDay(owner.shop.id, -1);
  const live = async () =>
    api.ownerSql.begin(async (sql) => {
      await sql`select set_config('app.shop_id', ${owner.shop.id}, true)`;
      return [...(await sql`select kind, key, count::int, quantity::float8, total_xaf::int, vat_xaf::int, cost_xaf::int from report_day_facts(${day}::date) order by kind, key`)];
    });
  const before = await live();
  await seal();
  const stored = [...(await api.ownerSql`
    select kind, key, count::int, quantity::float8, total_xaf::int, vat_xaf::int, cost_xaf::int from report_facts
     where shop_id = ${owner.shop.id} and day = ${day}::date order by kind, key`)];
  t.strictSame(stored, before);
  t.strictSame(await live(), before, 'and they do not move once sealed');
  const product = (key: string) => stored.find((row) => row.kind === 'product' && row.key === key);
  t.match(product(taxed.id), { quantity: 3 - 1, total_xaf: 10_000 }, 'Ciment: 3 sold, 1 voided with its sale, 1 refunded');
  t.match(product(''), { quantity: 1, total_xaf: 1_000 }, 'the line without a product');
  const methods = Object.fromEntries(stored.filter((row) => row.kind === 'method').map((row) => [row.key, row.total_xaf]));
  t.strictSame(methods, { card: 0, cash: 20_000 - 1_000 - 5_000 + 1_000 }, 'as the Z\'s payments');
});

t.test('an expense or a cash movement recorded for a sealed day is reported in the next Z; that day\'s Z does not change', async (t) => {
  const { owner } = await zShop();
  await openShift(api, owner.token);
  await api.request('POST', '/expenses', { token: owner.token, body: { category: 'rent', amount_xaf: 50_000, payment_method: 'bank' } });
  await backdate(owner.shop.id, 2);
  await seal();
  const [d2, d1] = [await shopDay(owner.shop.id, -2), await shopDay(owner.shop.id, -1)];
  const sealed = (await z(owner.token, d2)).body.data;
  t.match(sealed, { sealed: true, z_no: 1, expenses: { count: 1, total_xaf: 50_000 } });
  // Recorded today for days already sealed: a backdated expense, and a till's cash movement of yesterday.
  const expense = await api.request('POST', '/expenses', { token: owner.token, body: { category: 'transport', amount_xaf: 2_000, payment_method: 'cash', spent_at: d2 } });
  t.equal(expense.status, 201, JSON.stringify(expense.body));
  const device = await pairDevice(api, owner.token);
  const yesterday = new Date(Date.now() - 26 * 3_600_000).toISOString();
  const pushed = await push(api, { device: device.token }, { cash_movements: [{ id: randomUUID(), direction: 'out', amount_xaf: 3_000, reason: 'Banque', created_at: yesterday, user_id: owner.user.id }] });
  t.equal(pushed.status, 200, JSON.stringify(pushed.body));
  t.match(pushed.body.data, { results: [{ status: 'applied' }] }, JSON.stringify(pushed.body));
  t.strictSame((await z(owner.token, d2)).body.data, sealed, 'the sealed Z is as it was');
  t.match((await z(owner.token, d1)).body.data, { expenses: { count: 0 }, cash_movements: { count: 0 } }, 'nor is the idle sealed day');
  t.match((await z(owner.token)).body.data, { expenses: { count: 1, total_xaf: 2_000 }, cash_movements: { count: 1, out_xaf: 3_000 } }, 'both in today\'s Z');
});

t.test('a sale a till dates before the shop opened is reported late, in today\'s Z, before any sealing', async (t) => {
  const { owner, taxed } = await zShop();
  const device = await pairDevice(api, owner.token);
  const yesterday = await shopDay(owner.shop.id, -1);
  const sale = offlineSale(randomUUID(), taxed.id, 1, { created_at: new Date(Date.now() - 30 * 3_600_000).toISOString(), payments: cash(5_000) });
  t.equal((await push(api, { device: device.token }, { sales: [sale] })).status, 200);
  const [stored] = await api.ownerSql<{ reported_on: string | null }[]>`select reported_on::text from sales where id = ${sale.id}`;
  t.equal(stored!.reported_on, await shopDay(owner.shop.id), 'reported today');
  t.match((await z(owner.token)).body.data, { sales: { count: 1 }, late_sales: { count: 1, total_xaf: 5_000 } });
  t.equal((await z(owner.token, yesterday)).body.data.sales.count, 0, 'the day before the shop opened has no sales');
  const summary = (await api.request('GET', `/reports/sales-summary?from=${yesterday}&to=${await shopDay(owner.shop.id)}`, { token: owner.token })).body.data;
  t.equal(summary.totals.sales_count, 1, 'counted once, today');
});

/** A credit sale of `amount` to a new customer of the shop, then what the customer pays on it now. */
async function creditSaleAndSettlement(owner: ShopFixture, productId: string, settlements: { method: string; amount_xaf: number }[]) {
  const customer = (await api.request('POST', '/customers', { token: owner.token, body: { name: 'Client Ngono', credit_ceiling_xaf: 1_000_000 } })).body.data;
  await sell(api, owner.token, { customer_id: customer.id, items: [{ product_id: productId, quantity: 10 }], payments: [{ method: 'credit', amount_xaf: 50_000 }] });
  for (const settlement of settlements) {
    const reply = await api.request('POST', `/customers/${customer.id}/payments`, { token: owner.token, body: settlement });
    if (reply.status !== 201) throw new Error(`settlement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return customer;
}

t.test('what customers pay on their accounts is in the Z per method, live and once sealed, and in the sales summary', async (t) => {
  const { owner, taxed } = await zShop();
  await openShift(api, owner.token);
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await creditSaleAndSettlement(owner, taxed.id, [{ method: 'carrier1_momo', amount_xaf: 25_000 }, { method: 'cash', amount_xaf: 4_000 }, { method: 'cash', amount_xaf: 1_000 }]);
  const live = (await z(owner.token)).body.data;
  t.strictSame(live.settlements, [{ method: 'carrier1_momo', amount_xaf: 25_000 }, { method: 'cash', amount_xaf: 5_000 }]);
  t.strictSame(live.payments, [{ method: 'cash', amount_xaf: 5_000 }, { method: 'credit', amount_xaf: 50_000 }], 'payments stay the sales\' own');
  t.strictSame(moneyTakenIn(live), [{ method: 'carrier1_momo', amount_xaf: 25_000 }, { method: 'cash', amount_xaf: 10_000 }], 'money taken in: payments less credit, plus settlements');
  await backdate(owner.shop.id, 1);
  await seal();
  const yesterday = await shopDay(owner.shop.id, -1);
  const sealed = (await z(owner.token, yesterday)).body.data;
  t.equal(sealed.sealed, true);
  t.strictSame(sealed.settlements, live.settlements, 'the sealed Z keeps them');
  const summary = (await api.request('GET', `/reports/sales-summary?from=${yesterday}&to=${yesterday}`, { token: owner.token })).body.data;
  t.strictSame(summary.settlements, live.settlements, 'the sales summary adds them up from the Zs');
  const [facts] = await api.ownerSql<{ total: string }[]>`select sum(total_xaf)::text as total from report_facts where shop_id = ${owner.shop.id} and kind = 'settlement'`;
  t.equal(Number(facts!.total), 30_000, 'and the stored facts');
});

t.test('a day whose only activity is a settlement is sealed with a Z', async (t) => {
  const { owner, taxed } = await zShop();
  await creditSaleAndSettlement(owner, taxed.id, []);
  await backdate(owner.shop.id, 2);
  const customer = (await api.request('GET', '/customers', { token: owner.token })).body.data[0];
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: owner.token, body: { method: 'carrier2_money', amount_xaf: 7_000 } })).status, 201);
  await backdate(owner.shop.id, 1);
  await seal(2);
  const day = (await z(owner.token, await shopDay(owner.shop.id, -1))).body.data;
  t.match(day, { sealed: true, z_no: 2, sales: { count: 0 }, settlements: [{ method: 'carrier2_money', amount_xaf: 7_000 }] });
});

t.test('a cash settlement taken at an open drawer is in its expected cash, and the till counted right closes at 0', async (t) => {
  const { owner, cashier, taxed } = await zShop();
  const customer = await creditSaleAndSettlement(owner, taxed.id, []);
  await openShift(api, cashier.token);
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: cashier.token, body: { method: 'cash', amount_xaf: 12_000 } })).status, 201);
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: cashier.token, body: { method: 'carrier1_momo', amount_xaf: 3_000 } })).status, 201);
  const drawer = (await api.request('GET', '/shift', { token: cashier.token })).body.data;
  t.match(drawer.totals, { cash_settlements_xaf: 12_000, expected_cash_xaf: 12_000, by_method: { cash: 12_000, carrier1_momo: 3_000 } });
  const closed = (await api.request('POST', '/shift/close', { token: cashier.token, body: { counted_cash_xaf: 12_000 } })).body.data;
  t.equal(closed.difference_xaf, 0);
});

t.test('the mailed Z lists money taken in per method with the settlements, and credit sales apart', async (t) => {
  const { owner, taxed } = await zShop('fr');
  await openShift(api, owner.token);
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await creditSaleAndSettlement(owner, taxed.id, [{ method: 'carrier1_momo', amount_xaf: 250_000 - 200_000 }]);
  await backdate(owner.shop.id, 1);
  await seal();
  const mail = await mailbox.next(owner.email);
  t.match(mail.text, /^Espèces : 5 000 FCFA$/m);
  t.match(mail.text, /^MTN MoMo : 50 000 FCFA$/m, 'the settlement is money taken in by MoMo');
  t.match(mail.text, /dont règlements des comptes clients : 50 000 FCFA/);
  t.match(mail.text, /Vendu à crédit sur les comptes clients \(non encaissé\) : 50 000 FCFA/, 'credit sales apart');
  t.notMatch(mail.text, /^Compte client/m, 'not among the money taken in');
});

t.test('migration 0033 gives a Z sealed before it its settlements and the day\'s settlement facts, and changes none of its other figures', async (t) => {
  const { owner, taxed } = await zShop();
  await sell(api, owner.token, { items: [{ product_id: taxed.id, quantity: 1 }], payments: cash(5_000) });
  await creditSaleAndSettlement(owner, taxed.id, [{ method: 'carrier1_momo', amount_xaf: 20_000 }, { method: 'card', amount_xaf: 3_000 }]);
  await backdate(owner.shop.id, 1);
  await seal();
  const [sealed] = await api.ownerSql<{ report: Record<string, unknown> }[]>`select report from z_reports where shop_id = ${owner.shop.id}`;
  // As a Z sealed before the migration: no settlements key, no settlement facts.
  await api.ownerSql`update z_reports set report = report - 'settlements' where shop_id = ${owner.shop.id}`;
  await api.ownerSql`delete from report_facts where shop_id = ${owner.shop.id} and kind = 'settlement'`;
  const migration = readFileSync(path.join(SCHEMA_DIR, 'migrations', '0033_settlements_in_the_z.sql'), 'utf8');
  await api.ownerSql.unsafe(migration.slice(migration.indexOf('-- Days already sealed.')));
  const [after] = await api.ownerSql<{ report: Record<string, unknown> }[]>`select report from z_reports where shop_id = ${owner.shop.id}`;
  t.strictSame(after!.report, sealed!.report, 'the stored Z as the sealing wrote it, settlements included, every other figure unchanged');
  const facts = await api.ownerSql<{ key: string; total_xaf: string }[]>`
    select key, total_xaf::text from report_facts where shop_id = ${owner.shop.id} and kind = 'settlement' order by key`;
  t.strictSame(facts.map((f) => [f.key, Number(f.total_xaf)]), [['card', 3_000], ['carrier1_momo', 20_000]]);
});
