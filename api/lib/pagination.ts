import { z } from 'zod';
import { invalidField } from '../errors.ts';

/**
 * Keyset pagination. A cursor is the sort key of the last row of a page (for example its name and
 * id), opaque to clients: base64url of a JSON array. Each list states the shape of its key, so a
 * tampered cursor is a 422 on `cursor`, never a bad query.
 */
export type CursorKey = readonly (string | number | null | CursorKey)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Exactly what CURSOR_AT writes: microseconds, UTC. */
const AT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d{6}Z$/;

/**
 * A timestamp as the database wrote it into a cursor. Compare it with `${at}::text::timestamptz`:
 * passed as a timestamp, the driver would round it to the millisecond through a JS Date and a page
 * would repeat its last row. A real calendar instant only: JavaScript would roll 30 February into March.
 */
export const CursorAt = z.string().refine((at) => {
  const seconds = AT.exec(at)?.[1];
  const ms = Date.parse(at);
  return seconds !== undefined && !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === seconds;
});

/** The SQL that writes a timestamp column into a cursor (see CursorAt). */
export const CURSOR_AT = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export function decodeCursor<T extends z.ZodTuple>(cursor: string | undefined, shape: T, field = 'cursor'): z.infer<T> | null {
  if (cursor === undefined || cursor === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidField(field, 'The cursor is not valid.');
  }
  const key = shape.safeParse(parsed);
  if (!key.success) throw invalidField(field, 'The cursor is not valid.');
  return key.data;
}

/** Fetch `limit + 1` rows; this keeps `limit` and says where the next page starts. */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => CursorKey): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const kept = rows.slice(0, limit);
  return { rows: kept, nextCursor: encodeCursor(keyOf(kept[kept.length - 1]!)) };
}

/** The meta of a list that always fits one page (a product's axes, a shop's tiers or devices). */
export const SINGLE_PAGE = { next_cursor: null } as const;
