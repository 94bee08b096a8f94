import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

/** A copy of `shopA`'s product in `shopB` under the same id, as two shops' records may be since ids are unique per shop. */
async function twinProduct(productId: string, shopB: string, sku: string): Promise<void> {
  await api.ownerSql`
    insert into products (shop_id, id, name, price_xaf, vat_rate, sku)
    select ${shopB}, id, name, price_xaf, vat_rate, ${sku} from products where id = ${productId}`;
}

t.test('every synchronised table stamps txid by a row trigger on insert and on update, never by its default alone', async (t) => {
  const unstamped = await api.ownerSql<{ table_name: string; missing: string }[]>`
    select c.table_name::text, e.event as missing
      from information_schema.columns c
      cross join (values ('INSERT'), ('UPDATE')) as e (event)
     where c.table_schema = 'public' and c.column_name = 'txid'
       and not exists (
         select 1 from information_schema.triggers g
          where g.event_object_schema = 'public' and g.event_object_table = c.table_name
            and g.event_manipulation = e.event and g.action_timing = 'BEFORE' and g.action_orientation = 'ROW'
            and g.action_statement = 'EXECUTE FUNCTION stamp_txid()')
     order by 1, 2`;
  t.strictSame([...unstamped], [], 'no table left to its default');
  const shop = await registerShop(api);
  const [row] = await api.ownerSql.begin((tx) => tx<{ stamped: boolean }[]>`
    with made as (
      insert into categories (shop_id, name, txid) values (${shop.shop.id}, 'Stamped', '1'::xid8) returning txid)
    select txid = pg_current_xact_id() as stamped from made`);
  t.equal(row?.stamped, true, 'an insert naming another txid is stamped with its own transaction');
});

t.test('a product\'s codes are kept in its shop: another shop\'s product with the same id keeps its own', async (t) => {
  const a = await registerShop(api);
  const b = await registerShop(api);
  const product = await createProduct(api, a.token, { sku: 'A-1' });
  await twinProduct(product.id, b.shop.id, 'B-1');
  const codesOfB = () => api.ownerSql<{ code: string }[]>`select code from catalogue_codes where shop_id = ${b.shop.id} order by code`;
  t.strictSame((await codesOfB()).map((row) => row.code), ['B-1']);
  // The owner's role, as the worker and migrations write, sees every shop's rows: only the trigger's own filter keeps it in A.
  await api.ownerSql`update products set sku = 'A-2' where shop_id = ${a.shop.id} and id = ${product.id}`;
  t.strictSame((await codesOfB()).map((row) => row.code), ['B-1'], 'shop B\'s code is still there');
  const [owner] = await api.ownerSql<{ product_id: string }[]>`select product_id from catalogue_codes where shop_id = ${a.shop.id} and code = 'A-2'`;
  t.equal(owner?.product_id, product.id, 'shop A\'s new code');
});

t.test('a variant added restamps its own shop\'s product, not another shop\'s with the same id', async (t) => {
  const a = await registerShop(api);
  const b = await registerShop(api);
  const product = await createProduct(api, a.token);
  await twinProduct(product.id, b.shop.id, 'TWIN-1');
  const stamp = async (shopId: string) =>
    (await api.ownerSql<{ txid: string }[]>`select txid::text from products where shop_id = ${shopId} and id = ${product.id}`)[0]!.txid;
  const [beforeA, beforeB] = [await stamp(a.shop.id), await stamp(b.shop.id)];
  await api.ownerSql`insert into variants (shop_id, product_id, options, price_xaf) values (${a.shop.id}, ${product.id}, '{"Taille": "M"}', 1000)`;
  t.not(await stamp(a.shop.id), beforeA, 'shop A\'s product is stamped again');
  t.equal(await stamp(b.shop.id), beforeB, 'shop B\'s product is left alone');
});
