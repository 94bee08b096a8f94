import t from 'tap';
import { createProduct } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { onHand, postSale, productWithVariants, receiptNumbers, saleCount, sell, setShop, staffedShop } from './sale-fixtures.ts';

/** Prices belong to managers (CONTRACT section 3): what a cashier may change on an online sale. */

const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

async function receiptCounter(shopId: string): Promise<number | undefined> {
  const [row] = await api.ownerSql<{ last_no: number }[]>`select last_no from receipt_counters where shop_id = ${shopId}`;
  return row?.last_no;
}

t.test('a cashier charging another unit price than the catalogue\'s is a 403, and nothing is recorded', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 3 } }, { price_xaf: 2000 });
  t.equal((await sell(api, cashier.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) })).receipt_no, 1);
  expectError(t, await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1 }], payments: cash(1) }), 403, FORBIDDEN, 'below the catalogue');
  expectError(t, await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1200 }], payments: cash(1200) }), 403, FORBIDDEN, 'above the catalogue');
  expectError(
    t,
    await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1 }, { product_id: product.id, quantity: 2, unit_price_xaf: 0 }], payments: cash(1000) }),
    403,
    FORBIDDEN,
    'a second line at 0',
  );
  expectError(
    t,
    await postSale(api, cashier.token, { items: [{ product_id: shirt.id, variant_id: variants.M.id, quantity: 1, unit_price_xaf: 2000 }], payments: cash(2000) }),
    403,
    FORBIDDEN,
    'a variant at its product\'s price rather than its own',
  );
  t.equal(await saleCount(api, owner.shop.id), 1, 'nothing recorded');
  t.equal(await receiptCounter(owner.shop.id), 1, 'the receipt counter did not move');
  t.equal(await onHand(api, product.id), 9, 'the stock did not move');
  t.equal(await onHand(api, shirt.id, variants.M.id), 3);
  t.equal((await sell(api, cashier.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) })).receipt_no, 2, 'the next sale takes the next number');
});

t.test('a cashier charging another VAT rate than the catalogue\'s is a 403', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  expectError(t, await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, vat_rate: 0 }], payments: cash(1000) }), 403, FORBIDDEN, '0 %');
  expectError(t, await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1000, vat_rate: 19.26 }], payments: cash(1000) }), 403, FORBIDDEN, 'off by 0.01');
  t.equal(await saleCount(api, owner.shop.id), 0);
  t.equal(await onHand(api, product.id), 10);
});

t.test('a cashier may send the catalogue\'s own price and VAT rate explicitly', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2500, on_hand: 3 } }, { price_xaf: 2000, vat_rate: 5 });
  const sale = await sell(api, cashier.token, {
    items: [
      { product_id: product.id, quantity: 2, unit_price_xaf: 1000, vat_rate: 19.25 },
      { product_id: shirt.id, variant_id: variants.M.id, quantity: 1, unit_price_xaf: 2500, vat_rate: 5 },
      { product_id: product.id, quantity: 1, unit_price_xaf: null, vat_rate: null },
    ],
    payments: cash(5500),
  });
  t.strictSame(sale.items.map((i: any) => [i.unit_price_xaf, i.vat_rate]), [[1000, 19.25], [2500, 5], [1000, 19.25]]);
  t.equal(sale.total_xaf, 5500);
});

t.test('with cashier_price_override on, a cashier may charge another price and VAT rate', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  await setShop(api, owner, { cashier_price_override: true });
  const sale = await sell(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1, vat_rate: 0 }], payments: cash(1) });
  t.match(sale.items[0], { unit_price_xaf: 1, vat_rate: 0, total_xaf: 1, vat_xaf: 0 });
  await setShop(api, owner, { cashier_price_override: false });
  expectError(t, await postSale(api, cashier.token, { items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1 }], payments: cash(1) }), 403, FORBIDDEN, 'once turned off again');
});

t.test('managers and owners charge any price, VAT rate and line discount', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  await setShop(api, owner, { cashier_max_discount_percent: 0 });
  for (const [who, token] of [['manager', manager.token], ['owner', owner.token]] as const) {
    const sale = await sell(api, token, {
      items: [{ product_id: product.id, quantity: 1, unit_price_xaf: 1, vat_rate: 0 }, { product_id: product.id, quantity: 1, discount_xaf: 1000 }],
      payments: cash(1),
    });
    t.match(sale.items, [{ unit_price_xaf: 1, vat_rate: 0 }, { unit_price_xaf: 1000, discount_xaf: 1000, total_xaf: 0 }], who);
  }
});

t.test('a cashier\'s line discount may reach the shop\'s cap of the line\'s gross exactly; one franc more is 422 discount_not_allowed on that line', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 100);
  const odd = await createProduct(api, owner.token, { price_xaf: 1005, vat_rate: 0 }, 100);
  const free = { name: 'Sachet', quantity: 1, unit_price_xaf: 50, vat_rate: 0 };
  const refused = async (discount: number, what: string, item: Record<string, unknown> = { product_id: product.id, quantity: 3 }) =>
    expectInvalid(t, await postSale(api, cashier.token, { items: [free, { ...item, discount_xaf: discount }], payments: cash(100_000) }), 'items.1.discount_xaf', what, 'discount_not_allowed');
  const accepted = async (discount: number, what: string, item: Record<string, unknown> = { product_id: product.id, quantity: 3 }) =>
    t.equal((await postSale(api, cashier.token, { items: [free, { ...item, discount_xaf: discount }], payments: cash(100_000) })).status, 201, what);

  await accepted(300, 'default 10 %: 300 off a gross of 3000');
  await refused(301, 'default 10 %: 301 off 3000');
  // 1.5 x 1005 = 1507.5, rounded to 1508: 10 % is 150.8 XAF.
  await accepted(150, '150 off a gross of 1508', { product_id: odd.id, quantity: 1.5 });
  await refused(151, '151 off a gross of 1508', { product_id: odd.id, quantity: 1.5 });
  await setShop(api, owner, { cashier_max_discount_percent: 12.5 });
  await accepted(375, '12.5 %: 375 off 3000');
  await refused(376, '12.5 %: 376 off 3000');
  await setShop(api, owner, { cashier_max_discount_percent: 0 });
  await refused(1, '0 %: no discount at all');
  await accepted(0, '0 %: a discount of 0');
  await setShop(api, owner, { cashier_max_discount_percent: 10, cashier_price_override: true });
  await accepted(160, 'with the price override on, the cap applies to the charged gross (10 % of 2 x 800)', { product_id: product.id, quantity: 2, unit_price_xaf: 800 });
  await refused(51, 'with the price override on, a cashier is still capped (10 % of 500)', { product_id: product.id, quantity: 1, unit_price_xaf: 500 });
  t.equal(await saleCount(api, owner.shop.id), 5, 'only the accepted sales were recorded');
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1, 2, 3, 4, 5]);
});

t.test('a cashier\'s free lines (no product) take any price, VAT rate and discount', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  await setShop(api, owner, { cashier_max_discount_percent: 0 });
  const sale = await sell(api, cashier.token, {
    items: [{ name: 'Réparation', quantity: 1, unit_price_xaf: 5000, vat_rate: 0, discount_xaf: 4999 }, { name: 'Sachet', quantity: 2, unit_price_xaf: 1 }],
    payments: cash(3),
  });
  t.match(sale.items, [{ product_id: null, unit_price_xaf: 5000, vat_rate: 0, discount_xaf: 4999, total_xaf: 1 }, { product_id: null, unit_price_xaf: 1, total_xaf: 2 }]);
});
