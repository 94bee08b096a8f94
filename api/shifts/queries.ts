import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { CashMovementRecord, DrawerMethod, ShiftRecord, ShiftTotals } from './schemas.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export interface ShiftRow extends Omit<ShiftRecord, 'opened_at' | 'closed_at' | 'created_at' | 'updated_at'> {
  opened_at: Date;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

export function toShiftRecord({ cursor_at: _, ...row }: ShiftRow): ShiftRecord {
  return {
    ...row,
    opened_at: row.opened_at.toISOString(),
    closed_at: iso(row.closed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A shift as the API shows it; an open shift's expected cash is computed live. */
const shiftColumns = (tx: Tx) => tx`
  s.id, s.user_id, u.name as user_name, s.status, s.opening_float_xaf,
  coalesce(s.expected_cash_xaf, (shift_totals(s.id) ->> 'expected_cash_xaf')::bigint) as expected_cash_xaf,
  s.counted_cash_xaf, s.difference_xaf, s.by_method, s.note, s.opened_at, s.closed_at, s.created_at, s.updated_at,
  ${tx.unsafe(CURSOR_AT('s.opened_at'))} as cursor_at`;

async function shiftById(tx: Tx, id: string): Promise<ShiftRecord> {
  const [row] = await tx<ShiftRow[]>`select ${shiftColumns(tx)} from shifts s join users u on u.id = s.user_id where s.id = ${id}`;
  return toShiftRecord(row!);
}

/** Opens a shift for the caller (shift_open: 409 shift_already_open when one is open). */
export async function openShift(tx: Tx, openingFloatXaf: number): Promise<ShiftRecord> {
  const [opened] = await tx<{ id: string }[]>`select id from shift_open(${openingFloatXaf})`;
  return shiftById(tx, opened!.id);
}

/** Closes the caller's open shift (shift_close: 409 no_open_shift when none). */
export async function closeShift(
  tx: Tx,
  count: { counted_cash_xaf: number; note: string | null; counted_by_method: Partial<Record<DrawerMethod, number>> },
): Promise<ShiftRecord> {
  const [closed] = await tx<{ id: string }[]>`
    select id from shift_close(${count.counted_cash_xaf}, ${count.note}, ${tx.json(count.counted_by_method)})`;
  return shiftById(tx, closed!.id);
}

/** The caller's open shift with its live totals, or null. */
export async function currentShift(tx: Tx): Promise<(ShiftRecord & { totals: ShiftTotals }) | null> {
  const [row] = await tx<(ShiftRow & { totals: ShiftTotals })[]>`
    select ${shiftColumns(tx)}, shift_totals(s.id) as totals
      from shifts s join users u on u.id = s.user_id
     where s.user_id = app_user_id() and s.status = 'open'`;
  if (!row) return null;
  const { totals, ...shift } = row;
  return { ...toShiftRecord(shift), totals };
}

/** Shifts newest first, optionally of one cashier, of one status, opened between two days of the shop's calendar. */
export async function listShifts(
  tx: Tx,
  filter: { cashier?: string | undefined; status?: ShiftRecord['status'] | undefined; from?: string | undefined; to?: string | undefined },
  limit: number,
  before: readonly [string, string] | null,
): Promise<ShiftRow[]> {
  return tx<ShiftRow[]>`
    select ${shiftColumns(tx)}
      from shifts s join users u on u.id = s.user_id join shops sh on sh.id = s.shop_id
     where s.shop_id = app_shop_id()
       ${filter.cashier ? tx`and s.user_id = ${filter.cashier}` : tx``}
       ${filter.status ? tx`and s.status = ${filter.status}` : tx``}
       ${filter.from ? tx`and s.opened_at >= (${filter.from}::date)::timestamp at time zone sh.timezone` : tx``}
       ${filter.to ? tx`and s.opened_at < (${filter.to}::date + 1)::timestamp at time zone sh.timezone` : tx``}
       ${before ? tx`and (s.opened_at, s.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by s.opened_at desc, s.id desc
     limit ${limit + 1}`;
}

/**
 * Cash into or out of the caller's open drawer (cash_movement_record: 409 no_open_shift when none).
 * A till's offline movement brings its own `id` and `created_at`.
 */
export async function recordCashMovement(
  tx: Tx,
  movement: { direction: 'in' | 'out'; amount_xaf: number; reason: string; id?: string; created_at?: string | undefined; till_created_at?: string | null },
): Promise<CashMovementRecord> {
  const [row] = await tx<{ id: string; shift_id: string; user_id: string | null; direction: 'in' | 'out'; amount_xaf: number; reason: string; created_at: Date; till_created_at: Date | null }[]>`
    select id, shift_id, user_id, direction, amount_xaf, reason, created_at, till_created_at
      from cash_movement_record(${movement.direction}, ${movement.amount_xaf}, ${movement.reason},
                                ${movement.id ?? null}::uuid, ${movement.created_at ?? null}::timestamptz, ${movement.till_created_at ?? null}::timestamptz)`;
  const created = row!.created_at.toISOString();
  return { ...row!, created_at: created, updated_at: created, till_created_at: row!.till_created_at?.toISOString() ?? null };
}
