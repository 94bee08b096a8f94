import { randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { correct, createCustomer, earnForSale, readCustomer, redeemForSale, reverseForSale, setShop, staffedShop } from './loyalty-fixtures.ts';

const api = await startService(t);

const getTiers = (token: string) => api.request('GET', '/loyalty/tiers', { token });
const putTiers = (token: string, tiers: unknown) => api.request('PUT', '/loyalty/tiers', { token, body: { tiers } });
const report = (token: string, query = '') => api.request('GET', `/loyalty/report${query}`, { token });

const DEFAULT_LADDER = [
  { key: 'bronze', name: 'Bronze', min_points: 0, multiplier: 1 },
  { key: 'silver', name: 'Silver', min_points: 1000, multiplier: 1.25 },
  { key: 'gold', name: 'Gold', min_points: 5000, multiplier: 1.5 },
];

const ladderOf = (reply: { body: any }) =>
  reply.body.data.map(({ key, name, min_points, multiplier }: any) => ({ key, name, min_points, multiplier }));

/** A valid ladder of `count` tiers, the first at 0 points. */
const ladder = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ key: `t${i}`, name: `Tier ${i}`, min_points: i * 100, multiplier: 1 + i / 4 }));

/** Sends the default ladder with one field of one tier replaced. */
const withTier = (index: number, changes: Record<string, unknown>) => DEFAULT_LADDER.map((tier, i) => (i === index ? { ...tier, ...changes } : tier));

async function storedLadder(shopId: string) {
  return [
    ...(await api.ownerSql`
      select key, name, min_points, multiplier from loyalty_tiers where shop_id = ${shopId} and deleted_at is null order by min_points`),
  ];
}

/** The shop's calendar day today, as the report's default `to` says it. */
async function today(token: string): Promise<string> {
  return (await report(token)).body.data.to;
}

async function backdatedEarn(shop: ShopFixture, customerId: string, points: number, at: string): Promise<void> {
  await api.ownerSql.begin(async (tx) => {
    await tx`
      insert into loyalty_points (shop_id, customer_id, kind, points, source_type, source_id, created_at)
      values (${shop.shop.id}, ${customerId}, 'earn', ${points}, 'sale', ${randomUUID()}, ${at}::timestamptz)`;
    await tx`update customers set points = points + ${points} where id = ${customerId}`;
  });
}

// The ladder

t.test('a new shop has Bronze (0, x1), Silver (1000, x1.25) and Gold (5000, x1.5), readable by any shop user', async (t) => {
  const { cashier } = await staffedShop(api);
  const reply = await getTiers(cashier.token);
  t.equal(reply.status, 200);
  t.strictSame(ladderOf(reply), DEFAULT_LADDER, 'lowest first');
  t.equal(reply.body.meta.next_cursor, null);
  for (const tier of reply.body.data) t.ok(tier.id && tier.created_at && tier.updated_at, `${tier.key}: a record`);
});

t.test('PUT /loyalty/tiers replaces the whole ladder, and customers take their tier from it', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await earnForSale(api, owner, customer.id, 30_000);
  const next = [
    { key: 'membre', name: 'Membre', min_points: 0, multiplier: 1 },
    { key: 'vip', name: 'VIP', min_points: 250, multiplier: 2.5 },
  ];
  const reply = await putTiers(manager.token, [...next].reverse());
  t.equal(reply.status, 200);
  t.strictSame(ladderOf(reply), next, 'answers the new ladder, lowest first');
  t.strictSame(ladderOf(await getTiers(owner.token)), next, 'the old tiers are gone');
  t.strictSame(await storedLadder(owner.shop.id), next);
  t.match((await readCustomer(api, owner.token, customer.id)).tier, { key: 'vip', name: 'VIP', multiplier: 2.5 }, '300 earned: VIP');
  t.equal(await earnForSale(api, owner, customer.id, 10_000), 250, 'and earns at x2.5');
});

t.test('a ladder has 1 to 8 tiers', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await putTiers(owner.token, []), 'tiers', '0 tiers');
  expectInvalid(t, await putTiers(owner.token, ladder(9)), 'tiers', '9 tiers');
  expectInvalid(t, await putTiers(owner.token, null), 'tiers', 'null');
  expectInvalid(t, await api.request('PUT', '/loyalty/tiers', { token: owner.token, body: {} }), 'tiers', 'missing');
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
  const eight = await putTiers(owner.token, ladder(8));
  t.equal(eight.status, 200, '8 tiers');
  t.equal(eight.body.data.length, 8);
  const one = await putTiers(owner.token, ladder(1));
  t.equal(one.status, 200, '1 tier');
  t.strictSame(ladderOf(one), ladder(1));
});

t.test('a tier\'s key is 1 to 40 characters and unique in the ladder', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await putTiers(owner.token, withTier(1, { key: '' })), 'tiers.1.key', 'empty');
  expectInvalid(t, await putTiers(owner.token, withTier(1, { key: '  ' })), 'tiers.1.key', 'blank');
  expectInvalid(t, await putTiers(owner.token, withTier(2, { key: chars(41, 'k') })), 'tiers.2.key', '41 characters');
  expectInvalid(t, await putTiers(owner.token, withTier(0, { key: undefined })), 'tiers.0.key', 'missing');
  expectInvalid(t, await putTiers(owner.token, withTier(2, { key: 'bronze' })), 'tiers.2.key', 'a key used twice');
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
  const reply = await putTiers(owner.token, withTier(2, { key: chars(40, 'k') }));
  t.equal(reply.status, 200, '40 characters');
  t.equal(reply.body.data[2].key, chars(40, 'k'));
});

t.test('a tier\'s name is 1 to 60 characters', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await putTiers(owner.token, withTier(0, { name: '' })), 'tiers.0.name', 'empty');
  expectInvalid(t, await putTiers(owner.token, withTier(1, { name: chars(61, 'n') })), 'tiers.1.name', '61 characters');
  expectInvalid(t, await putTiers(owner.token, withTier(1, { name: undefined })), 'tiers.1.name', 'missing');
  const reply = await putTiers(owner.token, withTier(1, { name: chars(60, 'n') }));
  t.equal(reply.status, 200, '60 characters');
  t.equal(reply.body.data[1].name, chars(60, 'n'));
});

t.test('a tier\'s min_points is a whole number, at least 0, unique in the ladder', async (t) => {
  const { owner } = await staffedShop(api);
  for (const [what, min_points] of [['-1', -1], ['1.5', 1000.5], ['a string', '1000'], ['null', null], ['missing', undefined]] as const) {
    expectInvalid(t, await putTiers(owner.token, withTier(1, { min_points })), 'tiers.1.min_points', what);
  }
  expectInvalid(t, await putTiers(owner.token, withTier(2, { min_points: 1000 })), 'tiers.2.min_points', 'a threshold used twice');
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
  t.equal((await putTiers(owner.token, withTier(1, { min_points: 1 }))).status, 200, '1 point');
});

t.test('a tier\'s multiplier is 0 to 10 with at most 2 decimals', async (t) => {
  const { owner } = await staffedShop(api);
  for (const [what, multiplier] of [['-0.01', -0.01], ['10.01', 10.01], ['3 decimals', 1.255], ['a string', '1.5'], ['missing', undefined]] as const) {
    expectInvalid(t, await putTiers(owner.token, withTier(1, { multiplier })), 'tiers.1.multiplier', what);
  }
  const reply = await putTiers(owner.token, [
    { key: 'zero', name: 'Zero', min_points: 0, multiplier: 0 },
    { key: 'ten', name: 'Ten', min_points: 10, multiplier: 10 },
    { key: 'odd', name: 'Odd', min_points: 20, multiplier: 1.07 },
  ]);
  t.equal(reply.status, 200, '0, 10 and 2 decimals');
  t.strictSame(reply.body.data.map((tier: any) => tier.multiplier), [0, 10, 1.07]);
});

t.test('the lowest tier must start at 0 points (422 on tiers)', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await putTiers(owner.token, DEFAULT_LADDER.slice(1)), 'tiers');
  expectInvalid(t, await putTiers(owner.token, [{ key: 'only', name: 'Only', min_points: 1, multiplier: 1 }]), 'tiers', 'a single tier at 1');
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
});

t.test('only a manager or the owner may replace the ladder (403 for a cashier)', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  expectError(t, await putTiers(cashier.token, ladder(2)), 403, FORBIDDEN);
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
  t.equal((await putTiers(owner.token, ladder(2))).status, 200, 'the owner may');
});

t.test('replacing the ladder needs an active subscription (402); reading it does not', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await putTiers(manager.token, ladder(2)), 402, SUBSCRIPTION_REQUIRED);
  t.strictSame(await storedLadder(owner.shop.id), DEFAULT_LADDER, 'unchanged');
  t.equal((await getTiers(cashier.token)).status, 200);
});

t.test('one shop\'s ladder is its own', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  t.equal((await putTiers(mine.token, ladder(4))).status, 200);
  t.strictSame(ladderOf(await getTiers(theirs.token)), DEFAULT_LADDER, 'the other shop keeps its ladder');
  t.strictSame(ladderOf(await getTiers(mine.token)), ladder(4));
});

// The programme report

t.test('the report counts points issued, redeemed, adjusted and reversed over the period, and what is outstanding', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const [a, b] = [await createCustomer(api, owner.token), await createCustomer(api, owner.token)];
  await correct(api, manager.token, a.id, 500);
  await correct(api, manager.token, b.id, 300);
  await correct(api, manager.token, b.id, -100);
  const sale = randomUUID();
  await redeemForSale(api, owner, a.id, 50, sale);
  await earnForSale(api, owner, a.id, 20_000, sale);
  await earnForSale(api, owner, b.id, 7_000);
  await reverseForSale(api, owner, sale, 1);
  // From the day before, so that a run across the shop's midnight still covers everything above.
  const day = await today(manager.token);
  const before = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
  const reply = await report(manager.token, `?from=${before}&to=${day}`);
  t.equal(reply.status, 200);
  t.match(reply.body.data, { from: before, to: day, issued: 270, redeemed: 50, adjusted: 700, reversed: -150, outstanding: 770 });
  t.equal(reply.body.data.outstanding, (await readCustomer(api, owner.token, a.id)).points + (await readCustomer(api, owner.token, b.id)).points);
});

t.test('the report period defaults to the last 30 days and leaves out what happened before it', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await earnForSale(api, owner, customer.id, 10_000);
  await backdatedEarn(owner, customer.id, 70, new Date(Date.now() - 40 * 86_400_000).toISOString());
  const defaults = await report(owner.token);
  t.equal(defaults.status, 200);
  const [to, from] = [defaults.body.data.to, defaults.body.data.from];
  t.equal(Date.parse(to) - Date.parse(from), 30 * 86_400_000, 'from is 30 days before to');
  t.equal(defaults.body.data.issued, 100, 'the 40-day-old points are outside');
  t.equal(defaults.body.data.outstanding, 170, 'but still outstanding');
  const longer = new Date(Date.parse(to) - 45 * 86_400_000).toISOString().slice(0, 10);
  t.equal((await report(owner.token, `?from=${longer}&to=${to}`)).body.data.issued, 170, 'a longer period includes them');
  t.equal((await report(owner.token, `?from=${longer}&to=${longer}`)).body.data.issued, 0, 'a day with nothing');
});

t.test('the report\'s days are the shop\'s calendar days', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { timezone: 'Asia/Tokyo' });
  const customer = await createCustomer(api, owner.token);
  // 16:30 UTC on 10 March is 01:30 on 11 March in Tokyo.
  await backdatedEarn(owner, customer.id, 40, '2025-03-10T16:30:00Z');
  t.equal((await report(owner.token, '?from=2025-03-11&to=2025-03-11')).body.data.issued, 40, '11 March in Tokyo');
  t.equal((await report(owner.token, '?from=2025-03-10&to=2025-03-10')).body.data.issued, 0, 'not 10 March');
});

t.test('the report\'s period ends on or after it starts (422 on to)', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await report(owner.token, '?from=2025-05-02&to=2025-05-01'), 'to', 'to before from');
  expectInvalid(t, await report(owner.token, '?from=2025-13-01&to=2026-01-31'), 'from', 'no such month');
  expectInvalid(t, await report(owner.token, '?from=2025-01-01&to=tomorrow'), 'to', 'not a date');
  const same = await report(owner.token, '?from=2025-05-01&to=2025-05-01');
  t.equal(same.status, 200, 'one day');
  t.match(same.body.data, { from: '2025-05-01', to: '2025-05-01', issued: 0, redeemed: 0, adjusted: 0, reversed: 0 });
});

t.test('the report lists the top 10 holders of unredeemed points, most first', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const holders: { id: string; points: number }[] = [];
  for (let i = 1; i <= 11; i++) {
    const customer = await createCustomer(api, owner.token, { name: `Holder ${String(i).padStart(2, '0')}` });
    const points = ((i * 7) % 11) * 100 + 50;
    await correct(api, manager.token, customer.id, points);
    holders.push({ id: customer.id, points });
  }
  await createCustomer(api, owner.token, { name: 'Nobody' });
  const reply = await report(manager.token);
  t.equal(reply.status, 200);
  const expected = [...holders].sort((x, y) => y.points - x.points).slice(0, 10);
  t.equal(reply.body.data.top_holders.length, 10, '10 of 11');
  t.strictSame(
    reply.body.data.top_holders.map((h: any) => ({ id: h.customer_id, points: h.points })),
    expected,
    'the 10 largest balances, in order',
  );
  t.match(reply.body.data.top_holders[0], { name: /^Holder \d\d$/ });
});

t.test('the report splits customers and their points by tier', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const bronze = await createCustomer(api, owner.token);
  await correct(api, manager.token, bronze.id, 6000, 'Reprise de solde');
  await createCustomer(api, owner.token);
  const silver = await createCustomer(api, owner.token);
  await earnForSale(api, owner, silver.id, 150_000);
  const gold = await createCustomer(api, owner.token);
  await earnForSale(api, owner, gold.id, 500_000);
  await redeemForSale(api, owner, gold.id, 1000);
  const reply = await report(manager.token);
  t.strictSame(reply.body.data.tiers, [
    { key: 'bronze', name: 'Bronze', min_points: 0, customers: 2, points: 6000 },
    { key: 'silver', name: 'Silver', min_points: 1000, customers: 1, points: 1500 },
    { key: 'gold', name: 'Gold', min_points: 5000, customers: 1, points: 4000 },
  ]);
});

t.test('the report needs a manager or the owner (403 for a cashier)', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  expectError(t, await report(cashier.token), 403, FORBIDDEN);
  t.equal((await report(manager.token)).status, 200, 'a manager');
  t.equal((await report(owner.token)).status, 200, 'the owner');
});

t.test('another shop\'s points never count in the report', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const stranger = await createCustomer(api, theirs.token);
  await correct(api, theirs.token, stranger.id, 900);
  await earnForSale(api, theirs, stranger.id, 400_000);
  await redeemForSale(api, theirs, stranger.id, 100);
  const reply = await report(mine.token);
  t.match(reply.body.data, { issued: 0, redeemed: 0, adjusted: 0, reversed: 0, outstanding: 0, top_holders: [] });
  t.ok(reply.body.data.tiers.every((tier: any) => tier.customers === 0 && tier.points === 0), 'no customer in any tier');
  t.match((await report(theirs.token)).body.data, { issued: 4000, redeemed: 100, adjusted: 900, outstanding: 4800 });
});
