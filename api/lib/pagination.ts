import { invalidField } from '../errors.ts';

/**
 * Keyset pagination over (created_at, id). Queries select `cursor_at` (created_at as text with its
 * microseconds) and compare with `${at}::text::timestamptz`: passed as a timestamp, the driver would
 * round the position to the millisecond through a JS Date and the page would repeat its last row.
 */
export interface Position {
  at: string;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/** Exactly what CURSOR_AT writes: microseconds, UTC. */
const AT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

/** A real calendar instant: JavaScript would quietly roll 30 February over into March. */
function isRealInstant(at: string): boolean {
  const seconds = AT.exec(at)?.[1];
  const ms = Date.parse(at);
  return seconds !== undefined && !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === seconds;
}

export function decodeCursor(cursor: string | undefined): Position | null {
  if (cursor === undefined || cursor === '') return null;
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !at || !id || !isRealInstant(at) || !UUID.test(id)) {
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
