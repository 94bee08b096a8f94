import type { Tx } from '../db.ts';
import type { FiscalClosing, FiscalEntry } from './schemas.ts';

/** Days of the shop's calendar, either end open: the entries recorded from the start of `from` to the end of `to`, in the shop's time zone. */
export interface ShopDays {
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * The columns of an entry as the API answers them, times already written as the API writes them
 * (iso_time), so that an archive's lines need no conversion on the way out.
 */
const ENTRY_COLUMNS = (tx: Tx) => tx`
  chain_no, kind, ref_id, iso_time(occurred_at) as occurred_at, iso_time(recorded_at) as recorded_at, amount_xaf, previous_hash, hash, content`;

/** The shop's entries after `after`, in chain order, `limit + 1` of them. */
export function listEntries(tx: Tx, after: number, limit: number) {
  return tx<FiscalEntry[]>`
    select ${ENTRY_COLUMNS(tx)} from fiscal_entries where chain_no > ${after}::bigint order by chain_no limit ${limit + 1}`;
}

/**
 * The entries recorded in the shop's days, in chain order: recorded_at grows with chain_no, so they are
 * one stretch of the chain. Read with a cursor by the archive, `batch` rows at a time.
 */
export function entriesRecordedIn(tx: Tx, days: ShopDays) {
  return tx<FiscalEntry[]>`
    select ${ENTRY_COLUMNS(tx)}
      from fiscal_entries
     where recorded_at >= coalesce((select (${days.from ?? null}::date)::timestamp at time zone timezone from shops where id = app_shop_id()), '-infinity')
       and recorded_at < coalesce((select (${days.to ?? null}::date + 1)::timestamp at time zone timezone from shops where id = app_shop_id()), 'infinity')
     order by chain_no`;
}

/**
 * The integrity check of the shop's chain over its days (db/functions/fiscal/fiscal_integrity.sql).
 * It reads the whole chain up to the period's end, so it may take seconds on a large shop: it gets
 * `timeoutMs` rather than the app role's 30 s, set for this transaction only.
 */
export async function checkIntegrity(tx: Tx, days: ShopDays, timeoutMs: number): Promise<unknown> {
  await tx`select set_config('statement_timeout', ${String(timeoutMs)}, true)`;
  const [row] = await tx<{ report: unknown }[]>`select fiscal_integrity(${days.from ?? null}::date, ${days.to ?? null}::date) as report`;
  return row!.report;
}

/** Where a page of closings starts: after this closing (the previous page's last), newest first. */
export type ClosingKey = readonly [endsOn: string, chainNo: number];

/** The shop's closings, the latest period first (a year after its December), `limit + 1` of them. */
export function listClosings(tx: Tx, period: 'month' | 'year' | undefined, limit: number, after: ClosingKey | null) {
  const [endsOn, chainNo] = after ?? [null, null];
  return tx<FiscalClosing[]>`
    select c.id, c.period, to_char(c.starts_on, 'YYYY-MM-DD') as starts_on, to_char(c.ends_on, 'YYYY-MM-DD') as ends_on,
           c.total_xaf, c.cumulative_total_xaf, c.first_chain_no, c.last_chain_no, c.chain_no, e.hash, iso_time(c.sealed_at) as sealed_at
      from fiscal_closings c
      join fiscal_entries e on e.shop_id = c.shop_id and e.chain_no = c.chain_no
     where (${period ?? null}::text is null or c.period = ${period ?? null}::text)
       and (${endsOn}::date is null or (c.ends_on, c.chain_no) < (${endsOn}::date, ${chainNo}::bigint))
     order by c.ends_on desc, c.chain_no desc
     limit ${limit + 1}`;
}
