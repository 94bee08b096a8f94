import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import t from 'tap';
import { migrate } from '../../db/migrate.ts';
import { migrationFilesOfCommit, schemaOfCommit } from '../support/old-release.ts';
import { scratchDatabase } from '../support/schema.ts';
import { chainFaults, chainHash, type FiscalEntry } from './fiscal-fixtures.ts';

/**
 * Migration 0036 chains the history of the shops that existed before the fiscal chain
 * (fiscal_backfill, CONTRACT section 13): a database made by the release before it, with sales,
 * offline sales, a sealed Z, voids and refunds recorded by that release's own SQL, comes out of the
 * upgrade with every record where it was and each shop's history as a sound chain the head carries on.
 */

/** The last commit before the chain: its db/migrations end at 0035. */
const RELEASE_BEFORE_THE_CHAIN = '17f1d28';

type Kind = FiscalEntry['kind'];
const DAY_MS = 86_400_000;

/** A shop of the old release: its owner, two products, and the records it made, in the order made. */
interface OldShop {
  id: string;
  name: string;
  userId: string;
  products: { id: string; price: number }[];
  made: { kind: Kind; id: string }[];
  sales: string[];
  refunds: string[];
}

/** The tables whose rows the upgrade must keep, counted per shop. */
const COUNTED = ['sales', 'sale_items', 'sale_payments', 'refunds', 'refund_items', 'journal_entries', 'z_reports'] as const;

async function counts(sql: Sql, shopId: string): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of COUNTED) {
    const [row] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table} where shop_id = $1`, [shopId]);
    result[table] = row!.n;
  }
  return result;
}

t.test('a database of the release before the chain, with its history, is chained at the upgrade without losing a row', async (t) => {
  t.notOk(migrationFilesOfCommit(RELEASE_BEFORE_THE_CHAIN).some((file) => file.startsWith('0036_')), `${RELEASE_BEFORE_THE_CHAIN} is a release without the chain`);

  const db = await scratchDatabase(t);
  const old = await migrate(db.url, { dir: schemaOfCommit(t, RELEASE_BEFORE_THE_CHAIN) });
  t.equal(old.migrations.at(-1), '0035_till_clocks', 'migrated with the old release\'s migrations');
  t.ok(old.functions.includes('sales/sale_record.sql'), 'and its function files');
  const { sql } = db;

  /** One transaction as the shop's owner, as that release's app ran each request. */
  const as = <T>(shop: OldShop, work: (tx: Sql) => Promise<T>): Promise<T> =>
    sql.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shop.id}, true), set_config('app.user_id', ${shop.userId}, true)`;
      return work(tx as unknown as Sql);
    }) as Promise<T>;

  /** A shop opened three days ago (so that the worker has days to seal), its owner, two stocked products and an open shift. */
  async function openShop(name: string): Promise<OldShop> {
    const shop: OldShop = { id: randomUUID(), name, userId: randomUUID(), products: [], made: [], sales: [], refunds: [] };
    await sql`insert into shops (id, name, trial_ends_at, created_at) values (${shop.id}, ${name}, now() + interval '30 days', now() - interval '3 days')`;
    await sql`insert into users (id, shop_id, kind, role, name, email, password_hash)
              values (${shop.userId}, ${shop.id}, 'shop', 'owner', ${`Gérant ${name}`}, ${`owner-${shop.id}@example.com`}, 'not-a-real-hash')`;
    for (const [product, price, vat] of [['Savon Azur — 200 g', 450, '19.25'], ['Pâte dentifrice « Signal »', 1200, '0']] as const) {
      const id = randomUUID();
      await as(shop, async (tx) => {
        await tx`insert into products (id, shop_id, name, price_xaf, cost_xaf, vat_rate) values (${id}, ${shop.id}, ${product}, ${price}, ${Math.round(price * 0.6)}, ${vat})`;
        await tx`select stock_move(${id}, null, 'adjustment', 100, 'Stock initial', 'adjustment', null)`;
      });
      shop.products.push({ id, price });
    }
    await as(shop, (tx) => tx`select shift_open(20000)`);
    return shop;
  }

  /** A sale through that release's sale_record; offline ones happened `daysAgo` days back and are pushed now. */
  async function sale(shop: OldShop, quantities: [number, number], payments: { method: string; amount_xaf: number }[], daysAgo?: number): Promise<string> {
    const id = randomUUID();
    const body: Record<string, unknown> = {
      id,
      request_hash: `hash-${id}`,
      items: quantities.flatMap((quantity, i) => (quantity ? [{ product_id: shop.products[i]!.id, quantity }] : [])),
      payments,
      ...(daysAgo === undefined ? {} : { created_at: new Date(Date.now() - daysAgo * DAY_MS).toISOString() }),
    };
    await as(shop, (tx) => tx`select sale_record(${sql.json(body as never)}::jsonb, ${daysAgo !== undefined})`);
    shop.made.push({ kind: 'sale', id });
    shop.sales.push(id);
    return id;
  }

  async function voidSale(shop: OldShop, saleId: string): Promise<void> {
    await as(shop, (tx) => tx`select sale_void(${saleId}, 'Erreur de caisse')`);
    shop.made.push({ kind: 'void', id: saleId });
  }

  /** Gives back one unit of the sale's first line. */
  async function refund(shop: OldShop, saleId: string, method: string): Promise<void> {
    const id = await as(shop, async (tx) => {
      const [line] = await tx<{ id: string }[]>`select id from sale_items where sale_id = ${saleId} order by line_no limit 1`;
      const [row] = await tx<{ id: string }[]>`select sale_refund(${saleId}, ${method}, 'Produit abîmé', ${sql.json([{ sale_item_id: line!.id, quantity: 1 }] as never)}::jsonb) as id`;
      return row!.id;
    });
    shop.made.push({ kind: 'refund', id });
    shop.refunds.push(id);
  }

  /** What the worker did each night: seals every ended day, one transaction per day, as the owner role. */
  async function sealDays(shop: OldShop): Promise<void> {
    for (;;) {
      const [row] = await sql<{ day: string | null }[]>`select z_seal_next(${shop.id})::text as day`;
      if (!row!.day) break;
      const [z] = await sql<{ id: string }[]>`select id from z_reports where shop_id = ${shop.id} and day = ${row!.day}::date`;
      if (z) shop.made.push({ kind: 'z', id: z.id });
    }
  }

  // Two shops at work side by side, each request its own transaction (so each record its own time).
  const shops = [await openShop('Boutique Akwa'), await openShop('Épicerie Bonanjo')];
  const [akwa, bonanjo] = shops as [OldShop, OldShop];
  for (const shop of shops) await sale(shop, [2, 1], [{ method: 'cash', amount_xaf: 5000 }]);
  // Two days ago, offline: the tills pushed those sales today, before the nights were sealed.
  for (const shop of shops) await sale(shop, [3, 0], [{ method: 'carrier1_momo', amount_xaf: 1350 }], 2);
  await sale(akwa, [1, 2], [{ method: 'cash', amount_xaf: 1000 }, { method: 'card', amount_xaf: 1850 }], 2);
  for (const shop of shops) await sealDays(shop);
  // A till that was offline two days ago pushes after the Z of that day: reported in the next one.
  await sale(bonanjo, [0, 1], [{ method: 'cash', amount_xaf: 1200 }], 2);
  for (const shop of shops) await sale(shop, [1, 1], [{ method: 'cash', amount_xaf: 2000 }]);
  for (const shop of shops) await voidSale(shop, shop.sales.at(-1)!);
  for (const shop of shops) await refund(shop, shop.sales[0]!, 'cash');
  for (const shop of shops) await sale(shop, [4, 0], [{ method: 'carrier2_money', amount_xaf: 1800 }]);
  for (const shop of shops) await refund(shop, shop.sales[1]!, 'carrier1_momo');

  for (const shop of shops) {
    t.equal(shop.made.filter((record) => record.kind === 'z').length, 1, `${shop.name}: the day of the offline sales has its sealed Z`);
  }
  const before = new Map<string, Record<string, number>>();
  for (const shop of shops) before.set(shop.id, await counts(sql, shop.id));

  const upgrade = await migrate(db.url);
  t.ok(upgrade.migrations.includes('0036_fiscal_chain'), 'the upgrade applies 0036');

  for (const shop of shops) {
    await t.test(shop.name, async (t) => {
      t.same(await counts(sql, shop.id), before.get(shop.id), 'every row of its sales, lines, payments, refunds, journal and Zs is still there');

      const entries = (
        await sql<FiscalEntry[]>`
          select chain_no::int, kind, ref_id::text, occurred_at, recorded_at, amount_xaf::int, previous_hash, hash, content
            from fiscal_entries where shop_id = ${shop.id} order by chain_no`
      ).map((row) => ({ ...row }));
      const n = shop.made.length;
      const [sales, voids, refunds, zs] = (['sale', 'void', 'refund', 'z'] as const).map((kind) => shop.made.filter((record) => record.kind === kind).length);
      t.equal(n, sales! + voids! + refunds! + zs!, `n = ${sales} sales + ${voids} void + ${refunds} refunds + ${zs} Z`);
      t.same(entries.map((entry) => entry.chain_no), Array.from({ length: n }, (_, i) => i + 1), `entries 1..${n}, no gap`);
      t.same(entries.map((entry) => [entry.kind, entry.ref_id]), shop.made.map((record) => [record.kind, record.id]), 'one per record, in the order they were made');
      t.same(chainFaults(entries), [], 'each hash is sha256(previous hash + content), the first one\'s previous hash empty, every content canonical');

      const byKind = (kind: Kind) => new Map(entries.filter((entry) => entry.kind === kind).map((entry) => [entry.ref_id, entry.chain_no]));
      const saleRows = await sql<{ id: string; chain_no: number | null; void_chain_no: number | null; created_at: Date }[]>`
        select id::text, chain_no::int, void_chain_no::int, created_at from sales where shop_id = ${shop.id}`;
      t.same(Object.fromEntries(saleRows.map((row) => [row.id, row.chain_no])), Object.fromEntries(byKind('sale')), 'sales.chain_no names each sale\'s entry');
      t.same(Object.fromEntries(saleRows.filter((row) => row.void_chain_no !== null).map((row) => [row.id, row.void_chain_no])), Object.fromEntries(byKind('void')),
        'sales.void_chain_no names each void\'s entry, and only voided sales have one');
      const saleEntries = new Map(entries.filter((entry) => entry.kind === 'sale').map((entry) => [entry.ref_id, entry]));
      t.ok(saleRows.every((row) => saleEntries.get(row.id)?.occurred_at.getTime() === row.created_at.getTime()), 'a sale\'s entry keeps its own time, an offline sale\'s included');

      const refundRows = await sql<{ id: string; chain_no: number | null; credit_note_no: number | null }[]>`
        select id::text, chain_no::int, credit_note_no::int from refunds where shop_id = ${shop.id}`;
      t.same(Object.fromEntries(refundRows.map((row) => [row.id, row.chain_no])), Object.fromEntries(byKind('refund')), 'refunds.chain_no names each refund\'s entry');
      const creditNotes = Object.fromEntries(refundRows.map((row) => [row.id, row.credit_note_no]));
      t.same(shop.refunds.map((id) => creditNotes[id]), shop.refunds.map((_, i) => i + 1), 'credit notes 1..k in the order the refunds were made');
      const zRows = await sql<{ id: string; chain_no: number | null }[]>`select id::text, chain_no::int from z_reports where shop_id = ${shop.id}`;
      t.same(Object.fromEntries(zRows.map((row) => [row.id, row.chain_no])), Object.fromEntries(byKind('z')), 'z_reports.chain_no names each Z\'s entry');

      const [counter] = await sql<{ chain_no: number; chain_hash: string; chain_previous_hash: string; credit_note_no: number }[]>`
        select chain_no::int, chain_hash, chain_previous_hash, credit_note_no::int from receipt_counters where shop_id = ${shop.id}`;
      t.same(counter, { chain_no: n, chain_hash: entries.at(-1)!.hash, chain_previous_hash: entries.at(-2)!.hash, credit_note_no: shop.refunds.length },
        'the counter stands at the last entry, its hash and the last credit note');

      const integrity = await sql.begin(async (tx) => {
        await tx`select set_config('app.shop_id', ${shop.id}, true)`;
        const [row] = await tx<{ report: any }[]>`select fiscal_integrity(null, null) as report`;
        return row!.report;
      });
      t.match(integrity, { ok: true, checked: n, first: { chain_no: 1, hash: entries[0]!.hash }, last: { chain_no: n, hash: entries.at(-1)!.hash } },
        'the integrity check finds the backfilled chain sound');
      t.same([integrity.broken, integrity.broken_count], [[], 0], 'nothing broken');

      // The head's sale_record carries the chain on.
      const next = randomUUID();
      const body = { id: next, request_hash: `hash-${next}`, items: [{ product_id: shop.products[0]!.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 500 }] };
      await as(shop, (tx) => tx`select sale_record(${sql.json(body as never)}::jsonb, false)`);
      const [appended] = await sql<FiscalEntry[]>`
        select chain_no::int, kind, ref_id::text, previous_hash, hash, content from fiscal_entries where shop_id = ${shop.id} and chain_no > ${n}`;
      t.match(appended, { chain_no: n + 1, kind: 'sale', ref_id: next, previous_hash: entries.at(-1)!.hash }, `a new sale is entry ${n + 1}, chained to entry ${n}`);
      t.equal(appended!.hash, chainHash(appended!.previous_hash, appended!.content), 'its hash recomputed here');
      const [after] = await sql<{ chain_no: number }[]>`select chain_no::int from sales where id = ${next}`;
      t.equal(after!.chain_no, n + 1, 'and the sale names it');
      const recheck = await sql.begin(async (tx) => {
        await tx`select set_config('app.shop_id', ${shop.id}, true)`;
        const [row] = await tx<{ report: any }[]>`select fiscal_integrity(null, null) as report`;
        return row!.report;
      });
      t.match(recheck, { ok: true, checked: n + 1, last: { chain_no: n + 1, hash: appended!.hash } }, 'and the whole chain still checks');
      t.same([recheck.broken, recheck.broken_count], [[], 0], 'nothing broken');
    });
  }
});
