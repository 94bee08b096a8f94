import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { chars, expireSubscription, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  attributeToSale,
  correct,
  createCustomer,
  earnForSale,
  ledgerMismatches,
  ledgerRows,
  readCustomer,
  redeemForSale,
  reverseForSale,
  setShop,
  sqlError,
  staffedShop,
  storedPoints,
} from './loyalty-fixtures.ts';

const api = await startService(t);

const postPoints = (token: string, customerId: string, body: Record<string, unknown>) =>
  api.request('POST', `/customers/${customerId}/points`, { token, body });
const history = (token: string, customerId: string, query = '') => api.request('GET', `/customers/${customerId}/points${query}`, { token });

/** Inserts an earn row dated `age` (an interval) back, keeping the balance equal to the ledger. */
async function earnedLongAgo(shop: ShopFixture, customerId: string, points: number, age: string): Promise<void> {
  await api.ownerSql.begin(async (tx) => {
    await tx`
      insert into loyalty_points (shop_id, customer_id, kind, points, source_type, source_id, created_at)
      values (${shop.shop.id}, ${customerId}, 'earn', ${points}, 'sale', ${randomUUID()}, now() - ${age}::interval)`;
    await tx`update customers set points = points + ${points} where id = ${customerId}`;
  });
}

const tierOf = async (token: string, customerId: string) => (await readCustomer(api, token, customerId)).tier?.key;

// Manager corrections

t.test('a manager or the owner corrects a balance; the correction is an adjust row with its reason and author', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const reply = await postPoints(manager.token, customer.id, { delta: 120, reason: 'Carte perdue, solde repris' });
  t.equal(reply.status, 201);
  t.equal(reply.body.data.customer.points, 120, 'the customer as it now stands');
  t.match(reply.body.data.entry, { customer_id: customer.id, kind: 'adjust', points: 120, reason: 'Carte perdue, solde repris', user_id: manager.user.id });
  const byOwner = await postPoints(owner.token, customer.id, { delta: -20, reason: 'Erreur de saisie' });
  t.equal(byOwner.status, 201);
  t.equal(byOwner.body.data.customer.points, 100);
  t.equal(await storedPoints(api, customer.id), 100);
});

t.test('a cashier may not correct points (403) and nothing changes', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  expectError(t, await postPoints(cashier.token, customer.id, { delta: 50, reason: 'Cadeau' }), 403, FORBIDDEN);
  t.equal(await storedPoints(api, customer.id), 0);
  t.strictSame(await ledgerRows(api, customer.id), []);
});

t.test('delta is a whole number other than 0', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  for (const [what, delta] of [['0', 0], ['1.5', 1.5], ['-0.5', -0.5], ['a string', '5'], ['null', null]] as const) {
    expectInvalid(t, await postPoints(owner.token, customer.id, { delta, reason: 'Test' }), 'delta', what);
  }
  expectInvalid(t, await postPoints(owner.token, customer.id, { reason: 'Test' }), 'delta', 'missing');
  t.equal((await postPoints(owner.token, customer.id, { delta: 1, reason: 'Test' })).status, 201, '1');
  t.equal((await postPoints(owner.token, customer.id, { delta: -1, reason: 'Test' })).status, 201, '-1');
  t.equal(await storedPoints(api, customer.id), 0);
  t.equal((await ledgerRows(api, customer.id)).length, 2, 'only the accepted corrections were written');
});

t.test('reason is required and at most 160 characters', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  expectInvalid(t, await postPoints(owner.token, customer.id, { delta: 5 }), 'reason', 'missing');
  expectInvalid(t, await postPoints(owner.token, customer.id, { delta: 5, reason: null }), 'reason', 'null');
  expectInvalid(t, await postPoints(owner.token, customer.id, { delta: 5, reason: '' }), 'reason', 'empty');
  expectInvalid(t, await postPoints(owner.token, customer.id, { delta: 5, reason: '   ' }), 'reason', 'blank');
  expectInvalid(t, await postPoints(owner.token, customer.id, { delta: 5, reason: chars(161, 'r') }), 'reason', '161 characters');
  const reply = await postPoints(owner.token, customer.id, { delta: 5, reason: chars(160, 'r') });
  t.equal(reply.status, 201, '160 characters');
  t.equal(reply.body.data.entry.reason, chars(160, 'r'));
  t.equal(await storedPoints(api, customer.id), 5);
});

t.test('a correction that would make the balance negative is 422 insufficient_points on delta and changes nothing', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  expectInvalid(t, await postPoints(manager.token, customer.id, { delta: -1, reason: 'Retrait' }), 'delta', 'from 0', 'insufficient_points');
  await correct(api, manager.token, customer.id, 100);
  expectInvalid(t, await postPoints(manager.token, customer.id, { delta: -101, reason: 'Retrait' }), 'delta', 'one beyond', 'insufficient_points');
  t.equal(await storedPoints(api, customer.id), 100, 'the balance is unchanged');
  t.equal((await ledgerRows(api, customer.id)).length, 1, 'no ledger row was written');
  const exact = await postPoints(manager.token, customer.id, { delta: -100, reason: 'Retrait' });
  t.equal(exact.status, 201, 'down to exactly 0');
  t.equal(exact.body.data.customer.points, 0);
});

t.test('another shop\'s or an unknown customer\'s points are 404', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const stranger = await createCustomer(api, theirs.token);
  await correct(api, theirs.token, stranger.id, 40);
  for (const [what, id] of [['another shop\'s', stranger.id], ['unknown', randomUUID()]] as const) {
    expectError(t, await postPoints(owner.token, id, { delta: 10, reason: 'Vol' }), 404, NOT_FOUND, `${what}: POST`);
    expectError(t, await history(owner.token, id), 404, NOT_FOUND, `${what}: GET`);
  }
  t.equal(await storedPoints(api, stranger.id), 40, 'the other shop\'s customer is untouched');
  expectInvalid(t, await history(owner.token, 'nope'), 'customer_id', 'malformed id');
});

t.test('corrections need an active subscription (402) but the ledger can still be read', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 10);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await postPoints(manager.token, customer.id, { delta: 10, reason: 'Late' }), 402, SUBSCRIPTION_REQUIRED);
  t.equal(await storedPoints(api, customer.id), 10);
  t.equal((await history(manager.token, customer.id)).status, 200);
});

// The ledger

t.test('every change of points is a ledger row, listed newest first to any shop user', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  await correct(api, manager.token, customer.id, 50, 'Bienvenue');
  await earnForSale(api, owner, customer.id, 20_000, sale);
  await redeemForSale(api, owner, customer.id, 30, sale);
  await reverseForSale(api, owner, sale, 1);
  const reply = await history(cashier.token, customer.id);
  t.equal(reply.status, 200);
  t.strictSame(
    reply.body.data.map((entry: any) => [entry.kind, entry.points]),
    [['reverse', 30], ['reverse', -200], ['redeem', -30], ['earn', 200], ['adjust', 50]],
    'newest first',
  );
  t.equal(reply.body.meta.next_cursor, null);
  t.match(reply.body.data.at(-2), { kind: 'earn', source_type: 'sale', source_id: sale });
  const times = reply.body.data.map((entry: any) => Date.parse(entry.created_at));
  t.strictSame(times, [...times].sort((a, b) => b - a), 'created_at descends');
  t.equal(await storedPoints(api, customer.id), 50, 'the balance is their sum');
  t.strictSame(await ledgerMismatches(api, owner.shop.id), []);
});

t.test('the ledger is paginated by limit and cursor without gaps or repeats', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  for (let delta = 1; delta <= 7; delta++) await correct(api, owner.token, customer.id, delta);
  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const reply: any = await history(owner.token, customer.id, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(reply.status, 200);
    t.ok(reply.body.data.length <= 3, 'at most limit rows');
    seen.push(...reply.body.data.map((entry: any) => entry.points));
    cursor = reply.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3);
  t.strictSame(seen, [7, 6, 5, 4, 3, 2, 1], 'every row once, newest first');
  expectInvalid(t, await history(owner.token, customer.id, '?limit=0'), 'limit', 'limit 0');
  expectInvalid(t, await history(owner.token, customer.id, '?limit=201'), 'limit', 'limit 201');
  t.equal((await history(owner.token, customer.id, '?limit=200')).status, 200, 'limit 200');
});

t.test('the balance always equals the sum of the ledger, whatever the sequence of changes', async (t) => {
  const owner = await registerShop(api);
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 3 });
  type Step =
    | { kind: 'correct'; delta: number }
    | { kind: 'earn'; paid: number }
    | { kind: 'redeem'; points: number }
    | { kind: 'reverse'; sale: number; fraction: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('correct' as const), delta: fc.integer({ min: -400, max: 400 }).filter((d) => d !== 0) }),
    fc.record({ kind: fc.constant('earn' as const), paid: fc.integer({ min: 0, max: 60_000 }) }),
    fc.record({ kind: fc.constant('redeem' as const), points: fc.integer({ min: 0, max: 500 }) }),
    fc.record({ kind: fc.constant('reverse' as const), sale: fc.nat(5), fraction: fc.constantFrom(0.25, 0.5, 1 / 3, 1) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
      const customer = await createCustomer(api, owner.token);
      const sales: string[] = [];
      let balance = 0;
      for (const s of steps) {
        if (s.kind === 'correct') {
          const reply = await postPoints(owner.token, customer.id, { delta: s.delta, reason: 'Propriété' });
          if (balance + s.delta < 0) {
            if (reply.status !== 422 || reply.body.code !== 'insufficient_points') return false;
          } else {
            if (reply.status !== 201) return false;
            balance += s.delta;
          }
        } else if (s.kind === 'earn') {
          const sale = randomUUID();
          sales.push(sale);
          balance += await earnForSale(api, owner, customer.id, s.paid, sale);
        } else if (s.kind === 'redeem') {
          const sale = randomUUID();
          sales.push(sale);
          try {
            const value = await redeemForSale(api, owner, customer.id, s.points, sale);
            if (s.points > balance || value !== s.points * 3) return false;
            balance -= s.points;
          } catch (error) {
            if (s.points <= balance || (error as { message?: string }).message !== 'insufficient_points') return false;
          }
        } else if (sales.length > 0) {
          await reverseForSale(api, owner, sales[s.sale % sales.length]!, s.fraction);
          balance = await storedPoints(api, customer.id);
        }
        const stored = await storedPoints(api, customer.id);
        if (stored !== balance || stored < 0) return false;
        if ((await ledgerMismatches(api, owner.shop.id)).length > 0) return false;
      }
      return true;
    }),
    { seed: 20_240_612, numRuns: 15 },
  );
  t.pass('the balance matched the ledger after every step');
});

// The sale functions: earning

t.test('a sale earns floor(paid x the shop\'s earn rate x the tier multiplier), as an earn row of the sale', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  t.equal(await earnForSale(api, owner, customer.id, 12_345, sale), 123, 'default rate 0.01, Bronze x1: 123.45 rounds down');
  t.strictSame(await ledgerRows(api, customer.id), [{ kind: 'earn', points: 123, source_type: 'sale', source_id: sale, reason: null }]);
  await setShop(api, owner, { loyalty_earn_rate: 0.0375 });
  t.equal(await earnForSale(api, owner, customer.id, 12_345), 462, 'rate 0.0375: 462.9375 rounds down');
  t.equal(await storedPoints(api, customer.id), 585);
});

t.test('a sale too small to earn a whole point earns 0 and writes no row', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  t.equal(await earnForSale(api, owner, customer.id, 99), 0, '0.99 points');
  t.equal(await earnForSale(api, owner, customer.id, 0), 0, 'nothing paid');
  await setShop(api, owner, { loyalty_earn_rate: 0 });
  t.equal(await earnForSale(api, owner, customer.id, 1_000_000), 0, 'earn rate 0');
  t.strictSame(await ledgerRows(api, customer.id), []);
});

t.test('a Silver customer earns x1.25 and a Gold customer x1.5', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  t.equal(await earnForSale(api, owner, customer.id, 100_000), 1000, 'Bronze x1 to reach Silver');
  t.equal(await tierOf(owner.token, customer.id), 'silver');
  t.equal(await earnForSale(api, owner, customer.id, 12_345), 154, 'Silver: 154.3125 rounds down');
  await earnedLongAgo(owner, customer.id, 10_000, '13 months');
  t.equal(await tierOf(owner.token, customer.id), 'silver', 'old points do not lift the tier');
  t.equal(await earnForSale(api, owner, customer.id, 12_345), 154, 'still Silver');
  t.equal(await earnForSale(api, owner, customer.id, 370_000), 4625, 'Silver: 3700 x 1.25');
  t.equal(await tierOf(owner.token, customer.id), 'gold', '1000 + 154 + 154 + 4625 earned this year');
  t.equal(await earnForSale(api, owner, customer.id, 12_345), 185, 'Gold: 185.175 rounds down');
  t.equal(await storedPoints(api, customer.id), 1000 + 154 + 10_000 + 154 + 4625 + 185);
});

// Redeeming

t.test('redeeming answers the points\' value at the shop\'s redeem rate and writes a redeem row', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 100);
  const sale = randomUUID();
  t.equal(await redeemForSale(api, owner, customer.id, 40, sale), 40, 'default 1 XAF a point');
  await setShop(api, owner, { loyalty_redeem_rate_xaf: 25 });
  t.equal(await redeemForSale(api, owner, customer.id, 60), 1500, '60 points at 25 XAF');
  t.equal(await storedPoints(api, customer.id), 0);
  t.match((await ledgerRows(api, customer.id))[1], { kind: 'redeem', points: -40, source_type: 'sale', source_id: sale });
});

t.test('redeeming 0 points is worth nothing and writes nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  t.equal(await redeemForSale(api, owner, customer.id, 0), 0);
  t.strictSame(await ledgerRows(api, customer.id), []);
});

t.test('redeeming beyond the balance raises insufficient_points on redeem_points and changes nothing', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 30);
  await sqlError(t, redeemForSale(api, owner, customer.id, 31), { code: 'PB422', message: 'insufficient_points', column: 'redeem_points' }, 'one beyond');
  t.equal(await storedPoints(api, customer.id), 30);
  t.equal((await ledgerRows(api, customer.id)).length, 1);
  t.equal(await redeemForSale(api, owner, customer.id, 30), 30, 'the whole balance');
});

t.test('another shop\'s customer cannot earn or redeem in this shop', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const stranger = await createCustomer(api, theirs.token);
  await correct(api, theirs.token, stranger.id, 500);
  await sqlError(t, earnForSale(api, mine, stranger.id, 50_000), { code: 'PB422', message: 'validation_failed', column: 'customer_id' }, 'earn');
  await sqlError(t, redeemForSale(api, mine, stranger.id, 100), { code: 'PB422', message: 'validation_failed', column: 'redeem_points' }, 'redeem');
  t.equal(await storedPoints(api, stranger.id), 500);
  t.equal((await ledgerRows(api, stranger.id)).length, 1);
});

// Reversing

t.test('a reversal takes back its share of earned points (rounded down) and returns its share of redeemed points (rounded up)', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 100);
  const sale = randomUUID();
  await redeemForSale(api, owner, customer.id, 25, sale);
  t.equal(await earnForSale(api, owner, customer.id, 12_345, sale), 123);
  t.equal(await storedPoints(api, customer.id), 198);
  await reverseForSale(api, owner, sale, 0.5);
  const rows = (await ledgerRows(api, customer.id)).slice(3);
  t.strictSame(rows.map((row) => [row.kind, row.points, row.source_id]).sort(), [['reverse', -61, sale], ['reverse', 13, sale]], '61.5 taken as 61, 12.5 given back as 13');
  t.equal(await storedPoints(api, customer.id), 198 - 61 + 13);
});

t.test('a full reversal takes back everything earned and returns everything redeemed', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 100);
  const sale = randomUUID();
  await redeemForSale(api, owner, customer.id, 40, sale);
  await earnForSale(api, owner, customer.id, 30_000, sale);
  await reverseForSale(api, owner, sale, 1);
  t.equal(await storedPoints(api, customer.id), 100, 'as before the sale');
  t.strictSame(await ledgerMismatches(api, owner.shop.id), []);
});

t.test('a reversal never takes the balance below zero: points already spent stay spent', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  t.equal(await earnForSale(api, owner, customer.id, 12_345, sale), 123);
  await correct(api, manager.token, customer.id, -100, 'Spent elsewhere');
  await reverseForSale(api, owner, sale, 1);
  t.equal(await storedPoints(api, customer.id), 0, 'only the 23 left are taken');
  t.match((await ledgerRows(api, customer.id)).at(-1), { kind: 'reverse', points: -23 });
  await reverseForSale(api, owner, sale, 1);
  t.equal(await storedPoints(api, customer.id), 0, 'nothing left to take: still 0');
  t.equal((await ledgerRows(api, customer.id)).length, 3, 'and no empty row');
});

t.test('a sale without points reverses to nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await reverseForSale(api, owner, randomUUID(), 1);
  t.strictSame(await ledgerRows(api, customer.id), []);
});

t.test('successive partial reversals never return more points than the sale redeemed', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 5);
  const sale = randomUUID();
  await redeemForSale(api, owner, customer.id, 5, sale);
  await reverseForSale(api, owner, sale, 0.5);
  await reverseForSale(api, owner, sale, 0.5);
  const returned = (await ledgerRows(api, customer.id)).filter((row) => row.kind === 'reverse').reduce((sum, row) => sum + row.points, 0);
  t.ok(returned <= 5, `returned ${returned} of the 5 points redeemed`);
  t.equal(await storedPoints(api, customer.id), returned, 'the balance still equals the ledger');
});

// Attributing after the fact

t.test('attributing a sale after the fact credits what it would have earned, once (409 loyalty_already_attributed)', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  t.equal(await attributeToSale(api, owner, customer.id, sale, 25_000), 250);
  t.equal(await storedPoints(api, customer.id), 250);
  await sqlError(t, attributeToSale(api, owner, customer.id, sale, 25_000), { code: 'PB409', message: 'loyalty_already_attributed' }, 'the same customer again');
  const other = await createCustomer(api, owner.token);
  await sqlError(t, attributeToSale(api, owner, other.id, sale, 25_000), { code: 'PB409', message: 'loyalty_already_attributed' }, 'another customer');
  t.equal(await storedPoints(api, customer.id), 250, 'credited once');
  t.equal(await storedPoints(api, other.id), 0);
  t.equal((await ledgerRows(api, customer.id)).length, 1);
});

t.test('a sale that earned points when it was made cannot be attributed again', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  await earnForSale(api, owner, customer.id, 25_000, sale);
  await sqlError(t, attributeToSale(api, owner, customer.id, sale, 25_000), { code: 'PB409', message: 'loyalty_already_attributed' }, 'attribute');
  t.equal(await storedPoints(api, customer.id), 250);
});

t.test('two attributions of one sale at the same moment credit it once', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  const outcomes = await Promise.allSettled([1, 2, 3].map(() => attributeToSale(api, owner, customer.id, sale, 10_000)));
  t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, 'one succeeds');
  t.ok(
    outcomes.every((o) => o.status === 'fulfilled' || (o.reason as { message?: string }).message === 'loyalty_already_attributed'),
    'the others are refused as already attributed',
  );
  t.equal(await storedPoints(api, customer.id), 100);
});

// Tiers follow the points earned

t.test('a customer\'s tier follows the points earned over the last 12 months', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  t.equal(await tierOf(owner.token, customer.id), 'bronze', 'a new customer is Bronze');
  await earnForSale(api, owner, customer.id, 99_900);
  t.equal(await tierOf(owner.token, customer.id), 'bronze', '999 earned');
  await earnForSale(api, owner, customer.id, 100);
  t.equal(await tierOf(owner.token, customer.id), 'silver', '1000 earned');
  await earnedLongAgo(owner, customer.id, 4000, '11 months');
  t.equal(await tierOf(owner.token, customer.id), 'gold', 'points earned 11 months ago count');
  await correct(api, manager.token, customer.id, -5000, 'Spent in another shop');
  t.equal(await tierOf(owner.token, customer.id), 'gold', 'spending or removing points does not lower the tier');
});

t.test('points earned more than 12 months ago do not count towards the tier', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await earnedLongAgo(owner, customer.id, 9000, '12 months 1 day');
  t.equal(await storedPoints(api, customer.id), 9000, 'still in the balance');
  t.equal(await tierOf(owner.token, customer.id), 'bronze', 'but not in the tier');
});

t.test('manual corrections do not count towards the tier', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 6000);
  t.equal(await tierOf(owner.token, customer.id), 'bronze');
  t.equal(await earnForSale(api, owner, customer.id, 10_000), 100, 'and they earn at x1');
});

t.test('earned points taken back by a reversal no longer count towards the tier', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const sale = randomUUID();
  await earnForSale(api, owner, customer.id, 100_000, sale);
  t.equal(await tierOf(owner.token, customer.id), 'silver');
  await reverseForSale(api, owner, sale, 0.5);
  t.equal(await tierOf(owner.token, customer.id), 'bronze', '500 earned net');
});

t.test('redeemed points given back by a reversal do not count as earned towards the tier', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await correct(api, manager.token, customer.id, 1200, 'Reprise de solde');
  const sale = randomUUID();
  await redeemForSale(api, owner, customer.id, 1200, sale);
  await reverseForSale(api, owner, sale, 1);
  t.equal(await storedPoints(api, customer.id), 1200, 'the points are back');
  t.equal(await tierOf(owner.token, customer.id), 'bronze', 'nothing was earned');
});
