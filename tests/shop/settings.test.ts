import t from 'tap';
import type { Test } from 'tap';
import { addStaff, chars, expireSubscription, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { expectError, expectInvalid, FORBIDDEN, MALFORMED_JSON, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';

const api = await startService(t);

const SHOP_KEYS = [
  'address', 'allow_negative_stock', 'bank_details', 'business_type', 'cashier_max_discount_percent', 'cashier_price_override', 'city', 'created_at',
  'default_vat_rate', 'email', 'id', 'legal_form', 'locale', 'logo',
  'loyalty_earn_rate', 'loyalty_redeem_rate_xaf', 'momo_merchant_no', 'name', 'payment_method_labels', 'payment_terms_days', 'phone', 'receipt_footer',
  'receipt_header', 'share_capital_xaf', 'subscription_ends_at', 'subscription_status', 'tax_centre', 'tax_id', 'tax_regime', 'timezone',
  'trade_register_no', 'trial_ends_at', 'updated_at',
];

const putShop = (token: string, body: unknown) => api.request('PUT', '/shop', { token, body });
const getShop = (token: string) => api.request('GET', '/shop', { token });

/** The shop's row as stored, read past row-level security. */
async function storedShop(id: string) {
  const [row] = await api.ownerSql`select * from shops where id = ${id}`;
  return row;
}

/** Each value is accepted and read back as sent; each refused value is a 422 on `field` that changes nothing. */
async function checkBounds(t: Test, token: string, shopId: string, field: string, accepted: unknown[], refused: unknown[]): Promise<void> {
  for (const value of accepted) {
    const reply = await putShop(token, { [field]: value });
    t.equal(reply.status, 200, `${field} = ${JSON.stringify(value)} is accepted`);
    t.strictSame(reply.body?.data?.[field], value, `${field} = ${JSON.stringify(value)} is answered as sent`);
    t.strictSame((await getShop(token)).body.data[field], value, `${field} = ${JSON.stringify(value)} is read back`);
  }
  const before = await storedShop(shopId);
  for (const value of refused) {
    expectInvalid(t, await putShop(token, { [field]: value }), field, `${field} = ${JSON.stringify(value)}`);
  }
  t.strictSame(await storedShop(shopId), before, `refused ${field} values change nothing`);
}

t.test('every shop user reads the shop (owner, manager, cashier)', async (t) => {
  const owner = await registerShop(api, { shop_name: 'Quincaillerie Mboa', city: 'Douala', locale: 'en' });
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token], ['cashier', cashier.token]] as const) {
    const reply = await getShop(token);
    t.equal(reply.status, 200, who);
    t.strictSame(Object.keys(reply.body), ['data'], `${who}: {data}`);
    t.strictSame(Object.keys(reply.body.data).sort(), SHOP_KEYS, `${who}: shop keys`);
    t.match(
      reply.body.data,
      { id: owner.shop.id, name: 'Quincaillerie Mboa', city: 'Douala', locale: 'en', subscription_status: 'trial', subscription_ends_at: null },
      `${who}: the caller's shop`,
    );
  }
  const defaults = (await getShop(owner.token)).body.data;
  t.match(
    defaults,
    { allow_negative_stock: false, default_vat_rate: 19.25, loyalty_earn_rate: 0.01, loyalty_redeem_rate_xaf: 1, cashier_price_override: false, cashier_max_discount_percent: 10 },
    'settings start at their defaults',
  );
});

t.test('reading or changing the shop needs a valid token (401)', async (t) => {
  expectError(t, await api.request('GET', '/shop'), 401, UNAUTHENTICATED, 'GET without a token');
  expectError(t, await api.request('PUT', '/shop', { body: { name: 'X' } }), 401, UNAUTHENTICATED, 'PUT without a token');
  expectError(t, await api.request('GET', '/shop', { token: 'not-a-token' }), 401, UNAUTHENTICATED, 'GET with a bad token');
});

t.test('only the owner changes the shop (a manager and a cashier get 403)', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  const before = await storedShop(owner.shop.id);
  for (const [who, token] of [['manager', manager.token], ['cashier', cashier.token]] as const) {
    expectError(t, await putShop(token, { name: 'Taken over', allow_negative_stock: true }), 403, FORBIDDEN, who);
  }
  t.strictSame(await storedShop(owner.shop.id), before, 'nothing changed');
  const reply = await putShop(owner.token, { name: 'Boutique Awa & Fils' });
  t.equal(reply.status, 200, 'the owner');
  t.strictSame(Object.keys(reply.body), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), SHOP_KEYS);
  t.equal(reply.body.data.name, 'Boutique Awa & Fils');
});

t.test('a change touches only the fields sent', async (t) => {
  const owner = await registerShop(api, { business_type: 'Quincaillerie', phone: '699001122', tax_id: 'M0123456789' });
  const before = (await getShop(owner.token)).body.data;
  const reply = await putShop(owner.token, { city: 'Bafoussam', receipt_footer: 'Merci de votre visite' });
  t.equal(reply.status, 200);
  const after = (await getShop(owner.token)).body.data;
  t.strictSame(after, reply.body.data, 'the answer is what is stored');
  t.equal(after.city, 'Bafoussam');
  t.equal(after.receipt_footer, 'Merci de votre visite');
  for (const key of SHOP_KEYS) {
    if (['city', 'receipt_footer', 'updated_at'].includes(key)) continue;
    t.strictSame(after[key], before[key], `${key} is unchanged`);
  }
  t.ok(Date.parse(after.updated_at) >= Date.parse(before.updated_at), 'updated_at moves forward');

  const empty = await putShop(owner.token, {});
  t.equal(empty.status, 200, 'an empty change is accepted');
  t.strictSame({ ...empty.body.data, updated_at: null }, { ...after, updated_at: null }, 'and changes nothing');
});

t.test('read-only fields sent with a change are never stored', async (t) => {
  const owner = await registerShop(api);
  const before = await storedShop(owner.shop.id);
  const other = await registerShop(api);
  const reply = await putShop(owner.token, {
    id: other.shop.id,
    trial_ends_at: '2099-01-01T00:00:00Z',
    subscription_ends_at: '2099-01-01T00:00:00Z',
    subscription_status: 'active',
    created_at: '2000-01-01T00:00:00Z',
    name: 'Renamed',
  });
  t.equal(reply.status, 422, 'refused as unknown fields, the name with them');
  t.strictSame(Object.keys(reply.body.errors).sort(), ['created_at', 'id', 'subscription_ends_at', 'subscription_status', 'trial_ends_at']);
  const after = await storedShop(owner.shop.id);
  t.strictSame(
    [after!.trial_ends_at, after!.subscription_ends_at, after!.created_at],
    [before!.trial_ends_at, before!.subscription_ends_at, before!.created_at],
    'trial, subscription and creation dates unchanged',
  );
  t.equal((await storedShop(other.shop.id))!.name, 'Boutique Awa', 'the other shop is untouched');
});

t.test('name is 1 to 160 characters', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'name', ['B', chars(160)], ['', '   ', chars(161), null, 42]);
  const trimmed = await putShop(owner.token, { name: '  Chez Mama Ngono  ' });
  t.equal(trimmed.body.data.name, 'Chez Mama Ngono', 'surrounding blanks are trimmed');
});

t.test('business_type is at most 120 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'business_type', ['Pharmacie', chars(120), null], [chars(121), 7]);
});

t.test('phone is at most 40 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'phone', ['+237 699 00 11 22', chars(40, '6'), null], [chars(41, '6'), 699001122]);
});

t.test('email is an e-mail address or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'email', ['contact@boutique-awa.cm', null], ['', 'not-an-email', 'a@', '@x.cm', 12]);
});

t.test('a long shop e-mail is stored whole or refused with 422 on email, never a 500', async (t) => {
  const owner = await registerShop(api);
  for (const email of [`${chars(150)}@example.cm`, `${chars(240)}@example.cm`]) {
    const reply = await putShop(owner.token, { email });
    t.not(reply.status, 500, `${email.length} characters: never a 500`);
    if (reply.status === 200) {
      t.equal(reply.body.data.email, email, `${email.length} characters stored whole`);
    } else {
      expectInvalid(t, reply, 'email', `${email.length} characters`);
    }
  }
});

t.test('address is at most 255 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'address', ['Rue Joss, Bonanjo', chars(255), null], [chars(256)]);
});

t.test('city is at most 120 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'city', ['Yaoundé', chars(120), null], [chars(121)]);
});

t.test('tax_id is at most 60 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'tax_id', ['M012345678901A', chars(60), null], [chars(61)]);
});

t.test('trade_register_no (RCCM) is at most 60 characters or null', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'trade_register_no', ['RC/DLA/2019/B/1234', chars(60), null], [chars(61), 12]);
});

t.test('payment_method_labels: the defaults of the shop\'s language, each method renamed or given its default back by null, all reset by null', async (t) => {
  const owner = await registerShop(api);
  const labels = async () => (await getShop(owner.token)).body.data.payment_method_labels;
  t.strictSame(await labels(), {
    cash: 'Espèces', carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money', card: 'Carte bancaire', bank: 'Virement bancaire', credit: 'Compte client',
  }, 'the French defaults');
  t.equal((await putShop(owner.token, { payment_method_labels: { carrier1_momo: 'MoMo', carrier2_money: '  Orange  ' } })).status, 200);
  t.match(await labels(), { carrier1_momo: 'MoMo', carrier2_money: 'Orange', cash: 'Espèces' }, 'named, trimmed');
  t.equal((await putShop(owner.token, { payment_method_labels: { cash: 'Liquide' } })).status, 200);
  t.match(await labels(), { carrier1_momo: 'MoMo', cash: 'Liquide' }, 'merged into what was named');
  t.equal((await putShop(owner.token, { payment_method_labels: { carrier1_momo: null } })).status, 200);
  t.match(await labels(), { carrier1_momo: 'MTN MoMo', cash: 'Liquide' }, 'null gives one method its default back');
  t.equal((await putShop(owner.token, { locale: 'en' })).status, 200);
  t.match(await labels(), { cash: 'Liquide', card: 'Card', credit: 'Customer account' }, 'the defaults follow the language');
  t.equal((await putShop(owner.token, { payment_method_labels: null })).status, 200);
  t.match(await labels(), { cash: 'Cash' }, 'null: every default');
  const before = await storedShop(owner.shop.id);
  expectInvalid(t, await putShop(owner.token, { payment_method_labels: { bitcoin: 'BTC' } }), 'payment_method_labels.bitcoin', 'an unknown method');
  expectInvalid(t, await putShop(owner.token, { payment_method_labels: { cash: '' } }), 'payment_method_labels.cash', 'an empty name');
  expectInvalid(t, await putShop(owner.token, { payment_method_labels: { cash: chars(41) } }), 'payment_method_labels.cash', 'over 40 characters');
  expectInvalid(t, await putShop(owner.token, { payment_method_labels: 'MoMo' }), 'payment_method_labels', 'not an object');
  t.strictSame(await storedShop(owner.shop.id), before, 'refusals change nothing');
});

t.test('locale is fr or en', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'locale', ['en', 'fr'], ['de', 'EN', '', null]);
});

t.test('receipt_header and receipt_footer are at most 500 characters or null', async (t) => {
  const owner = await registerShop(api);
  for (const field of ['receipt_header', 'receipt_footer']) {
    await checkBounds(t, owner.token, owner.shop.id, field, ['Merci !\nÀ bientôt', chars(500), null], [chars(501)]);
  }
});

t.test('allow_negative_stock is true or false', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'allow_negative_stock', [true, false], ['yes', 'true', 1, null]);
});

t.test('cashier_price_override is true or false, false by default', async (t) => {
  const owner = await registerShop(api);
  t.equal((await getShop(owner.token)).body.data.cashier_price_override, false);
  await checkBounds(t, owner.token, owner.shop.id, 'cashier_price_override', [true, false], ['yes', 'true', 1, null]);
});

t.test('cashier_max_discount_percent is 0 to 100 with at most 2 decimals, 10 by default', async (t) => {
  const owner = await registerShop(api);
  t.equal((await getShop(owner.token)).body.data.cashier_max_discount_percent, 10);
  await checkBounds(t, owner.token, owner.shop.id, 'cashier_max_discount_percent', [0, 100, 12.5, 0.01, 10], [-0.01, 100.01, 5.555, '10', null]);
});

t.test('default_vat_rate is 0 to 100 with at most 2 decimals', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'default_vat_rate', [0, 100, 19.25, 19.99, 5.5, 0.07], [-1, -0.01, 100.01, 19.255, 0.001, '19.25', null]);
});

t.test('loyalty_earn_rate is 0 to 1000 with at most 4 decimals', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'loyalty_earn_rate', [0, 1000, 0.0125, 12.3456, 0.0007], [-0.0001, 1000.0001, 0.00001, 0.12345, '0.01', null]);
});

t.test('loyalty_redeem_rate_xaf is a whole number from 0 to 1000000', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner.token, owner.shop.id, 'loyalty_redeem_rate_xaf', [0, 1_000_000, 25], [-1, 1_000_001, 1.5, '5', null]);
});

t.test('once the trial has ended, changing the shop is 402 while reading it still answers 200', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  await expireSubscription(api, owner.shop.id);
  const before = await storedShop(owner.shop.id);
  expectError(t, await putShop(owner.token, { name: 'Still mine' }), 402, SUBSCRIPTION_REQUIRED);
  t.strictSame(await storedShop(owner.shop.id), before, 'nothing changed');
  for (const [who, token] of [['owner', owner.token], ['cashier', cashier.token]] as const) {
    const reply = await getShop(token);
    t.equal(reply.status, 200, `${who} reads the shop`);
    t.equal(reply.body.data.subscription_status, 'expired', `${who} sees it expired`);
  }
});

t.test('a body that is not JSON is 400 malformed_json', async (t) => {
  const owner = await registerShop(api);
  const before = await storedShop(owner.shop.id);
  for (const rawBody of ['{"name": ', 'name=Boutique', '{name: "Boutique"}']) {
    expectError(t, await api.request('PUT', '/shop', { token: owner.token, rawBody }), 400, MALFORMED_JSON, JSON.stringify(rawBody));
  }
  t.strictSame(await storedShop(owner.shop.id), before, 'nothing changed');
});

t.test('one shop\'s change never changes another shop', async (t) => {
  const mine = await registerShop(api);
  const theirs = await registerShop(api, { shop_name: 'Pharmacie du Lac' });
  const before = await storedShop(theirs.shop.id);
  const reply = await putShop(mine.token, {
    name: 'Renamed',
    city: 'Garoua',
    email: 'x@y.cm',
    allow_negative_stock: true,
    default_vat_rate: 0,
    loyalty_earn_rate: 2,
    loyalty_redeem_rate_xaf: 10,
    receipt_header: 'Header',
  });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.id, mine.shop.id, 'the answer is the caller\'s shop');
  t.strictSame(await storedShop(theirs.shop.id), before, 'the other shop\'s row is untouched');
  const seen = await getShop(theirs.token);
  t.equal(seen.body.data.name, 'Pharmacie du Lac', 'and reads as before');
});

t.test('timezone is an IANA time zone, Africa/Douala by default', async (t) => {
  const owner = await registerShop(api);
  t.equal((await getShop(owner.token)).body.data.timezone, 'Africa/Douala');
  const abidjan = await putShop(owner.token, { timezone: 'Africa/Abidjan' });
  t.equal(abidjan.status, 200);
  t.equal(abidjan.body.data.timezone, 'Africa/Abidjan');
  expectInvalid(t, await putShop(owner.token, { timezone: 'Mars/Olympus' }), 'timezone', 'an unknown zone');
  expectInvalid(t, await putShop(owner.token, { timezone: '' }), 'timezone', 'empty');
  t.equal((await getShop(owner.token)).body.data.timezone, 'Africa/Abidjan', 'unchanged by the refused ones');
});

t.test('timezone is one that receipts can print too: PostgreSQL\'s names that JavaScript\'s Intl refuses are a 422', async (t) => {
  const owner = await registerShop(api);
  for (const zone of ['posix/Africa/Douala', 'Factory', 'localtime', 'posixrules']) {
    expectInvalid(t, await putShop(owner.token, { timezone: zone }), 'timezone', zone);
  }
  // Every zone the shop may take formats in Intl: none of them can make an invoice a 500.
  const zones = await api.ownerSql<{ name: string }[]>`
    select name from pg_timezone_names
     where not (name like 'posix/%' or name in ('Factory', 'localtime', 'posixrules'))`;
  const refused = zones.map((zone) => zone.name).filter((name) => {
    try {
      new Intl.DateTimeFormat('fr-FR', { timeZone: name }).format(new Date());
      return false;
    } catch {
      return true;
    }
  });
  t.strictSame(refused, [], 'PostgreSQL accepts no zone that Intl refuses');
  const sale = await api.request('POST', '/sales', { token: owner.token, body: { items: [{ name: 'Pain', unit_price_xaf: 250, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 250 }] } });
  t.equal((await putShop(owner.token, { timezone: 'Pacific/Chatham' })).status, 200);
  t.equal((await api.request('GET', `/sales/${sale.body.data.id}/invoice`, { token: owner.token })).status, 200, 'an invoice in a far zone prints');
});
