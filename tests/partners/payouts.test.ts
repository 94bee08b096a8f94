import t from 'tap';
import type { Tx } from '../../api/db.ts';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { registerShop } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  admin,
  ageLine,
  createPartner,
  markPayable,
  paidLine,
  payCommissions,
  referredShop,
  storedLine,
  storedPayouts,
  type AccountFixture,
} from './partner-fixtures.ts';

/**
 * Commission payouts (CONTRACT sections 11 and 12, POST /admin/partner-commissions/pay): a paid line
 * is final, whatever the request and however many arrive at once, and each payout is recorded as one
 * batch per partner (commission_payouts) that its lines point at, readable by the administrators and
 * by that partner only. Lines accrue in a real graphile-worker, as in production.
 */
const api = await startService(t);
await startMailWorker(t, api, await startMailbox(t));
const root = await admin(api);

const PAYOUT_KEYS = ['amount_xaf', 'created_at', 'id', 'line_count', 'paid_by', 'partner_id', 'partner_name', 'payout_reference'];

/** A partner at 10 % with one referred shop and `count` lines of 500 XAF, each on a monthly payment of 5,000. */
async function partnerWithLines(count: number) {
  const partner = await createPartner(api, root, { commission_rate: 10 });
  const owner = await referredShop(api, partner.code);
  const ids: string[] = [];
  const references: string[] = [];
  for (let i = 0; i < count; i++) {
    const { reference, line } = await paidLine(api, owner);
    ids.push(line.id);
    references.push(reference);
  }
  return { partner, owner, ids, references };
}

const get = (token: string, path: string) => api.request('GET', path, { token });
const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id);
const sorted = (ids: string[]) => [...ids].sort();
const asAdmin = (by: AccountFixture) => ({ shopId: null, userId: by.id });

/** The SQLSTATE a write was refused with, or how many rows it wrote. */
const outcomeOf = (write: Promise<readonly unknown[]>) =>
  write.then((rows) => rows.length).catch((error: { code?: string }) => {
    if (!error.code) throw error;
    return error.code;
  });

// ------------------------------------------------------------------------------ a paid line is final

t.test('paying a paid line again, with a new reference or none, leaves its status, reference and paid_at: 200, count 0, the line in unchanged', async (t) => {
  const { partner, ids: [id] } = await partnerWithLines(1);
  const first = await payCommissions(api, root, { ids: [id], payout_reference: 'OM-FIRST' });
  t.equal(first.status, 200, JSON.stringify(first.body));
  t.match(first.body.data, { count: 1, amount_xaf: 500, unchanged: [] });
  const paid = await storedLine(api, id!);
  t.match(paid, { status: 'paid', payout_reference: 'OM-FIRST', paid_at: Date });

  for (const body of [{ ids: [id], payout_reference: 'OM-SECOND' }, { ids: [id] }, { ids: [id, id], status: 'paid', payout_reference: 'OM-THIRD', partner_id: partner.id }]) {
    const again = await payCommissions(api, root, body);
    t.equal(again.status, 200, JSON.stringify(body));
    t.match(again.body.data, { count: 0, amount_xaf: 0, lines: [], unchanged: [id], payouts: [] }, 'nothing paid, the line reported unchanged');
    t.strictSame(await storedLine(api, id!), paid, 'the line exactly as it was: status, reference, paid_at, payout, updated_at');
  }
  const ledger = await get(root.token, `/admin/partner-commissions?partner_id=${partner.id}`);
  t.match(ledger.body.data, [{ id, status: 'paid', payout_reference: 'OM-FIRST', paid_at: first.body.data.lines[0].paid_at }], 'the ledger shows the first payout');
  t.equal((await storedPayouts(api, partner.id)).length, 1, 'one payout recorded, the first');
});

t.test('a request naming paid and unpaid lines pays the unpaid ones: count and amount_xaf cover them, unchanged lists the paid ones', async (t) => {
  const { partner, ids: [early, late, later] } = await partnerWithLines(3);
  t.equal((await payCommissions(api, root, { ids: [early], payout_reference: 'OM-EARLY' })).status, 200);
  const earlyLine = await storedLine(api, early!);

  const reply = await payCommissions(api, root, { ids: [early, late, later], payout_reference: 'OM-LATE' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { status: 'paid', payout_reference: 'OM-LATE', count: 2, amount_xaf: 1_000, unchanged: [early] });
  t.strictSame(sorted(idsOf(reply.body.data.lines)), sorted([late!, later!]), 'the lines it paid, and only them');
  t.strictSame(await storedLine(api, early!), earlyLine, 'the line paid before is left exactly as it was');
  for (const id of [late!, later!]) t.match(await storedLine(api, id), { status: 'paid', payout_reference: 'OM-LATE' });
  t.strictSame((await storedPayouts(api, partner.id)).map((payout) => [payout.payout_reference, payout.line_count, payout.amount_xaf]), [
    ['OM-EARLY', 1, 500],
    ['OM-LATE', 2, 1_000],
  ], 'each payout with its own lines');
});

t.test('twenty identical pay requests at once pay a 500 XAF line once: their amounts add up to 500, one payout', async (t) => {
  const { partner, ids: [id] } = await partnerWithLines(1);
  const replies = await Promise.all(Array.from({ length: 20 }, () => payCommissions(api, root, { ids: [id], payout_reference: 'OM-RUSH' })));
  t.strictSame(replies.map((reply) => reply.status), Array(20).fill(200), 'every request answered');
  t.equal(replies.filter((reply) => reply.body.data.count === 1).length, 1, 'one request paid it');
  t.equal(replies.reduce((sum, reply) => sum + reply.body.data.amount_xaf, 0), 500, 'the answers add up to the line once');
  t.match(await storedLine(api, id!), { status: 'paid', payout_reference: 'OM-RUSH' });
  t.match(await storedPayouts(api, partner.id), [{ line_count: 1, amount_xaf: 500 }], 'one payout');
  t.equal((await storedPayouts(api, partner.id)).length, 1);
});

t.test('twenty identical requests at once paying a partner\'s payable lines pay each once: their amounts add up to the lines\' total once', async (t) => {
  const { partner, ids, references } = await partnerWithLines(2);
  for (const reference of references) await ageLine(api, reference, 15);
  await markPayable(api);
  const replies = await Promise.all(Array.from({ length: 20 }, () => payCommissions(api, root, { partner_id: partner.id, payout_reference: 'OM-BULK' })));
  t.ok(replies.every((reply) => reply.status === 200), `each answered 200 (${replies.map((reply) => reply.status).join(' ')})`);
  t.equal(replies.reduce((sum, reply) => sum + reply.body.data.amount_xaf, 0), 1_000, 'the answers add up to the lines once');
  t.equal(replies.reduce((sum, reply) => sum + reply.body.data.count, 0), 2, 'each line counted once');
  t.strictSame(sorted(replies.flatMap((reply) => idsOf(reply.body.data.lines))), sorted(ids), 'each line in one answer');
  t.match(await storedPayouts(api, partner.id), [{ line_count: 2, amount_xaf: 1_000, payout_reference: 'OM-BULK' }], 'one payout');
  t.equal((await storedPayouts(api, partner.id)).length, 1);
});

t.test('a paid line never goes back to pending or payable: named alone it is a 409, with others it is left alone, and its payout stays', async (t) => {
  const { partner, ids: [paid, payable], references } = await partnerWithLines(2);
  await ageLine(api, references[1]!, 15);
  await markPayable(api);
  const paying = await payCommissions(api, root, { ids: [paid], payout_reference: 'OM-KEPT' });
  const payoutId = paying.body.data.payouts[0].id;
  const before = await storedLine(api, paid!);
  t.match(before, { status: 'paid', payout_reference: 'OM-KEPT', payout_id: payoutId });
  const payouts = await storedPayouts(api, partner.id);

  for (const status of ['pending', 'payable']) {
    expectConflict(t, await payCommissions(api, root, { ids: [paid], status }), 'commission_already_paid', `back to ${status}`);
    t.strictSame(await storedLine(api, paid!), before, `back to ${status}: the line as it was`);
  }
  const mixed = await payCommissions(api, root, { ids: [paid, payable], status: 'pending' });
  t.equal(mixed.status, 200, JSON.stringify(mixed.body));
  t.match(mixed.body.data, { status: 'pending', count: 1, amount_xaf: 500, unchanged: [paid], payout_reference: null, payouts: [] });
  t.strictSame(idsOf(mixed.body.data.lines), [payable], 'only the unpaid line is held back');
  const bulk = await payCommissions(api, root, { partner_id: partner.id, status: 'payable' });
  t.match(bulk.body.data, { count: 1, unchanged: [] }, 'released in bulk: the pending line, never the paid one');
  t.strictSame(await storedLine(api, paid!), before, 'the paid line as it was');
  t.strictSame(await storedPayouts(api, partner.id), payouts, 'its payout record stays');
  t.match((await get(partner.token, '/partner/payouts')).body.data, [{ id: payoutId, payout_reference: 'OM-KEPT', line_count: 1, amount_xaf: 500 }], 'and the partner still reads it');
});

t.test('the database keeps a paid line final on every path: its status, reference, paid_at and payout cannot change, whoever writes', async (t) => {
  const { ids: [paid, other] } = await partnerWithLines(2);
  t.equal((await payCommissions(api, root, { ids: [paid], payout_reference: 'OM-FINAL' })).status, 200);
  const before = await storedLine(api, paid!);
  const writes: Record<string, (tx: Tx) => Promise<readonly unknown[]>> = {
    'back to pending': (tx) => tx`update partner_commissions set status = 'pending', paid_at = null, payout_id = null, payout_reference = null where id = ${paid!} returning id`,
    'back to payable': (tx) => tx`update partner_commissions set status = 'payable', paid_at = null, payout_id = null, payout_reference = null where id = ${paid!} returning id`,
    'a new reference': (tx) => tx`update partner_commissions set payout_reference = 'OM-OTHER' where id = ${paid!} returning id`,
    'a new paid_at': (tx) => tx`update partner_commissions set paid_at = now() + interval '1 day' where id = ${paid!} returning id`,
    'another amount': (tx) => tx`update partner_commissions set amount_xaf = 1 where id = ${paid!} returning id`,
  };
  for (const [what, write] of Object.entries(writes)) {
    t.equal(await outcomeOf(inTenant(api.appSql, asAdmin(root), write)), 'PB409', `${what}, by an administrator's request: refused`);
    t.equal(await outcomeOf(write(api.ownerSql as unknown as Tx)), 'PB409', `${what}, by the owner role: refused`);
  }
  t.strictSame(await storedLine(api, paid!), before, 'the line as it was');
  t.equal(await outcomeOf(inTenant(api.appSql, asAdmin(root), (tx) => tx`update partner_commissions set status = 'payable' where id = ${other!} returning id`)), 1, 'an unpaid line still changes');
});

// ------------------------------------------------------------------------------ each payout a batch

t.test('each payout is recorded once: its partner, reference, administrator, lines, total and time; each line paid points at it', async (t) => {
  const { partner, ids: [first, second, left] } = await partnerWithLines(3);
  const before = Date.now();
  const reply = await payCommissions(api, root, { ids: [first, second], payout_reference: 'MP261207.0932.K55120' });
  const after = Date.now();
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  const { payouts, lines } = reply.body.data;
  t.equal(payouts.length, 1, 'one payout');
  const [payout] = payouts;
  t.strictSame(Object.keys(payout).sort(), PAYOUT_KEYS, 'the fields of a payout');
  t.match(payout, { partner_id: partner.id, partner_name: 'Moussa Diallo', payout_reference: 'MP261207.0932.K55120', paid_by: root.id, line_count: 2, amount_xaf: 1_000 });
  t.ok(Date.parse(payout.created_at) >= before - 1_000 && Date.parse(payout.created_at) <= after + 1_000, `recorded now (${payout.created_at})`);
  for (const line of lines) t.match(line, { payout_id: payout.id, paid_at: payout.created_at, payout_reference: payout.payout_reference }, 'each line paid points at it');
  const [stored] = await storedPayouts(api, partner.id);
  t.match(stored, { id: payout.id, partner_id: partner.id, payout_reference: 'MP261207.0932.K55120', paid_by: root.id, line_count: 2, amount_xaf: 1_000 }, 'stored');
  for (const id of [first!, second!]) t.match(await storedLine(api, id), { status: 'paid', payout_id: payout.id, paid_at: stored!.created_at });
  t.match(await storedLine(api, left!), { status: 'pending', payout_id: null }, 'a line not paid has no payout');

  const ledger = (await get(root.token, `/admin/partner-commissions?partner_id=${partner.id}`)).body.data;
  t.strictSame(ledger.map((line: { id: string; payout_id: string | null }) => [line.id, line.payout_id]).sort(), [[first, payout.id], [second, payout.id], [left, null]].sort(), 'the ledger shows each line\'s payout');
  const ofPayout = await get(root.token, `/admin/partner-commissions?payout_id=${payout.id}`);
  t.strictSame(sorted(idsOf(ofPayout.body.data)), sorted([first!, second!]), 'the ledger lists a payout\'s lines');
  const own = await get(partner.token, `/partner/commissions?payout_id=${payout.id}`);
  t.strictSame(sorted(idsOf(own.body.data)), sorted([first!, second!]), 'so does the partner\'s');
  t.ok(own.body.data.every((line: { payout_id: string }) => line.payout_id === payout.id), 'its lines carry their payout');

  const listed = await get(root.token, `/admin/partner-payouts?partner_id=${partner.id}`);
  t.equal(listed.status, 200, JSON.stringify(listed.body));
  t.strictSame(listed.body.data, [payout], 'the administrators\' list shows it as the answer did');
  t.strictSame((await get(partner.token, '/partner/payouts')).body.data, [payout], 'the partner\'s list too');
});

t.test('one request paying lines of several partners records one payout per partner, each with its lines and total', async (t) => {
  const a = await partnerWithLines(2);
  const b = await partnerWithLines(1);
  const reply = await payCommissions(api, root, { ids: [...a.ids, ...b.ids], payout_reference: 'BANK-FILE-17' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { count: 3, amount_xaf: 1_500, unchanged: [] });
  const byPartner = Object.fromEntries(reply.body.data.payouts.map((payout: { partner_id: string }) => [payout.partner_id, payout]));
  t.equal(reply.body.data.payouts.length, 2, 'two payouts');
  t.match(byPartner[a.partner.id], { line_count: 2, amount_xaf: 1_000, payout_reference: 'BANK-FILE-17' });
  t.match(byPartner[b.partner.id], { line_count: 1, amount_xaf: 500, payout_reference: 'BANK-FILE-17' });
  for (const line of reply.body.data.lines) t.equal(line.payout_id, byPartner[line.partner_id].id, 'each line in its own partner\'s payout');
  t.strictSame(idsOf((await get(a.partner.token, '/partner/payouts')).body.data), [byPartner[a.partner.id].id], 'partner A reads its own');
  t.strictSame(idsOf((await get(b.partner.token, '/partner/payouts')).body.data), [byPartner[b.partner.id].id], 'partner B its own');
});

t.test('a request that pays nothing records no payout', async (t) => {
  const { partner } = await partnerWithLines(1);
  const reply = await payCommissions(api, root, { partner_id: partner.id, payout_reference: 'OM-NOTHING' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { count: 0, amount_xaf: 0, lines: [], unchanged: [], payouts: [] }, 'the line is still in its refund window');
  t.equal((await storedPayouts(api, partner.id)).length, 0, 'no payout');
});

t.test('the answer\'s payout_reference is the one each line it paid and its payout carry: null when none was given', async (t) => {
  const { ids: [first, second] } = await partnerWithLines(2);
  const given = await payCommissions(api, root, { ids: [first], payout_reference: 'OM-GIVEN' });
  t.match(given.body.data, { payout_reference: 'OM-GIVEN', lines: [{ payout_reference: 'OM-GIVEN' }], payouts: [{ payout_reference: 'OM-GIVEN' }] });
  const none = await payCommissions(api, root, { ids: [first, second] });
  t.equal(none.status, 200, JSON.stringify(none.body));
  t.match(none.body.data, { payout_reference: null, count: 1, unchanged: [first], lines: [{ id: second, payout_reference: null }], payouts: [{ payout_reference: null }] });
  t.match(await storedLine(api, first!), { payout_reference: 'OM-GIVEN' }, 'the line paid before keeps its own');
});

t.test('a payout reference goes with status paid only: with pending or payable it is a 422 on payout_reference, and nothing changes', async (t) => {
  const { partner, ids: [id] } = await partnerWithLines(1);
  const before = await storedLine(api, id!);
  for (const status of ['pending', 'payable']) {
    expectInvalid(t, await payCommissions(api, root, { ids: [id], status, payout_reference: 'OM-WRONG' }), 'payout_reference', `${status} by id`);
    expectInvalid(t, await payCommissions(api, root, { partner_id: partner.id, status, payout_reference: 'OM-WRONG' }), 'payout_reference', `${status} in bulk`);
  }
  t.strictSame(await storedLine(api, id!), before, 'the line as it was');
  t.equal((await payCommissions(api, root, { ids: [id], status: 'payable', payout_reference: null })).status, 200, 'a null reference is no reference');
});

t.test('a line already in the status asked for is left alone and listed in unchanged: a payable line made payable, a held line held', async (t) => {
  const { ids: [line], references } = await partnerWithLines(1);
  await ageLine(api, references[0]!, 15);
  await markPayable(api);
  const payable = await storedLine(api, line!);
  const again = await payCommissions(api, root, { ids: [line], status: 'payable' });
  t.equal(again.status, 200, JSON.stringify(again.body));
  t.match(again.body.data, { status: 'payable', count: 0, amount_xaf: 0, lines: [], unchanged: [line] });
  t.strictSame(await storedLine(api, line!), payable, 'not written');

  const held = await payCommissions(api, root, { ids: [line], status: 'pending' });
  t.match(held.body.data, { status: 'pending', count: 1, unchanged: [] }, 'held back');
  const heldLine = await storedLine(api, line!);
  const heldAgain = await payCommissions(api, root, { ids: [line], status: 'pending' });
  t.match(heldAgain.body.data, { count: 0, unchanged: [line] }, 'held again: nothing to change');
  t.strictSame(await storedLine(api, line!), heldLine, 'not written');
});

// ------------------------------------------------------------------------------------- who reads them

t.test('a payout is readable by the administrators and by its partner only: another partner sees none, a shop token is refused', async (t) => {
  const a = await partnerWithLines(1);
  const b = await partnerWithLines(1);
  const paid = await payCommissions(api, root, { ids: a.ids, payout_reference: 'OM-PRIVATE' });
  const payoutId = paid.body.data.payouts[0].id;
  const otherAdmin = await admin(api);
  const shop = await registerShop(api);

  t.ok(idsOf((await get(otherAdmin.token, '/admin/partner-payouts?limit=200')).body.data).includes(payoutId), 'any administrator lists it');
  t.strictSame(idsOf((await get(a.partner.token, '/partner/payouts')).body.data), [payoutId], 'its partner lists it');
  t.strictSame((await get(b.partner.token, '/partner/payouts')).body.data, [], 'another partner lists none');
  t.strictSame((await get(b.partner.token, `/partner/commissions?payout_id=${payoutId}`)).body.data, [], 'nor its lines');
  for (const path of ['/partner/payouts', '/admin/partner-payouts']) {
    expectError(t, await get(shop.token, path), 403, FORBIDDEN, `a shop token: ${path}`);
  }
  expectError(t, await get(a.partner.token, '/admin/partner-payouts'), 403, FORBIDDEN, 'a partner token: the administrators\' list');
  expectError(t, await get(root.token, '/partner/payouts'), 403, FORBIDDEN, 'an administrator token: a partner\'s list');

  const seen = (scope: { shopId: string | null; userId: string | null }) =>
    inTenant(api.appSql, scope, async (tx) => idsOf(await tx<{ id: string }[]>`select id from commission_payouts where id = ${payoutId}`));
  t.strictSame(await seen(asAdmin(otherAdmin)), [payoutId], 'in the database: an administrator');
  t.strictSame(await seen({ shopId: null, userId: a.partner.id }), [payoutId], 'its partner');
  t.strictSame(await seen({ shopId: null, userId: b.partner.id }), [], 'not another partner');
  t.strictSame(await seen({ shopId: shop.shop.id, userId: shop.user.id }), [], 'not a shop\'s user');
  t.strictSame(await seen({ shopId: a.owner.shop.id, userId: root.id }), [], 'not an administrator\'s id with a shop set');
  t.strictSame(await seen({ shopId: null, userId: null }), [], 'not with no user set');
  t.equal(
    await outcomeOf(inTenant(api.appSql, { shopId: null, userId: a.partner.id }, (tx) =>
      tx`insert into commission_payouts (partner_id, payout_reference, paid_by, line_count, amount_xaf) values (${a.partner.id}, 'FORGED', ${a.partner.id}, 1, 500) returning id`)),
    '42501',
    'a partner cannot record a payout',
  );
  const rewrite = await outcomeOf(inTenant(api.appSql, asAdmin(root), (tx) => tx`update commission_payouts set amount_xaf = 1 where id = ${payoutId} returning id`));
  t.ok(rewrite === 0 || rewrite === '42501', `a payout is never rewritten, even by an administrator (${rewrite})`);
});

t.test('the payout lists page with limit and cursor, newest first, each payout once; the administrators\' filters by partner', async (t) => {
  const { partner, ids } = await partnerWithLines(5);
  const made: string[] = [];
  for (const [index, id] of ids.entries()) made.push((await payCommissions(api, root, { ids: [id], payout_reference: `OM-${index}` })).body.data.payouts[0].id);
  // Two payouts recorded in the same microsecond: the id breaks the tie.
  await api.ownerSql`update commission_payouts set created_at = (select created_at from commission_payouts where id = ${made[2]!}) where id = ${made[3]!}`;
  const stored = idsOf(await api.ownerSql<{ id: string }[]>`select id from commission_payouts where partner_id = ${partner.id} order by created_at desc, id desc`);

  const walk = async (token: string, path: string) => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const reply = await get(token, `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      t.equal(reply.status, 200, JSON.stringify(reply.body));
      seen.push(...idsOf(reply.body.data));
      sizes.push(reply.body.data.length);
      cursor = reply.body.meta.next_cursor ?? undefined;
    } while (cursor);
    return { seen, sizes };
  };
  t.strictSame(await walk(partner.token, '/partner/payouts'), { seen: stored, sizes: [2, 2, 1] }, 'the partner\'s, newest first');
  t.strictSame(await walk(root.token, `/admin/partner-payouts?partner_id=${partner.id}`), { seen: stored, sizes: [2, 2, 1] }, 'the administrators\', for the partner');
  const everything = await walk(root.token, '/admin/partner-payouts');
  t.equal(new Set(everything.seen).size, everything.seen.length, 'across partners, no payout twice');
  t.ok(made.every((id) => everything.seen.includes(id)), 'and these among them');
  expectInvalid(t, await get(root.token, '/admin/partner-payouts?cursor=bm90IGEgY3Vyc29y'), 'cursor');
  expectInvalid(t, await get(partner.token, '/partner/payouts?limit=201'), 'limit');
  expectInvalid(t, await get(root.token, '/admin/partner-payouts?partner_id=nobody'), 'partner_id');
});
