import { invalidField } from '../errors.ts';

/**
 * Keyset pagination over (created_at, id). Queries select `cursor_at` (created_at as text with its
 * microseconds, see CURSOR_AT) so that the position is exact, not rounded to the millisecond.
 */
export interface Position {
  at: string;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Position | null {
  if (cursor === undefined || cursor === '') return null;
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !at || !id || Number.isNaN(Date.parse(at)) || !/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(id)) {
    throw invalidField('cursor', 'The cursor is not valid.');
  }
  return { at, id };
}

/** Fetch `limit + 1` rows; this keeps `limit` and says where the next page starts. */
export function page<T extends { cursor_at: string; id: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1]!;
  return { rows: kept, nextCursor: encodeCursor({ at: last.cursor_at, id: last.id }) };
}
