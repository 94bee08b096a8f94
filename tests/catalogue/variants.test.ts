import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, chars, createProduct, expireSubscription, registerShop, postVariant as postVariantWithAxes } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';

const api = await startService(t);

const OPTION_KEYS = ['created_at', 'id', 'name', 'position', 'product_id', 'updated_at', 'values'];
const VARIANT_KEYS = ['barcode', 'created_at', 'id', 'on_hand', 'options', 'price_xaf', 'product_id', 'sku', 'updated_at'];

type Axes = { name: string; values: string[] }[];

const postOptions = (token: string, productId: string, options: unknown) =>
  api.request('POST', `/products/${productId}/options`, { token, body: { options } });
const getOptions = (token: string, productId: string) => api.request('GET', `/products/${productId}/options`, { token });
const deleteOption = (token: string, productId: string, optionId: string) =>
  api.request('DELETE', `/products/${productId}/options/${optionId}`, { token });
const generate = (token: string, productId: string, body: Record<string, unknown> = {}) =>
  api.request('POST', `/products/${productId}/variants/generate`, { token, body });
const postVariant = (token: string, productId: string, body: { options: Record<string, string> } & Record<string, unknown>) =>
  postVariantWithAxes(api, token, productId, body);
const putVariant = (token: string, id: string, body: Record<string, unknown>) => api.request('PUT', `/variants/${id}`, { token, body });
const deleteVariant = (token: string, id: string) => api.request('DELETE', `/variants/${id}`, { token });

/** Sets the axes and fails the set-up loudly if they are refused. */
async function setOptions(token: string, productId: string, options: Axes): Promise<any[]> {
  const reply = await postOptions(token, productId, options);
  if (reply.status !== 200) throw new Error(`options failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The product's live variants as GET /products/{id} shows them. */
async function variantsOf(token: string, productId: string): Promise<any[]> {
  const reply = await api.request('GET', `/products/${productId}`, { token });
  if (reply.status !== 200) throw new Error(`read failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.variants;
}

/** A variant's options as one comparable string: "Couleur=Noir|Taille=M". */
const combination = (options: Record<string, string>) =>
  Object.entries(options)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([axis, value]) => `${axis}=${value}`)
    .join('|');
const combinations = (variants: any[]) => variants.map((v) => combination(v.options)).sort();

/** Every combination of the axes, in the same form. */
function product(axes: Axes): string[] {
  let combos: Record<string, string>[] = [{}];
  for (const axis of axes) combos = combos.flatMap((combo) => axis.values.map((value) => ({ ...combo, [axis.name]: value })));
  return combos.map(combination).sort();
}

async function storedVariantCount(productId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from variants where product_id = ${productId} and deleted_at is null`;
  return row!.n;
}

const SIZES_AND_COLOURS: Axes = [
  { name: 'Taille', values: ['S', 'M', 'L'] },
  { name: 'Couleur', values: ['Noir', 'Blanc'] },
];

// Options

t.test('options are replaced wholesale by the set sent, in that order', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'T-shirt' });
  const first = await postOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  t.equal(first.status, 200);
  t.strictSame(Object.keys(first.body).sort(), ['data', 'meta']);
  t.strictSame(first.body.meta, { next_cursor: null });
  t.strictSame(first.body.data.map((o: any) => Object.keys(o).sort()), [OPTION_KEYS, OPTION_KEYS]);
  t.strictSame(
    first.body.data.map((o: any) => ({ product_id: o.product_id, name: o.name, values: o.values, position: o.position })),
    [
      { product_id: shirt.id, name: 'Taille', values: ['S', 'M', 'L'], position: 0 },
      { product_id: shirt.id, name: 'Couleur', values: ['Noir', 'Blanc'], position: 1 },
    ],
  );
  const read = await getOptions(owner.token, shirt.id);
  t.equal(read.status, 200);
  t.strictSame(read.body.data, first.body.data, 'GET answers the same set');

  const second = await postOptions(owner.token, shirt.id, [{ name: 'Matière', values: ['Coton'] }]);
  t.equal(second.status, 200);
  t.strictSame(second.body.data.map((o: any) => [o.name, o.values, o.position]), [['Matière', ['Coton'], 0]]);
  const after = await getOptions(owner.token, shirt.id);
  t.strictSame(after.body.data, second.body.data, 'only the second set remains');
  t.notOk(after.body.data.some((o: any) => first.body.data.some((old: any) => old.id === o.id)), 'none of the first set\'s axes survive');
  const [row] = await api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from product_options where product_id = ${shirt.id} and deleted_at is null`;
  t.equal(row!.n, 1, 'one live axis in the database');
});

t.test('options hold 1 to 4 axes (422 on options)', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  const axes = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Axe ${i}`, values: ['a'] }));
  const one = await postOptions(owner.token, item.id, axes(1));
  t.equal(one.status, 200, '1 axis');
  t.equal(one.body.data.length, 1);
  const four = await postOptions(owner.token, item.id, axes(4));
  t.equal(four.status, 200, '4 axes');
  t.equal(four.body.data.length, 4);
  expectInvalid(t, await postOptions(owner.token, item.id, axes(0)), 'options', '0 axes');
  expectInvalid(t, await postOptions(owner.token, item.id, axes(5)), 'options', '5 axes');
  expectInvalid(t, await postOptions(owner.token, item.id, null), 'options', 'null');
  expectInvalid(t, await postOptions(owner.token, item.id, { name: 'Taille', values: ['S'] }), 'options', 'not a list');
  expectInvalid(t, await api.request('POST', `/products/${item.id}/options`, { token: owner.token, body: {} }), 'options', 'missing');
  t.equal((await getOptions(owner.token, item.id)).body.data.length, 4, 'the refused sets changed nothing');
});

t.test('an axis name and each value are 1 to 60 characters, trimmed', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  const inside = await postOptions(owner.token, item.id, [
    { name: chars(60, 'n'), values: [chars(60, 'v'), 'x'] },
    { name: ' Taille ', values: ['  M  '] },
  ]);
  t.equal(inside.status, 200, '60 characters');
  t.strictSame(inside.body.data.map((o: any) => [o.name, o.values]), [
    [chars(60, 'n'), [chars(60, 'v'), 'x']],
    ['Taille', ['M']],
  ]);
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: chars(61), values: ['a'] }]), 'options.0.name', 'a 61-character name');
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: 'A', values: ['a'] }, { name: '', values: ['a'] }]), 'options.1.name', 'an empty name');
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: '   ', values: ['a'] }]), 'options.0.name', 'a blank name');
  expectInvalid(t, await postOptions(owner.token, item.id, [{ values: ['a'] }]), 'options.0.name', 'no name');
  expectInvalid(
    t,
    await postOptions(owner.token, item.id, [{ name: 'A', values: ['a'] }, { name: 'B', values: ['a', 'b', chars(61)] }]),
    'options.1.values.2',
    'a 61-character value',
  );
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: 'A', values: [''] }]), 'options.0.values.0', 'an empty value');
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: 'A', values: [] }]), 'options.0.values', 'no values');
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: 'A' }]), 'options.0.values', 'values missing');
  t.strictSame((await getOptions(owner.token, item.id)).body.data.map((o: any) => o.name), [chars(60, 'n'), 'Taille'], 'unchanged');
});

t.test('axis names are unique (422 on options.N.name)', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  expectInvalid(
    t,
    await postOptions(owner.token, item.id, [
      { name: 'Taille', values: ['S'] },
      { name: 'Couleur', values: ['Noir'] },
      { name: 'Taille', values: ['M'] },
    ]),
    'options.2.name',
    'a repeated name',
  );
  expectInvalid(
    t,
    await postOptions(owner.token, item.id, [{ name: 'Taille', values: ['S'] }, { name: ' Taille', values: ['M'] }]),
    'options.1.name',
    'the same name once trimmed',
  );
  t.strictSame((await getOptions(owner.token, item.id)).body.data, [], 'nothing was saved');
  const distinct = await postOptions(owner.token, item.id, [{ name: 'Taille', values: ['S'] }, { name: 'Pointure', values: ['S'] }]);
  t.equal(distinct.status, 200, 'distinct names may share values');
});

t.test('values are unique within an axis (422 on options.N.values.M)', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  expectInvalid(
    t,
    await postOptions(owner.token, item.id, [{ name: 'Couleur', values: ['Noir'] }, { name: 'Taille', values: ['S', 'M', 'S'] }]),
    'options.1.values.2',
    'a repeated value',
  );
  expectInvalid(t, await postOptions(owner.token, item.id, [{ name: 'Taille', values: ['M', ' M '] }]), 'options.0.values.1', 'the same value once trimmed');
  t.strictSame((await getOptions(owner.token, item.id)).body.data, [], 'nothing was saved');
});

t.test('deleting one option answers 204 and it is gone; an unknown option is 404', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const other = await createProduct(api, owner.token);
  const [size, colour] = await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const [otherAxis] = await setOptions(owner.token, other.id, [{ name: 'Taille', values: ['S'] }]);

  const reply = await deleteOption(owner.token, shirt.id, size.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  t.strictSame((await getOptions(owner.token, shirt.id)).body.data, [colour], 'only the other axis remains');
  expectError(t, await deleteOption(owner.token, shirt.id, size.id), 404, NOT_FOUND, 'deleted already');
  expectError(t, await deleteOption(owner.token, shirt.id, randomUUID()), 404, NOT_FOUND, 'unknown option');
  expectError(t, await deleteOption(owner.token, shirt.id, otherAxis.id), 404, NOT_FOUND, 'another product\'s option');
  expectError(t, await deleteOption(owner.token, randomUUID(), colour.id), 404, NOT_FOUND, 'unknown product');
  expectInvalid(t, await deleteOption(owner.token, shirt.id, 'abc'), 'option_id', 'malformed option id');
  t.strictSame((await getOptions(owner.token, other.id)).body.data, [otherAxis], 'the other product keeps its axis');
});

// Generating variants

t.test('variants/generate creates every combination, 3 sizes x 2 colours = 6, at the product\'s price', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'T-shirt', price_xaf: 3500 });
  t.equal(shirt.has_variants, false);
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const reply = await generate(owner.token, shirt.id);
  t.equal(reply.status, 200);
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.equal(reply.body.data.length, 6, 'six variants');
  t.strictSame(combinations(reply.body.data), product(SIZES_AND_COLOURS), 'one per combination');
  for (const variant of reply.body.data) {
    t.strictSame(Object.keys(variant).sort(), VARIANT_KEYS);
    t.match(variant, { product_id: shirt.id, price_xaf: 3500, on_hand: 0, sku: null, barcode: null });
  }
  t.strictSame(combinations(await variantsOf(owner.token, shirt.id)), product(SIZES_AND_COLOURS), 'the product shows them');
  t.equal(await storedVariantCount(shirt.id), 6);
  t.equal((await api.request('GET', `/products/${shirt.id}`, { token: owner.token })).body.data.has_variants, true, 'has_variants is now true');
});

t.test('variants/generate prices the new variants at default_price_xaf when given', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { price_xaf: 3500 });
  await setOptions(owner.token, shirt.id, [{ name: 'Taille', values: ['S', 'M'] }]);
  expectInvalid(t, await generate(owner.token, shirt.id, { default_price_xaf: -1 }), 'default_price_xaf', '-1');
  expectInvalid(t, await generate(owner.token, shirt.id, { default_price_xaf: 10.5 }), 'default_price_xaf', '10.5');
  expectInvalid(t, await generate(owner.token, shirt.id, { default_price_xaf: 1_000_000_000_001 }), 'default_price_xaf', 'above the maximum');
  t.equal(await storedVariantCount(shirt.id), 0, 'the refused calls created nothing');
  const reply = await generate(owner.token, shirt.id, { default_price_xaf: 4200 });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data.map((v: any) => v.price_xaf), [4200, 4200]);

  const free = await createProduct(api, owner.token, { price_xaf: 900 });
  await setOptions(owner.token, free.id, [{ name: 'Taille', values: ['S'] }]);
  const zero = await generate(owner.token, free.id, { default_price_xaf: 0 });
  t.strictSame(zero.body.data.map((v: any) => v.price_xaf), [0], '0 is a price, not "no price"');
  const nulled = await createProduct(api, owner.token, { price_xaf: 900 });
  await setOptions(owner.token, nulled.id, [{ name: 'Taille', values: ['S'] }]);
  const byNull = await generate(owner.token, nulled.id, { default_price_xaf: null });
  t.strictSame(byNull.body.data.map((v: any) => v.price_xaf), [900], 'null means the product\'s price');
});

t.test('a second variants/generate creates nothing (empty data)', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const first = await generate(owner.token, shirt.id);
  t.equal(first.body.data.length, 6);
  const second = await generate(owner.token, shirt.id, { default_price_xaf: 1 });
  t.equal(second.status, 200);
  t.strictSame(second.body, { data: [], meta: { next_cursor: null } });
  t.equal(await storedVariantCount(shirt.id), 6, 'still six');
  t.notOk((await variantsOf(owner.token, shirt.id)).some((v) => v.price_xaf === 1), 'existing variants keep their price');
});

t.test('after a value is added to an axis, variants/generate creates only the new combinations', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const first = await generate(owner.token, shirt.id);
  const bigger: Axes = [{ name: 'Taille', values: ['S', 'M', 'L', 'XL'] }, SIZES_AND_COLOURS[1]!];
  await setOptions(owner.token, shirt.id, bigger);
  const second = await generate(owner.token, shirt.id);
  t.equal(second.status, 200);
  t.strictSame(combinations(second.body.data), ['Couleur=Blanc|Taille=XL', 'Couleur=Noir|Taille=XL'], 'only the two XL variants');
  const all = await variantsOf(owner.token, shirt.id);
  t.strictSame(combinations(all), product(bigger), 'eight in all');
  t.strictSame(
    first.body.data.map((v: any) => v.id).sort(),
    all.filter((v) => v.options.Taille !== 'XL').map((v) => v.id).sort(),
    'the first six are the same records',
  );
  t.strictSame((await generate(owner.token, shirt.id)).body.data, [], 'then nothing more');
});

t.test('variants/generate without options creates nothing', async (t) => {
  const owner = await registerShop(api);
  const item = await createProduct(api, owner.token);
  const reply = await generate(owner.token, item.id);
  t.equal(reply.status, 200);
  t.strictSame(reply.body, { data: [], meta: { next_cursor: null } });
  t.equal(await storedVariantCount(item.id), 0);
});

t.test('more than 500 combinations is a 409 too_many_variants; exactly 500 are created', async (t) => {
  const owner = await registerShop(api);
  const values = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const tooMany = await createProduct(api, owner.token);
  await setOptions(owner.token, tooMany.id, [{ name: 'A', values: values(7, 'a') }, { name: 'B', values: values(72, 'b') }]);
  expectConflict(t, await generate(owner.token, tooMany.id), 'too_many_variants', '7 x 72 = 504');
  t.equal(await storedVariantCount(tooMany.id), 0, 'none was created');

  const fourAxes = await createProduct(api, owner.token);
  await setOptions(owner.token, fourAxes.id, [
    { name: 'A', values: values(3, 'a') },
    { name: 'B', values: values(4, 'b') },
    { name: 'C', values: values(6, 'c') },
    { name: 'D', values: values(7, 'd') },
  ]);
  expectConflict(t, await generate(owner.token, fourAxes.id), 'too_many_variants', '3 x 4 x 6 x 7 = 504');

  const most = await createProduct(api, owner.token);
  await setOptions(owner.token, most.id, [{ name: 'A', values: values(5, 'a') }, { name: 'B', values: values(100, 'b') }]);
  const reply = await generate(owner.token, most.id);
  t.equal(reply.status, 200, '5 x 100 = 500');
  t.equal(reply.body.data.length, 500);
  t.equal(new Set(combinations(reply.body.data)).size, 500, 'all distinct');
  t.equal(await storedVariantCount(most.id), 500);
});

t.test('a tracked product holding stock of its own cannot get variants (409 product_has_stock)', async (t) => {
  const owner = await registerShop(api);
  const stocked = await createProduct(api, owner.token, {}, 5);
  t.equal(stocked.on_hand, 5);
  await setOptions(owner.token, stocked.id, SIZES_AND_COLOURS);
  expectConflict(t, await generate(owner.token, stocked.id), 'product_has_stock', 'generate');
  expectConflict(t, await postVariant(owner.token, stocked.id, { options: { Taille: 'S' } }), 'product_has_stock', 'create one');
  t.equal(await storedVariantCount(stocked.id), 0, 'none was created');

  const adjusted = await api.request('POST', `/products/${stocked.id}/adjust`, { token: owner.token, body: { new_quantity: 0, reason: 'Moved to variants' } });
  t.equal(adjusted.status, 200);
  const reply = await generate(owner.token, stocked.id);
  t.equal(reply.status, 200, 'once brought to 0 it may');
  t.equal(reply.body.data.length, 6);

  const untracked = await createProduct(api, owner.token, { tracked: false });
  t.equal((await postVariant(owner.token, untracked.id, { options: { Taille: 'S' } })).status, 201, 'an untracked product holds no stock of its own');
});

// One variant at a time

t.test('POST /products/{id}/variants creates one variant, priced at the product\'s price unless given', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { price_xaf: 3500 });
  const reply = await postVariant(owner.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' }, sku: ' TS-M-N ', barcode: '2000000001012' });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), VARIANT_KEYS);
  t.match(reply.body.data, { product_id: shirt.id, options: { Taille: 'M', Couleur: 'Noir' }, sku: 'TS-M-N', barcode: '2000000001012', price_xaf: 3500, on_hand: 0 });
  const priced = await postVariant(owner.token, shirt.id, { options: { Taille: 'L', Couleur: 'Noir' }, price_xaf: 3900 });
  t.equal(priced.status, 201);
  t.match(priced.body.data, { price_xaf: 3900, sku: null, barcode: null });
  const variants = await variantsOf(owner.token, shirt.id);
  t.strictSame(variants, [reply.body.data, priced.body.data], 'the product shows both, oldest first');

  expectInvalid(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, price_xaf: -1 }), 'price_xaf', 'price -1');
  expectInvalid(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, price_xaf: 10.5 }), 'price_xaf', 'price 10.5');
  expectInvalid(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, sku: chars(65) }), 'sku', 'a 65-character SKU');
  expectInvalid(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, barcode: '' }), 'barcode', 'an empty barcode');
  const bare = (body: Record<string, unknown>) => api.request('POST', `/products/${shirt.id}/variants`, { token: owner.token, body });
  expectInvalid(t, await bare({ options: { A: '1', B: '1', C: '1', D: '1', E: '1' } }), 'options', '5 axes');
  expectInvalid(t, await bare({}), 'options', 'no options');
  t.equal(await storedVariantCount(shirt.id), 2, 'the refused ones were not created');
  expectError(t, await postVariant(owner.token, randomUUID(), { options: { Taille: 'S' } }), 404, NOT_FOUND, 'unknown product');
});

t.test('the same combination twice is a 409 variant_exists, whatever the order of its axes', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const first = await postVariant(owner.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' } });
  t.equal(first.status, 201);
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' } }), 'variant_exists', 'the same');
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Couleur: 'Noir', Taille: 'M' } }), 'variant_exists', 'axes in another order');
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: ' M ', Couleur: 'Noir' } }), 'variant_exists', 'a value with spaces');
  t.equal(await storedVariantCount(shirt.id), 1);

  const other = await createProduct(api, owner.token);
  t.equal((await postVariant(owner.token, other.id, { options: { Taille: 'M', Couleur: 'Noir' } })).status, 201, 'another product may have it');
  t.equal((await deleteVariant(owner.token, first.body.data.id)).status, 204);
  t.equal((await postVariant(owner.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' } })).status, 201, 'once deleted, the combination is free');

  await setOptions(owner.token, shirt.id, [{ name: 'Taille', values: ['M', 'L'] }, { name: 'Couleur', values: ['Noir'] }]);
  const generated = await generate(owner.token, shirt.id);
  t.strictSame(combinations(generated.body.data), ['Couleur=Noir|Taille=L'], 'generate skips the combination made by hand');
});

t.test('a variant\'s SKU and barcode are unique across products and variants (409)', async (t) => {
  const owner = await registerShop(api);
  await createProduct(api, owner.token, { sku: 'PROD-1', barcode: '6004444000015' });
  const shirt = await createProduct(api, owner.token);
  const first = await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, sku: 'VAR-S', barcode: '6004444000022' });
  t.equal(first.status, 201);

  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, sku: 'PROD-1' }), 'sku_taken', 'a product\'s SKU');
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, barcode: '6004444000015' }), 'barcode_taken', 'a product\'s barcode');
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, sku: 'VAR-S' }), 'sku_taken', 'a sibling\'s SKU');
  expectConflict(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, barcode: '6004444000022' }), 'barcode_taken', 'a sibling\'s barcode');
  const pants = await createProduct(api, owner.token);
  expectConflict(t, await postVariant(owner.token, pants.id, { options: { Taille: 'M' }, sku: 'VAR-S' }), 'sku_taken', 'another product\'s variant\'s SKU');
  expectConflict(t, await postVariant(owner.token, pants.id, { options: { Taille: 'M' }, barcode: '6004444000022' }), 'barcode_taken', 'another product\'s variant\'s barcode');
  t.equal(await storedVariantCount(shirt.id), 1);
  t.equal(await storedVariantCount(pants.id), 0);

  const second = await postVariant(owner.token, shirt.id, { options: { Taille: 'M' }, sku: 'VAR-M' });
  t.equal(second.status, 201);
  expectConflict(t, await putVariant(owner.token, second.body.data.id, { sku: 'VAR-S' }), 'sku_taken', 'PUT a sibling\'s SKU');
  expectConflict(t, await putVariant(owner.token, second.body.data.id, { barcode: '6004444000015' }), 'barcode_taken', 'PUT a product\'s barcode');
  const [row] = await api.ownerSql`select sku, barcode from variants where id = ${second.body.data.id}`;
  t.strictSame({ ...row }, { sku: 'VAR-M', barcode: null }, 'the refused changes kept nothing');

  const other = await registerShop(api);
  const theirs = await createProduct(api, other.token);
  t.equal((await postVariant(other.token, theirs.id, { options: { Taille: 'S' }, sku: 'VAR-S', barcode: '6004444000022' })).status, 201, 'another shop may use the same codes');
});

t.test('PUT /variants/{id} changes only the fields it sends', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { price_xaf: 3500 });
  const small = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, sku: 'TS-S', barcode: '6005555000014' })).body.data;
  const medium = (await postVariant(owner.token, shirt.id, { options: { Taille: 'M' } })).body.data;

  const priced = await putVariant(owner.token, small.id, { price_xaf: 3700 });
  t.equal(priced.status, 200);
  t.strictSame(Object.keys(priced.body), ['data']);
  t.strictSame({ ...priced.body.data, updated_at: undefined }, { ...small, price_xaf: 3700, updated_at: undefined }, 'only the price changed');

  const recoded = await putVariant(owner.token, small.id, { sku: 'TS-S2', barcode: null });
  t.equal(recoded.status, 200);
  t.match(recoded.body.data, { sku: 'TS-S2', barcode: null, price_xaf: 3700, options: { Taille: 'S' } });
  const [scan] = (await api.request('GET', '/products?q=TS-S2', { token: owner.token })).body.data;
  t.equal(scan?.matched_variant?.id, small.id, 'the new SKU scans to it');
  t.equal((await api.request('GET', '/products?q=TS-S', { token: owner.token })).body.data.length, 0, 'the old SKU no longer scans');

  await setOptions(owner.token, shirt.id, [{ name: 'Taille', values: ['S', 'M', 'XS'] }]);
  const renamed = await putVariant(owner.token, small.id, { options: { Taille: 'XS' } });
  t.equal(renamed.status, 200);
  t.strictSame(renamed.body.data.options, { Taille: 'XS' });
  expectConflict(t, await putVariant(owner.token, small.id, { options: { Taille: 'M' } }), 'variant_exists', 'a sibling\'s combination');
  expectInvalid(t, await putVariant(owner.token, small.id, { price_xaf: -1 }), 'price_xaf', 'price -1');
  const nothing = await putVariant(owner.token, small.id, {});
  t.equal(nothing.status, 200, 'an empty body changes nothing');
  t.match(nothing.body.data, { options: { Taille: 'XS' }, sku: 'TS-S2', barcode: null, price_xaf: 3700 });
  t.match((await variantsOf(owner.token, shirt.id)).find((v) => v.id === medium.id), { options: { Taille: 'M' }, price_xaf: 3500 }, 'the sibling is untouched');
  expectError(t, await putVariant(owner.token, randomUUID(), { price_xaf: 1 }), 404, NOT_FOUND, 'unknown variant');
  expectInvalid(t, await putVariant(owner.token, 'abc', { price_xaf: 1 }), 'variant_id', 'malformed variant id');
});

t.test('DELETE /variants/{id} answers 204 and the variant is gone from its product', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const small = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S' }, barcode: '6006666000013' })).body.data;
  const medium = (await postVariant(owner.token, shirt.id, { options: { Taille: 'M' } })).body.data;

  const reply = await deleteVariant(owner.token, small.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  t.strictSame((await variantsOf(owner.token, shirt.id)).map((v) => v.id), [medium.id], 'gone from GET /products/{id}');
  const list = await api.request('GET', `/products/${shirt.id}/variants`, { token: owner.token });
  t.strictSame(list.body.data.map((v: any) => v.id), [medium.id], 'gone from the variant list');
  t.strictSame((await api.request('GET', '/products?q=6006666000013', { token: owner.token })).body.data, [], 'its barcode no longer scans');
  expectError(t, await deleteVariant(owner.token, small.id), 404, NOT_FOUND, 'DELETE again');
  expectError(t, await putVariant(owner.token, small.id, { price_xaf: 1 }), 404, NOT_FOUND, 'PUT a deleted variant');
  const [row] = await api.ownerSql`select deleted_at from variants where id = ${small.id}`;
  t.ok(row!.deleted_at instanceof Date, 'the row stays, marked deleted');

  t.equal((await deleteVariant(owner.token, medium.id)).status, 204);
  t.equal((await api.request('GET', `/products/${shirt.id}`, { token: owner.token })).body.data.has_variants, false, 'without variants, has_variants is false again');
  expectError(t, await deleteVariant(owner.token, randomUUID()), 404, NOT_FOUND, 'unknown variant');
});

t.test('deleting a product deletes its options and variants with it', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const [variant] = (await generate(owner.token, shirt.id)).body.data;
  t.equal((await api.request('DELETE', `/products/${shirt.id}`, { token: owner.token })).status, 204);
  expectError(t, await putVariant(owner.token, variant.id, { price_xaf: 1 }), 404, NOT_FOUND, 'PUT one of its variants');
  expectError(t, await deleteVariant(owner.token, variant.id), 404, NOT_FOUND, 'DELETE one of its variants');
  expectError(t, await getOptions(owner.token, shirt.id), 404, NOT_FOUND, 'GET its options');
  expectError(t, await api.request('GET', `/products/${shirt.id}/variants`, { token: owner.token }), 404, NOT_FOUND, 'GET its variants');
  const [rows] = await api.ownerSql<{ variants: number; options: number }[]>`
    select (select count(*)::int from variants where product_id = ${shirt.id} and deleted_at is null) as variants,
           (select count(*)::int from product_options where product_id = ${shirt.id} and deleted_at is null) as options`;
  t.strictSame({ ...rows }, { variants: 0, options: 0 }, 'none of them is live any more');
});

t.test('GET /products/{id}/variants pages oldest first, and walking next_cursor with limit=1 visits each once', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  await generate(owner.token, shirt.id);
  const late = (await postVariant(owner.token, shirt.id, { options: { Taille: 'XL', Couleur: 'Noir' } })).body.data;
  const all = await api.request('GET', `/products/${shirt.id}/variants?limit=200`, { token: owner.token });
  t.equal(all.status, 200);
  t.strictSame(Object.keys(all.body).sort(), ['data', 'meta']);
  t.equal(all.body.data.length, 7);
  t.equal(all.body.meta.next_cursor, null);
  t.equal(all.body.data[6].id, late.id, 'the one made last is listed last');
  t.strictSame(all.body.data, await variantsOf(owner.token, shirt.id), 'the same order as the product shows');

  const visited: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (; pages < 20; pages++) {
    const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
    const reply: Reply = await api.request('GET', `/products/${shirt.id}/variants${query}`, { token: owner.token });
    t.equal(reply.status, 200, `page ${pages}`);
    t.ok(reply.body.data.length <= 1, `page ${pages} holds at most one variant`);
    visited.push(...reply.body.data.map((v: any) => v.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, all.body.data.map((v: any) => v.id), 'every variant once, in order');
  expectInvalid(t, await api.request('GET', `/products/${shirt.id}/variants?limit=0`, { token: owner.token }), 'limit', 'limit=0');
  expectInvalid(t, await api.request('GET', `/products/${shirt.id}/variants?cursor=garbage`, { token: owner.token }), 'cursor', 'a garbage cursor');
  expectError(t, await api.request('GET', `/products/${randomUUID()}/variants`, { token: owner.token }), 404, NOT_FOUND, 'unknown product');
});

t.test('has_variants is true exactly while the product has a variant', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const read = async () => (await api.request('GET', `/products/${shirt.id}`, { token: owner.token })).body.data.has_variants;
  const listed = async () => (await api.request('GET', `/products?q=${encodeURIComponent(shirt.name)}`, { token: owner.token })).body.data[0].has_variants;
  t.equal(await read(), false, 'none yet');
  await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  t.equal(await read(), false, 'axes alone make no variant');
  const variant = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S', Couleur: 'Noir' } })).body.data;
  t.equal(await read(), true, 'GET /products/{id}');
  t.equal(await listed(), true, 'GET /products');
  t.equal((await deleteVariant(owner.token, variant.id)).status, 204);
  t.equal(await read(), false, 'its last variant deleted');
});

// Roles, tenancy, subscription

t.test('a cashier reads options and variants (200) but gets 403 on every option and variant write', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const shirt = await createProduct(api, owner.token);
  const [size] = await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const variant = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S', Couleur: 'Noir' } })).body.data;

  const options = await getOptions(cashier.token, shirt.id);
  t.equal(options.status, 200, 'GET options');
  t.equal(options.body.data.length, 2);
  const variants = await api.request('GET', `/products/${shirt.id}/variants`, { token: cashier.token });
  t.equal(variants.status, 200, 'GET variants');
  t.strictSame(variants.body.data, [variant]);

  expectError(t, await postOptions(cashier.token, shirt.id, [{ name: 'Matière', values: ['Lin'] }]), 403, FORBIDDEN, 'POST options');
  expectError(t, await deleteOption(cashier.token, shirt.id, size.id), 403, FORBIDDEN, 'DELETE option');
  expectError(t, await generate(cashier.token, shirt.id), 403, FORBIDDEN, 'generate');
  expectError(t, await postVariant(cashier.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' } }), 403, FORBIDDEN, 'POST variant');
  expectError(t, await putVariant(cashier.token, variant.id, { price_xaf: 1 }), 403, FORBIDDEN, 'PUT variant');
  expectError(t, await deleteVariant(cashier.token, variant.id), 403, FORBIDDEN, 'DELETE variant');
  t.strictSame((await getOptions(owner.token, shirt.id)).body.data, options.body.data, 'the axes are unchanged');
  t.strictSame(await variantsOf(owner.token, shirt.id), [variant], 'the variants are unchanged');
});

t.test('another shop\'s product, option or variant is 404 and left unchanged', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createProduct(api, other.token);
  const [axis] = await setOptions(other.token, theirs.id, SIZES_AND_COLOURS);
  const variant = (await postVariant(other.token, theirs.id, { options: { Taille: 'S', Couleur: 'Noir' }, sku: 'THEIRS-S' })).body.data;
  const mine = await createProduct(api, owner.token);

  expectError(t, await getOptions(owner.token, theirs.id), 404, NOT_FOUND, 'GET options');
  expectError(t, await postOptions(owner.token, theirs.id, [{ name: 'X', values: ['1'] }]), 404, NOT_FOUND, 'POST options');
  expectError(t, await deleteOption(owner.token, theirs.id, axis.id), 404, NOT_FOUND, 'DELETE option');
  expectError(t, await deleteOption(owner.token, mine.id, axis.id), 404, NOT_FOUND, 'DELETE their option through my product');
  expectError(t, await generate(owner.token, theirs.id), 404, NOT_FOUND, 'generate');
  expectError(t, await api.request('GET', `/products/${theirs.id}/variants`, { token: owner.token }), 404, NOT_FOUND, 'GET variants');
  expectError(t, await postVariant(owner.token, theirs.id, { options: { Taille: 'M' } }), 404, NOT_FOUND, 'POST variant');
  expectError(t, await putVariant(owner.token, variant.id, { price_xaf: 1 }), 404, NOT_FOUND, 'PUT variant');
  expectError(t, await putVariant(owner.token, variant.id, {}), 404, NOT_FOUND, 'PUT variant with an empty body');
  expectError(t, await deleteVariant(owner.token, variant.id), 404, NOT_FOUND, 'DELETE variant');

  t.strictSame(await variantsOf(other.token, theirs.id), [variant], 'their variant is unchanged');
  t.equal((await getOptions(other.token, theirs.id)).body.data.length, 2, 'their axes are unchanged');
  t.equal(await storedVariantCount(theirs.id), 1);
});

t.test('once the subscription has ended, option and variant writes answer 402 and reads answer 200', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token);
  const [size] = await setOptions(owner.token, shirt.id, SIZES_AND_COLOURS);
  const variant = (await postVariant(owner.token, shirt.id, { options: { Taille: 'S', Couleur: 'Noir' } })).body.data;
  await expireSubscription(api, owner.shop.id);
  expectError(t, await postOptions(owner.token, shirt.id, [{ name: 'X', values: ['1'] }]), 402, SUBSCRIPTION_REQUIRED, 'POST options');
  expectError(t, await deleteOption(owner.token, shirt.id, size.id), 402, SUBSCRIPTION_REQUIRED, 'DELETE option');
  expectError(t, await generate(owner.token, shirt.id), 402, SUBSCRIPTION_REQUIRED, 'generate');
  expectError(t, await postVariant(owner.token, shirt.id, { options: { Taille: 'M', Couleur: 'Noir' } }), 402, SUBSCRIPTION_REQUIRED, 'POST variant');
  expectError(t, await putVariant(owner.token, variant.id, { price_xaf: 1 }), 402, SUBSCRIPTION_REQUIRED, 'PUT variant');
  expectError(t, await deleteVariant(owner.token, variant.id), 402, SUBSCRIPTION_REQUIRED, 'DELETE variant');
  t.equal((await getOptions(owner.token, shirt.id)).status, 200, 'GET options');
  t.equal((await api.request('GET', `/products/${shirt.id}/variants`, { token: owner.token })).status, 200, 'GET variants');
  t.strictSame(await variantsOf(owner.token, shirt.id), [variant], 'unchanged');
});

t.test('a variant names every axis of its product once, with one of its values', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise' });
  const bare = (body: Record<string, unknown>) => api.request('POST', `/products/${shirt.id}/variants`, { token: owner.token, body });
  expectInvalid(t, await bare({ options: { Taille: 'M' } }), 'options', 'no axes yet');
  await setOptions(owner.token, shirt.id, [{ name: 'Taille', values: ['S', 'M'] }, { name: 'Couleur', values: ['Noir'] }]);
  expectInvalid(t, await bare({ options: { Taille: 'M' } }), 'options.Couleur', 'an axis left out');
  expectInvalid(t, await bare({ options: { Taille: 'XL', Couleur: 'Noir' } }), 'options.Taille', 'a value the axis does not have');
  expectInvalid(t, await bare({ options: { Taille: 'M', Couleur: 'Noir', Manche: 'Longue' } }), 'options.Manche', 'an axis the product does not have');
  expectInvalid(t, await bare({ options: {} }), ['options.Couleur', 'options.Taille'], 'no options at all');
  const created = await bare({ options: { Taille: 'M', Couleur: 'Noir' } });
  t.equal(created.status, 201, 'every axis with one of its values');
  expectInvalid(t, await putVariant(owner.token, created.body.data.id, { options: { Taille: 'L', Couleur: 'Noir' } }), 'options.Taille', 'PUT follows the same rule');
  t.equal((await putVariant(owner.token, created.body.data.id, { options: { Taille: 'S', Couleur: 'Noir' } })).status, 200, 'PUT to another valid combination');
});

t.test('a variant still holding stock cannot be deleted (409 variant_has_stock)', async (t) => {
  const owner = await registerShop(api);
  const shirt = await createProduct(api, owner.token, { name: 'Chemise stockée' });
  const variant = (await postVariant(owner.token, shirt.id, { options: { Taille: 'M' } })).body.data;
  const adjust = (quantity: number) =>
    api.request('POST', `/products/${shirt.id}/adjust`, { token: owner.token, body: { new_quantity: quantity, variant_id: variant.id } });
  t.equal((await adjust(4)).status, 200);
  expectConflict(t, await deleteVariant(owner.token, variant.id), 'variant_has_stock');
  t.equal((await api.request('GET', `/products/${shirt.id}`, { token: owner.token })).body.data.on_hand, 4, 'the stock stays on the variant');
  t.equal((await adjust(0)).status, 200);
  t.equal((await deleteVariant(owner.token, variant.id)).status, 204, 'deleted once at 0');
});
