import { createHash, verify } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import { STREAM_STALL_MS } from '../../api/middleware/streaming.ts';
import { archiveKey, publicKeyObject, streamingSigner } from '../../api/fiscal/signing.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { archiveLines, downloadArchive, openAppTransactions, scratchDir, sellVoidAndRefund, syntheticEntries, verifyWithCli } from './route-fixtures.ts';

/**
 * GET /fiscal/archive (CONTRACT section 13): the shop's chain as NDJSON, one entry per line, then the
 * Ed25519 signature of every byte before the last line; and `npm run fiscal:verify`, which checks it
 * offline. The archive is read with a cursor and signed as it is sent (api/fiscal/archive.ts).
 */
const api = await startService(t);
const owner = await registerShop(api, { shop_name: 'Boutique Awa' });
await sellVoidAndRefund(api, owner);
const entries = (await api.request('GET', '/fiscal/entries?limit=200', { token: owner.token })).body.data;
const download = await downloadArchive(api, owner.token);
const lines = archiveLines(download.bytes);
const signatureLine = JSON.parse(lines.at(-1)!);
const publicKey = (await api.request('GET', '/fiscal/public-key')).body.data.public_key;
const dir = scratchDir(t);

/** The archive's bytes with its signature line left as it is and the entries' lines replaced. */
const withEntryLines = (entryLines: string[]) => Buffer.from([...entryLines, lines.at(-1)!].map((line) => `${line}\n`).join(''));

/** Entry lines signed again with the service's own key: what even a holder of the key could forge. */
function resigned(entryLines: string[]): Buffer {
  const body = Buffer.from(entryLines.map((line) => `${line}\n`).join(''));
  const signer = streamingSigner(archiveKey(api.runtime.appKey));
  signer.update(body);
  return Buffer.concat([body, Buffer.from(`${JSON.stringify({ signature: signer.sign().toString('base64'), public_key: publicKey })}\n`)]);
}

t.test('the archive is NDJSON: one line per entry in chain order, each the object GET /fiscal/entries answers', async (t) => {
  t.equal(download.status, 200);
  t.equal(download.headers.get('content-type'), 'application/x-ndjson');
  t.match(download.headers.get('content-disposition'), /^attachment; filename="fiscal-archive\.ndjson"$/);
  t.strictSame(entries.map((entry: any) => entry.kind), ['sale', 'sale', 'sale', 'void', 'refund'], 'three sales, a void and a refund');
  t.ok(download.bytes.at(-1) === 0x0a, 'every line ends with a line feed, the last included');
  t.equal(lines.length, entries.length + 1, 'the entries, then the signature line');
  t.strictSame(lines.slice(0, -1).map((line) => JSON.parse(line)), entries, 'each line is the entry as listed, in chain order');
  t.strictSame(lines.slice(0, -1).map((line) => Object.keys(JSON.parse(line))), entries.map(() => ['chain_no', 'kind', 'ref_id', 'occurred_at', 'recorded_at', 'amount_xaf', 'previous_hash', 'hash', 'content']));
});

t.test('the last line signs every byte before it with the key GET /fiscal/public-key answers', async (t) => {
  t.strictSame(Object.keys(signatureLine).sort(), ['public_key', 'signature']);
  t.equal(signatureLine.public_key, publicKey, 'the archive names the published key');
  t.equal(Buffer.from(publicKey, 'base64').length, 32, 'a raw 32-byte key');
  const signed = download.bytes.subarray(0, download.bytes.length - Buffer.byteLength(`${lines.at(-1)}\n`));
  const signature = Buffer.from(signatureLine.signature, 'base64');
  t.equal(signature.length, 64);
  t.ok(verify(null, signed, publicKeyObject(Buffer.from(publicKey, 'base64')), signature), 'node\'s Ed25519 verifier accepts it');
});

t.test('each archive is signed anew: two downloads carry the same lines and different valid signatures', async (t) => {
  const again = await downloadArchive(api, owner.token);
  const againLines = archiveLines(again.bytes);
  t.strictSame(againLines.slice(0, -1), lines.slice(0, -1));
  t.not(JSON.parse(againLines.at(-1)!).signature, signatureLine.signature);
  t.equal((await verifyWithCli(t, dir, again.bytes)).code, 0);
});

t.test('npm run fiscal:verify accepts the archive and prints the count and the first and last entries', async (t) => {
  const run = await verifyWithCli(t, dir, download.bytes);
  t.equal(run.code, 0, run.stderr);
  const [first, last] = [entries[0], entries.at(-1)];
  t.match(run.stdout, `Valid archive: 5 entries, signed by ${publicKey}`);
  t.match(run.stdout, `First: #1 ${first.kind} ${first.occurred_at} ${first.hash}`);
  t.match(run.stdout, `Last:  #5 ${last.kind} ${last.occurred_at} ${last.hash}`);
  t.equal(run.stderr, '');
});

t.test('npm run fiscal:verify accepts the archive with the published key given', async (t) => {
  const run = await verifyWithCli(t, dir, download.bytes, publicKey);
  t.equal(run.code, 0, run.stderr);
});

t.test('a modified byte is refused with exit 1 and one line', async (t) => {
  const modified = Buffer.from(download.bytes);
  modified[modified.indexOf('Savon Azur')] = 's'.charCodeAt(0);
  const run = await verifyWithCli(t, dir, modified);
  t.equal(run.code, 1);
  t.equal(run.stdout, '');
  t.match(run.stderr, /^Invalid archive: the signature does not match the archive's bytes\n$/);
});

t.test('a removed line is refused with exit 1, and re-signed, for the gap it leaves in the chain', async (t) => {
  const removed = [...lines.slice(0, 2), ...lines.slice(3, -1)];
  const run = await verifyWithCli(t, dir, withEntryLines(removed));
  t.equal(run.code, 1);
  t.match(run.stderr, /^Invalid archive: the signature does not match the archive's bytes\n$/);
  const forged = await verifyWithCli(t, dir, resigned(removed), publicKey);
  t.equal(forged.code, 1);
  t.match(forged.stderr, /^Invalid archive: line 3: entry 4 follows entry 2: the chain has a gap\n$/);
});

t.test('an archive without its signature line (a download cut short) is refused with exit 1', async (t) => {
  const run = await verifyWithCli(t, dir, Buffer.from(lines.slice(0, -1).map((line) => `${line}\n`).join('')));
  t.equal(run.code, 1);
  t.match(run.stderr, /^Invalid archive: the last line is not \{"signature","public_key"\}/);
});

t.test('another --public-key than the archive\'s is refused with exit 1', async (t) => {
  const other = Buffer.alloc(32, 7).toString('base64');
  const run = await verifyWithCli(t, dir, download.bytes, other);
  t.equal(run.code, 1);
  t.match(run.stderr, /^Invalid archive: the archive is signed with another key \(.+\) than the one given\n$/);
});

t.test('a line whose hash does not follow from its content is refused, even re-signed', async (t) => {
  const forged = lines.slice(0, -1).map((line) => JSON.parse(line));
  forged[2].content = forged[2].content.replace('Savon Azur', 'Savon Luxe');
  const run = await verifyWithCli(t, dir, resigned(forged.map((entry: any) => JSON.stringify(entry))), publicKey);
  t.equal(run.code, 1);
  t.match(run.stderr, /^Invalid archive: line 3 \(entry 3\): hash is not SHA-256 of previous_hash followed by content\n$/);
});

t.test('a line whose previous_hash is not the hash before it is refused, even re-signed', async (t) => {
  const forged = lines.slice(0, -1).map((line) => JSON.parse(line));
  forged[3].previous_hash = forged[1].hash;
  forged[3].hash = createHash('sha256').update(forged[3].previous_hash + forged[3].content, 'utf8').digest('hex');
  const run = await verifyWithCli(t, dir, resigned(forged.map((entry: any) => JSON.stringify(entry))), publicKey);
  t.equal(run.code, 1);
  t.match(run.stderr, /^Invalid archive: line 4 \(entry 4\): previous_hash is not the hash of entry 3\n$/);
});

t.test('from and to choose the entries recorded in those days of the shop; a period without any is a signed empty archive', async (t) => {
  const [row] = await api.ownerSql<{ today: string }[]>`select ((now() at time zone timezone)::date)::text as today from shops where id = ${owner.shop.id}`;
  const today = await downloadArchive(api, owner.token, `?from=${row!.today}&to=${row!.today}`);
  t.equal(today.status, 200);
  t.strictSame(archiveLines(today.bytes).slice(0, -1), lines.slice(0, -1), 'today: every entry');
  t.match(today.headers.get('content-disposition'), `filename="fiscal-archive_${row!.today}_${row!.today}.ndjson"`);
  const past = await downloadArchive(api, owner.token, '?from=2020-01-01&to=2020-12-31');
  t.equal(archiveLines(past.bytes).length, 1, 'only the signature line');
  const run = await verifyWithCli(t, dir, past.bytes, publicKey);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, 'Valid archive: 0 entries');
});

t.test('to before from is a 422 on to', async (t) => {
  const reply = await api.request('GET', '/fiscal/archive?from=2026-11-02&to=2026-11-01', { token: owner.token });
  t.equal(reply.status, 422);
  t.strictSame(Object.keys(reply.body.errors), ['to']);
});

t.test('an archive of many reads of the cursor is whole, in order and verifies', async (t) => {
  const big = await registerShop(api, { shop_name: 'Grossiste du Port' });
  await syntheticEntries(api, big.shop.id, 1_234);
  const archive = await downloadArchive(api, big.token);
  const bigLines = archiveLines(archive.bytes);
  t.equal(bigLines.length, 1_235);
  t.strictSame(bigLines.slice(0, -1).map((line) => JSON.parse(line).chain_no), Array.from({ length: 1_234 }, (_, i) => i + 1));
  const run = await verifyWithCli(t, dir, archive.bytes, publicKey);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, 'Valid archive: 1234 entries');
  t.match(run.stdout, 'Last:  #1234 z ');
});

t.test('a client that goes away mid-archive frees its database connection', async (t) => {
  const big = await registerShop(api, { shop_name: 'Entrepôt Mbarga' });
  await syntheticEntries(api, big.shop.id, 5_000, 2_000);
  const controller = new AbortController();
  const response = await fetch(`${api.baseUrl}/api/v1/fiscal/archive`, { headers: { authorization: `Bearer ${big.token}` }, signal: controller.signal });
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  t.ok(value && value.length > 0, 'the archive started');
  t.ok((await openAppTransactions(api)) >= 1, 'a session reads the chain while the archive is sent');
  controller.abort();
  await waitFor(async () => (await openAppTransactions(api)) === 0, 'the archive\'s session to end', 10_000);
  t.pass('no session of the app reads the chain any more');
  t.equal((await api.request('GET', '/fiscal/entries?limit=1', { token: big.token })).status, 200, 'the service answers the shop');
});

t.test('a client that stops reading is cut off after STREAM_STALL_MS, and its database connection freed', async (t) => {
  const big = await registerShop(api, { shop_name: 'Dépôt Ngono' });
  await syntheticEntries(api, big.shop.id, 5_000, 2_000);
  const { port, hostname } = new URL(api.baseUrl);
  const socket = connect(Number(port), hostname);
  t.teardown(() => socket.destroy());
  await once(socket, 'connect');
  let closed = false;
  socket.on('close', () => (closed = true));
  // Nothing is read: the archive (10 MB) fills the socket's buffers and waits.
  socket.pause();
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.write(`GET /api/v1/fiscal/archive HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${big.token}\r\n\r\n`);
  await waitFor(async () => (await openAppTransactions(api)) >= 1, 'the archive to start');
  const started = Date.now();
  await waitFor(async () => (await openAppTransactions(api)) === 0, 'the archive\'s session to end', STREAM_STALL_MS + 10_000);
  t.ok(Date.now() - started >= STREAM_STALL_MS - 1_000, 'not before the client has taken nothing for STREAM_STALL_MS');
  socket.resume();
  await waitFor(() => closed, 'the connection to close', 10_000);
  const bytes = Buffer.concat(received);
  t.match(bytes.subarray(0, 20).toString('latin1'), /^HTTP\/1\.1 200 /, 'the archive had started');
  t.notOk(bytes.includes('"signature"'), 'the connection closed without the archive\'s end: no signature line');
});
