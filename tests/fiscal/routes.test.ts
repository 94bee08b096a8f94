import { createHash } from 'node:crypto';
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { sellVoidAndRefund } from './route-fixtures.ts';

/**
 * The reads of the fiscal chain in the API's shapes (CONTRACT sections 2 and 13): the entries with
 * their content as the hashed text, paginated; the integrity check's period; the closings, latest
 * first. What the integrity check finds: integrity.test.ts.
 */
const api = await startService(t);
const owner = await registerShop(api);
const { sales } = await sellVoidAndRefund(api, owner);

const get = (path: string, token = owner.token) => api.request('GET', path, { token });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

t.test('entries come in chain order with their content as the text that was hashed, as a string', async (t) => {
  const reply = await get('/fiscal/entries');
  t.equal(reply.status, 200);
  const entries = reply.body.data;
  t.strictSame(reply.body.meta, { next_cursor: null });
  t.strictSame(entries.map((entry: any) => [entry.chain_no, entry.kind]), [[1, 'sale'], [2, 'sale'], [3, 'sale'], [4, 'void'], [5, 'refund']]);
  const stored = await api.ownerSql<{ content: string }[]>`select content from fiscal_entries where shop_id = ${owner.shop.id} order by chain_no`;
  t.strictSame(entries.map((entry: any) => entry.content), stored.map((row) => row.content), 'content is the stored text, byte for byte');
  entries.forEach((entry: any, index: number) => {
    t.type(entry.content, 'string');
    t.equal(entry.hash, sha256(entry.previous_hash + entry.content), `entry ${entry.chain_no}: hash = sha256(previous_hash + content)`);
    t.equal(entry.previous_hash, index === 0 ? '' : entries[index - 1].hash, `entry ${entry.chain_no} follows on`);
    t.match(entry.occurred_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    t.match(entry.recorded_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
  t.strictSame(entries.slice(0, 3).map((entry: any) => [entry.ref_id, entry.amount_xaf]), sales.map((sale) => [sale.id, sale.total_xaf]));
  t.equal(entries[3].ref_id, sales[1].id, 'a void names its sale');
  t.equal(entries[3].amount_xaf, -sales[1].total_xaf, 'and takes its total off');
});

t.test('entries page with limit and cursor, and start after a given chain_no with after', async (t) => {
  const first = await get('/fiscal/entries?limit=2');
  t.strictSame(first.body.data.map((entry: any) => entry.chain_no), [1, 2]);
  t.type(first.body.meta.next_cursor, 'string');
  const second = await get(`/fiscal/entries?limit=2&cursor=${first.body.meta.next_cursor}`);
  t.strictSame(second.body.data.map((entry: any) => entry.chain_no), [3, 4]);
  const third = await get(`/fiscal/entries?limit=2&cursor=${second.body.meta.next_cursor}`);
  t.strictSame(third.body.data.map((entry: any) => entry.chain_no), [5]);
  t.equal(third.body.meta.next_cursor, null, 'the last page says so');
  t.strictSame((await get('/fiscal/entries?after=3')).body.data.map((entry: any) => entry.chain_no), [4, 5]);
  t.strictSame((await get('/fiscal/entries?after=5')).body.data, [], 'after the last entry: none');
});

t.test('entries refuse after with cursor, and a limit outside 1 to 200: 422', async (t) => {
  const page = await get('/fiscal/entries?limit=1');
  expectInvalid(t, await get(`/fiscal/entries?after=1&cursor=${page.body.meta.next_cursor}`), 'after');
  expectInvalid(t, await get('/fiscal/entries?limit=0'), 'limit');
  expectInvalid(t, await get('/fiscal/entries?limit=201'), 'limit');
  expectInvalid(t, await get('/fiscal/entries?after=-1'), 'after');
  expectInvalid(t, await get('/fiscal/entries?cursor=nonsense'), 'cursor');
});

t.test('the integrity check refuses to before from: 422 on to', async (t) => {
  expectInvalid(t, await get('/fiscal/integrity?from=2026-11-02&to=2026-11-01'), 'to');
  expectInvalid(t, await get('/fiscal/integrity?from=1999-12-31'), 'from');
});

t.test('closings come the latest period first, a year before its December, each with its own entry\'s hash, and page', async (t) => {
  // The worker's task (fiscal__close_periods) as it would run thirteen months from now: every period due by then.
  let sealed = 0;
  while ((await api.ownerSql<{ closing: string | null }[]>`select fiscal_close_next(${owner.shop.id}, now() + interval '13 months') as closing`)[0]!.closing) sealed++;
  t.ok(sealed > 12, `${sealed} closings sealed`);

  const all = (await get('/fiscal/closings?limit=200')).body.data;
  t.equal(all.length, sealed);
  const ends = all.map((closing: any) => closing.ends_on);
  t.strictSame(ends, [...ends].sort().reverse(), 'latest first');
  const december = all.findIndex((closing: any) => closing.period === 'year');
  t.equal(all[december + 1].period, 'month', 'the year comes before the month that ends it');
  t.equal(all[december + 1].ends_on, all[december].ends_on);

  const entries = await api.ownerSql<{ chain_no: number; hash: string }[]>`select chain_no, hash from fiscal_entries where shop_id = ${owner.shop.id} and kind = 'closing'`;
  const hashes = new Map(entries.map((entry) => [entry.chain_no, entry.hash]));
  t.ok(all.every((closing: any) => closing.hash === hashes.get(closing.chain_no)), 'hash is that of the closing\'s own entry');
  t.strictSame(Object.keys(all[0]).sort(), ['chain_no', 'cumulative_total_xaf', 'ends_on', 'first_chain_no', 'hash', 'id', 'last_chain_no', 'period', 'sealed_at', 'starts_on', 'total_xaf']);

  const years = (await get('/fiscal/closings?period=year')).body.data;
  t.strictSame(years.map((closing: any) => closing.period), ['year']);
  const paged = [];
  let cursor: string | null = null;
  do {
    const reply: any = await get(`/fiscal/closings?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
    paged.push(...reply.body.data);
    cursor = reply.body.meta.next_cursor;
  } while (cursor);
  t.strictSame(paged.map((closing: any) => closing.id), all.map((closing: any) => closing.id), 'pages of 5 give them all, once each, in order');
  expectInvalid(t, await get('/fiscal/closings?period=week'), 'period');
});
