import t from 'tap';
import { registerShop, type ShopFixture } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { openShift, readSale, refundSale, sell, staffedShop } from '../sales/sale-fixtures.ts';
import { expectError, FORBIDDEN } from '../support/replies.ts';
import { backdate, seal, shopDay } from '../reports/report-fixtures.ts';
import { chainHash, fiscalEntries, integrity, tamper, type FiscalEntry } from './fiscal-fixtures.ts';

/**
 * CONTRACT section 13, the integrity check (GET /fiscal/integrity): every entry recomputed from the
 * business records as they are now, and the chain from its hashes. Untouched data is whole; each way
 * of tampering, done as the database's owner straight in the tables, is found and named, each in a
 * shop of its own.
 */
const api = await startService(t);
// The nightly sealing of Zs, in a real graphile-worker (the Z mails queue and stay).
await startMailWorker(t, api, await startMailbox(t));

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

interface History {
  owner: ShopFixture;
  /** Entry 1: two lines, paid by card and in cash. Entry 2: one line. Entry 3: a refund of part of the second. Entry 4: a sale. */
  sales: any[];
  refund: any;
  entries: FiscalEntry[];
}

/** A fresh shop with four entries: two sales, a refund of the second, a third sale. */
async function history(): Promise<History> {
  const owner = await registerShop(api);
  await openShift(api, owner.token);
  const first = await sell(api, owner.token, {
    items: [{ name: 'Ciment', quantity: 2, unit_price_xaf: 5_000, vat_rate: 19.25 }, { name: 'Huile', quantity: 1, unit_price_xaf: 1_250, vat_rate: 5.5 }],
    payments: [{ method: 'card', amount_xaf: 6_000, reference: 'TPE-1' }, { method: 'cash', amount_xaf: 5_250 }],
  });
  const second = await sell(api, owner.token, { items: [{ name: 'Riz', quantity: 4, unit_price_xaf: 700, vat_rate: 0 }], payments: cash(2_800) });
  const refunded = await refundSale(api, owner.token, second.id, { method: 'cash', reason: 'Abîmé', items: [{ sale_item_id: second.items[0].id, quantity: 1 }] });
  if (refunded.status !== 201) throw new Error(`refund failed: ${refunded.status} ${JSON.stringify(refunded.body)}`);
  const third = await sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150, vat_rate: 0 }], payments: cash(150) });
  return { owner, sales: [first, await readSale(api, owner.token, second.id), third], refund: refunded.body.data.refunds.at(-1), entries: await fiscalEntries(api, owner.shop.id) };
}

const broken = (entry: FiscalEntry, reason: string) => ({ chain_no: entry.chain_no, kind: entry.kind, ref_id: entry.ref_id, reason });

t.test('untouched data is whole: ok, nothing broken, every entry checked, the first and last named with their hashes', async (t) => {
  // Sales, a refund, then a day sealed into a Z, a void and a sale of today.
  const { owner, sales, entries: before } = await history();
  await backdate(api, owner.shop.id, 1);
  await seal(api);
  const voided = await api.request('POST', `/sales/${sales[0].id}/void`, { token: owner.token, body: { reason: 'Erreur' } });
  t.equal(voided.status, 200);
  await sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  const entries = await fiscalEntries(api, owner.shop.id);
  t.strictSame(entries.map((entry) => entry.kind), [...before.map((entry) => entry.kind), 'z', 'void', 'sale'], 'every kind of record is in it');
  t.strictSame(await integrity(api, owner.token), {
    ok: true,
    checked: entries.length,
    first: { chain_no: 1, hash: entries[0]!.hash },
    last: { chain_no: entries.length, hash: entries.at(-1)!.hash },
    broken: [],
    broken_count: 0,
  });
  const empty = await registerShop(api);
  t.strictSame(await integrity(api, empty.token), { ok: true, checked: 0, first: null, last: null, broken: [], broken_count: 0 }, 'a shop that recorded nothing yet');
});

t.test('a unit price changed in sale_items is found: content_changed on that sale\'s entry', async (t) => {
  const { owner, sales, entries } = await history();
  await api.ownerSql`update sale_items set unit_price_xaf = 4000 where id = ${sales[0].items[0].id}`;
  t.strictSame(await integrity(api, owner.token), { ok: false, checked: 4, first: { chain_no: 1, hash: entries[0]!.hash }, last: { chain_no: 4, hash: entries[3]!.hash }, broken: [broken(entries[0]!, 'content_changed')], broken_count: 1 });
});

t.test('a payment amount changed in sale_payments is found: content_changed on that sale\'s entry', async (t) => {
  const { owner, sales, entries } = await history();
  await api.ownerSql`update sale_payments set amount_xaf = 5000 where sale_id = ${sales[0].id} and method = 'card'`;
  t.strictSame((await integrity(api, owner.token)).broken, [broken(entries[0]!, 'content_changed')]);
});

t.test('a line deleted from sale_items is found: content_changed on that sale\'s entry', async (t) => {
  const { owner, sales, entries } = await history();
  await tamper(api, (sql) => sql`delete from sale_items where id = ${sales[0].items[1].id}`);
  t.strictSame((await integrity(api, owner.token)).broken, [broken(entries[0]!, 'content_changed')]);
});

t.test('a refund deleted (its lines and its row) is found: record_missing on the refund\'s entry', async (t) => {
  const { owner, refund, entries } = await history();
  await tamper(api, async (sql) => {
    await sql`delete from refund_items where refund_id = ${refund.id}`;
    await sql`delete from refunds where id = ${refund.id}`;
  });
  const refundEntry = entries.find((entry) => entry.kind === 'refund')!;
  t.equal(refundEntry.ref_id, refund.id);
  t.strictSame((await integrity(api, owner.token)).broken, [broken(refundEntry, 'record_missing')]);
});

t.test('an entry\'s hash edited is found: hash_mismatch on it, and on the next entry, whose link no longer holds', async (t) => {
  const { owner, entries } = await history();
  await tamper(api, (sql) => sql`update fiscal_entries set hash = ${chainHash('', 'forged')} where shop_id = ${owner.shop.id} and chain_no = 2`);
  t.strictSame((await integrity(api, owner.token)).broken, [broken(entries[1]!, 'hash_mismatch'), broken(entries[2]!, 'hash_mismatch')]);
});

t.test('an entry\'s content edited is found: content_changed on it', async (t) => {
  const { owner, sales, entries } = await history();
  const total = `"total_xaf":${sales[1].total_xaf},"vat_xaf"`;
  t.ok(entries[1]!.content.includes(total), 'the sale\'s total is in its content');
  await tamper(api, (sql) => sql`
    update fiscal_entries set content = replace(content, ${total}, ${`"total_xaf":${sales[1].total_xaf - 700},"vat_xaf"`})
     where shop_id = ${owner.shop.id} and chain_no = 2`);
  t.strictSame((await integrity(api, owner.token)).broken, [broken(entries[1]!, 'content_changed')]);
});

t.test('an entry deleted with the trigger disabled is found: missing_entry at its chain_no, naming the sale that lost it', async (t) => {
  const { owner, sales, entries } = await history();
  await api.ownerSql.begin(async (sql) => {
    await sql`alter table fiscal_entries disable trigger fiscal_entries_insert_only`;
    await sql`delete from fiscal_entries where shop_id = ${owner.shop.id} and chain_no in (2, 4)`;
    await sql`alter table fiscal_entries enable trigger fiscal_entries_insert_only`;
  });
  t.strictSame(await integrity(api, owner.token), {
    ok: false,
    checked: 2,
    first: { chain_no: 1, hash: entries[0]!.hash },
    last: { chain_no: 3, hash: entries[2]!.hash },
    broken: [
      { chain_no: 2, kind: 'sale', ref_id: sales[1].id, reason: 'missing_entry' },
      { chain_no: 4, kind: 'sale', ref_id: sales[2].id, reason: 'missing_entry' },
    ],
    broken_count: 2,
  }, 'one inside the chain, one at its end (the counter knows its length)');
});

t.test('from and to select the entries recorded in those days of the shop\'s time zone; a day with none is whole with nothing checked', async (t) => {
  // A time zone whose day is not UTC's now: Kiribati's is a day ahead from 10:00 UTC, American Samoa's a day behind until 11:00.
  const owner = await registerShop(api);
  await api.ownerSql`update shops set timezone = ${new Date().getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago'} where id = ${owner.shop.id}`;
  const sale = () => sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  await sale();
  await sale();
  await backdate(api, owner.shop.id, 2);
  for (let i = 0; i < 3; i++) await sale();
  const entries = await fiscalEntries(api, owner.shop.id);
  const [today, yesterday, twoDaysAgo, threeDaysAgo] = await Promise.all([0, -1, -2, -3].map((offset) => shopDay(api, owner.shop.id, offset)));
  const utcToday = new Date().toISOString().slice(0, 10);
  t.not(utcToday, today, 'the shop\'s day is not UTC\'s');
  const span = (from: number, to: number) => ({ first: { chain_no: from, hash: entries[from - 1]!.hash }, last: { chain_no: to, hash: entries[to - 1]!.hash } });

  t.strictSame(await integrity(api, owner.token, { from: twoDaysAgo, to: twoDaysAgo }), { ok: true, checked: 2, ...span(1, 2), broken: [], broken_count: 0 }, 'two days ago: entries 1 and 2');
  t.strictSame(await integrity(api, owner.token, { from: today, to: today }), { ok: true, checked: 3, ...span(3, 5), broken: [], broken_count: 0 }, 'today: entries 3 to 5');
  t.strictSame(await integrity(api, owner.token, { from: twoDaysAgo, to: today }), { ok: true, checked: 5, ...span(1, 5), broken: [], broken_count: 0 }, 'both');
  t.strictSame(await integrity(api, owner.token, { from: today }), { ok: true, checked: 3, ...span(3, 5), broken: [], broken_count: 0 }, 'from today on');
  t.strictSame(await integrity(api, owner.token, { to: twoDaysAgo }), { ok: true, checked: 2, ...span(1, 2), broken: [], broken_count: 0 }, 'up to two days ago');
  const none = { ok: true, checked: 0, first: null, last: null, broken: [], broken_count: 0 };
  t.strictSame(await integrity(api, owner.token, { from: yesterday, to: yesterday }), none, 'yesterday: none');
  t.strictSame(await integrity(api, owner.token, { from: utcToday, to: utcToday }), none, 'UTC\'s today, a day the shop recorded nothing');
  t.strictSame(await integrity(api, owner.token, { to: threeDaysAgo }), none, 'up to a day before the first entry: none');

  await api.ownerSql`update sale_items set unit_price_xaf = 100 where sale_id = ${entries[0]!.ref_id}`;
  t.strictSame((await integrity(api, owner.token, { from: twoDaysAgo, to: twoDaysAgo })).broken, [broken(entries[0]!, 'content_changed')], 'a record changed is found in its day');
  t.equal((await integrity(api, owner.token, { from: today, to: today })).ok, true, 'and not in another');
});

t.test('the check is the managers\' and the owner\'s: a cashier gets 403', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  await sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  for (const [who, token] of [['the owner', owner.token], ['a manager', manager.token]] as const) {
    t.match(await integrity(api, token), { ok: true, checked: 1 }, who);
  }
  expectError(t, await api.request('GET', '/fiscal/integrity', { token: cashier.token }), 403, FORBIDDEN, 'a cashier');
});
