import type postgres from 'postgres';
import { CATEGORY_COLUMNS, toCategoryRecord } from '../categories/queries.ts';
import { customerColumns, toCustomerRecord, withTier } from '../customers/queries.ts';
import type { Tx } from '../db.ts';
import { TIER_COLUMNS, toTierRecord } from '../loyalty/queries.ts';
import { OPTION_COLUMNS, productColumns, toOptionRecord, toProductRecord, toVariantRecord, VARIANT_COLUMNS } from '../products/queries.ts';
import { PROMOTION_COLUMNS, toPromotionRecord } from '../promotions/queries.ts';
import type { EntityName } from './schemas.ts';

/**
 * Where a till stands in one entity: the last (txid, id) it received. `floor`, on a till that
 * started from nothing: deletions committed before its first pull are of records it never had, so
 * they are not sent (a deletion at or after the floor may be of a record it received, so it is).
 */
export interface Position {
  txid: string;
  id: string;
  floor: string | null;
}

export const ORIGIN = { txid: '0', id: '00000000-0000-0000-0000-000000000000' } as const;

type Piece = postgres.Fragment | postgres.Helper<readonly string[]>;

/** How one entity is read: its table, the columns of its API record, and the mapping to that record. */
interface SyncSource {
  table: string;
  alias: string;
  columns: (tx: Tx) => Piece;
  join?: (tx: Tx) => Piece;
  /** Sales are never deleted (a void is a status): they have no deleted_at. */
  softDeletes: boolean;
  /** Pulled in the order of catalogue_positions (db/functions/sync/catalogue_positions.sql), not of its own stamp. */
  positioned?: boolean;
  // Each domain's mapper takes its own row type; the generic query hands it that row.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  toRecord: (row: any) => object;
}

/** Each entity is served in the shape its own module's API gives it, plus `deleted_at`. */
const SOURCES: Record<EntityName, SyncSource> = {
  categories: { table: 'categories', alias: 'x', columns: (tx) => tx(CATEGORY_COLUMNS), softDeletes: true, toRecord: toCategoryRecord },
  products: { table: 'products', alias: 'p', columns: productColumns, softDeletes: true, positioned: true, toRecord: toProductRecord },
  product_options: { table: 'product_options', alias: 'x', columns: (tx) => tx(OPTION_COLUMNS), softDeletes: true, toRecord: toOptionRecord },
  variants: { table: 'variants', alias: 'x', columns: (tx) => tx(VARIANT_COLUMNS), softDeletes: true, positioned: true, toRecord: toVariantRecord },
  customers: { table: 'customers', alias: 'c', columns: customerColumns, join: withTier, softDeletes: true, toRecord: toCustomerRecord },
  promotions: { table: 'promotions', alias: 'x', columns: (tx) => tx(PROMOTION_COLUMNS), softDeletes: true, toRecord: toPromotionRecord },
  loyalty_tiers: { table: 'loyalty_tiers', alias: 'x', columns: (tx) => tx(TIER_COLUMNS), softDeletes: true, toRecord: toTierRecord },
  sales: { table: 'sales', alias: 's', columns: (tx) => tx`sale_json(s.id) as sale`, softDeletes: false, toRecord: (row: { sale: object }) => row.sale },
  quotes: { table: 'quotes', alias: 'q', columns: (tx) => tx`quote_json(q.id) as quote`, softDeletes: true, toRecord: (row: { quote: object }) => row.quote },
};

/**
 * The sync horizon: every transaction with an id below it has ended, so rows stamped below it are
 * final and visible to the statements that follow. Rows at or above it may still belong to a
 * transaction in flight; they are served by a later pull (db/CONVENTIONS.md, "Sync cursors").
 */
export async function syncHorizon(tx: Tx): Promise<string> {
  const [row] = await tx<{ horizon: string }[]>`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`;
  return row!.horizon;
}

export interface EntityPage {
  records: object[];
  hasMore: boolean;
  /** The position after this page (unchanged when it is empty). */
  next: Position;
}

/**
 * One page of an entity after `from`, below the horizon, in (txid, id) order: an index range scan of
 * its (shop_id, txid, id) index, or for products and variants of catalogue_positions' (each item at
 * its latest change, catalogue or stock). `changedSince`: only rows updated at or after that time.
 */
export async function entityPage(tx: Tx, entity: EntityName, from: Position, horizon: string, limit: number, changedSince: string | null): Promise<EntityPage> {
  const source = SOURCES[entity];
  const t = tx.unsafe(source.alias);
  // The rows of `source.table` (aliased as the source) a position may serve.
  const servable = (position: Piece) => tx`
       ${t}.shop_id = app_shop_id()
       ${from.floor && source.softDeletes ? tx`and (${t}.deleted_at is null or ${position} >= ${from.floor}::xid8)` : tx``}
       ${changedSince ? tx`and ${t}.updated_at >= ${changedSince}::timestamptz` : tx``}`;
  const positions = source.positioned
    ? tx`(
        select cp.txid, cp.item_id from catalogue_positions cp join ${tx(source.table)} ${t} on ${t}.shop_id = cp.shop_id and ${t}.id = cp.item_id
         where cp.shop_id = app_shop_id() and cp.entity = ${source.table}
           and cp.txid < ${horizon}::xid8 and (cp.txid, cp.item_id) > (${from.txid}::xid8, ${from.id}::uuid)
           and ${servable(tx`cp.txid`)}
         order by cp.txid, cp.item_id limit ${limit + 1}
      ) as position (position_txid, position_id)`
    : tx`(
        select ${t}.txid, ${t}.id from ${tx(source.table)} ${t}
         where ${servable(tx`${t}.txid`)} and ${t}.txid < ${horizon}::xid8 and (${t}.txid, ${t}.id) > (${from.txid}::xid8, ${from.id}::uuid)
         order by ${t}.txid, ${t}.id limit ${limit + 1}
      ) as position (position_txid, position_id)`;
  const rows = await tx<{ sync_txid: string; sync_id: string; sync_deleted_at: Date | null }[]>`
    select ${source.columns(tx)},
           ${source.softDeletes ? tx`${t}.deleted_at` : tx`null::timestamptz`} as sync_deleted_at,
           position.position_txid::text as sync_txid, position.position_id as sync_id
      from ${positions}
      join ${tx(source.table)} ${t} on ${t}.shop_id = app_shop_id() and ${t}.id = position.position_id ${source.join ? source.join(tx) : tx``}
     order by position.position_txid, position.position_id
     limit ${limit + 1}`;
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    records: kept.map(({ sync_txid: _txid, sync_id: _id, sync_deleted_at, ...row }) => ({
        ...source.toRecord(row),
        deleted_at: sync_deleted_at?.toISOString() ?? null,
      })),
    hasMore: rows.length > limit,
    next: last ? { ...from, txid: last.sync_txid, id: last.sync_id } : from,
  };
}
