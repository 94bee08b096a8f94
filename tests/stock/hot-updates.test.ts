/**
 * A stock change leaves every index of the catalogue row alone: on_hand is in no index and a stock
 * change does not restamp the row's sync position (catalogue_positions moves), so PostgreSQL updates the
 * product and the variant in place (HOT). Counted by PostgreSQL's table statistics over 20 sales
 * and an adjustment, each its own transaction of the app role.
 */
import t from 'tap';
import { productWithVariants, staffedShop } from '../sales/sale-fixtures.ts';
import { createProduct } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

t.test('sales and adjustments update products and variants in place (HOT): no index of theirs is rewritten, but for a full page', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const products = await Promise.all(Array.from({ length: 5 }, () => createProduct(api, owner.token, { price_xaf: 300 }, 1000)));
  const { product: sized, variants } = await productWithVariants(api, owner.token, { S: { price_xaf: 400, on_hand: 1000 }, L: { price_xaf: 450, on_hand: 1000 } });
  const stats = async () => {
    const [row] = await api.ownerSql<{ products: number; products_hot: number; variants: number; variants_hot: number }[]>`
      select sum(n_tup_upd) filter (where relname = 'products')::int as products,
             sum(n_tup_hot_upd) filter (where relname = 'products')::int as products_hot,
             sum(n_tup_upd) filter (where relname = 'variants')::int as variants,
             sum(n_tup_hot_upd) filter (where relname = 'variants')::int as variants_hot
        from pg_stat_user_tables where relname in ('products', 'variants')`;
    return row!;
  };
  // One transaction per sale, as the tills make them, as the app role; each reports its statistics
  // when it ends (pg_stat_force_next_flush), so the table's counters include it at once.
  const inTransaction = (work: (tx: any) => Promise<unknown>) =>
    api.ownerSql.begin(async (tx) => {
      await tx`select pg_stat_force_next_flush()`;
      await tx`set local role pos_app`;
      await tx`select set_config('app.shop_id', ${owner.shop.id}, true), set_config('app.user_id', ${manager.user.id}, true)`;
      await work(tx);
    });
  await inTransaction(async () => {});
  await api.ownerSql`select pg_stat_clear_snapshot()`;
  const before = await stats();
  for (let i = 0; i < 20; i++) {
    const sale = {
      id: crypto.randomUUID(),
      request_hash: `hot-${i}`,
      created_at: null,
      items: [
        ...products.map((product) => ({ product_id: product.id, quantity: 1 + (i % 3) })),
        { product_id: sized.id, variant_id: variants.S.id, quantity: 1 },
        { product_id: sized.id, variant_id: variants.L.id, quantity: 2 },
      ],
      payments: [{ method: 'cash', amount_xaf: 1_000_000 }],
    };
    await inTransaction((tx) => tx`select sale_record(${tx.json(sale)}, false)`);
  }
  await inTransaction((tx) => tx`select stock_adjust(${products[0].id}, null, 5, 'recount')`);
  await api.ownerSql`select pg_stat_clear_snapshot()`;
  const after = await stats();
  const counts = Object.fromEntries(Object.keys(after).map((key) => [key, after[key as keyof typeof after] - before[key as keyof typeof before]])) as typeof after;
  t.equal(counts.products, 20 * 6 + 1, 'products updated: one per item of each basket, one per adjustment');
  // An update is HOT when the new version fits on its page; one that finds the page full of versions
  // not yet prunable (another session's snapshot may still see them) is not. Before stock changes
  // stopped restamping the row's indexed sync position, none was.
  t.ok(counts.products_hot >= 0.9 * counts.products, `product updates HOT: ${counts.products_hot} of ${counts.products} (at least 90%)`);
  t.equal(counts.variants, 20 * 2, 'variants updated: one per variant of each basket');
  t.ok(counts.variants_hot >= 0.9 * counts.variants, `variant updates HOT: ${counts.variants_hot} of ${counts.variants} (at least 90%)`);
});
