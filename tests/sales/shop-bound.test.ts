import { randomUUID } from 'node:crypto';
import t from 'tap';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { openShift, sell } from './sale-fixtures.ts';

/**
 * The sale procedures take their shop as an argument (so that Citus can run them whole on the node
 * holding it) and must then touch that shop's rows only, even run by the owner role, which row-level
 * security does not bind. Shop B holds sales with the same ids as shop A's and a product with the same
 * id as one of A's (an id is unique in its shop only): a statement that looked a row up by its id alone
 * would read or write B's.
 */
const api = await startService(t);
const owner = api.ownerSql;
const a = await registerShop(api, { shop_name: 'Quincaillerie A' });
const b = await registerShop(api, { shop_name: 'Quincaillerie B' });
const A = a.shop.id as string;
const B = b.shop.id as string;
await openShift(api, a.token);
await openShift(api, b.token);

const shared = await createProduct(api, a.token, { name: 'Ciment 50 kg', price_xaf: 5_000 }, 40);
const voidedGoods = await createProduct(api, a.token, { name: 'Tôle', price_xaf: 3_000 }, 40);
const refundedGoods = await createProduct(api, a.token, { name: 'Pointes', price_xaf: 1_000 }, 40);
// B's copy of A's cement: the same id in another shop.
await owner.begin(async (tx) => {
  await tx`select set_config('app.shop_id', ${B}, true)`;
  await tx`insert into products (shop_id, id, name, price_xaf, cost_xaf, vat_rate, tracked, on_hand)
           select ${B}, id, name, price_xaf, cost_xaf, vat_rate, tracked, 40 from products where shop_id = ${A} and id = ${shared.id}`;
});
const bGoods = await createProduct(api, b.token, { name: 'Fer à béton', price_xaf: 2_000 }, 40);

const sold = randomUUID();
const voided = randomUUID();
const refunded = randomUUID();
const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
await sell(api, b.token, { id: sold, items: [{ product_id: shared.id, quantity: 2 }, { product_id: bGoods.id, quantity: 1 }], payments: cash(12_000) });
await sell(api, b.token, { id: voided, items: [{ product_id: bGoods.id, quantity: 1 }], payments: cash(2_000) });
await sell(api, b.token, { id: refunded, items: [{ product_id: bGoods.id, quantity: 3 }], payments: cash(6_000) });

/** Every row of shop B, table by table (its shops row and each table's rows with its shop_id), as text. */
async function shopRows(shopId: string): Promise<Record<string, string>> {
  const tables = await owner<{ table: string }[]>`
    select c.relname as table from pg_class c join pg_attribute at on at.attrelid = c.oid
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and at.attname = 'shop_id' and not at.attisdropped
     order by 1`;
  const rows: Record<string, string> = {};
  const [shop] = await owner<{ row: string }[]>`select s::text as row from shops s where id = ${shopId}`;
  rows.shops = shop!.row;
  for (const { table } of tables) {
    const [found] = await owner<{ rows: string }[]>`
      select coalesce(string_agg(r::text, e'\n' order by r::text), '') as rows from ${owner(table)} r where shop_id = ${shopId}`;
    rows[table] = found!.rows;
  }
  return rows;
}

const sale = (id: string, items: { product_id: string; quantity: number }[], paid: number) => ({
  id, items, payments: cash(paid), request_hash: `shop-bound-${id}`, created_at: null,
});

t.test('a sale, a void and a refund of shop A run by the owner role leave every row of shop B as it was', async (t) => {
  const before = await shopRows(B);
  const aBefore = await shopRows(A);
  const user = a.user.id as string;
  await owner`select sale_submit(${A}, ${user}, ${owner.json(sale(sold, [{ product_id: shared.id, quantity: 1 }], 5_000))})`;
  await owner`select sale_submit(${A}, ${user}, ${owner.json(sale(voided, [{ product_id: voidedGoods.id, quantity: 1 }], 3_000))})`;
  await owner`select sale_submit(${A}, ${user}, ${owner.json(sale(refunded, [{ product_id: refundedGoods.id, quantity: 2 }], 2_000))})`;
  await owner`select sale_void(${A}, ${user}, ${voided}, 'Erreur de caisse')`;
  const [line] = await owner<{ id: string }[]>`select id from sale_items where shop_id = ${A} and sale_id = ${refunded}`;
  await owner`select sale_refund(${A}, ${user}, ${refunded}, 'cash', 'Abîmé', ${owner.json([{ sale_item_id: line!.id, quantity: 1 }])})`;

  const after = await shopRows(B);
  for (const table of Object.keys(before)) t.equal(after[table], before[table], `B's ${table}`);
  const aAfter = await shopRows(A);
  for (const table of ['sales', 'sale_items', 'sale_payments', 'stock_movements', 'journal_entries', 'refunds', 'fiscal_entries', 'receipt_counters']) {
    t.not(aAfter[table], aBefore[table], `A's ${table} did change`);
  }
  const statuses = await owner<{ id: string; status: string }[]>`select id, status from sales where shop_id = ${A} order by receipt_no`;
  t.same(statuses.map((row) => row.status), ['completed', 'voided', 'partially_refunded'], 'A\'s three sales');
  const stock = await owner<{ shop_id: string; on_hand: number }[]>`select shop_id, on_hand from products where id = ${shared.id}`;
  t.same(Object.fromEntries(stock.map((row) => [row.shop_id, row.on_hand])), { [A]: 39, [B]: 38 }, 'A\'s cement sold once, B\'s twice');
});

t.test('the fiscal entries of shop A\'s sale, void and refund are written from A\'s rows only: its chain checks out', async (t) => {
  const [sale] = await owner<{ content: string }[]>`select content from fiscal_entries where shop_id = ${A} and kind = 'sale' and ref_id = ${sold}`;
  const content = JSON.parse(sale!.content);
  t.same(content.lines.map((line: any) => line.quantity), ['1'], 'A\'s one line, not B\'s two');
  t.same(content.payments.map((payment: any) => payment.amount_xaf), [5_000], 'A\'s payment only');
  const [check] = await inTenant(api.appSql, { shopId: A, userId: a.user.id }, (tx) => tx<{ integrity: any }[]>`select fiscal_integrity() as integrity`);
  t.same({ ok: check!.integrity.ok, checked: check!.integrity.checked }, { ok: true, checked: 5 }, 'three sales, a void and a refund');
});

t.test('the answer of a sale is its shop\'s, though another shop holds a sale with the same id', async (t) => {
  const [row] = await owner<{ sale: any }[]>`select sale_read(${A}, ${a.user.id}, ${sold}) as sale`;
  t.equal(row!.sale.total_xaf, 5_000);
  t.same(row!.sale.items.map((item: any) => item.quantity), [1], 'A\'s one line, not B\'s two');
  t.same(row!.sale.payments.map((payment: any) => payment.amount_xaf), [5_000], 'A\'s payment only');
});

t.test('a procedure named for shop A in a transaction bound to shop B is refused', async (t) => {
  const other = randomUUID();
  const inB = (call: (tx: any) => Promise<unknown>) =>
    owner.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${B}, true), set_config('app.user_id', ${b.user.id}, true)`;
      await call(tx);
    });
  const refused = { message: new RegExp(`called for shop ${A} in a transaction bound to shop ${B}`) };
  await t.rejects(inB((tx) => tx`select sale_submit(${A}, ${b.user.id}, ${tx.json(sale(other, [{ product_id: shared.id, quantity: 1 }], 5_000))})`), refused, 'a sale');
  await t.rejects(inB((tx) => tx`select sale_void(${A}, ${b.user.id}, ${voided}, 'Erreur')`), refused, 'a void');
  await t.rejects(inB((tx) => tx`select sale_refund(${A}, ${b.user.id}, ${refunded}, 'cash', null, '[]')`), refused, 'a refund');
  await t.rejects(inB((tx) => tx`select sale_read(${A}, ${b.user.id}, ${sold})`), refused, 'an answer');
  await t.rejects(inB((tx) => tx`select sale_offline_lines(${A}, ${b.user.id}, ${tx.json(sale(other, [], 0))})`), refused, 'offline lines');
  await t.rejects(
    inTenant(api.appSql, { shopId: B, userId: b.user.id }, (tx) => tx`select sale_void(${A}, ${b.user.id}, ${voided}, 'Erreur')`),
    refused, 'the app role in a request of shop B',
  );
  const [count] = await owner<{ n: number }[]>`select count(*)::int as n from sales where id = ${other}`;
  t.equal(count!.n, 0, 'nothing recorded');
});

t.test('a procedure named for another user than its transaction\'s is refused', async (t) => {
  await t.rejects(
    owner.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${A}, true), set_config('app.user_id', ${a.user.id}, true)`;
      await tx`select sale_void(${A}, ${randomUUID()}, ${voided}, 'Erreur')`;
    }),
    { message: /in a transaction bound to user/ },
  );
});

t.test('a sale without its shop is refused, whoever calls', async (t) => {
  await t.rejects(owner`select sale_submit(null, ${a.user.id}, ${owner.json(sale(randomUUID(), [], 0))})`, { message: /without its shop/ }, 'sale_submit');
  await t.rejects(owner`select sale_record(${owner.json(sale(randomUUID(), [], 0))})`, { message: /needs its shop/ }, 'sale_record unbound');
});
