/**
 * A name search reads the candidates of its own shop only, never those of the other shops of the
 * server: its index keys are the shop's trigrams (shop_trigrams, migration 0017). Four other shops
 * sell products and serve customers with the same names; what PostgreSQL read is counted from the
 * executed plans (auto_explain, tests/support/plans.ts), as the app role, first and generic plans.
 */
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { planSession } from '../support/plans.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
/** Products (and customers) of the searched shop whose name holds "jus" / "ndiaye". */
const OWN = 60;
const OTHERS = 4;
const OTHER_SIZE = 1500;

const owner = await registerShop(api);
const shopId: string = owner.shop.id;
await api.ownerSql`
  insert into products (shop_id, name, price_xaf, vat_rate)
  select ${shopId}, case when i <= ${OWN} then 'Jus de fruit ' || i else 'Article ' || i end, 100, 19.25
    from generate_series(1, 600) i`;
await api.ownerSql`
  insert into customers (shop_id, name) select ${shopId}, case when i <= ${OWN} then 'Awa Ndiaye ' || i else 'Client ' || i end
    from generate_series(1, 600) i`;
for (let other = 0; other < OTHERS; other++) {
  const { shop } = await registerShop(api);
  await api.ownerSql`
    insert into products (shop_id, name, price_xaf, vat_rate) select ${shop.id}, 'Jus de fruit ' || i, 100, 19.25 from generate_series(1, ${OTHER_SIZE}) i`;
  await api.ownerSql`insert into customers (shop_id, name) select ${shop.id}, 'Awa Ndiaye ' || i from generate_series(1, ${OTHER_SIZE}) i`;
}
await api.ownerSql`analyze`;

const session = await planSession(api.runtime.ownerUrl);
t.teardown(() => session.end());

t.test('a product name search reads its own shop\'s candidates only, and pages them in the database', async (t) => {
  for (let i = 0; i < 7; i++) {
    // "fruit" is inside the names: the shop's trigram keys give its candidates.
    const reads = await session.reads(shopId, owner.user.id, (tx) => tx`select * from products_search('fruit', null, null, null, null, null, null, null, 51)`);
    const products = reads.filter((read) => read.table === 'products' || read.table === 'products_name_keys_idx');
    t.ok(products.some((read) => read.table === 'products_name_keys_idx'), `search ${i + 1}: through the shop's trigram keys`);
    const most = Math.max(...products.map((read) => read.rows));
    t.ok(most <= OWN, `search ${i + 1}: at most the shop's ${OWN} matches read (read ${most}, the other shops hold ${OTHERS * OTHER_SIZE})`);
  }
  for (const text of ['fruit', 'jus']) {
    const [row] = await api.appSql.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      return tx<{ count: number }[]>`select count(*)::int as count from products_search(${text}, null, null, null, null, null, null, null, 1000)`;
    });
    t.equal(row?.count, OWN, `"${text}" finds every one of them`);
  }
});

t.test('a search of the start of a name reads one page of rows, however many names start so', async (t) => {
  const PAGE = 11;
  for (let i = 0; i < 7; i++) {
    const reads = await session.reads(shopId, owner.user.id, (tx) => tx`select * from products_search('jus', null, null, null, null, null, null, null, ${PAGE})`);
    const products = reads.filter((read) => read.table === 'products');
    t.ok(products.some((read) => read.node === 'Index Scan'), `search ${i + 1}: the names read in order from an index`);
    const most = Math.max(...products.map((read) => read.rows));
    t.ok(most <= PAGE, `search ${i + 1}: at most the page's ${PAGE} rows read (read ${most}; ${OWN} names start so)`);
  }
});

t.test('a customer name search reads its own shop\'s candidates only', async (t) => {
  for (let i = 0; i < 7; i++) {
    const reads = await session.reads(shopId, owner.user.id, (tx) => tx`select * from customers_matching('ndiaye')`);
    const customers = reads.filter((read) => read.table === 'customers' || read.table === 'customers_name_keys_idx');
    t.ok(customers.some((read) => read.table === 'customers_name_keys_idx'), `search ${i + 1}: through the shop's trigram keys`);
    const most = Math.max(...customers.map((read) => read.rows));
    t.ok(most <= OWN, `search ${i + 1}: at most the shop's ${OWN} matches read (read ${most})`);
  }
});

t.test('a search without a word of 3 characters still finds names containing it, in its own shop', async (t) => {
  const products = await api.request('GET', '/products?q=de%20f&limit=200', { token: owner.token });
  t.equal(products.status, 200);
  t.equal(products.body.data.length, OWN, 'every "Jus de fruit" of the shop, none of the others');
  const customers = await api.request('GET', '/customers?q=a%20n&limit=200', { token: owner.token });
  t.equal(customers.status, 200);
  t.equal(customers.body.data.length, OWN);
});
