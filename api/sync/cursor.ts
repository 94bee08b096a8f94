import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../lib/pagination.ts';
import { IsoDateTime } from '../schemas.ts';
import { ORIGIN, type Position } from './queries.ts';
import { ENTITIES, type EntityName } from './schemas.ts';

/**
 * A pull cursor: where the till stands in each entity, and the time filter of a pull that started
 * from an ISO-8601 `since`. Opaque to clients (base64url of a JSON array, like every cursor here).
 */
export interface SyncCursor {
  positions: Record<EntityName, Position>;
  changedSince: string | null;
}

const Xid = z.string().regex(/^\d{1,20}$/);
const Slot = z.tuple([Xid, z.uuid(), Xid.nullable()]);
// One slot per entity, in ENTITIES' order; a cursor written before the last entities existed has fewer.
const FIRST_ENTITIES = 8;
const Shape = z.tuple([z.literal(1), IsoDateTime.nullable(), z.array(Slot).min(FIRST_ENTITIES).max(ENTITIES.length)]);

const everywhere = (position: (entity: EntityName) => Position) =>
  Object.fromEntries(ENTITIES.map((entity) => [entity, position(entity)])) as Record<EntityName, Position>;

/**
 * The cursor a pull starts from. None: a new till, which needs no deletion older than this pull's
 * horizon. An ISO-8601 date-time: every record changed since then, deletions included.
 */
export function readSince(since: string | undefined, horizon: string): SyncCursor {
  if (since === undefined || since === '') return { positions: everywhere(() => ({ ...ORIGIN, floor: horizon })), changedSince: null };
  if (IsoDateTime.safeParse(since).success) {
    return { positions: everywhere(() => ({ ...ORIGIN, floor: null })), changedSince: since };
  }
  const [, changedSince, slots] = decodeCursor(since, Shape, 'since')!;
  return {
    positions: everywhere((entity) => {
      const slot = slots[ENTITIES.indexOf(entity)];
      // An entity newer than the cursor: from the beginning, deletions included (the till may have none).
      if (!slot) return { ...ORIGIN, floor: null };
      const [txid, id, floor] = slot;
      return { txid, id, floor };
    }),
    changedSince,
  };
}

export function writeCursor(cursor: SyncCursor): string {
  const slots = ENTITIES.map((entity) => {
    const { txid, id, floor } = cursor.positions[entity];
    return [txid, id, floor];
  });
  return encodeCursor([1, cursor.changedSince, slots]);
}
