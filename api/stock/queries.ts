import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { BatchRecord, MovementRecord, StocktakeItem, StocktakeRecord } from './schemas.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

interface MovementRow extends Omit<MovementRecord, 'created_at'> {
  created_at: Date;
  cursor_at: string;
}

export function toMovementRecord(row: MovementRow): MovementRecord {
  return {
    id: row.id,
    product_id: row.product_id,
    variant_id: row.variant_id,
    type: row.type,
    quantity: row.quantity,
    on_hand_after: row.on_hand_after,
    reason: row.reason,
    source_type: row.source_type,
    source_id: row.source_id,
    user_id: row.user_id,
    user_name: row.user_name,
    created_at: row.created_at.toISOString(),
  };
}

const movementColumns = (tx: Tx) => tx`
  m.id, m.product_id, m.variant_id, m.type, m.quantity, m.on_hand_after, m.reason, m.source_type, m.source_id,
  m.user_id, u.name as user_name, m.created_at, ${tx.unsafe(CURSOR_AT('m.created_at'))} as cursor_at`;

/** Sets the item's on-hand to the counted figure (stock_adjust): null when it already was. */
export async function adjustStock(
  tx: Tx,
  productId: string,
  change: { variant_id: string | null; new_quantity: number; reason: string | null },
): Promise<MovementRecord | null> {
  const [created] = await tx<{ id: string | null }[]>`
    select (stock_adjust(${productId}, ${change.variant_id}::uuid, ${change.new_quantity}, ${change.reason})).id`;
  if (!created?.id) return null;
  const [row] = await tx<MovementRow[]>`
    select ${movementColumns(tx)} from stock_movements m left join users u on u.id = m.user_id where m.id = ${created.id}`;
  return toMovementRecord(row!);
}

/** The product's ledger, newest first. */
export async function listMovements(
  tx: Tx,
  productId: string,
  variantId: string | undefined,
  limit: number,
  before: readonly [string, string] | null,
): Promise<MovementRow[]> {
  return tx<MovementRow[]>`
    select ${movementColumns(tx)}
      from stock_movements m left join users u on u.id = m.user_id
     where m.shop_id = app_shop_id() and m.product_id = ${productId}
       ${variantId ? tx`and m.variant_id = ${variantId}` : tx``}
       ${before ? tx`and (m.created_at, m.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by m.created_at desc, m.id desc
     limit ${limit + 1}`;
}

interface StocktakeRow {
  id: string;
  status: StocktakeRecord['status'];
  note: string | null;
  category_id: string | null;
  created_by: string | null;
  committed_by: string | null;
  committed_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  item_count: number;
  counted_count: number;
  variance_value_xaf: number;
  cursor_at: string;
}

export function toStocktakeRecord(row: StocktakeRow): StocktakeRecord {
  return {
    id: row.id,
    status: row.status,
    note: row.note,
    category_id: row.category_id,
    created_by: row.created_by,
    committed_by: row.committed_by,
    committed_at: iso(row.committed_at),
    cancelled_at: iso(row.cancelled_at),
    summary: { items: row.item_count, counted: row.counted_count, variance_value_xaf: row.variance_value_xaf },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A stocktake's items with the variance of each counted one, valued at the product's last cost. */
const itemsWithVariance = (tx: Tx) => tx`
  select i.*, p.name as product_name, coalesce(v.sku, p.sku) as sku, v.options,
         i.counted_quantity - i.expected_quantity as variance,
         round((i.counted_quantity - i.expected_quantity) * p.cost_xaf)::bigint as variance_value_xaf
    from stocktake_items i
    join products p on p.id = i.product_id
    left join variants v on v.id = i.variant_id`;

const stocktakeColumns = (tx: Tx) => tx`
  s.id, s.status, s.note, s.category_id, s.created_by, s.committed_by, s.committed_at, s.cancelled_at, s.created_at, s.updated_at,
  ${tx.unsafe(CURSOR_AT('s.created_at'))} as cursor_at,
  (select count(*)::int from stocktake_items i where i.stocktake_id = s.id) as item_count,
  (select count(*)::int from stocktake_items i where i.stocktake_id = s.id and i.counted_quantity is not null) as counted_count,
  (select coalesce(sum(iv.variance_value_xaf), 0) from (${itemsWithVariance(tx)} where i.stocktake_id = s.id) iv) as variance_value_xaf`;

export async function listStocktakes(
  tx: Tx,
  status: StocktakeRecord['status'] | undefined,
  limit: number,
  before: readonly [string, string] | null,
): Promise<StocktakeRow[]> {
  return tx<StocktakeRow[]>`
    select ${stocktakeColumns(tx)} from stocktakes s
     where s.shop_id = app_shop_id()
       ${status ? tx`and s.status = ${status}` : tx``}
       ${before ? tx`and (s.created_at, s.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by s.created_at desc, s.id desc
     limit ${limit + 1}`;
}

interface ItemRow {
  id: string;
  product_id: string;
  variant_id: string | null;
  product_name: string;
  options: Record<string, string> | null;
  sku: string | null;
  expected_quantity: number;
  counted_quantity: number | null;
  variance: number | null;
  variance_value_xaf: number | null;
  counted_at: Date | null;
}

function toItem(row: ItemRow): StocktakeItem {
  const label = row.options && Object.keys(row.options).length ? ` (${Object.values(row.options).join(', ')})` : '';
  return {
    id: row.id,
    product_id: row.product_id,
    variant_id: row.variant_id,
    name: `${row.product_name}${label}`,
    sku: row.sku,
    expected_quantity: row.expected_quantity,
    counted_quantity: row.counted_quantity,
    variance: row.variance,
    variance_value_xaf: row.variance_value_xaf,
    counted_at: iso(row.counted_at),
  };
}

export async function findStocktake(tx: Tx, id: string): Promise<(StocktakeRecord & { items: StocktakeItem[] }) | null> {
  const [row] = await tx<StocktakeRow[]>`select ${stocktakeColumns(tx)} from stocktakes s where s.id = ${id}`;
  if (!row) return null;
  const items = await tx<ItemRow[]>`
    ${itemsWithVariance(tx)} where i.stocktake_id = ${id} order by p.name, i.product_id, i.variant_id nulls first`;
  return { ...toStocktakeRecord(row), items: items.map(toItem) };
}

export async function openStocktake(tx: Tx, note: string | null, categoryId: string | null): Promise<string> {
  const [row] = await tx<{ id: string }[]>`select (stocktake_open(${note}, ${categoryId}::uuid)).id`;
  return row!.id;
}

export async function recordCounts(tx: Tx, id: string, counts: { item_id: string; counted_quantity?: number | null }[]): Promise<void> {
  const payload = counts.map((count) => ({ item_id: count.item_id, counted_quantity: count.counted_quantity ?? null }));
  await tx`select stocktake_record_counts(${id}, ${tx.json(payload)})`;
}

export async function commitStocktake(tx: Tx, id: string): Promise<void> {
  await tx`select stocktake_commit(${id})`;
}

export async function cancelStocktake(tx: Tx, id: string): Promise<void> {
  await tx`select stocktake_cancel(${id})`;
}

interface ValuationRow {
  product_id: string;
  name: string;
  sku: string | null;
  unit: string;
  on_hand: number;
  cost_xaf: number;
  value_xaf: number;
}

/** On-hand x last cost of every tracked product, by name, with the total over all of them. */
export async function stockValuation(
  tx: Tx,
  limit: number,
  after: readonly [string, string] | null,
): Promise<{ rows: ValuationRow[]; total_xaf: number; products: number }> {
  const rows = await tx<ValuationRow[]>`
    select id as product_id, name, sku, unit, on_hand, cost_xaf, round(on_hand * cost_xaf)::bigint as value_xaf
      from products
     where shop_id = app_shop_id() and deleted_at is null and tracked
       ${after ? tx`and (name, id) > (${after[0]}, ${after[1]}::uuid)` : tx``}
     order by name, id
     limit ${limit + 1}`;
  const [totals] = await tx<{ total_xaf: number; products: number }[]>`
    select coalesce(sum(round(on_hand * cost_xaf)), 0) as total_xaf, count(*)::int as products
      from products where shop_id = app_shop_id() and deleted_at is null and tracked`;
  return { rows, ...totals! };
}

/** Headline stock figures of the shop, for the dashboard. */
export async function stockSummary(tx: Tx): Promise<{ products: number; low_stock: number; stock_value_xaf: number }> {
  const [row] = await tx<{ products: number; low_stock: number; stock_value_xaf: number }[]>`
    select count(*)::int as products,
           count(*) filter (where tracked and on_hand <= reorder_level)::int as low_stock,
           coalesce(sum(round(on_hand * cost_xaf)) filter (where tracked), 0) as stock_value_xaf
      from products where shop_id = app_shop_id() and deleted_at is null`;
  return row!;
}

/** The product's batches (its own and its variants'), first expired first out; empty ones only when asked. */
export async function listBatches(tx: Tx, productId: string, includeEmpty: boolean): Promise<BatchRecord[]> {
  const rows = await tx<(Omit<BatchRecord, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date })[]>`
    select b.id, b.product_id, b.variant_id, item_name(p.name, v.options) as name, b.batch_number,
           to_char(b.expiry_date, 'YYYY-MM-DD') as expiry_date, b.quantity, b.cost_xaf,
           round(b.quantity * b.cost_xaf)::bigint as value_xaf, b.created_at, b.updated_at
      from batches b join products p on p.id = b.product_id left join variants v on v.id = b.variant_id
     where b.product_id = ${productId} ${includeEmpty ? tx`` : tx`and b.quantity > 0`}
     order by b.expiry_date nulls last, b.created_at, b.id`;
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() }));
}
