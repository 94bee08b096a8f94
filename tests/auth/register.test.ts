import { randomBytes } from 'node:crypto';
import t from 'tap';
import { chars, PASSWORD, uniqueEmail } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { expectInvalid } from '../support/replies.ts';

const api = await startService(t);

const DAY_MS = 24 * 60 * 60 * 1000;

const validBody = (overrides: Record<string, unknown> = {}) => ({
  shop_name: 'Boutique Awa',
  owner_name: 'Awa Ndiaye',
  owner_email: uniqueEmail('owner'),
  password: PASSWORD,
  ...overrides,
});

const register = (body: unknown) => api.request('POST', '/auth/register', { body });

/** The CONTRACT's 422: fixed message and code, `errors` naming exactly the failing inputs. */

const countShops = async () => (await api.ownerSql<{ n: number }[]>`select count(*)::int as n from shops`)[0]!.n;
const countUsers = async () => (await api.ownerSql<{ n: number }[]>`select count(*)::int as n from users`)[0]!.n;

t.test('register answers 201 with a token, the owner and the shop', async (t) => {
  const body = validBody({ phone: '+237 699 00 00 00', city: 'Douala', tax_id: 'M0123456789', business_type: 'grocery', locale: 'en' });
  const reply = await register(body);
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.strictSame(Object.keys(reply.body).sort(), ['data']);
  const { token, user, shop } = reply.body.data;
  t.strictSame(Object.keys(reply.body.data).sort(), ['shop', 'token', 'user']);
  t.type(token, 'string');
  t.ok(token.length > 20);

  t.equal(user.kind, 'shop');
  t.equal(user.role, 'owner');
  t.equal(user.name, 'Awa Ndiaye');
  t.equal(user.email, body.owner_email);
  t.equal(user.phone, '+237 699 00 00 00');
  t.equal(user.locale, 'en');
  t.equal(user.shop_id, shop.id);

  t.equal(shop.name, 'Boutique Awa');
  t.equal(shop.business_type, 'grocery');
  t.equal(shop.phone, '+237 699 00 00 00');
  t.equal(shop.city, 'Douala');
  t.equal(shop.tax_id, 'M0123456789');
  t.equal(shop.locale, 'en');
  for (const record of [user, shop]) {
    t.match(record.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    t.ok(!Number.isNaN(Date.parse(record.created_at)), 'created_at is a date');
    t.ok(!Number.isNaN(Date.parse(record.updated_at)), 'updated_at is a date');
  }

  const me = await api.request('GET', '/auth/me', { token });
  t.equal(me.status, 200);
  t.equal(me.body.data.user.id, user.id);
  t.equal(me.body.data.shop.id, shop.id);
});

t.test('the answer never carries the password or its hash', async (t) => {
  const reply = await register(validBody());
  t.equal(reply.status, 201);
  const text = JSON.stringify(reply.body);
  t.notOk('password' in reply.body.data.user);
  t.notOk('password_hash' in reply.body.data.user);
  t.notOk(text.includes(PASSWORD), 'the clear password is not echoed');
  t.notOk(text.includes('$2'), 'no bcrypt hash is echoed');
});

t.test('a new shop is on a 30-day trial', async (t) => {
  const before = Date.now();
  const reply = await register(validBody());
  const after = Date.now();
  t.equal(reply.status, 201);
  const { shop } = reply.body.data;
  t.equal(shop.subscription_status, 'trial');
  t.equal(shop.subscription_ends_at, null);
  const endsAt = Date.parse(shop.trial_ends_at);
  // The database's clock and this process's may differ slightly: a minute either side.
  t.ok(endsAt >= before + 30 * DAY_MS - 60_000, `trial ends ${shop.trial_ends_at}, no sooner than 30 days`);
  t.ok(endsAt <= after + 30 * DAY_MS + 60_000, `trial ends ${shop.trial_ends_at}, no later than 30 days`);
});

t.test('the person who registers is the shop\'s owner', async (t) => {
  const reply = await register(validBody());
  t.equal(reply.status, 201);
  const [row] = await api.ownerSql`select kind, role, shop_id from users where id = ${reply.body.data.user.id}`;
  t.strictSame({ ...row }, { kind: 'shop', role: 'owner', shop_id: reply.body.data.shop.id });
});

t.test('a validation failure is a 422 with the fixed message, code validation_failed and errors keyed by input', async (t) => {
  const reply = await register({});
  expectInvalid(t, reply, ['shop_name', 'owner_name', 'owner_email', 'password']);
  t.strictSame(Object.keys(reply.body).sort(), ['code', 'errors', 'message']);
});

t.test('a body that is not JSON is a 400 malformed_json', async (t) => {
  const reply = await api.request('POST', '/auth/register', { rawBody: '{"shop_name": ' });
  t.equal(reply.status, 400);
  t.strictSame(reply.body, { message: 'Malformed JSON.', code: 'malformed_json' });
});

for (const field of ['shop_name', 'owner_name']) {
  t.test(`${field} of 160 characters is accepted`, async (t) => {
    const reply = await register(validBody({ [field]: chars(160, 'n') }));
    t.equal(reply.status, 201, JSON.stringify(reply.body));
    const saved = field === 'shop_name' ? reply.body.data.shop.name : reply.body.data.user.name;
    t.equal(saved, chars(160, 'n'));
  });

  t.test(`${field} of 161 characters is a 422 on ${field}`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: chars(161, 'n') })), [field]);
  });

  t.test(`${field} is required`, async (t) => {
    const body: Record<string, unknown> = validBody();
    delete body[field];
    expectInvalid(t, await register(body), [field]);
  });

  t.test(`an empty ${field} is a 422 on ${field}`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: '' })), [field]);
  });

  t.test(`a blank ${field} is a 422 on ${field}`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: '   ' })), [field]);
  });

  t.test(`a null ${field} is a 422 on ${field}`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: null })), [field]);
  });
}

t.test('owner_email is required', async (t) => {
  const body: Record<string, unknown> = validBody();
  delete body.owner_email;
  expectInvalid(t, await register(body), ['owner_email']);
});

t.test('an owner_email that is not an e-mail address is a 422 on owner_email', async (t) => {
  for (const email of ['awa', 'awa@', '@example.cm', 'awa example.cm', '']) {
    expectInvalid(t, await register(validBody({ owner_email: email })), ['owner_email']);
  }
});

t.test('an owner_email is what JSON Schema\'s format: email means: a hostname label neither starts nor ends with a hyphen, nor passes 63 characters', async (t) => {
  for (const email of ['awa@exa-.cm', 'awa@-exa.cm', `awa@${'a'.repeat(64)}.cm`, 'awa..ndiaye@example.cm', '.awa@example.cm', 'awa@example', '"awa"@example.cm', 'awa@[192.0.2.1]']) {
    const reply = await register(validBody({ owner_email: email }));
    expectInvalid(t, reply, ['owner_email'], email);
    t.strictSame(reply.body.errors?.owner_email, ['Must be a valid e-mail address.'], `${email}: the e-mail message`);
  }
});

t.test('an owner_email with a + tag and subdomains is accepted, as format: email accepts it', async (t) => {
  const email = `awa.ndiaye+caisse-${randomBytes(4).toString('hex')}@douala.boutique-awa.example.cm`;
  const reply = await register(validBody({ owner_email: email }));
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.equal(reply.body.data.user.email, email);
  t.equal((await register(validBody({ owner_email: `a-${randomBytes(4).toString('hex')}@${'b'.repeat(63)}.cm` }))).status, 201, 'a label of 63 characters');
});

t.test('a password of 7 characters is a 422 on password', async (t) => {
  expectInvalid(t, await register(validBody({ password: chars(7, 'p') })), ['password']);
});

t.test('a password of 8 characters is accepted and logs in', async (t) => {
  const body = validBody({ password: chars(8, 'p') });
  const reply = await register(body);
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  const login = await api.request('POST', '/auth/login', { body: { email: body.owner_email, password: chars(8, 'p') } });
  t.equal(login.status, 200);
});

t.test('a password of 72 bytes is accepted and one of 73 bytes is a 422 on password', async (t) => {
  t.equal((await register(validBody({ password: chars(72, 'p') }))).status, 201);
  expectInvalid(t, await register(validBody({ password: chars(73, 'p') })), ['password']);
  // bcrypt reads bytes, not characters: 36 two-byte characters fit, 37 do not.
  t.equal((await register(validBody({ password: chars(36, 'é') }))).status, 201);
  expectInvalid(t, await register(validBody({ password: chars(37, 'é') })), ['password']);
});

t.test('password is required', async (t) => {
  const body: Record<string, unknown> = validBody();
  delete body.password;
  expectInvalid(t, await register(body), ['password']);
});

const optionalBounds = [
  { field: 'phone', max: 40, saved: (data: any) => data.shop.phone },
  { field: 'city', max: 120, saved: (data: any) => data.shop.city },
  { field: 'tax_id', max: 60, saved: (data: any) => data.shop.tax_id },
  { field: 'referral_code', max: 60, saved: null },
] as const;

for (const { field, max, saved } of optionalBounds) {
  t.test(`${field} of ${max} characters is accepted`, async (t) => {
    const reply = await register(validBody({ [field]: chars(max, '7') }));
    t.equal(reply.status, 201, JSON.stringify(reply.body));
    if (saved) t.equal(saved(reply.body.data), chars(max, '7'));
  });

  t.test(`${field} of ${max + 1} characters is a 422 on ${field}`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: chars(max + 1, '7') })), [field]);
  });

  t.test(`${field} may be null`, async (t) => {
    const reply = await register(validBody({ [field]: null }));
    t.equal(reply.status, 201, JSON.stringify(reply.body));
    if (saved) t.equal(saved(reply.body.data), null);
  });

  t.test(`${field} must be a string`, async (t) => {
    expectInvalid(t, await register(validBody({ [field]: 12345 })), [field]);
  });
}

t.test('business_type may be null', async (t) => {
  const reply = await register(validBody({ business_type: null }));
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.equal(reply.body.data.shop.business_type, null);
});

t.test('the nullable inputs may all be null at once', async (t) => {
  const reply = await register(
    validBody({ business_type: null, phone: null, city: null, tax_id: null, locale: null, referral_code: null }),
  );
  t.equal(reply.status, 201, JSON.stringify(reply.body));
});

for (const locale of ['fr', 'en']) {
  t.test(`locale ${locale} is accepted and given to the shop and its owner`, async (t) => {
    const reply = await register(validBody({ locale }));
    t.equal(reply.status, 201, JSON.stringify(reply.body));
    t.equal(reply.body.data.shop.locale, locale);
    t.equal(reply.body.data.user.locale, locale);
  });
}

t.test('locale is fr when omitted or null', async (t) => {
  for (const body of [validBody(), validBody({ locale: null })]) {
    const reply = await register(body);
    t.equal(reply.status, 201, JSON.stringify(reply.body));
    t.equal(reply.body.data.shop.locale, 'fr');
    t.equal(reply.body.data.user.locale, 'fr');
  }
});

t.test('a locale other than fr or en is a 422 on locale', async (t) => {
  for (const locale of ['de', 'FR', 'en-GB', '', 1]) {
    expectInvalid(t, await register(validBody({ locale })), ['locale']);
  }
});

t.test('an unknown referral code does not block signup', async (t) => {
  const reply = await register(validBody({ referral_code: 'NO-SUCH-PARTNER-42' }));
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.equal(reply.body.data.shop.subscription_status, 'trial');
});

t.test('an owner_email already taken, in any case, is a 422 on owner_email', async (t) => {
  const email = uniqueEmail('taken');
  t.equal((await register(validBody({ owner_email: email }))).status, 201);
  expectInvalid(t, await register(validBody({ owner_email: email })), ['owner_email']);
  expectInvalid(t, await register(validBody({ owner_email: email.toUpperCase() })), ['owner_email']);
});

t.test('a register refused for a taken e-mail writes nothing', async (t) => {
  const email = uniqueEmail('taken');
  t.equal((await register(validBody({ owner_email: email }))).status, 201);
  const [shops, users] = [await countShops(), await countUsers()];
  const reply = await register(validBody({ owner_email: email.toUpperCase(), shop_name: 'Second shop' }));
  expectInvalid(t, reply, ['owner_email']);
  t.equal(await countShops(), shops, 'no shop was left behind');
  t.equal(await countUsers(), users, 'no user was left behind');
  const [orphan] = await api.ownerSql`select id from shops where name = 'Second shop'`;
  t.equal(orphan, undefined);
});

t.test('a register refused by validation writes nothing', async (t) => {
  const [shops, users] = [await countShops(), await countUsers()];
  expectInvalid(t, await register(validBody({ password: 'short' })), ['password']);
  t.equal(await countShops(), shops);
  t.equal(await countUsers(), users);
});

t.test('concurrent registrations with one e-mail create exactly one shop', async (t) => {
  const email = uniqueEmail('race');
  const shops = await countShops();
  const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => register(validBody({ owner_email: i % 2 ? email : email.toUpperCase() }))));
  t.strictSame(replies.map((reply) => reply.status).sort(), [201, 422, 422, 422, 422, 422, 422, 422]);
  for (const reply of replies.filter((r) => r.status === 422)) expectInvalid(t, reply, ['owner_email']);
  t.equal(await countShops(), shops + 1);
});
