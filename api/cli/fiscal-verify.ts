/**
 * `npm run fiscal:verify -- FILE [--public-key KEY]`: checks a fiscal archive (GET /fiscal/archive) offline,
 * with nothing but the file and, when given, the public key published by GET /fiscal/public-key: the
 * Ed25519 signature of its last line over every byte before it, each entry's hash, and the chain's
 * continuity (api/fiscal/archive.ts). Prints the count and the first and last entries and exits 0 when
 * the archive is valid; prints one line saying why and exits 1 when it is not.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { InvalidArchive, verifyArchive } from '../fiscal/archive.ts';
import type { FiscalEntry } from '../fiscal/schemas.ts';

const USAGE = 'Usage: npm run fiscal:verify -- FILE [--public-key KEY]';

function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

const refuse = (reason: string): never => fail(`Invalid archive: ${reason}`);

const describe = (entry: FiscalEntry) => `#${entry.chain_no} ${entry.kind} ${entry.occurred_at} ${entry.hash}`;

function readArgs() {
  try {
    return parseArgs({ allowPositionals: true, options: { 'public-key': { type: 'string' } } });
  } catch (error) {
    fail(`${(error as Error).message} ${USAGE}`);
  }
}

const args = readArgs();
const [file, ...extra] = args.positionals;
if (!file || extra.length) fail(USAGE);

let bytes: Buffer;
try {
  bytes = readFileSync(file);
} catch (error) {
  fail(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}

try {
  const archive = verifyArchive(bytes, args.values['public-key']);
  const lines = [
    `Valid archive: ${archive.entries} ${archive.entries === 1 ? 'entry' : 'entries'}, signed by ${archive.publicKey}`,
    ...(archive.first && archive.last ? [`First: ${describe(archive.first)}`, `Last:  ${describe(archive.last)}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  if (error instanceof InvalidArchive) refuse(error.message);
  throw error;
}
