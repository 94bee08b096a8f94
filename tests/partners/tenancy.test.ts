import { randomUUID } from 'node:crypto';
import t from 'tap';
import { signAccessToken } from '../../api/auth/tokens.ts';
import { APP_DB_ROLE, type Tx } from '../../api/db.ts';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { createCustomer, sell } from '../sales/sale-fixtures.ts';
import { addStaff, createProduct, registerShop } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { operationsOf, type Operation } from '../support/openapi-arbitraries.ts';
import { expectError, FORBIDDEN, UNAUTHENTICATED } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { admin, createPartner, paidLine, referredShop } from './partner-fixtures.ts';

/**
 * Partners and administrators have no shop (CONTRACT sections 3 and 11): the database keys what they
 * see by their user (app_user_id(), app_is_admin()), and the API lets each kind of token through its
 * own operations only. The shops' own tenancy is tests/platform/tenancy.test.ts.
 */
const api = await startService(t);
// The commission lines are accrued by the worker's commission__accrue task.
await startMailWorker(t, api, await startMailbox(t));

const administrator = await admin(api);
const partnerA = await createPartner(api, administrator, { name: 'Partenaire A' });
const partnerB = await createPartner(api, administrator, { name: 'Partenaire B' });
const paidA = await referredShop(api, partnerA.code, { shop_name: 'Boutique payée A' });
const trialA = await referredShop(api, partnerA.code, { shop_name: 'Boutique en essai A' });
const paidB = await referredShop(api, partnerB.code, { shop_name: 'Boutique payée B' });
const unreferred = await registerShop(api, { shop_name: 'Boutique sans parrain' });
const lineA = (await paidLine(api, paidA)).line;
const lineB = (await paidLine(api, paidB)).line;
const manager = await addStaff(api, paidA, 'manager');
const cashier = await addStaff(api, paidA, 'cashier');
// Rows of the shop-owned tables a partner must never see: a product with its stock, a customer, a sale.
const product = await createProduct(api, paidA.token, { price_xaf: 1000 }, 5);
const customer = await createCustomer(api, paidA.token);
await sell(api, paidA.token, { customer_id: customer.id, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1000 }] });

type Scope = { shopId: string | null; userId: string | null };
const asPartner = (id: string): Scope => ({ shopId: null, userId: id });
const asAdmin: Scope = { shopId: null, userId: administrator.id };
const nobody: Scope = { shopId: null, userId: null };

const inScope = <T>(scope: Scope, body: (tx: Tx) => Promise<T>) => inTenant(api.appSql, scope, body);
/** How many rows a write returned in the scope, or the SQLSTATE it was refused with. */
const written = (scope: Scope, write: (tx: Tx) => Promise<readonly unknown[]>) =>
  inScope(scope, async (tx) => (await write(tx)).length).catch((error: { code?: string }) => {
    if (!error.code) throw error;
    return error.code;
  });
const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id).sort();
const sorted = (...values: string[]) => [...values].sort();

/** What a scope sees of the partners' own tables and the view. */
const partnersSide = (scope: Scope) =>
  inScope(scope, async (tx) => ({
    partners: ids(await tx<{ id: string }[]>`select id from partners`),
    lines: ids(await tx<{ id: string }[]>`select id from partner_commissions`),
    referred: ids(await tx<{ id: string }[]>`select id from referred_shops`),
  }));

/** Shop-owned tables checked by name, besides the generic sweep below. */
const REPRESENTATIVE = ['shops', 'sales', 'sale_items', 'sale_payments', 'products', 'stock_movements', 'customers', 'subscription_charges', 'journal_entries', 'journal_lines'];

/** Every table of the public schema with a shop_id column that the application role may read. */
const shopTables = (
  await api.ownerSql<{ name: string }[]>`
    select c.relname as name
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and has_table_privilege(${APP_DB_ROLE}, c.oid, 'select')
       and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped)
     order by 1`
).map((row) => row.name);

/**
 * How many rows of a shop a scope sees in each table: every row of `shops`, the rows with a shop_id
 * elsewhere (a partner's or administrator's own users and sessions rows have none).
 */
const shopRowsSeen = (scope: Scope) =>
  inScope(scope, async (tx) => {
    const seen: Record<string, number> = {};
    for (const table of new Set([...REPRESENTATIVE, ...shopTables])) {
      const [row] = table === 'shops'
        ? await tx<{ n: number }[]>`select count(*)::int as n from shops`
        : await tx<{ n: number }[]>`select count(*)::int as n from ${tx(table)} where shop_id is not null`;
      seen[table] = row!.n;
    }
    return seen;
  });

/** The same counts with nothing hidden, read as the owner role. */
async function shopRowsStored(): Promise<Record<string, number>> {
  const stored: Record<string, number> = {};
  for (const table of new Set([...REPRESENTATIVE, ...shopTables])) {
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from ${api.ownerSql(table)}`;
    stored[table] = row!.n;
  }
  return stored;
}

/** Zero for every table but partner_commissions, which shows `lines`. */
const nothingButLines = (lines: number) =>
  Object.fromEntries([...new Set([...REPRESENTATIVE, ...shopTables])].map((table) => [table, table === 'partner_commissions' ? lines : 0]));

t.test('the set-up has what the rules below need: rows in every representative table, a line per paid referred shop', async (t) => {
  t.ok(shopTables.length > 30, `${shopTables.length} tables with a shop_id`);
  for (const table of REPRESENTATIVE.filter((name) => name !== 'shops')) t.ok(shopTables.includes(table), `${table} has a shop_id the app role may read`);
  const stored = await shopRowsStored();
  for (const table of REPRESENTATIVE) t.ok(stored[table]! > 0, `${table} has rows`);
  t.same([lineA.partner_id, lineB.partner_id], [partnerA.id, partnerB.id], 'each paid referred shop accrued a line for its partner');
});

t.test('a partner sees only its own partners row and commission lines, its own users row, and no row of any shop', async (t) => {
  t.strictSame(await partnersSide(asPartner(partnerA.id)), { partners: [partnerA.id], lines: [lineA.id], referred: sorted(paidA.shop.id, trialA.shop.id) }, 'partner A');
  t.strictSame(await partnersSide(asPartner(partnerB.id)), { partners: [partnerB.id], lines: [lineB.id], referred: [paidB.shop.id] }, 'partner B');
  const users = await inScope(asPartner(partnerA.id), (tx) => tx<{ id: string; shop_id: string | null }[]>`select id, shop_id from users`);
  t.strictSame([...users], [{ id: partnerA.id, shop_id: null }], 'its own users row only');
  t.strictSame(await shopRowsSeen(asPartner(partnerA.id)), nothingButLines(1), 'of the shop-owned tables, only its own line');
});

const VIEW_COLUMNS = ['id', 'partner_id', 'name', 'created_at', 'trial_ends_at', 'subscription_ends_at'];

t.test('through referred_shops a partner sees only its own referred shops, and only their id, partner, name, signup and subscription dates', async (t) => {
  const rows = await inScope(asPartner(partnerA.id), (tx) => tx<Record<string, unknown>[]>`select * from referred_shops order by created_at`);
  t.strictSame(
    rows.map((row) => [row.id, row.partner_id, row.name]),
    [
      [paidA.shop.id, partnerA.id, 'Boutique payée A'],
      [trialA.shop.id, partnerA.id, 'Boutique en essai A'],
    ],
    'its two referred shops',
  );
  for (const row of rows) t.strictSame(Object.keys(row), VIEW_COLUMNS, 'the columns of a row read');
  const declared = await api.appSql<{ column_name: string }[]>`
    select column_name from information_schema.columns where table_schema = 'public' and table_name = 'referred_shops' order by ordinal_position`;
  t.strictSame(declared.map((column) => column.column_name), VIEW_COLUMNS, 'the columns the view declares');
});

t.test('a partner cannot write its terms, its lines, another user or a shop; a shop cannot change its partner', async (t) => {
  const partner = asPartner(partnerA.id);
  t.equal(
    await written(partner, (tx) => tx`
      insert into partner_commissions (partner_id, shop_id, charge_reference, base_amount_xaf, commission_rate, amount_xaf)
      values (${partnerA.id}, ${paidA.shop.id}, ${'SUB-FORGED'}, 1000, 100, 1000) returning id`),
    '42501',
    'a line inserted: refused',
  );
  const attempts: Record<string, (tx: Tx) => Promise<readonly unknown[]>> = {
    'its commission rate set to 100': (tx) => tx`update partners set commission_rate = 100 where id = ${partnerA.id} returning id`,
    'its line marked paid': (tx) => tx`update partner_commissions set status = 'paid', paid_at = now() where id = ${lineA.id} returning id`,
    'other users renamed': (tx) => tx`update users set name = 'Piraté' where id in (${partnerB.id}, ${paidA.user.id}, ${administrator.id}) returning id`,
    'a referred shop renamed': (tx) => tx`update shops set name = 'Piraté' where id = ${paidA.shop.id} returning id`,
    'its line deleted': (tx) => tx`delete from partner_commissions where id = ${lineA.id} returning id`,
    'its partners row deleted': (tx) => tx`delete from partners where id = ${partnerA.id} returning id`,
  };
  for (const [what, attempt] of Object.entries(attempts)) {
    const outcome = await written(partner, attempt);
    t.ok(outcome === 0 || outcome === '42501', `${what}: no row written (${outcome})`);
  }
  const [stored] = await api.ownerSql<{ rate: number; status: string; renamed: number; partners: number }[]>`
    select (select commission_rate::float from partners where id = ${partnerA.id}) as rate,
           (select status from partner_commissions where id = ${lineA.id}) as status,
           (select count(*)::int from users where name = 'Piraté') + (select count(*)::int from shops where name = 'Piraté') as renamed,
           (select count(*)::int from partners where id = ${partnerA.id}) as partners`;
  t.strictSame({ ...stored }, { rate: 20, status: 'pending', renamed: 0, partners: 1 }, 'as stored');

  // The owner, in its own shop's scope, may update its shops row, but not the partner it registered with.
  const owner = { shopId: paidA.shop.id, userId: paidA.user.id };
  t.equal(await written(owner, (tx) => tx`update shops set partner_id = ${partnerB.id} where id = ${paidA.shop.id} returning id`), '42501', 'moved to another partner: refused');
  const adopted = await written({ shopId: unreferred.shop.id, userId: unreferred.user.id }, (tx) =>
    tx`update shops set partner_id = ${partnerB.id} where id = ${unreferred.shop.id} returning id`,
  );
  t.equal(adopted, '42501', 'an unreferred shop given a partner: refused');
  const partnersNow = await api.ownerSql<{ id: string; partner_id: string | null }[]>`
    select id, partner_id from shops where id in (${paidA.shop.id}, ${unreferred.shop.id})`;
  t.same(Object.fromEntries(partnersNow.map((row) => [row.id, row.partner_id])), { [paidA.shop.id]: partnerA.id, [unreferred.shop.id]: null }, 'as stored');
});

t.test('an administrator sees every partner, line and referred shop, the partners\' logins and its own, and still no row of any shop', async (t) => {
  const everyLine = ids(await api.ownerSql<{ id: string }[]>`select id from partner_commissions`);
  t.ok(everyLine.includes(lineA.id) && everyLine.includes(lineB.id), 'both partners\' lines are stored');
  t.strictSame(await partnersSide(asAdmin), {
    partners: sorted(partnerA.id, partnerB.id),
    lines: everyLine,
    referred: sorted(paidA.shop.id, trialA.shop.id, paidB.shop.id),
  }, 'every partner, line and referred shop (not the unreferred shop)');
  const users = await inScope(asAdmin, (tx) => tx<{ id: string; kind: string }[]>`select id, kind from users`);
  t.strictSame(ids(users), sorted(administrator.id, partnerA.id, partnerB.id), 'no shop staff');
  t.strictSame(await shopRowsSeen(asAdmin), nothingButLines(everyLine.length), 'of the shop-owned tables, only the lines');
});

t.test('with no user set, partners, their lines and referred shops show nothing', async (t) => {
  const empty = { partners: [], lines: [], referred: [] };
  t.strictSame(await partnersSide(nobody), empty, 'in a transaction with no scope');
  const [bare] = await api.appSql<{ partners: number; lines: number; referred: number }[]>`
    select (select count(*)::int from partners) as partners, (select count(*)::int from partner_commissions) as lines,
           (select count(*)::int from referred_shops) as referred`;
  t.strictSame({ ...bare }, { partners: 0, lines: 0, referred: 0 }, 'outside any transaction');
});

t.test('a shop user sees no partner, no commission line and nothing in referred_shops, not even its own shop\'s referral', async (t) => {
  for (const [who, user] of [['owner', paidA.user], ['cashier', cashier.user]] as const) {
    const scope = { shopId: paidA.shop.id, userId: user.id };
    t.strictSame(await partnersSide(scope), { partners: [], lines: [], referred: [] }, who);
    const shops = await inScope(scope, (tx) => tx<{ id: string }[]>`select id from shops`);
    t.strictSame(ids(shops), [paidA.shop.id], `${who}: the scope is set (its own shop is visible)`);
  }
});

t.test('app.user_id set to a shop user\'s or a partner\'s id does not make app_is_admin() true; only a live users row of kind admin does', async (t) => {
  const isAdmin = async (scope: Scope) => (await inScope(scope, (tx) => tx<{ admin: boolean }[]>`select app_is_admin() as admin`))[0]!.admin;
  const deleted = await admin(api);
  await api.ownerSql`update users set deleted_at = now() where id = ${deleted.id}`;
  t.strictSame(
    {
      owner: await isAdmin({ shopId: null, userId: paidA.user.id }),
      ownerInItsShop: await isAdmin({ shopId: paidA.shop.id, userId: paidA.user.id }),
      partner: await isAdmin(asPartner(partnerA.id)),
      unknown: await isAdmin({ shopId: null, userId: randomUUID() }),
      nobody: await isAdmin(nobody),
      deletedAdmin: await isAdmin({ shopId: null, userId: deleted.id }),
      admin: await isAdmin(asAdmin),
    },
    { owner: false, ownerInItsShop: false, partner: false, unknown: false, nobody: false, deletedAdmin: false, admin: true },
    'app_is_admin() by user set',
  );
});

t.test('no user can rewrite its own kind or shop: neither a partner nor a shop\'s cashier becomes an administrator or moves shop', async (t) => {
  const attempts = [
    ['partner', asPartner(partnerA.id), partnerA.id],
    ['cashier', { shopId: paidA.shop.id, userId: cashier.user.id }, cashier.user.id],
  ] as const;
  for (const [who, scope, id] of attempts) {
    t.equal(await written(scope, (tx) => tx`update users set kind = 'admin', shop_id = null, role = null where id = ${id} returning id`), '42501', `${who}: to administrator`);
    t.equal(await written(scope, (tx) => tx`update users set shop_id = ${paidB.shop.id} where id = ${id} returning id`), '42501', `${who}: to another shop`);
    t.equal((await inScope(scope, (tx) => tx<{ admin: boolean }[]>`select app_is_admin() as admin`))[0]!.admin, false, `${who}: still no administrator`);
  }
  const [row] = await api.ownerSql<{ kind: string; shop_id: string }[]>`select kind, shop_id from users where id = ${cashier.user.id}`;
  t.strictSame(row, { kind: 'shop', shop_id: paidA.shop.id });
});

// ------------------------------------------------------------------------------------------- HTTP

const DEVICE_UNAUTHENTICATED = { message: "Identifiants de l'appareil manquants.", code: 'device_unauthenticated' };
/** The operations whose only middleware is `authenticate`: any account may call them (and logout would end the session). */
const ANY_ACCOUNT = ['GET /api/v1/auth/me', 'POST /api/v1/auth/logout', 'PUT /api/v1/profile', 'POST /api/v1/profile/password'];
/** Path parameters that are not UUIDs, with a value of the right shape. */
const PLAUSIBLE: Record<string, string> = { code: 'K7M2Q9', reference: 'SUB-3F9A61C2D04B7E18', chain_no: '1' };

const operations = operationsOf((await api.raw('GET', '/openapi.json')).body);
const isPublic = (op: Operation) => !op.spec.security?.length;
const under = (prefix: string) => (op: Operation) => op.path.startsWith(`/api/v1${prefix}/`);
const deviceSync = operations.filter(under('/device/sync'));
const partnerOperations = operations.filter(under('/partner'));
const adminOperations = operations.filter(under('/admin'));
// Under /api/v1: GET /metrics is the operators' (its own token), not a shop's.
const shopOperations = operations.filter(
  (op) => op.path.startsWith('/api/v1/') && !isPublic(op) && !ANY_ACCOUNT.includes(op.name) && ![deviceSync, partnerOperations, adminOperations].some((group) => group.includes(op)),
);

/** The operation with every path parameter filled in: a random UUID, or a plausible value of its kind. */
function urlOf(op: Operation): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = op.spec.parameters.find((p: { name: string; in: string }) => p.in === 'path' && p.name === name);
    if (parameter.schema.format === 'uuid') return randomUUID();
    if (!(name in PLAUSIBLE)) throw new Error(`no plausible value for {${name}} of ${op.name}`);
    return PLAUSIBLE[name]!;
  });
}

const call = (op: Operation, token: string) => api.raw(op.method.toUpperCase(), urlOf(op), { token });

t.test('the operations left out below as open to any account are exactly the authenticated /auth and /profile ones', async (t) => {
  const onlyAuthenticated = operations.filter((op) => !isPublic(op) && (op.path.startsWith('/api/v1/auth/') || op.path.startsWith('/api/v1/profile')));
  t.strictSame(onlyAuthenticated.map((op) => op.name).sort(), [...ANY_ACCOUNT].sort(), 'the authenticated /auth and /profile operations');
  for (const token of [partnerA.token, administrator.token]) t.equal((await api.request('GET', '/auth/me', { token })).status, 200, 'the token is good');
});

t.test('a partner token and an administrator token are refused every shop operation (403), and device sync (401)', async (t) => {
  t.ok(shopOperations.length > 100, `${shopOperations.length} shop operations enumerated`);
  t.equal(deviceSync.length, 2, 'device pull and push');
  for (const [who, token] of [['partner', partnerA.token], ['administrator', administrator.token]] as const) {
    for (const op of shopOperations) expectError(t, await call(op, token), 403, FORBIDDEN, `${who}: ${op.name}`);
    for (const op of deviceSync) expectError(t, await call(op, token), 401, DEVICE_UNAUTHENTICATED, `${who}: ${op.name}`);
  }
});

t.test('shop tokens of every role are refused every partner and administrator operation; a partner the administrator ones, and the reverse', async (t) => {
  t.equal(partnerOperations.length, 4, 'the partner\'s operations');
  t.equal(adminOperations.length, 6, 'the administrator\'s operations');
  for (const [who, token] of [['owner', paidA.token], ['manager', manager.token], ['cashier', cashier.token]] as const) {
    for (const op of [...partnerOperations, ...adminOperations]) expectError(t, await call(op, token), 403, FORBIDDEN, `${who}: ${op.name}`);
  }
  for (const op of adminOperations) expectError(t, await call(op, partnerA.token), 403, FORBIDDEN, `partner: ${op.name}`);
  for (const op of partnerOperations) expectError(t, await call(op, administrator.token), 403, FORBIDDEN, `administrator: ${op.name}`);
});

t.test('a partner token whose claims are altered is refused, even signed again with the app\'s key', async (t) => {
  const dashboard = (token: string) => api.request('GET', '/partner/dashboard', { token });
  t.equal((await dashboard(partnerA.token)).status, 200, 'the token as issued');
  const [header, payload, signature] = partnerA.token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  const altered = (changes: Record<string, unknown>) =>
    [header, Buffer.from(JSON.stringify({ ...claims, ...changes })).toString('base64url'), signature].join('.');
  expectError(t, await dashboard(altered({ sub: partnerB.id })), 401, UNAUTHENTICATED, 'another partner\'s id');
  expectError(t, await dashboard(altered({ shop: paidA.shop.id })), 401, UNAUTHENTICATED, 'a shop added');

  // Well signed, the claims still have to match the session they name.
  const resigned = (userId: string, shopId: string | null) =>
    signAccessToken(api.runtime.appKey, { userId, sessionId: claims.sid, shopId }, new Date(claims.exp * 1000));
  t.equal((await dashboard(await resigned(partnerA.id, null))).status, 200, 'signed again unchanged: still good');
  expectError(t, await dashboard(await resigned(partnerB.id, null)), 401, UNAUTHENTICATED, 'signed again with another partner\'s id');
  expectError(t, await dashboard(await resigned(partnerA.id, paidA.shop.id)), 401, UNAUTHENTICATED, 'signed again with a shop');
  expectError(t, await api.request('GET', '/shop', { token: await resigned(partnerA.id, paidA.shop.id) }), 401, UNAUTHENTICATED, 'a shop operation with a shop added');
});

t.test('a partner\'s referrals and commissions list only its own shops and lines, whatever shop it filters on', async (t) => {
  const list = async (token: string, path: string) => {
    const reply = await api.request('GET', path, { token });
    t.equal(reply.status, 200, path);
    return reply.body.data as Record<string, string>[];
  };
  t.strictSame((await list(partnerA.token, '/partner/referrals')).map((r) => r.shop_id).sort(), sorted(paidA.shop.id, trialA.shop.id), 'partner A\'s referrals');
  t.strictSame((await list(partnerB.token, '/partner/referrals')).map((r) => r.shop_id), [paidB.shop.id], 'partner B\'s referrals');
  t.strictSame((await list(partnerA.token, '/partner/commissions')).map((line) => line.id), [lineA.id], 'partner A\'s lines');
  t.strictSame((await list(partnerB.token, '/partner/commissions')).map((line) => line.id), [lineB.id], 'partner B\'s lines');
  t.strictSame((await list(partnerA.token, `/partner/commissions?shop_id=${paidA.shop.id}`)).map((line) => line.id), [lineA.id], 'its own shop as the filter');
  t.strictSame(await list(partnerA.token, `/partner/commissions?shop_id=${paidB.shop.id}`), [], 'another partner\'s shop as the filter');
  t.strictSame(await list(partnerB.token, `/partner/commissions?shop_id=${paidA.shop.id}`), [], 'and the reverse');
});
