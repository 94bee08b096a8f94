/**
 * The signed archive of a shop's fiscal chain (CONTRACT section 13): NDJSON, one entry per line in chain
 * order (the object of GET /fiscal/entries), then a last line `{"signature","public_key"}` where
 * `signature` is the base64 Ed25519 signature of every byte before that line and `public_key` the
 * base64 raw 32-byte key. This file writes it, as a stream read from the database in batches and signed
 * as it goes (never the period in memory), and reads it back (`npm run fiscal:verify`).
 */
import { createHash, verify } from 'node:crypto';
import type { FiscalEntry } from './schemas.ts';
import { publicKeyObject, type SigningKey, streamingSigner } from './signing.ts';

/** Typed as any media type: @hono/zod-openapi reads `application/x-ndjson` as a JSON type it cannot build a typed answer for. */
export const ARCHIVE_CONTENT_TYPE: string = 'application/x-ndjson';

/** How many entries each read of the cursor brings: a few hundred kilobytes of lines. */
export const ARCHIVE_BATCH = 500;

/** One line of the archive: the entry as the API answers it, its keys in that order, then a line feed. */
export const archiveLine = (entry: FiscalEntry): string =>
  `${JSON.stringify({
    chain_no: entry.chain_no,
    kind: entry.kind,
    ref_id: entry.ref_id,
    occurred_at: entry.occurred_at,
    recorded_at: entry.recorded_at,
    amount_xaf: entry.amount_xaf,
    previous_hash: entry.previous_hash,
    hash: entry.hash,
    content: entry.content,
  })}\n`;

/**
 * The archive's bytes as a stream that reads the next batch only when the client has taken the last
 * (`highWaterMark: 0`), signs each byte as it is sent, and ends with the signature line. `first` is
 * the first batch, read before the answer starts so that a failure to read is an error answer, not a
 * cut file. Cancelled (the client went away), it closes the cursor once any read in flight is back:
 * the transaction can only end after that.
 */
export function archiveStream(batches: AsyncIterator<FiscalEntry[]>, first: IteratorResult<FiscalEntry[]>, key: SigningKey): ReadableStream<Uint8Array> {
  const signer = streamingSigner(key);
  const encoder = new TextEncoder();
  let next: IteratorResult<FiscalEntry[]> | undefined = first;
  let reading: Promise<IteratorResult<FiscalEntry[]>> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const batch = next ?? (await (reading = batches.next()));
        next = reading = undefined;
        if (batch.done) {
          const signature = JSON.stringify({ signature: signer.sign().toString('base64'), public_key: key.publicKey.toString('base64') });
          controller.enqueue(encoder.encode(`${signature}\n`));
          controller.close();
          return;
        }
        const bytes = encoder.encode(batch.value.map(archiveLine).join(''));
        signer.update(bytes);
        controller.enqueue(bytes);
      },
      async cancel() {
        await reading?.catch(() => undefined);
        await batches.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

export interface VerifiedArchive {
  entries: number;
  publicKey: string;
  first: FiscalEntry | null;
  last: FiscalEntry | null;
}

export class InvalidArchive extends Error {}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const LINE_FEED = 0x0a;

/**
 * Checks an archive as a stranger would, with nothing but its bytes (and the public key published
 * for the shop, when given): the last line's signature over every byte before it, then each entry's
 * hash recomputed from its `previous_hash` and `content`, and the chain's continuity (consecutive
 * `chain_no`, each `previous_hash` the line before's `hash`). Throws InvalidArchive with the first
 * reason found.
 */
export function verifyArchive(archive: Uint8Array, expectedPublicKey?: string): VerifiedArchive {
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const end = bytes.length > 0 && bytes[bytes.length - 1] === LINE_FEED ? bytes.length - 1 : bytes.length;
  const lastLineStart = end === 0 ? 0 : bytes.lastIndexOf(LINE_FEED, end - 1) + 1;
  const signed = bytes.subarray(0, lastLineStart);
  const trailer = parseLine(bytes.subarray(lastLineStart, end).toString('utf8'), 'the signature line');
  if (typeof trailer.signature !== 'string' || typeof trailer.public_key !== 'string') {
    throw new InvalidArchive('the last line is not {"signature","public_key"}: the archive is incomplete');
  }
  const publicKey = Buffer.from(trailer.public_key, 'base64');
  const signature = Buffer.from(trailer.signature, 'base64');
  if (publicKey.length !== 32 || publicKey.toString('base64') !== trailer.public_key) throw new InvalidArchive('public_key is not the base64 of 32 bytes');
  if (expectedPublicKey !== undefined) {
    const expected = Buffer.from(expectedPublicKey, 'base64');
    if (expected.length !== 32) throw new InvalidArchive('the public key given is not the base64 of 32 bytes');
    if (!expected.equals(publicKey)) throw new InvalidArchive(`the archive is signed with another key (${trailer.public_key}) than the one given`);
  }
  if (signature.length !== 64 || !verify(null, signed, publicKeyObject(publicKey), signature)) {
    throw new InvalidArchive('the signature does not match the archive\'s bytes');
  }

  const lines = signed.toString('utf8').split('\n');
  lines.pop();
  let first: FiscalEntry | null = null;
  let previous: FiscalEntry | null = null;
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    const entry = parseLine(line, where) as FiscalEntry;
    if (!Number.isSafeInteger(entry.chain_no) || entry.chain_no < 1) throw new InvalidArchive(`${where}: chain_no is not a positive integer`);
    for (const field of ['previous_hash', 'hash', 'content'] as const) {
      if (typeof entry[field] !== 'string') throw new InvalidArchive(`${where} (entry ${entry.chain_no}): ${field} is not a string`);
    }
    if (sha256Hex(entry.previous_hash + entry.content) !== entry.hash) {
      throw new InvalidArchive(`${where} (entry ${entry.chain_no}): hash is not SHA-256 of previous_hash followed by content`);
    }
    if (entry.chain_no === 1 && entry.previous_hash !== '') throw new InvalidArchive(`${where}: entry 1 has a previous_hash`);
    if (previous && entry.chain_no !== previous.chain_no + 1) {
      throw new InvalidArchive(`${where}: entry ${entry.chain_no} follows entry ${previous.chain_no}: the chain has a gap`);
    }
    if (previous && entry.previous_hash !== previous.hash) {
      throw new InvalidArchive(`${where} (entry ${entry.chain_no}): previous_hash is not the hash of entry ${previous.chain_no}`);
    }
    first ??= entry;
    previous = entry;
  });
  return { entries: lines.length, publicKey: trailer.public_key, first, last: previous };
}

function parseLine(line: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new InvalidArchive(`${where} is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArchive(`${where} is not a JSON object`);
  return parsed as Record<string, unknown>;
}
