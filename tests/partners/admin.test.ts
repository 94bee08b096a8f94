import { randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { chars, expireSubscription, PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, INVALID_CREDENTIALS, NOT_FOUND, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  accrualsDone,
  admin,
  ageLine,
  createPartner,
  linesOf,
  markPayable,
  MONTHLY,
  pay,
  paidLine,
  referredShop,
  YEARLY,
  type AccountFixture,
  type LineRow,
} from './partner-fixtures.ts';

/**
 * The administrator's side of the sales partners (CONTRACT section 11, api/partners/admin-routes.ts):
 * partners and their logins, their terms, their totals, the commission ledger across partners, and
 * payouts. Commissions accrue in a real graphile-worker (commission__accrue), as in production.
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const PARTNER_KEYS = [
  'active_shops', 'code', 'commission_months', 'commission_paid_xaf', 'commission_payable_xaf', 'commission_pending_xaf', 'commission_rate',
  'created_at', 'email', 'id', 'name', 'notes', 'payout_account', 'payout_method', 'payout_name', 'payout_phone', 'phone', 'referred_shops',
  'status', 'updated_at',
];
const LINE_KEYS = [
  'amount_xaf', 'base_amount_xaf', 'charge_reference', 'commission_rate', 'created_at', 'id', 'paid_at', 'partner_id', 'partner_name',
  'payable_after', 'payout_id', 'payout_reference', 'shop_id', 'shop_name', 'status', 'updated_at',
];
const DAY = 86_400_000;
/** `P` and 7 characters of Crockford's base 32 (no I, L, O, U). */
const GENERATED_CODE = /^P[0-9A-HJKMNP-TV-Z]{7}$/;

const mark = () => randomBytes(4).toString('hex');
const partnerBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Moussa Diallo', email: uniqueEmail('partner'), password: PASSWORD, ...overrides });
const postPartner = (by: AccountFixture, body: Record<string, unknown>) => api.request('POST', '/admin/partners', { token: by.token, body });
const putPartner = (by: AccountFixture, id: string, body: Record<string, unknown>) => api.request('PUT', `/admin/partners/${id}`, { token: by.token, body });
const payout = (by: AccountFixture, body: Record<string, unknown>) => api.request('POST', '/admin/partner-commissions/pay', { token: by.token, body });
const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])).toString();
const listPartners = (by: AccountFixture, params: Record<string, string | number | undefined>) =>
  api.request('GET', `/admin/partners?${query(params)}`, { token: by.token });
const ledger = (by: AccountFixture, params: Record<string, string | number | undefined>) =>
  api.request('GET', `/admin/partner-commissions?${query(params)}`, { token: by.token });

/** The one partner whose code is `code`, as the administrator's list shows it. */
async function listed(by: AccountFixture, code: string) {
  const reply = await listPartners(by, { q: code });
  const found = reply.body.data.filter((p: { code: string }) => p.code === code);
  if (found.length !== 1) throw new Error(`expected one partner ${code}: ${JSON.stringify(reply.body)}`);
  return found[0];
}

/** Every page of a list, following next_cursor; the ids in order and the sizes of the pages. */
async function walk(fetchPage: (cursor: string | undefined) => Promise<{ status: number; body: any }>) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const reply = await fetchPage(cursor);
    if (reply.status !== 200) throw new Error(`page failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    ids.push(...reply.body.data.map((row: { id: string }) => row.id));
    sizes.push(reply.body.data.length);
    cursor = reply.body.meta.next_cursor ?? undefined;
    if (!cursor) return { ids, sizes };
  }
  throw new Error('the pages never end');
}

/** Several paid charges of one shop, each with the line the worker accrued on it, oldest first. */
async function paidLines(owner: Awaited<ReturnType<typeof registerShop>>, count: number, planId = MONTHLY): Promise<{ reference: string; line: LineRow }[]> {
  const references: string[] = [];
  for (let i = 0; i < count; i++) references.push(await pay(api, owner, planId));
  await accrualsDone(api);
  return Promise.all(
    references.map(async (reference) => {
      const [line] = await linesOf(api, reference);
      if (!line) throw new Error(`no line accrued on ${reference}`);
      return { reference, line };
    }),
  );
}

/** Every commission line as stored, in one order: what a refused payout must leave exactly as it was. */
const everyLine = () =>
  api.ownerSql`select id, partner_id, status, payable_after, payout_reference, paid_at, updated_at from partner_commissions order by id`;

/** One stored line, by id. */
async function storedLine(id: string) {
  const [row] = await api.ownerSql<{ status: string; payable_after: Date | null; payout_reference: string | null; paid_at: Date | null }[]>`
    select status, payable_after, payout_reference, paid_at from partner_commissions where id = ${id}`;
  return row!;
}

const without = (record: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));

// ------------------------------------------------------------------------------ POST /admin/partners

t.test('creating a partner answers 201 with every field echoed, active, with no shop and no commission yet', async (t) => {
  const by = await admin(api);
  const fields = {
    name: 'Moussa Diallo',
    email: uniqueEmail('partner'),
    phone: '+237 699 00 00 01',
    code: `DOUALA-${mark()}`,
    commission_rate: 12.5,
    commission_months: 24,
    payout_method: 'carrier1_momo',
    payout_phone: '+237 699 00 00 02',
    payout_account: 'CM21 10005 00001 12345678901 23',
    payout_name: 'Moussa D.',
    notes: 'Met at the Douala trade fair.',
  };
  const before = Date.now();
  const reply = await postPartner(by, { ...fields, password: PASSWORD });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  const partner = reply.body.data;
  t.strictSame(Object.keys(partner).sort(), PARTNER_KEYS, 'the fields of a partner, no password');
  t.match(partner, { ...fields, status: 'active', referred_shops: 0, active_shops: 0, commission_pending_xaf: 0, commission_payable_xaf: 0, commission_paid_xaf: 0 });
  t.match(partner.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.ok(Math.abs(Date.parse(partner.created_at) - before) < 60_000, 'created now');
  t.match(partner.created_at, /Z$/, 'UTC');
  t.strictSame(await listed(by, fields.code), partner, 'the list shows the same record');
});

t.test('terms omitted or null take the defaults: commission_rate 20, commission_months 12, a generated code', async (t) => {
  const by = await admin(api);
  const omitted = await postPartner(by, partnerBody());
  t.equal(omitted.status, 201);
  t.match(omitted.body.data, { commission_rate: 20, commission_months: 12, phone: null, payout_method: null, payout_phone: null, payout_account: null, payout_name: null, notes: null });
  const nulls = await postPartner(by, partnerBody({ code: null, commission_rate: null, commission_months: null, phone: null, payout_method: null, payout_phone: null, payout_account: null, payout_name: null, notes: null }));
  t.equal(nulls.status, 201, JSON.stringify(nulls.body));
  t.match(nulls.body.data, { commission_rate: 20, commission_months: 12, phone: null, payout_method: null, notes: null });
  const [stored] = await api.ownerSql`select commission_rate::float8 as rate, commission_months from partners where id = ${nulls.body.data.id}`;
  t.strictSame({ ...stored }, { rate: 20, commission_months: 12 }, 'stored as such');
});

t.test('a partner created without a code gets `P` and 7 characters, a new one each time', async (t) => {
  const by = await admin(api);
  const codes: string[] = [];
  for (let i = 0; i < 6; i++) {
    const reply = await postPartner(by, partnerBody(i % 2 ? { code: null } : {}));
    t.equal(reply.status, 201);
    codes.push(reply.body.data.code);
  }
  for (const code of codes) t.match(code, GENERATED_CODE, `${code} is P and 7 characters without I, L, O, U`);
  t.equal(new Set(codes).size, codes.length, 'each a new code');
});

t.test('the partner logs in with POST /auth/login as a partner with no shop', async (t) => {
  const by = await admin(api);
  const body = partnerBody();
  const created = (await postPartner(by, body)).body.data;
  const reply = await api.request('POST', '/auth/login', { body: { email: body.email, password: PASSWORD } });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data.user, { id: created.id, kind: 'partner', email: body.email, name: body.name });
  t.equal(reply.body.data.shop, null, 'no shop');
  t.equal(typeof reply.body.data.token, 'string');
  const dashboard = await api.request('GET', '/partner/dashboard', { token: reply.body.data.token });
  t.equal(dashboard.status, 200, 'its token opens its own pages');
  t.equal(dashboard.body.data.partner.id, created.id);
  expectError(t, await api.request('POST', '/auth/login', { body: { email: body.email, password: 'wrong-password' } }), 401, INVALID_CREDENTIALS, 'the password is the one given');
});

t.test('every bound of a new partner is a 422 on its key', async (t) => {
  const by = await admin(api);
  const refused: [string, unknown[]][] = [
    ['name', [undefined, null, '', '   ', chars(161), 12, 'Moussa\u0000']],
    ['email', [undefined, null, '', 'not-an-email', 'moussa@', 'moussa diallo@example.cm']],
    ['password', [undefined, null, '', chars(7), 12345678]],
    ['phone', [chars(41), 699000001]],
    ['code', ['', '   ', chars(61), 42]],
    ['commission_rate', [-0.01, 100.01, 101, 12.345, 0.1 + 0.2, '20']],
    ['commission_months', [0, 121, 1.5, -1, '12']],
    ['payout_method', [chars(41)]],
    ['payout_phone', [chars(41)]],
    ['payout_account', [chars(81)]],
    ['payout_name', [chars(161)]],
    ['notes', [chars(2001), 'a\u0000b']],
  ];
  const [before] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from partners`;
  for (const [key, values] of refused) {
    for (const value of values) {
      const body: Record<string, unknown> = partnerBody({ code: `BOUND-${mark()}`, [key]: value });
      if (value === undefined) delete body[key];
      expectInvalid(t, await postPartner(by, body), key, `${key} ${value === undefined ? 'missing' : JSON.stringify(value)?.slice(0, 20)}`);
    }
  }
  const [after] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from partners`;
  t.equal(after!.n, before!.n, 'no partner was created');
});

t.test('the boundary values of a new partner are accepted', async (t) => {
  const by = await admin(api);
  const longest = {
    name: chars(160, 'n'),
    password: chars(8, 'p'),
    phone: chars(40, '9'),
    code: `${mark()}${chars(52, 'c')}`,
    commission_rate: 100,
    commission_months: 120,
    payout_method: chars(40, 'm'),
    payout_phone: chars(40, '6'),
    payout_account: chars(80, 'a'),
    payout_name: chars(160, 'h'),
    notes: chars(2000, 'x'),
  };
  const email = uniqueEmail('partner');
  const high = await postPartner(by, { ...longest, email });
  t.equal(high.status, 201, JSON.stringify(high.body).slice(0, 300));
  t.match(high.body.data, without(longest, 'password'), 'the longest values, the highest terms');
  t.equal(high.body.data.code.length, 60);
  await api.request('POST', '/auth/login', { body: { email, password: longest.password } }).then((reply) => t.equal(reply.status, 200, 'an 8-character password logs in'));
  const low = await postPartner(by, partnerBody({ commission_rate: 0, commission_months: 1 }));
  t.equal(low.status, 201);
  t.match(low.body.data, { commission_rate: 0, commission_months: 1 }, 'the lowest terms');
  const twoDecimals = await postPartner(by, partnerBody({ commission_rate: 99.99 }));
  t.equal(twoDecimals.status, 201);
  t.equal(twoDecimals.body.data.commission_rate, 99.99, 'two decimals kept');
  const emoji = await postPartner(by, partnerBody({ name: chars(160, '😀'), notes: chars(2000, 'é') }));
  t.equal(emoji.status, 201, 'lengths count characters, not UTF-16 units');
  t.equal([...emoji.body.data.name].length, 160);
});

t.test('an e-mail any account already has is a 422 on email, whatever the case', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await registerShop(api);
  for (const [what, email] of [
    ['another partner\'s', partner.email],
    ['another partner\'s in capitals', partner.email.toUpperCase()],
    ['a shop owner\'s', owner.email],
    ['a shop owner\'s in another case', owner.email.replace(/^./, (ch) => ch.toUpperCase())],
    ['an administrator\'s', by.email],
  ] as const) {
    expectInvalid(t, await postPartner(by, partnerBody({ email, code: `MAIL-${mark()}` })), 'email', what);
  }
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from users where lower(email) in (${partner.email}, ${owner.email}, ${by.email})`;
  t.equal(row!.n, 3, 'one account per address, as before');
  t.equal((await api.request('POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } })).body.data.user.kind, 'shop', 'the owner\'s login is the owner\'s');
});

t.test('a code another partner has, in whatever case, is a 422 on code and leaves no login behind', async (t) => {
  const by = await admin(api);
  const code = `Yaounde-${mark()}`;
  await createPartner(api, by, { code });
  const [partnersBefore] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from partners`;
  for (const taken of [code, code.toUpperCase(), code.toLowerCase()]) {
    const body = partnerBody({ code: taken });
    expectInvalid(t, await postPartner(by, body), 'code', taken);
    const users = await api.ownerSql`select id from users where lower(email) = lower(${body.email})`;
    t.equal(users.length, 0, `no users row for ${body.email}`);
    expectError(t, await api.request('POST', '/auth/login', { body: { email: body.email, password: PASSWORD } }), 401, INVALID_CREDENTIALS, 'no login');
    const again = await postPartner(by, { ...body, code: null });
    t.equal(again.status, 201, 'the same e-mail is free for a partner with another code');
  }
  const [partnersAfter] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from partners`;
  t.equal(partnersAfter!.n, partnersBefore!.n + 3, 'only the three accepted ones were added');
});

t.test('creations racing for one code, or one e-mail, in several cases: one wins, the others are a 422 on its key', async (t) => {
  const by = await admin(api);
  const code = `Race${mark()}`;
  const byCode = await Promise.all([code, code.toUpperCase(), code.toLowerCase(), code].map((variant) => postPartner(by, partnerBody({ code: variant }))));
  t.equal(byCode.filter((reply) => reply.status === 201).length, 1, 'one partner has the code');
  for (const reply of byCode.filter((reply) => reply.status !== 201)) expectInvalid(t, reply, 'code', 'the others');
  const email = uniqueEmail('race');
  const byEmail = await Promise.all([email, email.toUpperCase(), email, email].map((variant) => postPartner(by, partnerBody({ email: variant }))));
  t.equal(byEmail.filter((reply) => reply.status === 201).length, 1, 'one account has the e-mail');
  for (const reply of byEmail.filter((reply) => reply.status !== 201)) expectInvalid(t, reply, 'email', 'the others');
  const [row] = await api.ownerSql<{ users: number; partners: number }[]>`
    select (select count(*)::int from users where lower(email) = ${email}) as users,
           (select count(*)::int from partners where lower(code) = lower(${code})) as partners`;
  t.strictSame({ ...row }, { users: 1, partners: 1 });
});

// -------------------------------------------------------------------------- PUT /admin/partners/{id}

t.test('each field of a partner changes alone', async (t) => {
  const by = await admin(api);
  const { partner } = await createPartner(api, by, {
    phone: '+237 699 00 00 01', code: `EDIT-${mark()}`, payout_method: 'carrier1_momo', payout_phone: '+237 699 00 00 02',
    payout_account: 'ACC-1', payout_name: 'Moussa D.', notes: 'First notes.',
  });
  let current = partner;
  const changes: [string, unknown][] = [
    ['name', 'Awa Partenaire'],
    ['phone', '+237 677 11 22 33'],
    ['commission_rate', 7.25],
    ['commission_months', 36],
    ['status', 'suspended'],
    ['payout_method', 'bank'],
    ['payout_phone', '+237 677 44 55 66'],
    ['payout_account', 'CM21 10005 00001'],
    ['payout_name', 'Awa P.'],
    ['notes', 'Second notes.'],
    ['phone', null],
    ['payout_method', null],
    ['payout_phone', null],
    ['payout_account', null],
    ['payout_name', null],
    ['notes', null],
  ];
  for (const [key, value] of changes) {
    const reply = await putPartner(by, partner.id, { [key]: value });
    t.equal(reply.status, 200, `${key}: ${JSON.stringify(reply.body).slice(0, 200)}`);
    t.strictSame(without(reply.body.data, 'updated_at'), without({ ...current, [key]: value }, 'updated_at'), `${key} ${JSON.stringify(value)} changed, nothing else`);
    t.ok(Date.parse(reply.body.data.updated_at) >= Date.parse(current.updated_at), 'updated_at moves forward');
    current = reply.body.data;
  }
  t.strictSame(await listed(by, partner.code), current, 'the list shows the changes');
  const relogin = await api.request('POST', '/auth/login', { body: { email: partner.email, password: PASSWORD } });
  t.equal(relogin.body.data.user.name, 'Awa Partenaire', 'the login carries the new name');
});

t.test('a partner is suspended and made active again; a suspended partner still logs in', async (t) => {
  const by = await admin(api);
  const { partner, email } = await createPartner(api, by);
  const suspended = await putPartner(by, partner.id, { status: 'suspended' });
  t.equal(suspended.status, 200);
  t.equal(suspended.body.data.status, 'suspended');
  const [stored] = await api.ownerSql`select status from partners where id = ${partner.id}`;
  t.equal(stored!.status, 'suspended', 'stored');
  t.equal((await api.request('POST', '/auth/login', { body: { email, password: PASSWORD } })).status, 200, 'it still logs in');
  const active = await putPartner(by, partner.id, { status: 'active' });
  t.equal(active.status, 200);
  t.equal(active.body.data.status, 'active');
  expectInvalid(t, await putPartner(by, partner.id, { status: 'closed' }), 'status', 'no third state');
});

t.test('PUT on an id that is no partner is a 404; an id that is no uuid is a 422 on id', async (t) => {
  const by = await admin(api);
  const owner = await registerShop(api);
  expectError(t, await putPartner(by, randomUUID(), { name: 'Nobody' }), 404, NOT_FOUND, 'unknown id');
  expectError(t, await putPartner(by, owner.user.id, { name: 'Renamed owner' }), 404, NOT_FOUND, 'a shop owner\'s id');
  expectError(t, await putPartner(by, by.id, { name: 'Renamed admin' }), 404, NOT_FOUND, 'an administrator\'s id');
  expectError(t, await putPartner(by, randomUUID(), {}), 404, NOT_FOUND, 'unknown id, empty body');
  const [ownerRow] = await api.ownerSql`select name from users where id = ${owner.user.id}`;
  t.equal(ownerRow!.name, 'Awa Ndiaye', 'the owner was not renamed');
  const [adminRow] = await api.ownerSql`select name from users where id = ${by.id}`;
  t.equal(adminRow!.name, 'Platform Admin', 'nor the administrator');
  expectInvalid(t, await putPartner(by, 'not-a-uuid', { name: 'X' }), 'id', 'not a uuid');
  expectInvalid(t, await putPartner(by, '12345678-1234-1234-1234-1234567890123', { name: 'X' }), 'id', 'one digit too many');
});

t.test('every bound of a partner update is a 422 on its key and changes nothing', async (t) => {
  const by = await admin(api);
  const { partner } = await createPartner(api, by, { notes: 'Kept.', payout_method: 'bank' });
  const refused: [string, unknown[]][] = [
    ['name', [null, '', '   ', chars(161), 5]],
    ['phone', [chars(41)]],
    ['commission_rate', [null, -0.01, 100.01, 1.005, '5']],
    ['commission_months', [null, 0, 121, 2.5, '12']],
    ['status', [null, 'closed', 'ACTIVE']],
    ['payout_method', [chars(41)]],
    ['payout_phone', [chars(41)]],
    ['payout_account', [chars(81)]],
    ['payout_name', [chars(161)]],
    ['notes', [chars(2001)]],
  ];
  for (const [key, values] of refused) {
    for (const value of values) {
      expectInvalid(t, await putPartner(by, partner.id, { [key]: value }), key, `${key} ${JSON.stringify(value).slice(0, 20)}`);
      expectInvalid(t, await putPartner(by, partner.id, { name: 'Would Change', [key]: value }), key, `${key} beside a valid name`);
    }
  }
  t.strictSame(await listed(by, partner.code), partner, 'the partner is as it was, updated_at included');

  const longest = {
    name: chars(160, 'n'), phone: chars(40, '9'), commission_rate: 100, commission_months: 120, payout_method: chars(40, 'm'),
    payout_phone: chars(40, '6'), payout_account: chars(80, 'a'), payout_name: chars(160, 'h'), notes: chars(2000, 'x'),
  };
  const high = await putPartner(by, partner.id, longest);
  t.equal(high.status, 200, 'the boundary values are accepted');
  t.match(high.body.data, longest);
  const low = await putPartner(by, partner.id, { commission_rate: 0, commission_months: 1 });
  t.match(low.body.data, { commission_rate: 0, commission_months: 1 });
});

t.test('an empty update changes nothing and answers the partner', async (t) => {
  const by = await admin(api);
  const { partner } = await createPartner(api, by, { phone: '+237 699 00 00 01', notes: 'Unchanged.', commission_rate: 15 });
  const reply = await putPartner(by, partner.id, {});
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data, partner, 'the same partner, updated_at included');
  t.strictSame(await listed(by, partner.code), partner, 'as stored');
});

// ------------------------------------------------------------------------------- GET /admin/partners

t.test('the list totals each partner\'s referred shops, active shops and commissions by status', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by, { code: `TOTAL-${mark()}` });
  const other = await createPartner(api, by, { code: `OTHER-${mark()}` });

  const pendingShop = await referredShop(api, partner.code.toLowerCase());
  const pending = await paidLine(api, pendingShop);
  const payableShop = await referredShop(api, partner.code);
  const payable = await paidLine(api, payableShop, YEARLY);
  const paidShop = await referredShop(api, partner.code.toUpperCase());
  const paid = await paidLine(api, paidShop);
  await referredShop(api, partner.code); // in its trial: referred, not active, nothing earned
  await registerShop(api, { referral_code: 'NOBODY-123' });
  const othersShop = await referredShop(api, other.code);
  await paidLine(api, othersShop);

  await ageLine(api, payable.reference, 15);
  await ageLine(api, paid.reference, 15);
  await markPayable(api);
  const paying = await payout(by, { ids: [paid.line.id] });
  t.equal(paying.status, 200);
  await expireSubscription(api, paidShop.shop.id); // paid once, ended since: referred, no longer active

  t.strictSame(
    [pending.line.amount_xaf, payable.line.amount_xaf, paid.line.amount_xaf],
    [1_000, 10_000, 1_000],
    '20 % of 5,000 and of 50,000',
  );
  t.match(await listed(by, partner.code), {
    referred_shops: 4,
    active_shops: 2,
    commission_pending_xaf: 1_000,
    commission_payable_xaf: 10_000,
    commission_paid_xaf: 1_000,
  });
  t.match(await listed(by, other.code), {
    referred_shops: 1,
    active_shops: 1,
    commission_pending_xaf: 1_000,
    commission_payable_xaf: 0,
    commission_paid_xaf: 0,
  }, 'the other partner\'s own totals');

  await payout(by, { partner_id: partner.id, payout_reference: 'MOMO-TOTALS' });
  t.match(await listed(by, partner.code), { commission_pending_xaf: 1_000, commission_payable_xaf: 0, commission_paid_xaf: 11_000 }, 'after the payout');
});

t.test('the list pages with limit and cursor, newest first, every partner exactly once', async (t) => {
  const by = await admin(api);
  const marker = `Pager${mark()}`;
  const created: string[] = [];
  for (let i = 0; i < 7; i++) created.push((await createPartner(api, by, { name: `${marker} ${i}` })).id);
  // Three created in the same microsecond: the id breaks the tie, and no page repeats or skips one.
  await api.ownerSql`update partners set created_at = (select created_at from partners where id = ${created[3]!}) where id in ${api.ownerSql(created.slice(2, 5))}`;

  const pages = await walk((cursor) => listPartners(by, { q: marker, limit: 2, cursor }));
  t.strictSame(pages.sizes, [2, 2, 2, 1], 'pages of 2, the last one short and without a next cursor');
  t.equal(new Set(pages.ids).size, 7, 'no partner twice');
  t.strictSame([...pages.ids].sort(), [...created].sort(), 'every partner');
  const stored = await api.ownerSql<{ id: string }[]>`select id from partners where id in ${api.ownerSql(created)} order by created_at desc, id desc`;
  t.strictSame(pages.ids, stored.map((row) => row.id), 'newest first, then by id');

  const everyone = await walk((cursor) => listPartners(by, { limit: 3, cursor }));
  const [count] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from partners`;
  t.equal(everyone.ids.length, count!.n, 'the whole list has every partner');
  t.equal(new Set(everyone.ids).size, everyone.ids.length, 'each once');
  t.ok(created.every((id) => everyone.ids.includes(id)), 'these among them');

  const first = await listPartners(by, { q: marker });
  t.equal(first.body.data.length, 7, 'the default limit holds them all');
  t.equal(first.body.meta.next_cursor, null);
  expectInvalid(t, await listPartners(by, { limit: 0 }), 'limit', 'limit 0');
  expectInvalid(t, await listPartners(by, { limit: 201 }), 'limit', 'limit 201');
  expectInvalid(t, await listPartners(by, { cursor: 'not-a-cursor' }), 'cursor', 'a tampered cursor');
});

t.test('the list filters by status', async (t) => {
  const by = await admin(api);
  const marker = `Status${mark()}`;
  const active = await createPartner(api, by, { name: `${marker} active` });
  const suspended = await createPartner(api, by, { name: `${marker} suspended` });
  const resumed = await createPartner(api, by, { name: `${marker} resumed` });
  await putPartner(by, suspended.id, { status: 'suspended' });
  await putPartner(by, resumed.id, { status: 'suspended' });
  await putPartner(by, resumed.id, { status: 'active' });
  const ids = async (status?: string) => (await listPartners(by, { q: marker, status })).body.data.map((p: { id: string }) => p.id).sort();
  t.strictSame(await ids('suspended'), [suspended.id], 'suspended');
  t.strictSame(await ids('active'), [active.id, resumed.id].sort(), 'active');
  t.strictSame(await ids(), [active.id, suspended.id, resumed.id].sort(), 'no filter: both');
  const everySuspended = (await listPartners(by, { status: 'suspended', limit: 200 })).body.data;
  t.ok(everySuspended.every((p: { status: string }) => p.status === 'suspended'), 'without q, only suspended ones');
  expectInvalid(t, await listPartners(by, { status: 'closed' }), 'status', 'an unknown status');
});

t.test('q finds a partner by part of its name, e-mail or code, whatever the case', async (t) => {
  const by = await admin(api);
  const [inName, inEmail, inCode] = [mark(), mark(), mark()];
  const partner = await createPartner(api, by, { name: `Chantal ${inName}Mbarga`, email: `chantal.${inEmail}@example.cm`, code: `Kribi${inCode}X` });
  const decoy = await createPartner(api, by, { name: `Chantal ${mark()}` });
  const found = async (q: string) => (await listPartners(by, { q })).body.data.map((p: { id: string }) => p.id);
  t.strictSame(await found(inName.toUpperCase()), [partner.id], 'name, in capitals');
  t.strictSame(await found(`${inName}MBARGA`), [partner.id], 'name, across words, another case');
  t.strictSame(await found(inEmail.toUpperCase()), [partner.id], 'e-mail, in capitals');
  t.strictSame(await found(`CHANTAL.${inEmail}@EXAMPLE`), [partner.id], 'e-mail, whole local part');
  t.strictSame(await found(`kribi${inCode}x`), [partner.id], 'code, in lower case');
  t.strictSame(await found(inCode.toUpperCase()), [partner.id], 'part of the code');
  t.strictSame(await found(`${inName.slice(0, 3)}%${inName.slice(4)}`), [], 'a % is a character, not a wildcard');
  t.strictSame(await found(`${inName.slice(0, 3)}_${inName.slice(4)}`), [], 'nor is _');
  t.strictSame(await found(`${inName.slice(0, 3)}\\${inName.slice(3)}`), [], 'nor is a backslash an escape');
  t.ok((await found('chantal')).includes(decoy.id), 'a common part finds several');
  expectInvalid(t, await listPartners(by, { q: chars(161) }), 'q', 'q over 160 characters');
});

// --------------------------------------------------------------------- GET /admin/partner-commissions

t.test('a commission line shows its partner, its shop, its charge and its amount', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by, { name: 'Line Partner', commission_rate: 12.5 });
  const owner = await referredShop(api, partner.code, { shop_name: 'Boutique Ligne' });
  const { reference, line } = await paidLine(api, owner);
  const reply = await ledger(by, { partner_id: partner.id });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.length, 1);
  const shown = reply.body.data[0];
  t.strictSame(Object.keys(shown).sort(), LINE_KEYS);
  t.match(shown, {
    id: line.id, partner_id: partner.id, partner_name: 'Line Partner', shop_id: owner.shop.id, shop_name: 'Boutique Ligne', charge_reference: reference,
    base_amount_xaf: 5_000, commission_rate: 12.5, amount_xaf: 625, status: 'pending', payout_reference: null, paid_at: null,
  });
  t.ok(Math.abs(Date.parse(shown.payable_after) - Date.parse(shown.created_at) - 14 * DAY) < 60_000, 'payable 14 days after the payment');
  t.equal(reply.body.meta.next_cursor, null);
});

t.test('the ledger filters by partner_id, or by its alias partner; both, different, is a 422', async (t) => {
  const by = await admin(api);
  const first = await createPartner(api, by);
  const second = await createPartner(api, by);
  const firstLines = [(await paidLine(api, await referredShop(api, first.code))).line, (await paidLine(api, await referredShop(api, first.code))).line];
  const secondLine = (await paidLine(api, await referredShop(api, second.code))).line;
  const ids = async (params: Record<string, string>) => {
    const reply = await ledger(by, params);
    t.equal(reply.status, 200, JSON.stringify(params));
    return reply.body.data.map((line: { id: string }) => line.id).sort();
  };
  const firstIds = firstLines.map((line) => line.id).sort();
  t.strictSame(await ids({ partner_id: first.id }), firstIds, 'partner_id');
  t.strictSame(await ids({ partner: first.id }), firstIds, 'partner');
  t.strictSame(await ids({ partner_id: first.id, partner: first.id }), firstIds, 'both, the same');
  t.strictSame(await ids({ partner_id: first.id, partner: first.id.toUpperCase() }), firstIds, 'both, the same in another case');
  t.strictSame(await ids({ partner_id: second.id }), [secondLine.id], 'the other partner');
  t.strictSame(await ids({ partner_id: randomUUID() }), [], 'an unknown partner has no lines');
  const all = await ids({ limit: '200' });
  t.ok([...firstIds, secondLine.id].every((id) => all.includes(id)), 'no filter: every partner\'s lines');
  expectInvalid(t, await ledger(by, { partner_id: first.id, partner: second.id }), 'partner', 'both, different');
  expectInvalid(t, await ledger(by, { partner_id: 'first' }), 'partner_id', 'not a uuid');
  expectInvalid(t, await ledger(by, { partner: 'first' }), 'partner', 'not a uuid either');
});

t.test('the ledger filters by status', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [pending, payable, paid] = await paidLines(owner, 3);
  await ageLine(api, payable!.reference, 15);
  await ageLine(api, paid!.reference, 15);
  await markPayable(api);
  await payout(by, { ids: [paid!.line.id] });
  const ids = async (status: string) => (await ledger(by, { partner_id: partner.id, status })).body.data.map((line: { id: string }) => line.id);
  t.strictSame(await ids('pending'), [pending!.line.id], 'pending');
  t.strictSame(await ids('payable'), [payable!.line.id], 'payable');
  t.strictSame(await ids('paid'), [paid!.line.id], 'paid');
  const everyPaid = (await ledger(by, { status: 'paid', limit: 200 })).body.data;
  t.ok(everyPaid.length > 0 && everyPaid.every((line: { status: string }) => line.status === 'paid'), 'across partners too');
  expectInvalid(t, await ledger(by, { status: 'void' }), 'status', 'an unknown status');
});

t.test('the ledger filters by UTC days of accrual, from and to both included; to before from is a 422 on to', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const lines = (await paidLines(owner, 4)).map(({ line }) => line);
  const at = ['2025-03-10T23:59:59.999999Z', '2025-03-11T00:00:00Z', '2025-03-11T23:59:59.999999Z', '2025-03-12T00:00:00Z'];
  for (const [i, line] of lines.entries()) await api.ownerSql`update partner_commissions set created_at = ${at[i]!}::timestamptz where id = ${line.id}`;
  const [day10, day11early, day11late, day12] = lines.map((line) => line.id);
  const ids = async (params: Record<string, string>) => {
    const reply = await ledger(by, { partner_id: partner.id, ...params });
    t.equal(reply.status, 200, JSON.stringify(params));
    return reply.body.data.map((line: { id: string }) => line.id);
  };
  t.strictSame(await ids({ from: '2025-03-11', to: '2025-03-11' }), [day11late, day11early], 'one day, midnight to midnight UTC');
  t.strictSame(await ids({ from: '2025-03-11' }), [day12, day11late, day11early], 'from alone');
  t.strictSame(await ids({ to: '2025-03-10' }), [day10], 'to alone: the whole last day');
  t.strictSame(await ids({ from: '2025-03-10', to: '2025-03-12' }), [day12, day11late, day11early, day10], 'three days');
  t.strictSame(await ids({ from: '2025-03-13' }), [], 'after them');
  expectInvalid(t, await ledger(by, { from: '2025-03-12', to: '2025-03-11' }), 'to', 'to before from');
  expectInvalid(t, await ledger(by, { from: '2025-13-01' }), 'from', 'no 13th month');
  expectInvalid(t, await ledger(by, { to: '11/03/2025' }), 'to', 'not ISO');
});

t.test('the ledger pages with limit and cursor, newest first, every line exactly once', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const lines = (await paidLines(owner, 5)).map(({ line }) => line.id);
  // Lines accrued in the same microsecond: the id breaks the tie.
  await api.ownerSql`update partner_commissions set created_at = (select created_at from partner_commissions where id = ${lines[2]!}) where id in ${api.ownerSql(lines.slice(1, 4))}`;
  const pages = await walk((cursor) => ledger(by, { partner_id: partner.id, limit: 2, cursor }));
  t.strictSame(pages.sizes, [2, 2, 1]);
  const stored = await api.ownerSql<{ id: string }[]>`select id from partner_commissions where partner_id = ${partner.id} order by created_at desc, id desc`;
  t.strictSame(pages.ids, stored.map((row) => row.id), 'every line once, newest first, then by id');
  const everything = await walk((cursor) => ledger(by, { limit: 3, cursor }));
  t.equal(new Set(everything.ids).size, everything.ids.length, 'across partners, no line twice');
  t.ok(lines.every((id) => everything.ids.includes(id)), 'and these among them');
  expectInvalid(t, await ledger(by, { limit: 201 }), 'limit');
  expectInvalid(t, await ledger(by, { cursor: 'bm90IGEgY3Vyc29y' }), 'cursor');
});

// -------------------------------------------------------------- POST /admin/partner-commissions/pay

t.test('paying lines by id marks them paid, stamps paid_at, records the payout reference and answers their count and total', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [fresh, aged, untouched] = await paidLines(owner, 3);
  await ageLine(api, aged!.reference, 15);
  await markPayable(api);
  t.equal((await storedLine(aged!.line.id)).status, 'payable', 'one is payable, one still in its refund window');

  const before = Date.now();
  const reply = await payout(by, { ids: [fresh!.line.id, aged!.line.id], payout_reference: 'MOMO-2025-0001' });
  const after = Date.now();
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { status: 'paid', payout_reference: 'MOMO-2025-0001', count: 2, amount_xaf: 2_000, unchanged: [] });
  t.strictSame(reply.body.data.lines.map((line: { id: string }) => line.id).sort(), [fresh!.line.id, aged!.line.id].sort(), 'the lines changed');
  for (const line of reply.body.data.lines) {
    t.match(line, { status: 'paid', payout_reference: 'MOMO-2025-0001', partner_id: partner.id });
    t.ok(Date.parse(line.paid_at) >= before - 1_000 && Date.parse(line.paid_at) <= after + 1_000, `paid_at is now (${line.paid_at})`);
  }
  for (const id of [fresh!.line.id, aged!.line.id]) t.match(await storedLine(id), { status: 'paid', payout_reference: 'MOMO-2025-0001', paid_at: Date }, 'stored');
  t.match(await storedLine(untouched!.line.id), { status: 'pending', payout_reference: null, paid_at: null }, 'a line not named is left alone');
  const listedLines = (await ledger(by, { partner_id: partner.id, status: 'paid' })).body.data;
  t.equal(listedLines.length, 2, 'the ledger shows them paid');
  t.ok(listedLines.every((line: { paid_at: string | null }) => line.paid_at !== null));

  const bare = await payout(by, { ids: [untouched!.line.id] });
  t.match(bare.body.data, { status: 'paid', payout_reference: null, count: 1, amount_xaf: 1_000 }, 'without a reference, status paid by default');
});

t.test('without ids, paying a partner pays its payable lines and none still pending', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const other = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [pending, firstPayable, secondPayable] = await paidLines(owner, 3);
  const secondYearly = await paidLine(api, owner, YEARLY);
  const othersLine = await paidLine(api, await referredShop(api, other.code));
  for (const { reference } of [firstPayable!, secondPayable!, secondYearly, othersLine]) await ageLine(api, reference, 15);
  await markPayable(api);

  const reply = await payout(by, { partner_id: partner.id, payout_reference: 'BATCH-7' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { status: 'paid', payout_reference: 'BATCH-7', count: 3, amount_xaf: 12_000 });
  t.strictSame(
    reply.body.data.lines.map((line: { id: string }) => line.id).sort(),
    [firstPayable!.line.id, secondPayable!.line.id, secondYearly.line.id].sort(),
    'the payable lines',
  );
  t.match(await storedLine(pending!.line.id), { status: 'pending', paid_at: null, payout_reference: null }, 'the pending one stays pending');
  t.match(await storedLine(othersLine.line.id), { status: 'payable', paid_at: null }, 'another partner\'s line is not paid');

  const again = await payout(by, { partner_id: partner.id });
  t.match(again.body.data, { status: 'paid', count: 0, amount_xaf: 0, lines: [] }, 'nothing left to pay');
  t.match(await storedLine(firstPayable!.line.id), { status: 'paid', payout_reference: 'BATCH-7' }, 'what was paid keeps its reference');
});

t.test('status payable without ids releases the partner\'s pending lines, and only them', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const other = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [first, second, paid] = await paidLines(owner, 3);
  const othersLine = await paidLine(api, await referredShop(api, other.code));
  const paying = await payout(by, { ids: [paid!.line.id], payout_reference: 'EARLY' });
  const paidAt = paying.body.data.lines[0].paid_at;

  const reply = await payout(by, { partner_id: partner.id, status: 'payable' });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  t.match(reply.body.data, { status: 'payable', count: 2, amount_xaf: 2_000 });
  t.strictSame(reply.body.data.lines.map((line: { id: string }) => line.id).sort(), [first!.line.id, second!.line.id].sort());
  for (const line of [first!, second!]) t.match(await storedLine(line.line.id), { status: 'payable', paid_at: null }, 'released before its 14 days');
  const stillPaid = await storedLine(paid!.line.id);
  t.match(stillPaid, { status: 'paid', payout_reference: 'EARLY' }, 'a paid line is not touched');
  t.equal(stillPaid.paid_at!.toISOString(), paidAt, 'nor its paid_at');
  t.equal((await storedLine(othersLine.line.id)).status, 'pending', 'another partner\'s pending line stays pending');
});

t.test('a line put back to pending stays pending, even after its 14 days, until an administrator releases it', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [held, control, heldInBulk] = await paidLines(owner, 3);
  for (const { reference } of [held!, control!, heldInBulk!]) await ageLine(api, reference, 15);

  const holding = await payout(by, { ids: [held!.line.id], status: 'pending' });
  t.equal(holding.status, 200, JSON.stringify(holding.body));
  t.match(holding.body.data, { status: 'pending', count: 1, amount_xaf: 1_000 });
  t.equal(holding.body.data.lines[0].payable_after, null, 'held: no date to become payable');
  await markPayable(api);
  t.equal((await storedLine(control!.line.id)).status, 'payable', 'the daily task ran: a line past its 14 days became payable');
  t.equal((await storedLine(heldInBulk!.line.id)).status, 'payable');
  t.match(await storedLine(held!.line.id), { status: 'pending', payable_after: null }, 'the held line did not');

  const bulk = await payout(by, { partner_id: partner.id, status: 'pending' });
  t.match(bulk.body.data, { status: 'pending', count: 2, amount_xaf: 2_000 }, 'without ids, pending holds back every payable line');
  await markPayable(api);
  for (const line of [held!, control!, heldInBulk!]) t.match(await storedLine(line.line.id), { status: 'pending', payable_after: null }, 'all held');

  const release = await payout(by, { ids: [held!.line.id], status: 'payable' });
  t.match(release.body.data, { status: 'payable', count: 1 });
  t.equal((await storedLine(held!.line.id)).status, 'payable', 'an administrator releases it');
});

t.test('an unknown line, another partner\'s line, an unknown partner or no partner at all is a 422 on its key and changes nothing', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const other = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  const [pending, payable] = await paidLines(owner, 2);
  const othersLine = await paidLine(api, await referredShop(api, other.code));
  await ageLine(api, payable!.reference, 15);
  await ageLine(api, othersLine.reference, 15);
  await markPayable(api);
  const shopOwner = await registerShop(api);

  const before = await everyLine();
  t.strictSame(
    [await storedLine(pending!.line.id), await storedLine(payable!.line.id), await storedLine(othersLine.line.id)].map((line) => line.status),
    ['pending', 'payable', 'payable'],
    'the lines as they start',
  );
  const refusals: [string, Record<string, unknown>, string][] = [
    ['an unknown id after a real one', { ids: [pending!.line.id, randomUUID()] }, 'ids.1'],
    ['an unknown id first', { ids: [randomUUID(), payable!.line.id], status: 'payable' }, 'ids.0'],
    ['another partner\'s line with partner_id', { ids: [pending!.line.id, payable!.line.id, othersLine.line.id], partner_id: partner.id }, 'ids.2'],
    ['the partner\'s own line named with the other partner', { ids: [payable!.line.id], partner_id: other.id, payout_reference: 'WRONG' }, 'ids.0'],
    ['an unknown partner_id', { partner_id: randomUUID() }, 'partner_id'],
    ['an unknown partner_id with ids', { ids: [payable!.line.id], partner_id: randomUUID() }, 'partner_id'],
    ['a shop owner as partner_id', { partner_id: shopOwner.user.id }, 'partner_id'],
    ['an administrator as partner_id', { partner_id: by.id, status: 'payable' }, 'partner_id'],
    ['neither ids nor partner_id', {}, 'partner_id'],
    ['neither, with a status and a reference', { status: 'paid', payout_reference: 'NOTHING' }, 'partner_id'],
  ];
  for (const [what, body, key] of refusals) {
    expectInvalid(t, await payout(by, body), key, what);
    t.strictSame(await everyLine(), before, `${what}: every line as it was`);
  }
  const two = await payout(by, { ids: [randomUUID(), othersLine.line.id, randomUUID()], partner_id: partner.id });
  expectInvalid(t, two, ['ids.0', 'ids.1', 'ids.2'], 'each bad id named');
  t.strictSame(await everyLine(), before, 'still nothing changed');
});

t.test('every bound of a payout is a 422 on its key', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const { line } = await paidLine(api, await referredShop(api, partner.code));
  const before = await everyLine();
  expectInvalid(t, await payout(by, { ids: [] }), 'ids', 'an empty list');
  expectInvalid(t, await payout(by, { ids: line.id }), 'ids', 'not a list');
  expectInvalid(t, await payout(by, { ids: [line.id, 'not-a-uuid'] }), 'ids.1', 'not a uuid');
  expectInvalid(t, await payout(by, { ids: Array.from({ length: 1001 }, () => randomUUID()) }), 'ids', 'over 1,000');
  expectInvalid(t, await payout(by, { partner_id: 'partner' }), 'partner_id', 'not a uuid');
  expectInvalid(t, await payout(by, { ids: [line.id], status: 'cancelled' }), 'status', 'no such status');
  expectInvalid(t, await payout(by, { ids: [line.id], payout_reference: chars(121) }), 'payout_reference', '121 characters');
  t.strictSame(await everyLine(), before, 'nothing changed');
  const longest = await payout(by, { ids: [line.id], status: null, payout_reference: chars(120, 'R') });
  t.equal(longest.status, 200, '120 characters, a null status');
  t.match(longest.body.data, { status: 'paid', payout_reference: chars(120, 'R'), count: 1 });
});

t.test('a paid line is not moved back to payable: a 409, and it keeps its paid_at, its payout reference and the totals', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const { reference, line } = await paidLine(api, await referredShop(api, partner.code));
  await ageLine(api, reference, 15);
  await markPayable(api);
  const paid = await payout(by, { ids: [line.id], payout_reference: 'MOMO-UNDO' });
  t.match(paid.body.data.lines[0], { status: 'paid', payout_reference: 'MOMO-UNDO' });
  t.ok(paid.body.data.lines[0].paid_at);
  const stored = await storedLine(line.id);

  expectConflict(t, await payout(by, { ids: [line.id], status: 'payable' }), 'commission_already_paid', 'back to payable');
  t.strictSame(await storedLine(line.id), stored, 'stored as it was');
  t.match(await listed(by, partner.code), { commission_payable_xaf: 0, commission_paid_xaf: 1_000 }, 'the totals stay');

  const repaid = await payout(by, { partner_id: partner.id, payout_reference: 'MOMO-REDO' });
  t.match(repaid.body.data, { count: 0, amount_xaf: 0, lines: [] }, 'paying the partner again pays nothing');
  t.strictSame(await storedLine(line.id), stored, 'still as it was');
});

t.test('paying a line already paid keeps its paid_at and its reference, even when a new one is given', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const { line } = await paidLine(api, await referredShop(api, partner.code));
  const first = (await payout(by, { ids: [line.id], payout_reference: 'FIRST' })).body.data.lines[0];
  for (const [what, body] of [['no reference given', { ids: [line.id] }], ['a new reference given', { ids: [line.id], payout_reference: 'SECOND' }]] as const) {
    const again = await payout(by, body);
    t.equal(again.status, 200, what);
    t.match(again.body.data, { count: 0, amount_xaf: 0, unchanged: [line.id] }, `${what}: nothing paid, reported unchanged`);
  }
  const [listedLine] = (await ledger(by, { partner_id: partner.id })).body.data;
  t.match(listedLine, { id: line.id, status: 'paid', paid_at: first.paid_at, payout_reference: 'FIRST' }, 'both kept');
});

// ---------------------------------------------------------------------------------------- access

t.test('the administrator reads every partner, but a shop\'s own data stays out of its reach', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await referredShop(api, partner.code);
  t.equal((await listPartners(by, {})).status, 200, 'the partners');
  t.equal((await ledger(by, {})).status, 200, 'the ledger');
  expectError(t, await api.request('GET', '/shop', { token: by.token }), 403, FORBIDDEN, 'GET /shop');
  expectError(t, await api.request('PUT', '/shop', { token: by.token, body: { name: 'Taken over' } }), 403, FORBIDDEN, 'PUT /shop');
  expectError(t, await api.request('GET', '/products', { token: by.token }), 403, FORBIDDEN, 'GET /products');
  expectError(t, await api.request('GET', '/billing', { token: by.token }), 403, FORBIDDEN, 'GET /billing');
  expectError(t, await api.request('GET', '/partner/dashboard', { token: by.token }), 403, FORBIDDEN, 'a partner\'s page');
  const [shop] = await api.ownerSql`select name from shops where id = ${owner.shop.id}`;
  t.equal(shop!.name, 'Boutique Awa', 'the shop unchanged');
});

t.test('only an administrator token passes /admin/*', async (t) => {
  const by = await admin(api);
  const partner = await createPartner(api, by);
  const owner = await registerShop(api);
  const calls: [string, string, Record<string, unknown>?][] = [
    ['GET', '/admin/partners'],
    ['POST', '/admin/partners', partnerBody()],
    ['PUT', `/admin/partners/${partner.id}`, { name: 'Hijacked' }],
    ['GET', '/admin/partner-commissions'],
    ['POST', '/admin/partner-commissions/pay', { partner_id: partner.id }],
    ['GET', '/admin/partner-payouts'],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { token: partner.token, ...(body ? { body } : {}) }), 403, FORBIDDEN, `${method} ${path} as a partner`);
    expectError(t, await api.request(method, path, { token: owner.token, ...(body ? { body } : {}) }), 403, FORBIDDEN, `${method} ${path} as a shop owner`);
    expectError(t, await api.request(method, path, body ? { body } : {}), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
  }
  t.equal((await listed(by, partner.code)).name, 'Moussa Diallo', 'the partner was not renamed');
});
