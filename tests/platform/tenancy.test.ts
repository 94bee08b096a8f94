import t from 'tap';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { createSql } from '../../api/db.ts';

const api = await startService(t);
const shopA = await registerShop(api, { shop_name: 'Quincaillerie A' });
const shopB = await registerShop(api, { shop_name: 'Pharmacie B' });

t.test('the application role is no superuser, cannot bypass row-level security and owns no table', async (t) => {
  const [role] = await api.appSql<{ rolsuper: boolean; rolbypassrls: boolean }[]>`
    select rolsuper, rolbypassrls from pg_roles where rolname = current_user`;
  t.same(role, { rolsuper: false, rolbypassrls: false });
  const owned = await api.appSql`select tablename from pg_tables where schemaname = 'public' and tableowner = current_user`;
  t.equal(owned.length, 0);
});

t.test('every table of the public schema has row-level security enabled', async (t) => {
  const unprotected = await api.ownerSql<{ relname: string }[]>`
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and not c.relrowsecurity
       and c.relname not in ('schema_migrations', 'schema_functions')`;
  t.same(unprotected.map((row) => row.relname), []);
});

t.test('a query without the shop setting sees no row of any shop', async (t) => {
  const [counts] = await api.appSql<{ shops: number; users: number; sessions: number }[]>`
    select (select count(*)::int from shops) as shops, (select count(*)::int from users) as users,
           (select count(*)::int from sessions) as sessions`;
  t.same(counts, { shops: 0, users: 0, sessions: 0 });
  const [owner] = await api.ownerSql<{ shops: number }[]>`select count(*)::int as shops from shops`;
  t.ok(owner!.shops >= 2, 'the rows do exist');
});

t.test('with a shop set, only that shop\'s rows are visible', async (t) => {
  const seen = await inTenant(api.appSql, { shopId: shopA.shop.id, userId: null }, async (tx) => ({
    shops: (await tx<{ id: string }[]>`select id from shops`).map((row) => row.id),
    userShops: [...new Set((await tx<{ shop_id: string }[]>`select shop_id from users`).map((row) => row.shop_id))],
  }));
  t.same(seen, { shops: [shopA.shop.id], userShops: [shopA.shop.id] });
});

t.test('a row cannot be written into another shop', async (t) => {
  const attempt = inTenant(api.appSql, { shopId: shopA.shop.id, userId: null }, (tx) =>
    tx`insert into users (shop_id, kind, role, name, email, password_hash)
       values (${shopB.shop.id}, 'shop', 'owner', 'Intrus', 'intrus@example.cm', 'x')`,
  );
  await t.rejects(attempt, { code: '42501' }, 'new row violates row-level security policy');
  const updated = await inTenant(api.appSql, { shopId: shopA.shop.id, userId: null }, (tx) =>
    tx`update shops set name = 'Piraté' where id = ${shopB.shop.id} returning id`,
  );
  t.equal(updated.length, 0);
});

t.test('the shop setting is local to its transaction and never leaks to the next borrower', async (t) => {
  const connection = await api.appSql.reserve();
  try {
    await connection`begin`;
    await connection`select set_config('app.shop_id', ${shopA.shop.id}, true)`;
    const [inside] = await connection<{ n: number }[]>`select count(*)::int as n from shops`;
    await connection`commit`;
    const [after] = await connection<{ n: number }[]>`select count(*)::int as n from shops`;
    t.equal(inside!.n, 1);
    t.equal(after!.n, 0);
  } finally {
    connection.release();
  }
});

t.test('inTenant pipelines BEGIN: a failing body is rolled back whole, even with a statement still in flight, and the connection goes back clean', async (t) => {
  // One connection only, so the next borrower is the very connection the failed transaction used.
  const single = createSql(api.appUrl, { max: 1, preparedStatements: api.config.DB_PREPARED_STATEMENTS });
  t.teardown(() => single.end({ timeout: 1 }));
  const before = (await api.ownerSql<{ name: string }[]>`select name from shops where id = ${shopA.shop.id}`)[0]!.name;
  const failing = inTenant(single, { shopId: shopA.shop.id, userId: null }, async (tx) => {
    await tx`update shops set name = 'Renamed inside' where id = ${shopA.shop.id}`;
    // Sent without waiting: it must run inside the transaction, before the rollback, or not at all.
    void tx`select pg_sleep(0.05), set_config('application_name', 'late', false)`.catch(() => undefined);
    throw new Error('the body fails');
  });
  await t.rejects(failing, /the body fails/);
  const [after] = await api.ownerSql<{ name: string }[]>`select name from shops where id = ${shopA.shop.id}`;
  t.equal(after!.name, before, 'the update was rolled back');
  // A setting local to a transaction outlives its statement only inside an open transaction.
  await single`select set_config('app.probe', 'set', true)`;
  const [state] = await single<{ probe: string; shop: string; name: string }[]>`
    select coalesce(current_setting('app.probe', true), '') as probe, coalesce(current_setting('app.shop_id', true), '') as shop,
           current_setting('application_name') as name`;
  t.same(state!.probe, '', 'no transaction left open');
  t.same(state!.shop, '', 'no shop set');
  t.not(state!.name, 'late', 'the statement in flight ran inside the transaction and was rolled back with it');
  const [seen] = await single<{ n: number }[]>`select count(*)::int as n from shops`;
  t.equal(seen!.n, 0, 'the next borrower sees no shop');
  const committed = await inTenant(single, { shopId: shopA.shop.id, userId: null }, async (tx) => (await tx<{ n: number }[]>`select count(*)::int as n from shops`)[0]!.n);
  t.equal(committed, 1, 'and the connection serves the next transaction');
});

t.test('a body that throws before returning a promise (not async, or a query that fails to build) is rolled back too, and the connection goes back clean', async (t) => {
  const single = createSql(api.appUrl, { max: 1, preparedStatements: api.config.DB_PREPARED_STATEMENTS });
  t.teardown(() => single.end({ timeout: 1 }));
  const thrown = (): Promise<never> => {
    throw new Error('thrown before any promise');
  };
  await t.rejects(inTenant(single, { shopId: shopA.shop.id, userId: null }, thrown), /thrown before any promise/);
  await t.rejects(inTenant(single, { shopId: shopA.shop.id, userId: null }, async () => 1, { check: thrown }), /thrown before any promise/, 'a check that throws the same way');
  await single`select set_config('app.probe', 'set', true)`;
  const [state] = await single<{ probe: string; shop: string }[]>`
    select coalesce(current_setting('app.probe', true), '') as probe, coalesce(current_setting('app.shop_id', true), '') as shop`;
  t.strictSame(state, { probe: '', shop: '' }, 'no transaction left open, no shop set');
});

t.test('a read-only request transaction refuses any write, and its connection goes back clean though its commit is not awaited', async (t) => {
  const single = createSql(api.appUrl, { max: 1, preparedStatements: api.config.DB_PREPARED_STATEMENTS });
  t.teardown(() => single.end({ timeout: 1 }));
  const write = inTenant(single, { shopId: shopA.shop.id, userId: null }, (tx) => tx`update shops set name = 'Renamed by a read' where id = ${shopA.shop.id}`, { readOnly: true });
  await t.rejects(write, { code: '25006' }, 'cannot execute UPDATE in a read-only transaction');
  const seen = await inTenant(single, { shopId: shopA.shop.id, userId: null }, async (tx) => (await tx<{ n: number }[]>`select count(*)::int as n from shops`)[0]!.n, { readOnly: true });
  t.equal(seen, 1, 'a read answers');
  // The next borrower of the one connection finds the read's transaction ended, and no shop set.
  await single`select set_config('app.probe', 'set', true)`;
  const [state] = await single<{ probe: string; shop: string }[]>`
    select coalesce(current_setting('app.probe', true), '') as probe, coalesce(current_setting('app.shop_id', true), '') as shop`;
  t.strictSame(state, { probe: '', shop: '' });
  t.not((await api.ownerSql<{ name: string }[]>`select name from shops where id = ${shopA.shop.id}`)[0]!.name, 'Renamed by a read');
});

t.test('the application role cannot switch to the owner to escape row-level security', async (t) => {
  await t.rejects(api.appSql`set role postgres`, { code: '42501' });
});

t.test('a token of one shop reads only its own shop', async (t) => {
  const reply = await api.request('GET', '/shop', { token: shopB.token });
  t.equal(reply.status, 200);
  t.equal(reply.body.data.id, shopB.shop.id);
  t.equal(reply.body.data.name, 'Pharmacie B');
});

t.test('a token whose shop claim is altered is refused', async (t) => {
  // The session is checked under the token's own shop and user: a token can only ever open its own shop.
  const [session] = await api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from sessions where user_id = ${shopA.user.id} and shop_id = ${shopA.shop.id}`;
  t.equal(session!.n, 1);
  const [header, payload, signature] = shopA.token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  const forged = [header, Buffer.from(JSON.stringify({ ...claims, shop: shopB.shop.id })).toString('base64url'), signature].join('.');
  const reply = await api.request('GET', '/shop', { token: forged });
  t.equal(reply.status, 401);
  t.same(reply.body, { message: 'Unauthenticated.', code: 'unauthenticated' });
});
