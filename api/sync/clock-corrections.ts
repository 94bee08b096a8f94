/**
 * GET /sync/clock-corrections (CONTRACT section 4): the records tills pushed with a clock plainly
 * wrong, which the server recorded at the time it received them, for the owner to review. Written by
 * the push (api/sync/push.ts decides, listClockCorrection lists) into clock_corrections.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import { example } from '../lib/examples.ts';
import { CURSOR_AT, CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, ListQuery, many, pickErrors, Timestamp, Uuid } from '../schemas.ts';

/** The pushed records that carry a till's `created_at`, named as in a push. */
export const ClockEntity = z.enum(['sales', 'cash_movements', 'customers']);
export type ClockEntity = z.infer<typeof ClockEntity>;

const CLOCK_CORRECTION = example({
  entity: 'sales',
  id: '3f0a9c2e-6b1d-4e8f-a5c7-2d9e4b6f8a10',
  device_id: '8e5c1f2a-9b3d-4c6e-b7a8-1f2e3d4c5b6a',
  user_id: '2b7e9c4a-1d3f-4a5b-8c6d-9e0f1a2b3c4d',
  till_created_at: '2000-01-01T00:07:12.000Z',
  created_at: '2026-11-21T09:14:32.000Z',
});

export const ClockCorrection = z
  .object({
    entity: ClockEntity.openapi({ description: 'The kind of record, named as in a push.' }),
    id: Uuid.openapi({ description: 'The record\'s id (the till\'s): `GET /sales/{sale_id}` for a sale.' }),
    device_id: Uuid.nullable().openapi({ description: 'The till that pushed it; null when a shop user pushed it with a bearer token (a sale then names its till, if any).' }),
    user_id: Uuid.nullable().openapi({ description: 'Who made it on the till, when the record named someone.' }),
    till_created_at: Timestamp.openapi({ description: 'The time the till stamped, plainly wrong: before 2000-01-01, or more than a day ahead of the server.' }),
    created_at: Timestamp.openapi({ description: 'When the server received it: the record\'s own `created_at`.' }),
  })
  .openapi('ClockCorrection', { example: CLOCK_CORRECTION });
export type ClockCorrection = z.infer<typeof ClockCorrection>;

const CorrectionKey = z.tuple([CursorAt, ClockEntity, z.uuid()]);

const list = createRoute({
  method: 'get',
  path: '/sync/clock-corrections',
  tags: ['Sync'],
  operationId: 'listClockCorrections',
  summary: 'Records pushed by a till whose clock was plainly wrong (manager or owner)',
  description: [
    'A record a till pushes is never refused for its clock (CONTRACT section 4: the sale happened). Sales, cash movements and customers made on',
    'a till keep the till\'s `created_at`, unless its clock was plainly wrong: stamped before 2000-01-01, or more than a day ahead of the server',
    '(a dead clock battery). Such a record is recorded at the time the server received it (`created_at`), keeps the till\'s time in',
    '`till_created_at` (also on the Sale, CashMovement and Customer records) and is listed here, newest first, by pages (`limit`, `cursor`).',
    'A till\'s time short of that is kept however old (until issue 29 a `created_at` more than 5 minutes ahead or 90 days old was refused): what',
    'the old limit protected still holds, as a sealed day is never rewritten. A sale, cash movement or expense pushed for a day whose Z is',
    'sealed, or for a day before the shop opened, is reported in the next Z (`late_sales`), and a late sale\'s journal entry is dated when it',
    'was received, so a sealed Z and a declared VAT month never change. Expenses carry no till time but a day a person typed (`spent_at`): one',
    'before 2000-01-01 is `rejected` with `validation_failed` on `spent_at`, like every date a person types.',
  ].join(' '),
  security: bearer,
  middleware: [authenticate, requireRole('manager')],
  request: { query: ListQuery },
  responses: { 200: jsonResponse('The records, newest first.', many(ClockCorrection)), ...pickErrors(401, 403) },
});

/** Lists a record the push dated at the server's time, in the record's own transaction (its created_at: now()). */
export async function listClockCorrection(
  tx: Tx,
  correction: { entity: ClockEntity; record_id: string; device_id: string | null; user_id: string | null; till_created_at: string },
): Promise<void> {
  await tx`
    insert into clock_corrections (entity, record_id, device_id, user_id, till_created_at)
    values (${correction.entity}, ${correction.record_id}, ${correction.device_id}, ${correction.user_id}, ${correction.till_created_at}::timestamptz)`;
}

type CorrectionRow = Omit<ClockCorrection, 'till_created_at' | 'created_at'> & { till_created_at: Date; created_at: Date; cursor_at: string };

async function listClockCorrections(tx: Tx, limit: number, before: z.infer<typeof CorrectionKey> | null): Promise<CorrectionRow[]> {
  return tx<CorrectionRow[]>`
    select entity, record_id as id, device_id, user_id, till_created_at, created_at, ${tx.unsafe(CURSOR_AT('created_at'))} as cursor_at
      from clock_corrections
     where shop_id = app_shop_id()
       ${before ? tx`and (created_at, entity, record_id) < (${before[0]}::text::timestamptz, ${before[1]}, ${before[2]}::uuid)` : tx``}
     order by created_at desc, entity desc, record_id desc
     limit ${limit + 1}`;
}

const toClockCorrection = ({ cursor_at: _, ...row }: CorrectionRow): ClockCorrection => ({
  ...row,
  till_created_at: row.till_created_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

export const clockCorrectionRoutes = newRouter().openapi(list, async (c) => {
  const { limit, cursor } = c.req.valid('query');
  const before = decodeCursor(cursor, CorrectionKey);
  const { rows, nextCursor } = page(await listClockCorrections(c.var.tx, limit, before), limit, (row) => [row.cursor_at, row.entity, row.id]);
  return c.json({ data: rows.map(toClockCorrection), meta: { next_cursor: nextCursor } }, 200);
});
