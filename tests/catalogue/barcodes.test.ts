import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, createCategory, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { expectError, expectInvalid, FORBIDDEN, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';

const api = await startService(t);

const generateBarcodes = (token: string, body: Record<string, unknown> = {}) => api.request('POST', '/products/barcodes/generate', { token, body });

/** The EAN-13 check digit of 12 digits: weights 1, 3, 1, 3... from the left. */
function ean13CheckDigit(twelve: string): number {
  const sum = [...twelve].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return (10 - (sum % 10)) % 10;
}

/** Whether `code` is an in-store EAN-13: 13 digits, prefix 20 to 29, a right check digit. */
const isInStoreEan13 = (code: unknown) =>
  typeof code === 'string' && /^2[0-9]\d{11}$/.test(code) && ean13CheckDigit(code.slice(0, 12)) === Number(code[12]);

/** The product's barcode as stored, read past row-level security. */
async function storedBarcode(productId: string): Promise<string | null> {
  const [row] = await api.ownerSql<{ barcode: string | null }[]>`select barcode from products where id = ${productId}`;
  return row!.barcode;
}

async function storedVariantBarcode(variantId: string): Promise<string | null> {
  const [row] = await api.ownerSql<{ barcode: string | null }[]>`select barcode from variants where id = ${variantId}`;
  return row!.barcode;
}

/** A product with two variants (no barcodes anywhere). */
async function productWithVariants(token: string, fields: Record<string, unknown> = {}) {
  const item = await createProduct(api, token, fields);
  const options = await api.request('POST', `/products/${item.id}/options`, { token, body: { options: [{ name: 'Taille', values: ['S', 'M'] }] } });
  if (options.status !== 200) throw new Error(`options failed: ${options.status} ${JSON.stringify(options.body)}`);
  const generated = await api.request('POST', `/products/${item.id}/variants/generate`, { token, body: {} });
  if (generated.status !== 200) throw new Error(`variants failed: ${generated.status} ${JSON.stringify(generated.body)}`);
  return { product: item, variants: generated.body.data as any[] };
}

/** Assignments as "product_id/variant_id" keys, sorted. */
const owners = (reply: Reply) => reply.body.data.map((a: any) => `${a.product_id}/${a.variant_id}`).sort();
const key = (productId: string, variantId: string | null = null) => `${productId}/${variantId}`;

t.test('the check-digit helper agrees with known EAN-13 codes', async (t) => {
  t.equal(ean13CheckDigit('400638133393'), 1, '4006381333931');
  t.equal(ean13CheckDigit('590123412345'), 7, '5901234123457');
  t.ok(isInStoreEan13('2000000000015'));
  t.notOk(isInStoreEan13('2000000000016'), 'a wrong check digit');
  t.notOk(isInStoreEan13('3000000000014'), 'outside the in-store range');
  t.notOk(isInStoreEan13('200000000001'), '12 digits');
});

t.test('every generated code is 13 digits in the in-store range 20 to 29 with a valid EAN-13 check digit', async (t) => {
  const owner = await registerShop(api);
  const products: any[] = [];
  for (let i = 0; i < 30; i++) products.push(await createProduct(api, owner.token));
  const reply = await generateBarcodes(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(Object.keys(reply.body).sort(), ['data', 'meta']);
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.strictSame(owners(reply), products.map((p) => key(p.id)).sort(), 'one code per product');
  for (const assignment of reply.body.data) {
    t.strictSame(Object.keys(assignment).sort(), ['barcode', 'product_id', 'variant_id']);
    t.ok(isInStoreEan13(assignment.barcode), `${assignment.barcode} is an in-store EAN-13`);
    t.equal(await storedBarcode(assignment.product_id), assignment.barcode, 'the product holds that code');
  }
  const read = await api.request('GET', `/products/${products[0].id}`, { token: owner.token });
  t.equal(read.body.data.barcode, reply.body.data.find((a: any) => a.product_id === products[0].id).barcode, 'the API shows it');
});

t.test('generated codes are unique in the shop', async (t) => {
  const owner = await registerShop(api);
  const existing = await createProduct(api, owner.token, { barcode: '2012345678903' });
  for (let i = 0; i < 120; i++) await createProduct(api, owner.token);
  const { variants } = await productWithVariants(owner.token);
  const reply = await generateBarcodes(owner.token, { include_variants: true });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.length, 123, '120 products, the product with variants and its 2 variants');
  const codes = reply.body.data.map((a: any) => a.barcode);
  t.equal(new Set(codes).size, codes.length, 'no code given twice');
  t.notOk(codes.includes(existing.barcode), 'no code equals an existing barcode');
  const [row] = await api.ownerSql<{ n: number; distinct: number }[]>`
    select count(*)::int as n, count(distinct code)::int as distinct
      from catalogue_codes where shop_id = ${owner.shop.id} and kind = 'barcode'`;
  t.strictSame({ ...row }, { n: 124, distinct: 124 }, 'every barcode of the shop is distinct');
  for (const variant of variants) t.ok(isInStoreEan13(await storedVariantBarcode(variant.id)), 'variants got valid codes too');
});

t.test('a product that already has a barcode keeps it', async (t) => {
  const owner = await registerShop(api);
  const printed = await createProduct(api, owner.token, { barcode: '6001234567890' });
  const inStore = await createProduct(api, owner.token, { barcode: '2100000000012' });
  const text = await createProduct(api, owner.token, { barcode: 'ABC' });
  const bare = await createProduct(api, owner.token);
  const reply = await generateBarcodes(owner.token);
  t.equal(reply.status, 200);
  t.strictSame(owners(reply), [key(bare.id)], 'only the product without a barcode');
  t.equal(await storedBarcode(printed.id), '6001234567890');
  t.equal(await storedBarcode(inStore.id), '2100000000012');
  t.equal(await storedBarcode(text.id), 'ABC');
  const listed = await generateBarcodes(owner.token, { product_ids: [printed.id, text.id] });
  t.equal(listed.status, 200);
  t.strictSame(listed.body.data, [], 'even when named, a product with a barcode gets nothing');
  t.equal(await storedBarcode(printed.id), '6001234567890');
});

t.test('with product_ids only those products get codes', async (t) => {
  const owner = await registerShop(api);
  const chosen = [await createProduct(api, owner.token), await createProduct(api, owner.token)];
  const left = await createProduct(api, owner.token);
  const { product: withVariants, variants } = await productWithVariants(owner.token);
  const reply = await generateBarcodes(owner.token, { product_ids: [chosen[1].id, chosen[0].id, withVariants.id] });
  t.equal(reply.status, 200);
  t.strictSame(owners(reply), [key(chosen[0].id), key(chosen[1].id), key(withVariants.id)].sort(), 'exactly the chosen products');
  t.equal(await storedBarcode(left.id), null, 'the product not chosen has none');
  for (const variant of variants) t.equal(await storedVariantBarcode(variant.id), null, 'variants only with include_variants');
  expectInvalid(t, await generateBarcodes(owner.token, { product_ids: [] }), 'product_ids', 'an empty list');
  expectInvalid(t, await generateBarcodes(owner.token, { product_ids: ['abc'] }), 'product_ids.0', 'not a uuid');
});

t.test('with category_id only that category\'s products get codes', async (t) => {
  const owner = await registerShop(api);
  const drinks = await createCategory(api, owner.token);
  const food = await createCategory(api, owner.token);
  const soda = await createProduct(api, owner.token, { category_id: drinks.id });
  const juice = await createProduct(api, owner.token, { category_id: drinks.id });
  const bread = await createProduct(api, owner.token, { category_id: food.id });
  const loose = await createProduct(api, owner.token);
  const reply = await generateBarcodes(owner.token, { category_id: drinks.id });
  t.equal(reply.status, 200);
  t.strictSame(owners(reply), [key(soda.id), key(juice.id)].sort());
  t.equal(await storedBarcode(bread.id), null, 'another category\'s product has none');
  t.equal(await storedBarcode(loose.id), null, 'a product without category has none');
  const rest = await generateBarcodes(owner.token, { category_id: null });
  t.strictSame(owners(rest), [key(bread.id), key(loose.id)].sort(), 'category_id null chooses every product');
});

t.test('with include_variants the variants get codes too; without it they do not', async (t) => {
  const owner = await registerShop(api);
  const { product: shirt, variants } = await productWithVariants(owner.token);
  const without = await generateBarcodes(owner.token, { include_variants: false });
  t.equal(without.status, 200);
  t.strictSame(owners(without), [key(shirt.id)], 'the product only');
  for (const variant of variants) t.equal(await storedVariantBarcode(variant.id), null, 'no variant code');

  const nulled = await generateBarcodes(owner.token, { include_variants: null });
  t.strictSame(nulled.body.data, [], 'include_variants null is false');

  const withVariants = await generateBarcodes(owner.token, { include_variants: true });
  t.equal(withVariants.status, 200);
  t.strictSame(owners(withVariants), variants.map((v) => key(shirt.id, v.id)).sort(), 'every variant, under its product');
  for (const assignment of withVariants.body.data) {
    t.ok(isInStoreEan13(assignment.barcode), `${assignment.barcode} is an in-store EAN-13`);
    t.equal(await storedVariantBarcode(assignment.variant_id), assignment.barcode, 'the variant holds that code');
  }
  const detail = await api.request('GET', `/products/${shirt.id}`, { token: owner.token });
  t.ok(detail.body.data.variants.every((v: any) => isInStoreEan13(v.barcode)), 'the product shows its variants\' codes');
  expectInvalid(t, await generateBarcodes(owner.token, { include_variants: 'yes' }), 'include_variants', 'not a boolean');
});

t.test('an unknown product id is 422 on product_ids.N and nothing is assigned', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const mine = await createProduct(api, owner.token);
  const theirs = await createProduct(api, other.token);
  const gone = await createProduct(api, owner.token);
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: owner.token })).status, 204);

  expectInvalid(t, await generateBarcodes(owner.token, { product_ids: [mine.id, randomUUID()] }), 'product_ids.1', 'an unknown uuid');
  expectInvalid(
    t,
    await generateBarcodes(owner.token, { product_ids: [theirs.id, mine.id, gone.id] }),
    ['product_ids.0', 'product_ids.2'],
    'another shop\'s and a deleted product',
  );
  t.equal(await storedBarcode(mine.id), null, 'the valid product got nothing either');
  t.equal(await storedBarcode(theirs.id), null, 'the other shop\'s product is untouched');
  t.equal(await storedBarcode(gone.id), null);
});

t.test('an unknown category is 422 on category_id and nothing is assigned', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createCategory(api, other.token);
  const mine = await createProduct(api, owner.token);
  expectInvalid(t, await generateBarcodes(owner.token, { category_id: randomUUID() }), 'category_id', 'an unknown uuid');
  expectInvalid(t, await generateBarcodes(owner.token, { category_id: theirs.id }), 'category_id', 'another shop\'s category');
  expectInvalid(t, await generateBarcodes(owner.token, { category_id: 'drinks' }), 'category_id', 'not a uuid');
  t.equal(await storedBarcode(mine.id), null);
});

t.test('a second call gives nothing new (empty data)', async (t) => {
  const owner = await registerShop(api);
  const products = [await createProduct(api, owner.token), await createProduct(api, owner.token)];
  await productWithVariants(owner.token);
  const first = await generateBarcodes(owner.token, { include_variants: true });
  t.equal(first.body.data.length, 5);
  const before = await Promise.all(products.map((p) => storedBarcode(p.id)));
  const second = await generateBarcodes(owner.token, { include_variants: true });
  t.equal(second.status, 200);
  t.strictSame(second.body, { data: [], meta: { next_cursor: null } });
  t.strictSame(await Promise.all(products.map((p) => storedBarcode(p.id))), before, 'the codes did not change');
  const fresh = await createProduct(api, owner.token);
  const third = await generateBarcodes(owner.token, { include_variants: true });
  t.strictSame(owners(third), [key(fresh.id)], 'a product added since gets one');
});

t.test('only live products of the caller\'s shop get codes', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createProduct(api, other.token);
  const gone = await createProduct(api, owner.token);
  t.equal((await api.request('DELETE', `/products/${gone.id}`, { token: owner.token })).status, 204);
  const mine = await createProduct(api, owner.token);
  const reply = await generateBarcodes(owner.token);
  t.strictSame(owners(reply), [key(mine.id)]);
  t.equal(await storedBarcode(theirs.id), null, 'the other shop\'s product has none');
  t.equal(await storedBarcode(gone.id), null, 'the deleted product has none');
});

t.test('a scan of a generated code finds the product, or the variant under its product', async (t) => {
  const owner = await registerShop(api);
  const soap = await createProduct(api, owner.token, { name: 'Savon' });
  const { product: shirt, variants } = await productWithVariants(owner.token, { name: 'Chemise' });
  const reply = await generateBarcodes(owner.token, { include_variants: true });
  const codeOf = (productId: string, variantId: string | null) =>
    reply.body.data.find((a: any) => a.product_id === productId && a.variant_id === variantId).barcode;

  const soapScan = await api.request('GET', `/products?q=${codeOf(soap.id, null)}`, { token: owner.token });
  t.equal(soapScan.status, 200);
  t.strictSame(soapScan.body.data.map((p: any) => [p.id, p.barcode, p.matched_variant]), [[soap.id, codeOf(soap.id, null), null]]);

  const shirtScan = await api.request('GET', `/products?q=${codeOf(shirt.id, null)}`, { token: owner.token });
  t.strictSame(shirtScan.body.data.map((p: any) => [p.id, p.matched_variant]), [[shirt.id, null]], 'the product\'s own code');

  const variant = variants[1];
  const variantScan = await api.request('GET', `/products?q=${codeOf(shirt.id, variant.id)}`, { token: owner.token });
  t.equal(variantScan.body.data.length, 1);
  t.equal(variantScan.body.data[0].id, shirt.id);
  t.match(variantScan.body.data[0].matched_variant, { id: variant.id, barcode: codeOf(shirt.id, variant.id), options: variant.options });
});

t.test('a cashier may not generate barcodes (403)', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const item = await createProduct(api, owner.token);
  expectError(t, await generateBarcodes(cashier.token), 403, FORBIDDEN, 'all');
  expectError(t, await generateBarcodes(cashier.token, { product_ids: [item.id] }), 403, FORBIDDEN, 'one product');
  t.equal(await storedBarcode(item.id), null);
  const manager = await addStaff(api, owner, 'manager');
  const reply = await generateBarcodes(manager.token);
  t.equal(reply.status, 200, 'a manager may');
  t.strictSame(owners(reply), [key(item.id)]);
});

t.test('once the subscription has ended, generating barcodes answers 402', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await generateBarcodes(owner.token), 402, SUBSCRIPTION_REQUIRED);
  t.equal(await storedBarcode(item.id), null);
});
