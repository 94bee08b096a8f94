import type postgres from 'postgres';
import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import { errors, onUniqueViolation } from '../errors.ts';
import type {
  CreateProductBody,
  CreateVariantBody,
  OptionRecord,
  ProductRecord,
  UpdateProductBody,
  UpdateVariantBody,
  VariantRecord,
} from './schemas.ts';

const iso = (date: Date) => date.toISOString();

interface ProductRow extends Omit<ProductRecord, 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
}

export function toProductRecord(row: ProductRow): ProductRecord {
  return {
    id: row.id,
    name: row.name,
    sku: row.sku,
    barcode: row.barcode,
    category_id: row.category_id,
    price_xaf: row.price_xaf,
    cost_xaf: row.cost_xaf,
    vat_rate: row.vat_rate,
    unit: row.unit,
    tracked: row.tracked,
    reorder_level: row.reorder_level,
    on_hand: row.on_hand,
    active: row.active,
    has_variants: row.has_variants,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The product columns of a record, for a query over `products p`. */
export const productColumns = (tx: Tx) => tx`
  p.id, p.name, p.sku, p.barcode, p.category_id, p.price_xaf, p.cost_xaf, p.vat_rate, p.unit, p.tracked,
  p.reorder_level, p.on_hand, p.active, p.created_at, p.updated_at,
  exists (select 1 from variants v where v.product_id = p.id and v.deleted_at is null) as has_variants`;

interface VariantRow extends Omit<VariantRecord, 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
}

export function toVariantRecord(row: VariantRow): VariantRecord {
  return {
    id: row.id,
    product_id: row.product_id,
    options: row.options,
    sku: row.sku,
    barcode: row.barcode,
    price_xaf: row.price_xaf,
    on_hand: row.on_hand,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export const VARIANT_COLUMNS = ['id', 'product_id', 'options', 'sku', 'barcode', 'price_xaf', 'on_hand', 'created_at', 'updated_at'] as const;

interface OptionRow extends Omit<OptionRecord, 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
}

export const toOptionRecord = (row: OptionRow): OptionRecord => ({ ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) });

export const OPTION_COLUMNS = ['id', 'product_id', 'name', 'values', 'position', 'created_at', 'updated_at'] as const;

export async function findProduct(tx: Tx, id: string): Promise<ProductRecord | null> {
  const [row] = await tx<ProductRow[]>`select ${productColumns(tx)} from products p where p.id = ${id} and p.deleted_at is null`;
  return row ? toProductRecord(row) : null;
}

/** Locks a live product of the shop for a change that depends on its state; null when there is none. */
export async function lockProduct(tx: Tx, id: string): Promise<ProductRecord | null> {
  const [row] = await tx<ProductRow[]>`
    select ${productColumns(tx)} from products p where p.id = ${id} and p.deleted_at is null for update of p`;
  return row ? toProductRecord(row) : null;
}

export interface ProductFilters {
  q?: string;
  category_id?: string;
  active?: boolean;
  tracked?: boolean;
  low_stock?: boolean;
}

/**
 * One page of products by name. With `q`, a product matches when `q` is exactly one of its (or its
 * variants') SKUs or barcodes — one lookup in catalogue_codes, so a scan resolves in this one query,
 * with the variant it names — or when its accent-free name contains `q`: products_search pages the
 * matches (ids, names and their order's keys) with the filters, in the database, and only that page's
 * rows are read. A search lists the scanned product first, then the names that start with `q`, then
 * those that contain it further on, each group by accent-free name: its cursor is
 * [group, accent-free name, id]; the list's is [name, id].
 */
export type ProductCursor = readonly [string, string] | readonly [number, string, string];

export async function listProducts(
  tx: Tx,
  filters: ProductFilters,
  limit: number,
  after: ProductCursor | null,
): Promise<(ProductRow & { matched_variant: VariantRecord | null; cursor: ProductCursor })[]> {
  const q = filters.q;
  const searchAfter = q && after?.length === 3 ? after : null;
  const listAfter = !q && after?.length === 2 ? after : null;
  const page = q
    ? tx`
      select id, name, rank, key from products_search(${q}, ${filters.category_id ?? null}::uuid, ${filters.active ?? null}::boolean,
        ${filters.tracked ?? null}::boolean, ${filters.low_stock ?? null}::boolean, ${searchAfter?.[0] ?? null}::integer,
        ${searchAfter?.[1] ?? null}::text, ${searchAfter?.[2] ?? null}::uuid, ${limit + 1}::integer)`
    : tx`
      select p.id, p.name, 0 as rank, p.name as key from products p
       where p.shop_id = app_shop_id() and p.deleted_at is null
         ${filters.category_id ? tx`and p.category_id = ${filters.category_id}` : tx``}
         ${filters.active !== undefined ? tx`and p.active = ${filters.active}` : tx``}
         ${filters.tracked !== undefined ? tx`and p.tracked = ${filters.tracked}` : tx``}
         ${filters.low_stock === true ? tx`and p.tracked and p.on_hand <= p.reorder_level` : tx``}
         ${filters.low_stock === false ? tx`and not (p.tracked and p.on_hand <= p.reorder_level)` : tx``}
         ${listAfter ? tx`and (p.name, p.id) > (${listAfter[0]}, ${listAfter[1]}::uuid)` : tx``}
       order by p.name, p.id
       limit ${limit + 1}`;
  const scanned = q
    ? tx`(select variant_json(v) from variants v join catalogue_codes c on c.variant_id = v.id
           where c.shop_id = app_shop_id() and c.kind in ('sku', 'barcode') and c.code = ${q} and v.product_id = p.id
           limit 1)`
    : tx`null::jsonb`;
  // The page's ids first, then the columns of those rows only: the record's subqueries (has_variants,
  // the scanned variant) run for the page, not for every match of a common name.
  const rows = await tx<(ProductRow & { matched_variant: VariantRecord | null; page_rank: number; page_key: string })[]>`
    with page as (${page})
    select ${productColumns(tx)}, ${scanned} as matched_variant, page.rank as page_rank, page.key as page_key
      from page join products p on p.id = page.id
     order by page.rank, ${q ? tx`page.key collate "C"` : tx`page.name`}, page.id`;
  return rows.map(({ page_rank, page_key, ...row }) => ({ ...row, cursor: q ? [page_rank, page_key, row.id] : [row.name, row.id] }));
}

export async function createProduct(tx: Tx, product: CreateProductBody & { vat_rate: number }): Promise<ProductRecord> {
  const values = {
    name: product.name,
    sku: product.sku ?? null,
    barcode: product.barcode ?? null,
    category_id: product.category_id ?? null,
    price_xaf: product.price_xaf,
    cost_xaf: product.cost_xaf ?? 0,
    vat_rate: product.vat_rate,
    unit: product.unit ?? 'piece',
    tracked: product.tracked ?? true,
    reorder_level: product.reorder_level ?? 0,
    active: product.active ?? true,
  };
  const [row] = await tx<{ id: string }[]>`insert into products ${tx(values)} returning id`;
  return (await findProduct(tx, row!.id))!;
}

export async function updateProduct(tx: Tx, id: string, changes: UpdateProductBody): Promise<ProductRecord> {
  const keys = Object.keys(changes) as (keyof UpdateProductBody)[];
  if (keys.length > 0) await tx`update products set ${tx(changes, keys)} where id = ${id} and deleted_at is null`;
  return (await findProduct(tx, id))!;
}

/** Hides the product with its variants and options; every sale, movement and report keeps naming it. */
export async function deleteProduct(tx: Tx, id: string): Promise<void> {
  await tx`update variants set deleted_at = now() where product_id = ${id} and deleted_at is null`;
  await tx`update product_options set deleted_at = now() where product_id = ${id} and deleted_at is null`;
  await tx`update products set deleted_at = now() where id = ${id} and deleted_at is null`;
}

/** The ids among `ids` that are not live products of the shop. */
export async function missingProducts(tx: Tx, ids: string[]): Promise<string[]> {
  const found = await tx<{ id: string }[]>`select id from products where id = any(${ids}::uuid[]) and deleted_at is null`;
  const present = new Set(found.map((row) => row.id));
  return ids.filter((id) => !present.has(id));
}

export async function listOptions(tx: Tx, productId: string): Promise<OptionRecord[]> {
  const rows = await tx<OptionRow[]>`
    select ${tx(OPTION_COLUMNS)} from product_options where product_id = ${productId} and deleted_at is null order by position, id`;
  return rows.map(toOptionRecord);
}

/** The product's axes become exactly `options`, in that order. */
export async function replaceOptions(tx: Tx, productId: string, options: { name: string; values: string[] }[]): Promise<OptionRecord[]> {
  await tx`update product_options set deleted_at = now() where product_id = ${productId} and deleted_at is null`;
  for (const [position, option] of options.entries()) {
    await tx`insert into product_options (product_id, name, "values", position) values (${productId}, ${option.name}, ${option.values}, ${position})`;
  }
  return listOptions(tx, productId);
}

export async function deleteOption(tx: Tx, productId: string, optionId: string): Promise<boolean> {
  const rows = await tx`
    update product_options set deleted_at = now() where id = ${optionId} and product_id = ${productId} and deleted_at is null returning id`;
  return rows.length === 1;
}

export async function listVariants(tx: Tx, productId: string, limit: number, after: readonly [string, string] | null): Promise<(VariantRow & { cursor_at: string })[]> {
  return tx<(VariantRow & { cursor_at: string })[]>`
    select ${tx(VARIANT_COLUMNS)}, ${tx.unsafe(CURSOR_AT('created_at'))} as cursor_at
      from variants
     where product_id = ${productId} and deleted_at is null
       ${after ? tx`and (created_at, id) > (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
     order by created_at, id
     limit ${limit + 1}`;
}

export async function allVariants(tx: Tx, productId: string): Promise<VariantRecord[]> {
  const rows = await tx<VariantRow[]>`
    select ${tx(VARIANT_COLUMNS)} from variants where product_id = ${productId} and deleted_at is null order by created_at, id`;
  return rows.map(toVariantRecord);
}

export async function findVariant(tx: Tx, id: string): Promise<VariantRecord | null> {
  const [row] = await tx<VariantRow[]>`select ${tx(VARIANT_COLUMNS)} from variants where id = ${id} and deleted_at is null`;
  return row ? toVariantRecord(row) : null;
}

const variantExists = () => errors.conflict('variant_exists', 'This product already has a variant with these options.');

export async function createVariant(tx: Tx, productId: string, variant: CreateVariantBody & { price_xaf: number }): Promise<VariantRecord> {
  try {
    const [row] = await tx<VariantRow[]>`
      insert into variants (product_id, options, sku, barcode, price_xaf)
      values (${productId}, ${tx.json(variant.options)}, ${variant.sku ?? null}, ${variant.barcode ?? null}, ${variant.price_xaf})
      returning ${tx(VARIANT_COLUMNS)}`;
    return toVariantRecord(row!);
  } catch (error) {
    onUniqueViolation(error, 'variants_combination_key', variantExists);
  }
}

export async function updateVariant(tx: Tx, id: string, changes: UpdateVariantBody): Promise<VariantRecord | null> {
  const { options, ...rest } = changes;
  const values: Record<string, postgres.ParameterOrJSON<never>> = { ...rest };
  if (options !== undefined) values.options = tx.json(options);
  const keys = Object.keys(values);
  if (keys.length === 0) return findVariant(tx, id);
  try {
    const [row] = await tx<VariantRow[]>`
      update variants set ${tx(values, keys)} where id = ${id} and deleted_at is null returning ${tx(VARIANT_COLUMNS)}`;
    return row ? toVariantRecord(row) : null;
  } catch (error) {
    onUniqueViolation(error, 'variants_combination_key', variantExists);
  }
}

export async function deleteVariant(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx`update variants set deleted_at = now() where id = ${id} and deleted_at is null returning id`;
  return rows.length === 1;
}

/** The variants a product's current axes call for and it does not have yet, at `priceXaf`. */
export async function generateVariants(tx: Tx, productId: string, priceXaf: number, maxCombinations: number): Promise<VariantRecord[]> {
  const options = await listOptions(tx, productId);
  if (options.length === 0) return [];
  const combinations = options.reduce((count, option) => count * option.values.length, 1);
  if (combinations > maxCombinations) {
    throw errors.conflict('too_many_variants', `These options make ${combinations} combinations; at most ${maxCombinations} are allowed.`);
  }
  let combos: Record<string, string>[] = [{}];
  for (const option of options) combos = combos.flatMap((combo) => option.values.map((value) => ({ ...combo, [option.name]: value })));
  const created = await tx<VariantRow[]>`
    insert into variants (product_id, options, price_xaf)
    select ${productId}, combo, ${priceXaf} from jsonb_array_elements(${tx.json(combos)}) combo
    on conflict (shop_id, product_id, options) where deleted_at is null do nothing
    returning ${tx(VARIANT_COLUMNS)}`;
  return created.map(toVariantRecord);
}

export async function generateBarcodes(
  tx: Tx,
  selection: { productIds: string[] | null; categoryId: string | null; includeVariants: boolean },
): Promise<{ product_id: string; variant_id: string | null; barcode: string }[]> {
  return tx<{ product_id: string; variant_id: string | null; barcode: string }[]>`
    select product_id, variant_id, barcode
      from catalogue_generate_barcodes(${selection.productIds}::uuid[], ${selection.categoryId}::uuid, ${selection.includeVariants})`;
}

/** The ids among `ids` that are not live variants of the shop. */
export async function missingVariants(tx: Tx, ids: string[]): Promise<string[]> {
  const found = await tx<{ id: string }[]>`select id from variants where id = any(${ids}::uuid[]) and deleted_at is null`;
  const present = new Set(found.map((row) => row.id));
  return ids.filter((id) => !present.has(id));
}

/**
 * The catalogue price of each line (the variant's when one is named), or null for a line whose
 * product, or variant of that product, is not live in the shop.
 */
export async function cataloguePrices(tx: Tx, lines: { product_id: string; variant_id?: string | null }[]): Promise<(number | null)[]> {
  const rows = await tx<{ line: number; price_xaf: number | null }[]>`
    select l.line, case when l.variant_id is null then p.price_xaf else v.price_xaf end as price_xaf
      from jsonb_to_recordset(${tx.json(lines.map((l, line) => ({ line, product_id: l.product_id, variant_id: l.variant_id ?? null })))})
           as l (line int, product_id uuid, variant_id uuid)
      left join products p on p.id = l.product_id and p.deleted_at is null
      left join variants v on v.id = l.variant_id and v.product_id = p.id and v.deleted_at is null
     order by l.line`;
  return rows.map((row) => row.price_xaf);
}

/** Whether the shop has or had this product: its ledger stays readable after a delete. */
export async function productEverExisted(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx`select 1 from products where id = ${id}`;
  return row !== undefined;
}
