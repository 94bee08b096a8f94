import t from 'tap';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { pairDevice, pull, type SyncAuth } from '../sync/sync-fixtures.ts';
import { cash, convert, createQuote, deleteQuote, freeLine, mark, putQuote, readQuote } from './quote-fixtures.ts';

/** Quotes reach the tills by pull (GET /sync/pull, /device/sync/pull): `data.quotes`, `has_more.quotes`. */

const api = await startService(t);

interface Pulled {
  /** The last version of each quote served, by id. */
  quotes: Map<string, any>;
  /** Every page's body, in order. */
  pages: any[];
  cursor: string;
}

/**
 * Pulls from `since`, following the cursor, until `found` holds of the quotes served so far: another
 * test file's open transaction may hold the sync horizon back a moment.
 */
async function pullQuotes(auth: SyncAuth, since: string | undefined, found: (quotes: Map<string, any>) => boolean, query: Record<string, string | number> = {}): Promise<Pulled> {
  const pulled: Pulled = { quotes: new Map(), pages: [], cursor: since ?? '' };
  return waitFor(async () => {
    const reply = await pull(api, auth, { ...query, ...(pulled.cursor ? { since: pulled.cursor } : {}) });
    if (reply.status !== 200) throw new Error(`pull failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    if (!Array.isArray(reply.body.data?.quotes)) throw new Error(`the pull has no data.quotes: ${JSON.stringify(Object.keys(reply.body.data ?? {}))}`);
    pulled.pages.push(reply.body);
    for (const quote of reply.body.data.quotes) pulled.quotes.set(quote.id, quote);
    pulled.cursor = reply.body.cursor;
    return found(pulled.quotes) && pulled;
  }, 'the pull to serve the quotes');
}

t.test('a pull serves the shop\'s quotes as GET shows them, with deleted_at null, and says whether more are left', async (t) => {
  const owner = await registerShop(api);
  const made: any[] = [];
  for (let i = 0; i < 3; i++) made.push(await createQuote(api, owner.token, { note: `Devis ${i}`, items: [freeLine(100 * (i + 1))] }));
  const pulled = await pullQuotes({ bearer: owner.token }, undefined, (quotes) => made.every((quote) => quotes.has(quote.id)));
  for (const quote of made) t.strictSame(pulled.quotes.get(quote.id), { ...(await readQuote(api, owner.token, quote.id)), deleted_at: null }, `quote ${quote.quote_no}: the record plus deleted_at`);
  const last = pulled.pages.at(-1);
  t.equal(last.has_more.quotes, false, 'nothing more once all are served');
  const page = await pull(api, { bearer: owner.token }, { limit: 2 });
  t.equal(page.body.data.quotes.length, 2, 'a page of 2');
  t.equal(page.body.has_more.quotes, true, 'has_more.quotes when more are left');
  const rest = await pull(api, { bearer: owner.token }, { limit: 2, since: page.body.cursor });
  t.strictSame(new Set([...page.body.data.quotes, ...rest.body.data.quotes].map((q: any) => q.id)), new Set(made.map((q) => q.id)), 'the next page the rest, none twice');
  t.equal(rest.body.has_more.quotes, false);
  const after = await pull(api, { bearer: owner.token }, { since: last.cursor });
  t.strictSame(after.body.data.quotes, [], 'nothing new after the last cursor');

  const device = await pairDevice(api, owner.token);
  const byTill = await pullQuotes({ device: device.token }, undefined, (quotes) => made.every((quote) => quotes.has(quote.id)));
  t.equal(byTill.quotes.size, 3, 'a paired till receives them too');
});

t.test('a deleted quote comes back on the next pull with deleted_at set', async (t) => {
  const owner = await registerShop(api);
  const kept = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const dropped = await createQuote(api, owner.token, { items: [freeLine(200)] });
  const first = await pullQuotes({ bearer: owner.token }, undefined, (quotes) => quotes.has(kept.id) && quotes.has(dropped.id));
  t.equal(first.quotes.get(dropped.id).deleted_at, null);
  t.equal((await deleteQuote(api, owner.token, dropped.id)).status, 204);
  const next = await pullQuotes({ bearer: owner.token }, first.cursor, (quotes) => quotes.has(dropped.id));
  const gone = next.quotes.get(dropped.id);
  t.ok(typeof gone.deleted_at === 'string' && gone.deleted_at.endsWith('Z') && !Number.isNaN(Date.parse(gone.deleted_at)), 'deleted_at is an ISO-8601 UTC time');
  t.equal(gone.id, dropped.id);
  t.notOk(next.quotes.has(kept.id), 'the unchanged quote is not served again');
});

t.test('a quote changed after a pull comes again on the next pull: a status, a change, a conversion', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(1000)] });
  let cursor = (await pullQuotes({ bearer: owner.token }, undefined, (quotes) => quotes.has(quote.id))).cursor;

  await mark(api, owner.token, quote.id, 'sent');
  const sent = await pullQuotes({ bearer: owner.token }, cursor, (quotes) => quotes.get(quote.id)?.status === 'sent');
  t.match(sent.quotes.get(quote.id), { status: 'sent', deleted_at: null }, 'a status');
  cursor = sent.cursor;

  t.equal((await putQuote(api, owner.token, quote.id, { note: 'Prix ferme', items: [freeLine(900)] })).status, 200);
  const changed = await pullQuotes({ bearer: owner.token }, cursor, (quotes) => quotes.get(quote.id)?.note === 'Prix ferme');
  t.match(changed.quotes.get(quote.id), { note: 'Prix ferme', total_xaf: 900, items: [{ unit_price_xaf: 900 }] }, 'a change of its lines');
  cursor = changed.cursor;

  const { sale } = await convert(api, owner.token, quote.id, { payments: cash(900) });
  const converted = await pullQuotes({ bearer: owner.token }, cursor, (quotes) => quotes.get(quote.id)?.status === 'converted');
  t.strictSame(converted.quotes.get(quote.id), { ...(await readQuote(api, owner.token, quote.id)), deleted_at: null }, 'a conversion');
  t.equal(converted.quotes.get(quote.id).sale_id, sale.id);
});

t.test('another shop\'s quotes never appear in a pull, created, changed or deleted', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const their = [await createQuote(api, theirs.token, { items: [freeLine(100)] }), await createQuote(api, theirs.token, { items: [freeLine(200)] })];
  const theirIds = new Set(their.map((quote) => quote.id));
  const own = await createQuote(api, mine.token, { items: [freeLine(300)] });
  const theirCursor = (await pullQuotes({ bearer: theirs.token }, undefined, (quotes) => their.every((quote) => quotes.has(quote.id)))).cursor;
  const first = await pullQuotes({ bearer: mine.token }, undefined, (quotes) => quotes.has(own.id));
  await mark(api, theirs.token, their[0]!.id, 'sent');
  t.equal((await deleteQuote(api, theirs.token, their[1]!.id)).status, 204);
  // Once their own till has seen both changes, the changes are past the sync horizon for every pull.
  await pullQuotes({ bearer: theirs.token }, theirCursor, (quotes) => quotes.get(their[1]!.id)?.deleted_at != null && quotes.get(their[0]!.id)?.status === 'sent');
  const next = await pull(api, { bearer: mine.token }, { since: first.cursor });
  const fresh = await pull(api, { bearer: mine.token });
  const served = [...first.pages, next.body, fresh.body].flatMap((body) => body.data.quotes.map((quote: any) => quote.id));
  t.ok(served.includes(own.id), 'our quote is served');
  t.notOk(served.some((id) => theirIds.has(id)), 'none of theirs');
});
