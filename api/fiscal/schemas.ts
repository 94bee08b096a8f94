import { z } from '@hono/zod-openapi';
import { ARCHIVE_PUBLIC_KEY, FISCAL_CLOSING, FISCAL_ENTRY, FISCAL_INTEGRITY } from './examples.ts';
import { businessDate, ListQuery, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

export const FiscalKind = z.enum(['sale', 'void', 'refund', 'z', 'closing']);

const Hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .openapi({ description: 'Lowercase hex SHA-256 of `previous_hash` followed by `content`, both as UTF-8.' });

const ChainNo = z.number().int().min(1);

/** One entry of the shop's fiscal chain (CONTRACT section 13): the same object in GET /fiscal/entries and on each line of an archive. */
export const FiscalEntry = z
  .object({
    chain_no: ChainNo.openapi({ description: 'The entry\'s place in the shop\'s chain: 1, 2, 3... with no gap.' }),
    kind: FiscalKind.openapi({ description: 'What the entry records: a sale, a void, a refund (a credit note), a sealed Z, or a monthly or yearly closing.' }),
    ref_id: Uuid.openapi({ description: 'The record it is about: the sale (for `sale` and `void`), the refund, the Z, the closing.' }),
    occurred_at: Timestamp.openapi({ description: 'When the record happened (an offline sale keeps the till\'s time).' }),
    recorded_at: Timestamp.openapi({ description: 'When the entry took its place in the chain: grows with `chain_no`.' }),
    amount_xaf: z.number().int().openapi({
      description: 'The entry\'s effect on the perpetual total: a sale\'s total, minus what a void or a refund gave back, 0 for a Z or a closing.',
    }),
    previous_hash: z
      .string()
      .regex(/^([0-9a-f]{64})?$/)
      .openapi({ description: 'The `hash` of entry `chain_no - 1`; empty for entry 1.' }),
    hash: Hash,
    content: z.string().openapi({
      description:
        'The entry\'s content in canonical JSON (RFC 8785: keys sorted, no spaces, money as integers, decimals as strings, times in UTC), ' +
        'returned as a string, exactly the text that was hashed: parsing and writing it again could change a byte (an escape, a number\'s form), ' +
        'so anyone recomputes `hash` from `previous_hash` and this text byte for byte. Parse it to read the record: a sale names its receipt number, ' +
        'time, cashier, customer, lines, totals, VAT per rate and payments; a void or a refund the sale\'s entry and what it gave back. ' +
        'A key whose value would be null (no customer, a free line\'s item, no variant, no payment reference) or an optional discount of 0 ' +
        '(`points_discount_xaf`, `promotion_discount_xaf`) is left out.',
    }),
  })
  .openapi('FiscalEntry', { example: FISCAL_ENTRY });
export type FiscalEntry = z.infer<typeof FiscalEntry>;

export const EntryListQuery = ListQuery.extend({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    // An optional coerced number is written `integer | null` without its bounds by the generator: stated here.
    .openapi({
      param: { name: 'after', in: 'query' },
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      example: 0,
      description: 'Start after this `chain_no` (0, the default, starts at entry 1): where a previous reading or archive ended. Not with `cursor`.',
    }),
}).refine((query) => query.after === undefined || query.cursor === undefined, { path: ['after'], message: 'Give after or cursor, not both.' });

const BrokenReason = z.enum(['content_changed', 'hash_mismatch', 'missing_entry', 'record_missing']);

const ChainEnd = z.object({ chain_no: ChainNo, hash: Hash }).nullable();

export const FiscalIntegrity = z
  .object({
    ok: z.boolean().openapi({ description: 'True when nothing is broken.' }),
    checked: z.number().int().openapi({ description: 'How many entries were checked.' }),
    first: ChainEnd.openapi({ description: 'The first entry checked; null when none was.' }),
    last: ChainEnd.openapi({ description: 'The last entry checked; null when none was.' }),
    broken: z
      .array(
        z.object({
          chain_no: ChainNo.nullable().openapi({ description: 'The entry, when there is one (a record with no entry has none).' }),
          kind: FiscalKind.nullable(),
          ref_id: Uuid.nullable().openapi({ description: 'The record, when known.' }),
          reason: BrokenReason.openapi({
            description:
              '`content_changed`: the record (a sale, its lines or payments, a refund, a Z) no longer gives the content its entry stored; ' +
              '`hash_mismatch`: the entry\'s hash is not SHA-256 of the previous hash and its content, or the chain does not follow on; ' +
              '`missing_entry`: an entry is missing from the chain, or a record has none; `record_missing`: the record an entry names is gone.',
          }),
        }),
      )
      .openapi({ description: 'Each broken entry or record, in chain order: the first 1,000 of them.' }),
    broken_count: z.number().int().openapi({ description: 'How many are broken: more than `broken` lists when over 1,000.' }),
  })
  .openapi('FiscalIntegrity', { example: FISCAL_INTEGRITY });

/** A period of the shop's days, both optional: the entries recorded from the first day through the last, in the shop's time zone. */
const range = {
  from: businessDate('First day, in the shop\'s time zone (`YYYY-MM-DD`); from the first entry when omitted.')
    .optional()
    .openapi({ param: { name: 'from', in: 'query' } }),
  to: businessDate('Last day, included, in the shop\'s time zone; on or after `from`; through the last entry when omitted.')
    .optional()
    .openapi({ param: { name: 'to', in: 'query' } }),
};

export const FiscalRangeQuery = z.object(range).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const ClosingPeriod = z.enum(['month', 'year']);

export const FiscalClosing = z
  .object({
    id: Uuid,
    period: ClosingPeriod,
    starts_on: z.string().openapi({ format: 'date', description: 'First day of the month or year, in the shop\'s time zone.' }),
    ends_on: z.string().openapi({ format: 'date', description: 'Last day, included.' }),
    total_xaf: z.number().int().openapi({ description: 'The sum of `amount_xaf` of the entries first_chain_no..last_chain_no: sales less voids and refunds.' }),
    cumulative_total_xaf: z.number().int().openapi({ description: 'The perpetual total: every entry\'s `amount_xaf` since the shop\'s first, through `last_chain_no`.' }),
    first_chain_no: z.number().int().openapi({ description: 'The first entry of the period.' }),
    last_chain_no: z.number().int().openapi({ description: 'The last entry of the period.' }),
    chain_no: ChainNo.openapi({ description: 'The closing\'s own entry in the chain (kind `closing`).' }),
    hash: Hash.openapi({ description: 'The hash of the closing\'s own entry, which chains it after the period\'s last.' }),
    sealed_at: Timestamp.openapi({ description: 'When the worker sealed it; a sealed closing never changes.' }),
  })
  .openapi('FiscalClosing', { example: FISCAL_CLOSING });
export type FiscalClosing = z.infer<typeof FiscalClosing>;

export const ClosingListQuery = ListQuery.extend({
  period: ClosingPeriod.optional().openapi({ param: { name: 'period', in: 'query' }, description: 'Only the monthly or the yearly closings; both when omitted.' }),
});

export const ArchivePublicKey = z
  .object({
    public_key: z.string().openapi({ description: 'Base64 of the raw 32-byte Ed25519 public key (RFC 8032) that signs the archives.' }),
  })
  .openapi('FiscalPublicKey', { example: ARCHIVE_PUBLIC_KEY });
