import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { categoryExists } from '../categories/queries.ts';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { assertCertifiableRate } from '../fiscal/certification-queries.ts';
import { CursorAt, decodeCursor, page, SINGLE_PAGE } from '../lib/pagination.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, IdParam, jsonBody, jsonResponse, ListQuery, many, one, pickErrors, refusals, Text, Uuid } from '../schemas.ts';
import { PRODUCT, UPDATE_PRODUCT, VARIANT } from './examples.ts';
import { shopDefaults } from '../shop/queries.ts';
import {
  allVariants,
  createProduct,
  createVariant,
  deleteOption,
  deleteProduct,
  deleteVariant,
  findProduct,
  findVariant,
  generateBarcodes,
  generateVariants,
  listOptions,
  listProducts,
  listVariants,
  lockProduct,
  missingProducts,
  replaceOptions,
  toProductRecord,
  toVariantRecord,
  updateProduct,
  updateVariant,
} from './queries.ts';
import {
  BarcodeAssignment,
  CreateProductBody,
  CreateVariantBody,
  GenerateBarcodesBody,
  GenerateVariantsBody,
  OptionRecord,
  ProductDetail,
  ProductListItem,
  ProductListQuery,
  ProductRecord,
  ReplaceOptionsBody,
  UpdateProductBody,
  UpdateVariantBody,
  VariantRecord,
} from './schemas.ts';
import type { ProductRecord as Product } from './schemas.ts';

/** A product may have at most this many variants generated at once. */
const MAX_GENERATED_VARIANTS = 500;

const readers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('cashier')];
const writers: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('manager'), requireActiveSubscription];

const ProductParam = z.object({ product_id: Uuid.openapi({ param: { name: 'product_id', in: 'path' } }) });
const OptionParams = ProductParam.extend({ option_id: Uuid.openapi({ param: { name: 'option_id', in: 'path' } }) });
const VariantParam = z.object({ variant_id: Uuid.openapi({ param: { name: 'variant_id', in: 'path' } }) });

const tags = ['Catalogue'];

/** What a product's or a variant's codes can clash with (db/functions/catalogue/catalogue_codes.sql). */
const CODE_CLASHES = { sku_taken: 'The SKU is already used by another product or variant of the shop.', barcode_taken: 'The barcode is already used by another product or variant of the shop.' };

const listProductsRoute = createRoute({
  method: 'get',
  path: '/products',
  tags,
  operationId: 'listProducts',
  summary: 'List or search products (any shop user)',
  description:
    'Ordered by name, then id. With `q`: the products whose SKU or barcode (or a variant\'s) is exactly `q` (a scan, answered with `matched_variant` when the code is a variant\'s), ' +
    'then those whose accent-free name starts with `q`, then those whose name contains it further on; each group ordered by accent-free name (byte order), then id. ' +
    'A cursor belongs to its kind of list: a search\'s cursor given without `q`, or a list\'s with `q`, is a 422 on `cursor`.',
  security: bearer,
  middleware: readers,
  request: { query: ProductListQuery },
  responses: {
    200: jsonResponse('Products.', many(ProductListItem)),
    ...pickErrors(401, 403),
    ...refusals(422, { validation_failed: 'A filter is malformed, or `cursor` is not one of this kind of list (a search\'s cursor without `q`, a list\'s with `q`).' }),
  },
});

/** CONTRACT section 14: a shop that certifies sells only at rates its tax authority has a group for. */
const UNMAPPED_VAT_RATE = { on: 'vat_rate', meaning: 'The shop certifies its sales and its tax authority has no tax group for this VAT rate (GET /fiscal/certification lists them).' };

const createProductRoute = createRoute({
  method: 'post',
  path: '/products',
  tags,
  operationId: 'createProduct',
  summary: 'Create a product (manager or owner)',
  description:
    'Price and cost in XAF, the price VAT included; the VAT rate defaults to the shop\'s `default_vat_rate`. SKU and barcode are unique in the shop across products and variants: ' +
    'a clash is a 409 `sku_taken` or `barcode_taken`. An unknown `category_id` is a 422 on it. Stock starts at 0; only movements change it (adjust, purchases, stocktakes, sales). ' +
    'Tills receive the product on their next pull.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(CreateProductBody) },
  responses: {
    201: jsonResponse('The new product.', one(ProductRecord), { data: { ...PRODUCT, on_hand: 0, created_at: PRODUCT.updated_at } }),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(409, CODE_CLASHES),
    ...refusals(422, { unmapped_vat_rate: UNMAPPED_VAT_RATE }),
  },
});

const getProductRoute = createRoute({
  method: 'get',
  path: '/products/{id}',
  tags,
  operationId: 'getProduct',
  summary: 'Read a product with its options and variants (any shop user)',
  description: 'The product with its option axes (at most 4, in order) and every variant, each with its own price, codes and stock. A deleted product, or another shop\'s, is a 404.',
  security: bearer,
  middleware: readers,
  request: { params: IdParam },
  responses: { 200: jsonResponse('The product.', one(ProductDetail)), ...pickErrors(401, 403, 404) },
});

const updateProductRoute = createRoute({
  method: 'put',
  path: '/products/{id}',
  tags,
  operationId: 'updateProduct',
  summary: 'Change a product (manager or owner)',
  description:
    'Only the fields sent change; `on_hand` is not writable (use `POST /products/{product_id}/adjust` or a stocktake). A new price applies to the sales recorded after it; ' +
    'sales already recorded keep theirs. Codes stay unique as for creation (409 `sku_taken`, `barcode_taken`).',
  security: bearer,
  middleware: writers,
  request: { params: IdParam, body: jsonBody(UpdateProductBody) },
  responses: {
    200: jsonResponse('The product as saved.', one(ProductRecord), { data: { ...PRODUCT, ...UPDATE_PRODUCT, updated_at: '2026-11-21T07:58:02.000Z' } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, CODE_CLASHES),
    ...refusals(422, { unmapped_vat_rate: UNMAPPED_VAT_RATE }),
  },
});

const deleteProductRoute = createRoute({
  method: 'delete',
  path: '/products/{id}',
  tags,
  operationId: 'deleteProduct',
  summary: 'Delete a product (manager or owner)',
  description: 'A soft delete: the product, its variants and options disappear from the catalogue and free their codes; every sale, movement and report that names it stays intact.',
  security: bearer,
  middleware: writers,
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted.' }, ...pickErrors(401, 402, 403, 404) },
});

const listOptionsRoute = createRoute({
  method: 'get',
  path: '/products/{product_id}/options',
  tags,
  operationId: 'listProductOptions',
  summary: 'The product\'s option axes (any shop user)',
  description: 'The axes its variants are built on (Taille, Couleur...), each with its values, in order: at most 4, so always one page (`meta.next_cursor` null).',
  security: bearer,
  middleware: readers,
  request: { params: ProductParam },
  responses: { 200: jsonResponse('Axes in order (at most 4, one page).', many(OptionRecord)), ...pickErrors(401, 403, 404) },
});

const replaceOptionsRoute = createRoute({
  method: 'post',
  path: '/products/{product_id}/options',
  tags,
  operationId: 'replaceProductOptions',
  summary: 'Replace the product\'s axes wholesale (manager or owner)',
  description: 'The set sent becomes the product\'s axes, in that order (1 to 4; names unique; values unique within an axis). Existing variants are kept.',
  security: bearer,
  middleware: writers,
  request: { params: ProductParam, body: jsonBody(ReplaceOptionsBody) },
  responses: { 200: jsonResponse('The new axes.', many(OptionRecord)), ...pickErrors(400, 401, 402, 403, 404, 413) },
});

const deleteOptionRoute = createRoute({
  method: 'delete',
  path: '/products/{product_id}/options/{option_id}',
  tags,
  operationId: 'deleteProductOption',
  summary: 'Delete one axis (manager or owner)',
  description: 'The axis goes; existing variants are kept with their options as they are. An axis of another product is a 404.',
  security: bearer,
  middleware: writers,
  request: { params: OptionParams },
  responses: { 204: { description: 'Deleted.' }, ...pickErrors(401, 402, 403, 404) },
});

const generateVariantsRoute = createRoute({
  method: 'post',
  path: '/products/{product_id}/variants/generate',
  tags,
  operationId: 'generateVariants',
  summary: 'Create every missing combination of the axes\' values (manager or owner)',
  description:
    `Idempotent: a second call creates nothing. At most ${MAX_GENERATED_VARIANTS} combinations (409 \`too_many_variants\`). ` +
    'A tracked product holding stock of its own must be brought to 0 first (409 `product_has_stock`): with variants, stock lives on them.',
  security: bearer,
  middleware: writers,
  request: { params: ProductParam, body: jsonBody(GenerateVariantsBody) },
  responses: {
    200: jsonResponse('The variants created now (possibly none).', many(VariantRecord)),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      too_many_variants: `The axes make more than ${MAX_GENERATED_VARIANTS} combinations.`,
      product_has_stock: 'The product holds stock of its own: bring it to 0 before giving it variants.',
    }),
  },
});

const listVariantsRoute = createRoute({
  method: 'get',
  path: '/products/{product_id}/variants',
  tags,
  operationId: 'listVariants',
  summary: 'List the product\'s variants (any shop user)',
  description: 'Oldest first, by pages (`limit`, `cursor`), each with its options, codes, price and stock.',
  security: bearer,
  middleware: readers,
  request: { params: ProductParam, query: ListQuery },
  responses: { 200: jsonResponse('Variants, oldest first.', many(VariantRecord)), ...pickErrors(401, 403, 404) },
});

const createVariantRoute = createRoute({
  method: 'post',
  path: '/products/{product_id}/variants',
  tags,
  operationId: 'createVariant',
  summary: 'Create a variant (manager or owner)',
  description:
    'The options name every axis of the product once, with one of its values (422 on `options.<axis>`). One variant per combination (409 `variant_exists`); ' +
    'codes unique as for products. A tracked product holding stock of its own: 409 `product_has_stock`.',
  security: bearer,
  middleware: writers,
  request: { params: ProductParam, body: jsonBody(CreateVariantBody) },
  responses: {
    201: jsonResponse('The new variant.', one(VariantRecord), { data: { ...VARIANT, on_hand: 0 } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, {
      variant_exists: 'The product already has a variant with these options.',
      product_has_stock: 'The product holds stock of its own: bring it to 0 before giving it variants.',
      ...CODE_CLASHES,
    }),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `options` does not name each of the product\'s axes once with one of its values (on `options.<axis>`).' }),
  },
});

const updateVariantRoute = createRoute({
  method: 'put',
  path: '/variants/{variant_id}',
  tags,
  operationId: 'updateVariant',
  summary: 'Change a variant (manager or owner)',
  description: 'Only the fields sent change; new `options` must fit the product\'s axes as for creation. Codes stay unique in the shop; stock is not writable here.',
  security: bearer,
  middleware: writers,
  request: { params: VariantParam, body: jsonBody(UpdateVariantBody) },
  responses: {
    200: jsonResponse('The variant as saved.', one(VariantRecord), { data: { ...VARIANT, price_xaf: 13_000, updated_at: '2026-11-21T08:01:13.000Z' } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { variant_exists: 'The product already has a variant with these options.', ...CODE_CLASHES }),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `options` does not name each of the product\'s axes once with one of its values (on `options.<axis>`).' }),
  },
});

const deleteVariantRoute = createRoute({
  method: 'delete',
  path: '/variants/{variant_id}',
  tags,
  operationId: 'deleteVariant',
  summary: 'Delete a variant (manager or owner)',
  description: 'A variant still holding stock is a 409 `variant_has_stock`: bring it to 0 first.',
  security: bearer,
  middleware: writers,
  request: { params: VariantParam },
  responses: {
    204: { description: 'Deleted.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { variant_has_stock: 'The variant still holds stock: bring it to 0 (adjust or stocktake) before deleting it.' }),
  },
});

const generateBarcodesRoute = createRoute({
  method: 'post',
  path: '/products/barcodes/generate',
  tags,
  operationId: 'generateBarcodes',
  summary: 'Give in-store EAN-13 barcodes to products that have none (manager or owner)',
  description:
    'Codes in the in-store range (prefix 20 to 29) with a valid check digit, unique in the shop. Chosen by `product_ids`, else by `category_id`, ' +
    'else every product; with `include_variants`, their variants too. An existing barcode is never overwritten. An unknown product (on `product_ids.N`) or category is a 422.',
  security: bearer,
  middleware: writers,
  request: { body: jsonBody(GenerateBarcodesBody) },
  responses: { 200: jsonResponse('The codes given now (one page).', many(BarcodeAssignment)), ...pickErrors(400, 401, 402, 403, 413) },
});

async function assertCategory(tx: Tx, categoryId: string | null | undefined): Promise<void> {
  if (categoryId && !(await categoryExists(tx, categoryId))) throw invalidField('category_id', 'No such category in this shop.');
}

async function lockedProduct(tx: Tx, id: string): Promise<Product> {
  const product = await lockProduct(tx, id);
  if (!product) throw errors.notFound();
  return product;
}

/**
 * A variant names every axis of its product once, with one of that axis' values: its options are
 * what the till shows and what a scan resolves, so they must mean something.
 */
async function assertOptionsFitAxes(tx: Tx, productId: string, options: Record<string, string>): Promise<void> {
  const axes = await listOptions(tx, productId);
  if (axes.length === 0) throw invalidField('options', 'Give the product its options first (POST /products/{product_id}/options).');
  const fieldErrors: Record<string, string[]> = {};
  for (const axis of axes) {
    const value = options[axis.name];
    if (value === undefined) fieldErrors[`options.${axis.name}`] = ['This field is required.'];
    else if (!axis.values.includes(value)) fieldErrors[`options.${axis.name}`] = [`Must be one of: ${axis.values.join(', ')}.`];
  }
  for (const name of Object.keys(options)) {
    if (!axes.some((axis) => axis.name === name)) fieldErrors[`options.${name}`] = ['The product has no such option.'];
  }
  if (Object.keys(fieldErrors).length > 0) throw errors.invalid(fieldErrors);
}

/** With variants, stock lives on them: a product's own stock must be 0 before it gets any. */
function assertMayHaveVariants(product: Product): void {
  if (product.tracked && !product.has_variants && product.on_hand !== 0) {
    throw errors.conflict('product_has_stock', 'This product holds stock of its own: bring it to 0 before giving it variants.');
  }
}

export const productRoutes = newRouter()
  .openapi(listProductsRoute, async (c) => {
    const { limit, cursor, ...filters } = c.req.valid('query');
    // A search's cursor is [group, accent-free name, id], the list's [name, id] (listProducts).
    const after = filters.q
      ? decodeCursor(cursor, z.tuple([z.int().min(0).max(2), Text, z.uuid()]))
      : decodeCursor(cursor, z.tuple([Text, z.uuid()]));
    const { rows, nextCursor } = page(await listProducts(c.var.tx, filters, limit, after), limit, (row) => row.cursor);
    const data = rows.map(({ cursor: _cursor, ...row }) => ({ ...toProductRecord(row), matched_variant: row.matched_variant }));
    return c.json({ data, meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(createProductRoute, async (c) => {
    const body = c.req.valid('json');
    const { tx } = c.var;
    await assertCategory(tx, body.category_id);
    await assertCertifiableRate(tx, c.var.deps.config, body.vat_rate, 'vat_rate');
    const vatRate = body.vat_rate ?? (await shopDefaults(tx)).default_vat_rate;
    return c.json({ data: await createProduct(tx, { ...body, vat_rate: vatRate }) }, 201);
  })
  .openapi(getProductRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { tx } = c.var;
    const product = await findProduct(tx, id);
    if (!product) throw errors.notFound();
    return c.json({ data: { ...product, options: await listOptions(tx, id), variants: await allVariants(tx, id) } }, 200);
  })
  .openapi(updateProductRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { tx } = c.var;
    await lockedProduct(tx, id);
    await assertCategory(tx, body.category_id);
    await assertCertifiableRate(tx, c.var.deps.config, body.vat_rate, 'vat_rate');
    return c.json({ data: await updateProduct(tx, id, body) }, 200);
  })
  .openapi(deleteProductRoute, async (c) => {
    const { id } = c.req.valid('param');
    await lockedProduct(c.var.tx, id);
    await deleteProduct(c.var.tx, id);
    return c.body(null, 204);
  })
  .openapi(listOptionsRoute, async (c) => {
    const { product_id } = c.req.valid('param');
    if (!(await findProduct(c.var.tx, product_id))) throw errors.notFound();
    return c.json({ data: await listOptions(c.var.tx, product_id), meta: SINGLE_PAGE }, 200);
  })
  .openapi(replaceOptionsRoute, async (c) => {
    const { product_id } = c.req.valid('param');
    await lockedProduct(c.var.tx, product_id);
    return c.json({ data: await replaceOptions(c.var.tx, product_id, c.req.valid('json').options), meta: SINGLE_PAGE }, 200);
  })
  .openapi(deleteOptionRoute, async (c) => {
    const { product_id, option_id } = c.req.valid('param');
    await lockedProduct(c.var.tx, product_id);
    if (!(await deleteOption(c.var.tx, product_id, option_id))) throw errors.notFound();
    return c.body(null, 204);
  })
  .openapi(generateVariantsRoute, async (c) => {
    const { product_id } = c.req.valid('param');
    const product = await lockedProduct(c.var.tx, product_id);
    assertMayHaveVariants(product);
    const price = c.req.valid('json').default_price_xaf ?? product.price_xaf;
    return c.json({ data: await generateVariants(c.var.tx, product_id, price, MAX_GENERATED_VARIANTS), meta: SINGLE_PAGE }, 200);
  })
  .openapi(listVariantsRoute, async (c) => {
    const { product_id } = c.req.valid('param');
    const { limit, cursor } = c.req.valid('query');
    if (!(await findProduct(c.var.tx, product_id))) throw errors.notFound();
    const after = decodeCursor(cursor, z.tuple([CursorAt, z.uuid()]));
    const { rows, nextCursor } = page(await listVariants(c.var.tx, product_id, limit, after), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toVariantRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(createVariantRoute, async (c) => {
    const { product_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const product = await lockedProduct(c.var.tx, product_id);
    assertMayHaveVariants(product);
    await assertOptionsFitAxes(c.var.tx, product_id, body.options);
    return c.json({ data: await createVariant(c.var.tx, product_id, { ...body, price_xaf: body.price_xaf ?? product.price_xaf }) }, 201);
  })
  .openapi(updateVariantRoute, async (c) => {
    const { variant_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const current = await findVariant(c.var.tx, variant_id);
    if (!current) throw errors.notFound();
    if (body.options !== undefined) await assertOptionsFitAxes(c.var.tx, current.product_id, body.options);
    return c.json({ data: (await updateVariant(c.var.tx, variant_id, body))! }, 200);
  })
  .openapi(deleteVariantRoute, async (c) => {
    const { variant_id } = c.req.valid('param');
    const variant = await findVariant(c.var.tx, variant_id);
    if (!variant) throw errors.notFound();
    await lockedProduct(c.var.tx, variant.product_id);
    // Stock is the sum of movements: a variant that still holds some would leave it on nobody.
    const locked = await findVariant(c.var.tx, variant_id);
    if (locked!.on_hand !== 0) {
      throw errors.conflict('variant_has_stock', 'This variant still holds stock: bring it to 0 (adjust or stocktake) before deleting it.');
    }
    await deleteVariant(c.var.tx, variant_id);
    return c.body(null, 204);
  })
  .openapi(generateBarcodesRoute, async (c) => {
    const body = c.req.valid('json');
    const { tx } = c.var;
    if (body.product_ids) {
      const missing = new Set(await missingProducts(tx, body.product_ids));
      const fieldErrors = Object.fromEntries(
        body.product_ids.flatMap((id, index) => (missing.has(id) ? [[`product_ids.${index}`, ['No such product in this shop.']]] : [])),
      );
      if (missing.size > 0) throw errors.invalid(fieldErrors);
    }
    await assertCategory(tx, body.category_id);
    const assignments = await generateBarcodes(tx, {
      productIds: body.product_ids ?? null,
      categoryId: body.product_ids ? null : (body.category_id ?? null),
      includeVariants: body.include_variants ?? false,
    });
    return c.json({ data: assignments, meta: SINGLE_PAGE }, 200);
  });
