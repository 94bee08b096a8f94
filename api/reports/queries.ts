import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { PriceOverrideLine } from './schemas.ts';

type PriceOverrideRow = Omit<PriceOverrideLine, 'sold_at' | 'recorded_at'> & { sold_at: Date; recorded_at: Date; cursor_at: string };

/** Where a page of the price-override report starts: after this sale line (the previous page's last). */
export type PriceOverrideKey = readonly [at: string, saleId: string, lineNo: number];

/** The lines that departed from the catalogue in a period of the shop's days (price_overrides), `limit + 1` of them. */
export async function listPriceOverrides(tx: Tx, period: { from: string; to: string }, limit: number, after: PriceOverrideKey | null) {
  const [at, saleId, lineNo] = after ?? [null, null, null];
  return tx<PriceOverrideRow[]>`
    select *, ${tx.unsafe(CURSOR_AT('sold_at'))} as cursor_at
      from price_overrides(${period.from}::date, ${period.to}::date, ${limit + 1}::integer,
                           ${at}::text::timestamptz, ${saleId}::uuid, ${lineNo}::integer)`;
}

export function toPriceOverrideLine({ cursor_at: _, sold_at, recorded_at, ...row }: PriceOverrideRow): PriceOverrideLine {
  return { ...row, sold_at: sold_at.toISOString(), recorded_at: recorded_at.toISOString() };
}
