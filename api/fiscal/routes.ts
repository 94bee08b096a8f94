/**
 * The shop's fiscal chain (CONTRACT section 13), read by its managers and owner: the entries, the
 * integrity check, the monthly and yearly closings and the signed archive; and the archive key's
 * public half, open to anyone. The chain itself is written by the procedures that make the records
 * (db/functions/fiscal/); these routes only read it.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonResponse, many, one, pickErrors } from '../schemas.ts';
import { ARCHIVE_BATCH, ARCHIVE_CONTENT_TYPE, archiveLine, archiveStream } from './archive.ts';
import { ARCHIVE_PUBLIC_KEY, ARCHIVE_SIGNATURE, FISCAL_ENTRY } from './examples.ts';
import { checkIntegrity, entriesRecordedIn, listClosings, listEntries } from './queries.ts';
import { ArchivePublicKey, ClosingListQuery, EntryListQuery, FiscalClosing, FiscalEntry, FiscalIntegrity, FiscalRangeQuery } from './schemas.ts';
import { archiveKey } from './signing.ts';
import { fromReplica, MAY_LAG, streamedFromReplica } from '../lib/replica.ts';

/** CONTRACT sections 3 and 13: managers and the owner; cashiers get 403. Reads, so an ended subscription does not stop them. */
const readers = [authenticate, requireRole('manager')];
const tags = ['Fiscal'];

const EntryKey = z.tuple([z.number().int().min(0)]);
const ClosingKey = z.tuple([z.iso.date(), z.number().int().min(1)]);

const KEY_FOLLOWS_APP_KEY =
  'The key pair is derived from the service\'s `APP_KEY`: it is the same for every shop of the service and changes when `APP_KEY` is rotated. ' +
  'An archive made before a rotation keeps verifying with the key it carries: keep the public key of the time with the archives.';

const entriesRoute = createRoute({
  method: 'get',
  path: '/fiscal/entries',
  tags,
  operationId: 'listFiscalEntries',
  summary: 'The shop\'s fiscal chain, entry by entry (manager or owner)',
  description: [
    'Every sale, void, refund, sealed Z and closing of the shop is an entry of its chain from the moment it commits: `chain_no` 1, 2, 3... with no gap,',
    'each `hash` the SHA-256 of the previous entry\'s hash followed by the entry\'s `content`. Entries never change and are never removed.',
    'In `chain_no` order, from the first or after `after` (a `chain_no`); paginated with `limit` and `cursor` as every list.',
    '`content` is the canonical JSON text exactly as it was hashed, returned as a string: recompute `hash` from `previous_hash` and it, byte for byte.',
    'A shop\'s chain never holds another shop\'s records.',
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: EntryListQuery },
  responses: { 200: jsonResponse('The entries, in chain order.', many(FiscalEntry)), ...pickErrors(401, 403) },
});

const integrityRoute = createRoute({
  method: 'get',
  path: '/fiscal/integrity',
  tags,
  operationId: 'getFiscalIntegrity',
  summary: 'Check the fiscal chain against the records as they are now (manager or owner)',
  description: [
    'Recomputes the content of every entry recorded in the period from the business records as they are now (sales, their lines and payments,',
    'voids, refunds, Zs, closings) and every hash from the chain\'s start, and lists what is broken, in chain order: a changed price, a deleted line,',
    'an edited payment, an entry whose hash or content was edited, an entry or a record deleted, whoever made the change.',
    '`from` and `to` (days in the shop\'s time zone, both included, both optional) choose the entries by when they were recorded; `to` before `from` is a 422 on `to`.',
    'On a large shop the check takes seconds: it may run until shortly before the request\'s deadline (`REQUEST_DEADLINE_MS`), then answers 503.',
    MAY_LAG,
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: FiscalRangeQuery },
  responses: { 200: jsonResponse('What the check found.', one(FiscalIntegrity)), ...pickErrors(401, 403) },
});

const closingsRoute = createRoute({
  method: 'get',
  path: '/fiscal/closings',
  tags,
  operationId: 'listFiscalClosings',
  summary: 'The monthly and yearly closings (manager or owner)',
  description: [
    'The worker seals each month and each year once it has ended in the shop\'s time zone: the period\'s entries (`first_chain_no` to `last_chain_no`),',
    'their total, and the perpetual total since the shop\'s first entry. Each closing is itself an entry of the chain (`chain_no`, `hash`), so a closing',
    'cannot be changed or removed without the chain showing it. The latest period first (a year before the December that ends it);',
    '`period` keeps the monthly or the yearly ones; paginated with `limit` and `cursor`.',
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: ClosingListQuery },
  responses: { 200: jsonResponse('The closings, latest first.', many(FiscalClosing)), ...pickErrors(401, 403) },
});

const ARCHIVE_EXAMPLE = `${archiveLine(FISCAL_ENTRY)}${JSON.stringify({ signature: ARCHIVE_SIGNATURE, public_key: ARCHIVE_PUBLIC_KEY.public_key })}\n`;

const archiveRoute = createRoute({
  method: 'get',
  path: '/fiscal/archive',
  tags,
  operationId: 'getFiscalArchive',
  summary: 'A signed archive of the fiscal chain, as a file (manager or owner)',
  description: [
    'NDJSON (`application/x-ndjson`), streamed as it is read: one entry per line in `chain_no` order, each the object GET /fiscal/entries answers',
    'followed by a line feed, then a last line `{"signature", "public_key"}`: `signature` is the base64 Ed25519 signature (RFC 8032) of every byte',
    'before that last line, `public_key` the base64 raw 32-byte key, the one GET /fiscal/public-key answers. An answer cut short has no such line,',
    'and never verifies. `from` and `to` (days in the shop\'s time zone, both included, both optional) choose the entries by when they were recorded:',
    'a stretch of the chain. Anyone verifies it with any Ed25519 library, or offline with `npm run fiscal:verify -- FILE [--public-key KEY]`,',
    `which also recomputes each hash and checks that the chain follows on. ${KEY_FOLLOWS_APP_KEY}`,
    MAY_LAG,
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: FiscalRangeQuery },
  responses: {
    200: {
      description: 'The archive, as a file (`Content-Disposition: attachment`).',
      content: { [ARCHIVE_CONTENT_TYPE]: { schema: z.string(), example: ARCHIVE_EXAMPLE } },
    },
    ...pickErrors(401, 403),
  },
});

const publicKeyRoute = createRoute({
  method: 'get',
  path: '/fiscal/public-key',
  tags,
  operationId: 'getFiscalPublicKey',
  summary: 'The public key that verifies fiscal archives (public)',
  description: `No token: anyone who holds an archive can check who signed it. The raw 32-byte Ed25519 key, in base64. ${KEY_FOLLOWS_APP_KEY}`,
  responses: { 200: jsonResponse('The key.', one(ArchivePublicKey)) },
});

/** The archive's file name: the days it covers, when given. */
const archiveFileName = (from: string | undefined, to: string | undefined) => `${['fiscal-archive', from, to].filter(Boolean).join('_')}.ndjson`;

export const fiscalRoutes = newRouter()
  .openapi(entriesRoute, async (c) => {
    const { limit, cursor, after } = c.req.valid('query');
    const start = decodeCursor(cursor, EntryKey)?.[0] ?? after ?? 0;
    const { rows, nextCursor } = page(await listEntries(c.var.tx, start, limit), limit, (entry) => [entry.chain_no]);
    return c.json({ data: rows, meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(
    integrityRoute,
    fromReplica(async (c) => {
      const { REQUEST_DEADLINE_MS, DB_ACQUIRE_TIMEOUT_MS } = c.var.deps.config;
      // The check may take longer than the app role's 30 s, but never past the request's answer: it starts at most
      // DB_ACQUIRE_TIMEOUT_MS after the request came (waiting for a connection), and is cancelled a second before the deadline.
      const timeoutMs = Math.max(1_000, REQUEST_DEADLINE_MS - DB_ACQUIRE_TIMEOUT_MS - 1_000);
      return c.json({ data: (await checkIntegrity(c.var.tx, c.req.valid('query'), timeoutMs)) as z.infer<typeof FiscalIntegrity> }, 200);
    }),
  )
  .openapi(closingsRoute, async (c) => {
    const { limit, cursor, period } = c.req.valid('query');
    const after = decodeCursor(cursor, ClosingKey);
    const { rows, nextCursor } = page(await listClosings(c.var.tx, period, limit, after), limit, (closing) => [closing.ends_on, closing.chain_no]);
    return c.json({ data: rows, meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(
    archiveRoute,
    streamedFromReplica(async (c) => {
      const { from, to } = c.req.valid('query');
      const batches = entriesRecordedIn(c.var.tx, { from, to }).cursor(ARCHIVE_BATCH)[Symbol.asyncIterator]();
      const first = await batches.next();
      return c.body(archiveStream(batches, first, archiveKey(c.var.deps.appKey)), 200, {
        'Content-Type': ARCHIVE_CONTENT_TYPE,
        'Content-Disposition': `attachment; filename="${archiveFileName(from, to)}"`,
      });
    }),
  )
  .openapi(publicKeyRoute, async (c) => c.json({ data: { public_key: archiveKey(c.var.deps.appKey).publicKey.toString('base64') } }, 200));
