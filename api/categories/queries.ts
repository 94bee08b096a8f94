import type { Tx } from '../db.ts';
import type { CategoryRecord, UpdateCategoryBody } from './schemas.ts';

interface CategoryRow {
  id: string;
  name: string;
  parent_id: string | null;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
}

export const CATEGORY_COLUMNS = ['id', 'name', 'parent_id', 'sort_order', 'created_at', 'updated_at'] as const;

export function toCategoryRecord(row: CategoryRow): CategoryRecord {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/**
 * Whether a live category of the transaction's shop has this id (references in bodies must). The row
 * stays share-locked until commit, so a concurrent delete cannot empty it from under the reference.
 */
export async function categoryExists(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx`select 1 from categories where id = ${id} and deleted_at is null for share`;
  return row !== undefined;
}

export async function findCategory(tx: Tx, id: string): Promise<CategoryRecord | null> {
  const [row] = await tx<CategoryRow[]>`select ${tx(CATEGORY_COLUMNS)} from categories where id = ${id} and deleted_at is null`;
  return row ? toCategoryRecord(row) : null;
}

export async function listCategories(tx: Tx, limit: number, after: readonly [number, string] | null): Promise<CategoryRow[]> {
  return tx<CategoryRow[]>`
    select ${tx(CATEGORY_COLUMNS)} from categories
     where shop_id = app_shop_id() and deleted_at is null
       ${after ? tx`and (sort_order, id) > (${after[0]}, ${after[1]}::uuid)` : tx``}
     order by sort_order, id
     limit ${limit + 1}`;
}

export async function createCategory(tx: Tx, category: { name: string; parent_id: string | null; sort_order: number }): Promise<CategoryRecord> {
  const [row] = await tx<CategoryRow[]>`
    insert into categories (name, parent_id, sort_order) values (${category.name}, ${category.parent_id}, ${category.sort_order})
    returning ${tx(CATEGORY_COLUMNS)}`;
  return toCategoryRecord(row!);
}

export async function updateCategory(tx: Tx, id: string, changes: UpdateCategoryBody): Promise<CategoryRecord | null> {
  const keys = Object.keys(changes) as (keyof UpdateCategoryBody)[];
  if (keys.length === 0) return findCategory(tx, id);
  const [row] = await tx<CategoryRow[]>`
    update categories set ${tx(changes, keys)} where id = ${id} and deleted_at is null returning ${tx(CATEGORY_COLUMNS)}`;
  return row ? toCategoryRecord(row) : null;
}

/** Whether `ancestor` is `id` itself or one of the categories above it. */
export async function isWithin(tx: Tx, id: string, ancestor: string): Promise<boolean> {
  const [row] = await tx`
    with recursive chain (id, parent_id) as (
      select id, parent_id from categories where id = ${id}
      union
      select c.id, c.parent_id from categories c join chain on c.id = chain.parent_id
    )
    select 1 from chain where id = ${ancestor}`;
  return row !== undefined;
}

/** Whether live products or subcategories still sit in the category. */
export async function categoryHoldsAnything(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx`
    select exists (select 1 from products where category_id = ${id} and deleted_at is null)
        or exists (select 1 from categories where parent_id = ${id} and deleted_at is null) as holds`;
  return row!.holds as boolean;
}

/** Locks the category for a change that depends on what it holds; false when there is none. */
export async function lockCategory(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx`select 1 from categories where id = ${id} and deleted_at is null for update`;
  return row !== undefined;
}

export async function deleteCategory(tx: Tx, id: string): Promise<void> {
  await tx`update categories set deleted_at = now() where id = ${id} and deleted_at is null`;
}

/** The ids among `ids` that are not live categories of the shop. */
export async function missingCategories(tx: Tx, ids: string[]): Promise<string[]> {
  const found = await tx<{ id: string }[]>`select id from categories where id = any(${ids}::uuid[]) and deleted_at is null`;
  const present = new Set(found.map((row) => row.id));
  return ids.filter((id) => !present.has(id));
}
