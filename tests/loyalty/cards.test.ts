import { randomUUID } from 'node:crypto';
import t from 'tap';
import { code128Symbols, PATTERNS, START_B, STOP } from '../../api/lib/code128.ts';
import { chars, expireSubscription, registerShop } from '../support/fixtures.ts';
import { expectConflict, expectError, expectInvalid, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { correct, createCustomer, readCustomer, staffedShop } from './loyalty-fixtures.ts';

const api = await startService(t);

const register = (token: string, body: Record<string, unknown>) => api.request('POST', '/loyalty-cards/register', { token, body });
const findByCard = (token: string, cardNo?: string) =>
  api.request('GET', `/customers/find-by-card${cardNo === undefined ? '' : `?card_no=${encodeURIComponent(cardNo)}`}`, { token });
const printCard = (token: string, customerId: string) => api.request('GET', `/customers/${customerId}/card`, { token });

const cardNumber = () => `LC-${randomUUID().slice(0, 8).toUpperCase()}`;

async function customerCount(shopId: string): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from customers where shop_id = ${shopId}`;
  return row!.n;
}

/** The symbol values a Code 128 SVG draws, read back from the widths of its bars and the gaps between them. */
function decodeBars(svg: string, module = 2): number[] {
  const group = /<g[^>]*>(.*?)<\/g>/s.exec(svg);
  if (!group) throw new Error('no <g> of bars in the SVG');
  const bars = [...group[1]!.matchAll(/<rect\b[^>]*?\bx="([\d.]+)"[^>]*?\bwidth="([\d.]+)"/g)].map((m) => ({ x: Number(m[1]), width: Number(m[2]) }));
  const widths: number[] = [];
  bars.forEach((bar, index) => {
    widths.push(bar.width / module);
    const next = bars[index + 1];
    if (next) widths.push((next.x - (bar.x + bar.width)) / module);
  });
  const symbols: number[] = [];
  let at = 0;
  while (at < widths.length) {
    const size = widths.length - at === 7 ? 7 : 6;
    const pattern = widths.slice(at, at + size).join('');
    const value = PATTERNS.indexOf(pattern);
    if (value < 0) throw new Error(`no Code 128 symbol has the widths ${pattern}`);
    symbols.push(value);
    at += size;
  }
  return symbols;
}

// Registering a card

t.test('a card registered to an existing customer answers 200 and the customer holds it', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token, { name: 'Mireille Ngo' });
  const card = cardNumber();
  const reply = await register(owner.token, { card_no: card, customer_id: customer.id });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.id, customer.id, 'the same customer');
  t.equal(reply.body.data.card_no, card);
  t.equal(reply.body.data.name, 'Mireille Ngo');
  t.equal((await readCustomer(api, owner.token, customer.id)).card_no, card, 'stored');
  t.equal(await customerCount(owner.shop.id), 1, 'nobody else was created');
});

t.test('a customer who had a card holds the new one instead, and the old number is free again', async (t) => {
  const { owner } = await staffedShop(api);
  const [oldCard, newCard] = [cardNumber(), cardNumber()];
  const customer = await createCustomer(api, owner.token, { card_no: oldCard });
  const reply = await register(owner.token, { card_no: newCard, customer_id: customer.id });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.card_no, newCard);
  expectError(t, await findByCard(owner.token, oldCard), 404, NOT_FOUND, 'the old card finds nobody');
  t.equal((await findByCard(owner.token, newCard)).body.data.id, customer.id, 'the new card finds the customer');
  const other = await createCustomer(api, owner.token);
  t.equal((await register(owner.token, { card_no: oldCard, customer_id: other.id })).status, 200, 'the old number can be given to someone else');
});

t.test('registering the card a customer already holds answers 200 and changes nothing', async (t) => {
  const { owner } = await staffedShop(api);
  const card = cardNumber();
  const customer = await createCustomer(api, owner.token, { card_no: card });
  const reply = await register(owner.token, { card_no: card, customer_id: customer.id });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.card_no, card);
});

t.test('a card registered with a name creates a customer holding it (201)', async (t) => {
  const { cashier, owner } = await staffedShop(api);
  const card = cardNumber();
  const reply = await register(cashier.token, { card_no: card, name: 'Paul Biya Essomba' });
  t.equal(reply.status, 201, 'a cashier may do it at the till');
  t.match(reply.body.data, { name: 'Paul Biya Essomba', card_no: card, points: 0, balance_xaf: 0 });
  t.ok(reply.body.data.id, 'a new record');
  t.equal((await findByCard(owner.token, card)).body.data.id, reply.body.data.id, 'found by its card');
  t.equal(await customerCount(owner.shop.id), 1);
});

t.test('exactly one of customer_id and name is required (422)', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  const cases: [string, Record<string, unknown>][] = [
    ['neither', { card_no: cardNumber() }],
    ['both null', { card_no: cardNumber(), customer_id: null, name: null }],
    ['an empty name alone', { card_no: cardNumber(), name: '' }],
    ['both', { card_no: cardNumber(), customer_id: customer.id, name: 'Someone Else' }],
  ];
  for (const [what, body] of cases) {
    const reply = await register(owner.token, body);
    t.equal(reply.status, 422, `${what}: 422`);
    t.equal(reply.body.code, 'validation_failed', `${what}: validation_failed`);
    t.ok(reply.body.errors?.customer_id || reply.body.errors?.name, `${what}: names customer_id or name`);
  }
  t.equal(await customerCount(owner.shop.id), 1, 'nobody was created');
  t.equal((await readCustomer(api, owner.token, customer.id)).card_no, null, 'the customer got no card');
});

t.test('card_no is required and 1 to 60 characters', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  expectInvalid(t, await register(owner.token, { customer_id: customer.id }), 'card_no', 'missing');
  expectInvalid(t, await register(owner.token, { card_no: null, customer_id: customer.id }), 'card_no', 'null');
  expectInvalid(t, await register(owner.token, { card_no: '', customer_id: customer.id }), 'card_no', 'empty');
  expectInvalid(t, await register(owner.token, { card_no: '   ', customer_id: customer.id }), 'card_no', 'blank');
  expectInvalid(t, await register(owner.token, { card_no: 42, customer_id: customer.id }), 'card_no', 'a number');
  expectInvalid(t, await register(owner.token, { card_no: chars(61, '7'), customer_id: customer.id }), 'card_no', '61 characters');
  const one = await register(owner.token, { card_no: '7', customer_id: customer.id });
  t.equal(one.status, 200, '1 character');
  t.equal(one.body.data.card_no, '7');
  const sixty = await register(owner.token, { card_no: chars(60, '8'), customer_id: customer.id });
  t.equal(sixty.status, 200, '60 characters');
  t.equal(sixty.body.data.card_no, chars(60, '8'));
});

t.test('name is at most 160 characters', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await register(owner.token, { card_no: cardNumber(), name: chars(161, 'n') }), 'name', '161 characters');
  t.equal(await customerCount(owner.shop.id), 0, 'nobody was created');
  const reply = await register(owner.token, { card_no: cardNumber(), name: chars(160, 'n') });
  t.equal(reply.status, 201, '160 characters');
  t.equal(reply.body.data.name, chars(160, 'n'));
});

t.test('a blank name creates no customer (422), as POST /customers refuses it', async (t) => {
  const { owner } = await staffedShop(api);
  expectInvalid(t, await api.request('POST', '/customers', { token: owner.token, body: { name: '   ' } }), 'name', 'POST /customers');
  const reply = await register(owner.token, { card_no: cardNumber(), name: '   ' });
  t.equal(reply.status, 422, `refused (${reply.status} ${JSON.stringify(reply.body?.data?.name ?? reply.body?.errors)})`);
  t.equal(await customerCount(owner.shop.id), 0, 'nobody was created');
});

t.test('a card held by another customer is 409 card_taken and nothing changes', async (t) => {
  const { owner } = await staffedShop(api);
  const card = cardNumber();
  const holder = await createCustomer(api, owner.token, { card_no: card });
  const other = await createCustomer(api, owner.token, { card_no: 'OTHER-1' });
  expectConflict(t, await register(owner.token, { card_no: card, customer_id: other.id }), 'card_taken', 'to an existing customer');
  expectConflict(t, await register(owner.token, { card_no: card, name: 'Newcomer' }), 'card_taken', 'to a new customer');
  t.equal((await readCustomer(api, owner.token, other.id)).card_no, 'OTHER-1', 'the other customer keeps their card');
  t.equal((await findByCard(owner.token, card)).body.data.id, holder.id, 'the holder keeps the card');
  t.equal(await customerCount(owner.shop.id), 2, 'no customer was created');
});

t.test('a deleted customer\'s card can be registered to someone else', async (t) => {
  const { owner } = await staffedShop(api);
  const card = cardNumber();
  const gone = await createCustomer(api, owner.token, { card_no: card });
  t.equal((await api.request('DELETE', `/customers/${gone.id}`, { token: owner.token })).status, 204);
  expectError(t, await findByCard(owner.token, card), 404, NOT_FOUND, 'the deleted customer is not found by card');
  const reply = await register(owner.token, { card_no: card, name: 'Heir' });
  t.equal(reply.status, 201);
  t.equal((await findByCard(owner.token, card)).body.data.id, reply.body.data.id);
});

t.test('an unknown or another shop\'s customer_id is 422 on customer_id', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const stranger = await createCustomer(api, theirs.token, { card_no: 'THEIRS-1' });
  for (const [what, id] of [['unknown', randomUUID()], ['another shop\'s', stranger.id], ['not a uuid', 'abc']] as const) {
    expectInvalid(t, await register(owner.token, { card_no: cardNumber(), customer_id: id }), 'customer_id', what);
  }
  t.equal((await readCustomer(api, theirs.token, stranger.id)).card_no, 'THEIRS-1', 'the other shop\'s customer keeps their card');
  t.equal(await customerCount(owner.shop.id), 0);
});

t.test('the same card number may be held in two shops', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api);
  const card = cardNumber();
  const theirCustomer = (await register(theirs.token, { card_no: card, name: 'Chez eux' })).body.data;
  const reply = await register(mine.token, { card_no: card, name: 'Chez nous' });
  t.equal(reply.status, 201, 'not taken: the other shop\'s card is not this shop\'s');
  t.equal((await findByCard(mine.token, card)).body.data.id, reply.body.data.id, 'each shop finds its own customer');
  t.equal((await findByCard(theirs.token, card)).body.data.id, theirCustomer.id);
});

t.test('registering a card needs an active subscription (402)', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  await expireSubscription(api, owner.shop.id);
  expectError(t, await register(owner.token, { card_no: cardNumber(), customer_id: customer.id }), 402, SUBSCRIPTION_REQUIRED, 'existing customer');
  expectError(t, await register(owner.token, { card_no: cardNumber(), name: 'Late' }), 402, SUBSCRIPTION_REQUIRED, 'new customer');
  t.equal((await readCustomer(api, owner.token, customer.id)).card_no, null);
  t.equal(await customerCount(owner.shop.id), 1);
});

// Finding a customer by card

t.test('find-by-card answers the customer holding the card (any shop user)', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const card = cardNumber();
  const customer = await createCustomer(api, owner.token, { name: 'Aminatou', card_no: card });
  await createCustomer(api, owner.token, { card_no: cardNumber() });
  const reply = await findByCard(cashier.token, card);
  t.equal(reply.status, 200);
  t.match(reply.body.data, { id: customer.id, name: 'Aminatou', card_no: card, points: 0 });
  t.match(reply.body.data.tier, { key: 'bronze' }, 'with the tier');
});

t.test('find-by-card is 404 for a card nobody holds, here or in another shop', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const theirCard = cardNumber();
  await createCustomer(api, theirs.token, { card_no: theirCard });
  expectError(t, await findByCard(owner.token, cardNumber()), 404, NOT_FOUND, 'unknown');
  expectError(t, await findByCard(owner.token, theirCard), 404, NOT_FOUND, 'another shop\'s card');
});

t.test('find-by-card needs card_no, at most 60 characters', async (t) => {
  const { owner } = await staffedShop(api);
  const card = chars(60, '9');
  await createCustomer(api, owner.token, { card_no: card });
  expectInvalid(t, await findByCard(owner.token), 'card_no', 'missing');
  expectInvalid(t, await findByCard(owner.token, ''), 'card_no', 'empty');
  expectInvalid(t, await findByCard(owner.token, chars(61, '9')), 'card_no', '61 characters');
  t.equal((await findByCard(owner.token, card)).status, 200, '60 characters');
});

// Printing a card

t.test('the card shows the shop, the customer, the number, the points and the tier', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const card = cardNumber();
  const customer = await createCustomer(api, owner.token, { name: 'Jeanne Atangana', card_no: card });
  await correct(api, manager.token, customer.id, 250);
  const reply = await printCard(cashier.token, customer.id);
  t.equal(reply.status, 200, 'any shop user');
  t.match(reply.body.data, {
    shop_name: 'Boutique Awa',
    customer_id: customer.id,
    customer_name: 'Jeanne Atangana',
    card_no: card,
    points: 250,
    tier: { key: 'bronze', name: 'Bronze', multiplier: 1 },
    barcode: { format: 'code128' },
  });
  t.match(reply.body.data.barcode.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s, 'a self-contained SVG');
});

t.test('the card\'s barcode is the card number in Code 128 set B', async (t) => {
  const { owner } = await staffedShop(api);
  for (const card of ['LC-000042', 'Ab 9~!', chars(60, 'Z'), 'A&B<7>']) {
    const customer = await createCustomer(api, owner.token, { card_no: card });
    const svg: string = (await printCard(owner.token, customer.id)).body.data.barcode.svg;
    const symbols = decodeBars(svg);
    const data = symbols.slice(1, -2);
    t.equal(symbols[0], 104, `${card}: starts with Start B`);
    t.equal(START_B, 104);
    t.equal(symbols.at(-1), 106, `${card}: ends with Stop`);
    t.equal(STOP, 106);
    t.equal(symbols.at(-2), data.reduce((sum, value, i) => sum + (i + 1) * value, 104) % 103, `${card}: the check symbol`);
    t.equal(String.fromCharCode(...data.map((value) => value + 32)), card, `${card}: the bars spell the card number`);
    const text = /<text[^>]*>(.*?)<\/text>/s.exec(svg)?.[1];
    t.equal(text?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'), card, `${card}: printed under the bars`);
    t.notOk(/<(?!\/?(svg|rect|g|text)\b)/.test(svg), `${card}: no stray markup from the card number`);
  }
});

t.test('a customer without a card has no card to print (409 customer_has_no_card)', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token);
  expectConflict(t, await printCard(owner.token, customer.id), 'customer_has_no_card');
});

t.test('another shop\'s or an unknown customer has no card here (404)', async (t) => {
  const { owner } = await staffedShop(api);
  const theirs = await registerShop(api);
  const stranger = await createCustomer(api, theirs.token, { card_no: cardNumber() });
  expectError(t, await printCard(owner.token, stranger.id), 404, NOT_FOUND, 'another shop\'s');
  expectError(t, await printCard(owner.token, randomUUID()), 404, NOT_FOUND, 'unknown');
  expectInvalid(t, await printCard(owner.token, 'not-a-uuid'), 'customer_id', 'malformed id');
});

t.test('a card number outside printable ASCII prints without a barcode', async (t) => {
  const { owner } = await staffedShop(api);
  const customer = await createCustomer(api, owner.token, { card_no: 'Carte-é' });
  const reply = await printCard(owner.token, customer.id);
  t.equal(reply.status, 200);
  t.equal(reply.body.data.card_no, 'Carte-é');
  t.equal(reply.body.data.barcode.svg, null);
});

// The Code 128 encoder itself

t.test('every Code 128 symbol is 11 modules wide and the stop symbol 13', async (t) => {
  t.equal(PATTERNS.length, 107, '107 symbols');
  const width = (pattern: string) => [...pattern].reduce((sum, digit) => sum + Number(digit), 0);
  PATTERNS.slice(0, STOP).forEach((pattern, value) => {
    t.equal(pattern.length, 6, `symbol ${value}: 6 elements`);
    t.equal(width(pattern), 11, `symbol ${value}: 11 modules`);
  });
  t.equal(PATTERNS[STOP]!.length, 7, 'stop: 7 elements');
  t.equal(width(PATTERNS[STOP]!), 13, 'stop: 13 modules');
  t.equal(new Set(PATTERNS).size, PATTERNS.length, 'no two symbols alike');
});

t.test('code128Symbols gives start B, the characters, the check symbol and stop', async (t) => {
  t.strictSame(code128Symbols('A'), [104, 33, (104 + 33) % 103, 106]);
  // 104 + 48x1 + 42x2 + 42x3 + 17x4 + 18x5 + 19x6 + 35x7 = 879, and 879 mod 103 = 55.
  t.strictSame(code128Symbols('PJJ123C'), [104, 48, 42, 42, 17, 18, 19, 35, 55, 106]);
  t.strictSame(code128Symbols(''), [104, 104 % 103, 106], 'empty text: just the check of the start');
  t.strictSame(code128Symbols(' ~'), [104, 0, 94, (104 + 0 + 2 * 94) % 103, 106], 'both ends of printable ASCII');
});

t.test('code128Symbols refuses text outside printable ASCII (null)', async (t) => {
  for (const text of ['Carte-é', 'tab\there', 'line\n', 'DEL\u007f', '🎫42']) {
    t.equal(code128Symbols(text), null, JSON.stringify(text));
  }
});
