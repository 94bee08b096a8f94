import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { PromotionFields, PromotionRecord } from './schemas.ts';

interface PromotionRow extends Omit<PromotionRecord, 'scope' | 'starts_at' | 'ends_at' | 'created_at' | 'updated_at'> {
  starts_at: Date | null;
  ends_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const PROMOTION_COLUMNS = [
  'id', 'name', 'kind', 'value', 'product_ids', 'category_ids', 'variant_ids', 'min_quantity', 'min_total_xaf', 'starts_at', 'ends_at',
  'days_of_week', 'starts_time', 'ends_time', 'active', 'created_at', 'updated_at',
] as const;

const hhmm = (time: string | null) => time?.slice(0, 5) ?? null;

export function toPromotionRecord({ cursor_at: _cursor, ...row }: PromotionRow & { cursor_at?: string }): PromotionRecord {
  const targeted = row.product_ids.length + row.category_ids.length + row.variant_ids.length > 0;
  return {
    ...row,
    scope: targeted ? 'items' : 'sale',
    starts_at: row.starts_at?.toISOString() ?? null,
    ends_at: row.ends_at?.toISOString() ?? null,
    starts_time: hhmm(row.starts_time),
    ends_time: hhmm(row.ends_time),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function findPromotion(tx: Tx, id: string, lock = false): Promise<PromotionRecord | null> {
  const [row] = await tx<PromotionRow[]>`
    select ${tx(PROMOTION_COLUMNS)} from promotions where id = ${id} and deleted_at is null ${lock ? tx`for update` : tx``}`;
  return row ? toPromotionRecord(row) : null;
}

export async function listPromotions(tx: Tx, active: boolean | undefined, limit: number, after: readonly [string, string] | null) {
  return tx<(PromotionRow & { cursor_at: string })[]>`
    select ${tx(PROMOTION_COLUMNS)}, ${tx.unsafe(CURSOR_AT('created_at'))} as cursor_at
      from promotions
     where shop_id = app_shop_id() and deleted_at is null
       ${active !== undefined ? tx`and active = ${active}` : tx``}
       ${after ? tx`and (created_at, id) > (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
     order by created_at, id
     limit ${limit + 1}`;
}

/** The stored form of a promotion: absent lists are empty, absent bounds 0, absent switches on. */
function columns(p: PromotionFields) {
  return {
    name: p.name,
    kind: p.kind,
    value: p.value,
    product_ids: p.product_ids ?? [],
    category_ids: p.category_ids ?? [],
    variant_ids: p.variant_ids ?? [],
    min_quantity: p.min_quantity ?? 0,
    min_total_xaf: p.min_total_xaf ?? 0,
    starts_at: p.starts_at ?? null,
    ends_at: p.ends_at ?? null,
    days_of_week: p.days_of_week ?? null,
    starts_time: p.starts_time ?? null,
    ends_time: p.ends_time ?? null,
    active: p.active ?? true,
  };
}

export async function createPromotion(tx: Tx, promotion: PromotionFields): Promise<PromotionRecord> {
  const values = columns(promotion);
  const [row] = await tx<PromotionRow[]>`
    insert into promotions ${tx(values)}
    returning ${tx(PROMOTION_COLUMNS)}`;
  return toPromotionRecord(row!);
}

export async function replacePromotion(tx: Tx, id: string, promotion: PromotionFields): Promise<PromotionRecord> {
  const values = columns(promotion);
  const [row] = await tx<PromotionRow[]>`
    update promotions set ${tx(values)} where id = ${id}
    returning ${tx(PROMOTION_COLUMNS)}`;
  return toPromotionRecord(row!);
}

export async function deletePromotion(tx: Tx, id: string): Promise<void> {
  await tx`update promotions set deleted_at = now() where id = ${id} and deleted_at is null`;
}

/** The pricing rule (promotion_discounts in SQL): the best single live promotion per line. */
export async function promotionDiscounts(
  tx: Tx,
  lines: { product_id: string; variant_id: string | null; quantity: number; unit_price_xaf: number; discount_xaf: number }[],
  at: string,
): Promise<{ line: number; gross_xaf: number; line_discount_xaf: number; promotion_id: string | null; promotion_name: string | null; discount_xaf: number }[]> {
  return tx`
    select d.line, d.gross_xaf, d.line_discount_xaf, d.promotion_id, p.name as promotion_name, d.discount_xaf
      from promotion_discounts(${tx.json(lines)}, ${at}::timestamptz) d
      left join promotions p on p.id = d.promotion_id
     order by d.line`;
}
