import { randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, chars, createCategory, createProduct, expireSubscription, registerShop } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../support/replies.ts';

const api = await startService(t);

const CATEGORY_KEYS = ['created_at', 'id', 'name', 'parent_id', 'sort_order', 'updated_at'];

const postCategory = (token: string, body: Record<string, unknown>) => api.request('POST', '/categories', { token, body });
const putCategory = (token: string, id: string, body: Record<string, unknown>) => api.request('PUT', `/categories/${id}`, { token, body });
const deleteCategory = (token: string, id: string) => api.request('DELETE', `/categories/${id}`, { token });

async function listedIds(token: string): Promise<string[]> {
  const reply = await api.request('GET', '/categories?limit=200', { token });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.map((c: any) => c.id);
}

/** The category row as stored, read past row-level security. */
async function storedCategory(id: string) {
  const [row] = await api.ownerSql`select id, shop_id, name, parent_id, sort_order, deleted_at from categories where id = ${id}`;
  return row;
}

/** By sort_order, then id, as the list promises. */
const listOrder = (categories: { id: string; sort_order: number }[]) =>
  [...categories].sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((c) => c.id);

// Creating, reading, changing

t.test('creating a category answers 201 with the category record, top level with sort_order 0 by default', async (t) => {
  const owner = await registerShop(api);
  const reply = await postCategory(owner.token, { name: 'Boissons' });
  t.equal(reply.status, 201);
  t.strictSame(Object.keys(reply.body), ['data']);
  const category = reply.body.data;
  t.strictSame(Object.keys(category).sort(), CATEGORY_KEYS);
  t.match(category, { name: 'Boissons', parent_id: null, sort_order: 0 });
  t.match(category.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.ok(category.created_at.endsWith('Z') && !Number.isNaN(Date.parse(category.created_at)), 'created_at is ISO-8601 UTC');
  t.ok(category.updated_at.endsWith('Z') && !Number.isNaN(Date.parse(category.updated_at)), 'updated_at is ISO-8601 UTC');

  const child = await postCategory(owner.token, { name: 'Sodas', parent_id: category.id, sort_order: 7 });
  t.equal(child.status, 201);
  t.match(child.body.data, { name: 'Sodas', parent_id: category.id, sort_order: 7 });

  const list = await api.request('GET', '/categories', { token: owner.token });
  t.equal(list.status, 200);
  t.strictSame(list.body.meta, { next_cursor: null });
  t.strictSame(list.body.data, [category, child.body.data], 'both are listed exactly as created');
  t.match(await storedCategory(category.id), { shop_id: owner.shop.id, deleted_at: null });
});

t.test('a manager creates, changes and deletes categories too', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const created = await postCategory(manager.token, { name: 'Épicerie' });
  t.equal(created.status, 201);
  const changed = await putCategory(manager.token, created.body.data.id, { name: 'Épicerie fine' });
  t.equal(changed.status, 200);
  t.equal(changed.body.data.name, 'Épicerie fine');
  t.equal((await deleteCategory(manager.token, created.body.data.id)).status, 204);
});

t.test('PUT changes only the fields it sends', async (t) => {
  const owner = await registerShop(api);
  const parent = await createCategory(api, owner.token, { name: 'Maison' });
  const category = await createCategory(api, owner.token, { name: 'Cuisine', parent_id: parent.id, sort_order: 4 });

  const renamed = await putCategory(owner.token, category.id, { name: '  Cuisine et table  ' });
  t.equal(renamed.status, 200);
  t.strictSame(Object.keys(renamed.body), ['data']);
  t.match(renamed.body.data, { id: category.id, name: 'Cuisine et table', parent_id: parent.id, sort_order: 4, created_at: category.created_at });

  const reordered = await putCategory(owner.token, category.id, { sort_order: -2 });
  t.equal(reordered.status, 200);
  t.match(reordered.body.data, { name: 'Cuisine et table', parent_id: parent.id, sort_order: -2 });

  const topLevel = await putCategory(owner.token, category.id, { parent_id: null });
  t.equal(topLevel.status, 200);
  t.match(topLevel.body.data, { name: 'Cuisine et table', parent_id: null, sort_order: -2 });

  const nothing = await putCategory(owner.token, category.id, {});
  t.equal(nothing.status, 200, 'an empty body changes nothing');
  t.match(nothing.body.data, { name: 'Cuisine et table', parent_id: null, sort_order: -2 });
  t.match(await storedCategory(category.id), { name: 'Cuisine et table', parent_id: null, sort_order: -2 });
});

// Bounds

t.test('name is required, trimmed and 1 to 120 characters', async (t) => {
  const owner = await registerShop(api);
  const longest = await postCategory(owner.token, { name: chars(120) });
  t.equal(longest.status, 201, '120 characters');
  t.equal(longest.body.data.name, chars(120));
  const shortest = await postCategory(owner.token, { name: 'A' });
  t.equal(shortest.status, 201, '1 character');
  const padded = await postCategory(owner.token, { name: `  ${chars(120, 'b')}  ` });
  t.equal(padded.status, 201, '120 characters between spaces');
  t.equal(padded.body.data.name, chars(120, 'b'), 'stored trimmed');

  expectInvalid(t, await postCategory(owner.token, { name: chars(121) }), 'name', '121 characters');
  expectInvalid(t, await postCategory(owner.token, { name: '' }), 'name', 'empty');
  expectInvalid(t, await postCategory(owner.token, { name: '   ' }), 'name', 'blank');
  expectInvalid(t, await postCategory(owner.token, { name: null }), 'name', 'null');
  expectInvalid(t, await postCategory(owner.token, {}), 'name', 'missing');
  expectInvalid(t, await postCategory(owner.token, { name: 12 }), 'name', 'a number');

  expectInvalid(t, await putCategory(owner.token, shortest.body.data.id, { name: chars(121) }), 'name', 'PUT 121 characters');
  expectInvalid(t, await putCategory(owner.token, shortest.body.data.id, { name: '' }), 'name', 'PUT empty');
  const put = await putCategory(owner.token, shortest.body.data.id, { name: chars(120, 'c') });
  t.equal(put.status, 200, 'PUT 120 characters');
  t.equal((await storedCategory(shortest.body.data.id))!.name, chars(120, 'c'));
  t.equal((await listedIds(owner.token)).length, 3, 'only the valid ones were created');
});

t.test('sort_order is an integer from -1000000 to 1000000', async (t) => {
  const owner = await registerShop(api);
  for (const sort_order of [-1_000_000, 1_000_000, 0]) {
    const reply = await postCategory(owner.token, { name: `Order ${sort_order}`, sort_order });
    t.equal(reply.status, 201, `${sort_order}`);
    t.equal(reply.body.data.sort_order, sort_order);
  }
  for (const sort_order of [-1_000_001, 1_000_001, 1.5, '3', true]) {
    expectInvalid(t, await postCategory(owner.token, { name: 'Out of bounds', sort_order }), 'sort_order', `POST ${JSON.stringify(sort_order)}`);
  }
  const category = await createCategory(api, owner.token);
  expectInvalid(t, await putCategory(owner.token, category.id, { sort_order: 1_000_001 }), 'sort_order', 'PUT 1000001');
  expectInvalid(t, await putCategory(owner.token, category.id, { sort_order: -1_000_001 }), 'sort_order', 'PUT -1000001');
  const inside = await putCategory(owner.token, category.id, { sort_order: -1_000_000 });
  t.equal(inside.status, 200, 'PUT -1000000');
  t.equal(inside.body.data.sort_order, -1_000_000);
  t.equal((await listedIds(owner.token)).length, 4, 'no out-of-bounds category was created');
});

// Parents

t.test('parent_id must be a category of this shop (422 on parent_id)', async (t) => {
  const owner = await registerShop(api);
  const other = await registerShop(api);
  const theirs = await createCategory(api, other.token, { name: 'Leur rayon' });
  const gone = await createCategory(api, owner.token, { name: 'Supprimé' });
  t.equal((await deleteCategory(owner.token, gone.id)).status, 204);

  expectInvalid(t, await postCategory(owner.token, { name: 'Orphan', parent_id: randomUUID() }), 'parent_id', 'POST unknown uuid');
  expectInvalid(t, await postCategory(owner.token, { name: 'Orphan', parent_id: theirs.id }), 'parent_id', 'POST another shop\'s category');
  expectInvalid(t, await postCategory(owner.token, { name: 'Orphan', parent_id: gone.id }), 'parent_id', 'POST a deleted category');
  expectInvalid(t, await postCategory(owner.token, { name: 'Orphan', parent_id: 'not-a-uuid' }), 'parent_id', 'POST not a uuid');
  t.strictSame(await listedIds(owner.token), [], 'nothing was created');

  const category = await createCategory(api, owner.token, { name: 'Mine' });
  expectInvalid(t, await putCategory(owner.token, category.id, { parent_id: randomUUID() }), 'parent_id', 'PUT unknown uuid');
  expectInvalid(t, await putCategory(owner.token, category.id, { parent_id: theirs.id }), 'parent_id', 'PUT another shop\'s category');
  expectInvalid(t, await putCategory(owner.token, category.id, { parent_id: gone.id }), 'parent_id', 'PUT a deleted category');
  t.equal((await storedCategory(category.id))!.parent_id, null, 'the category kept no parent');

  const parent = await createCategory(api, owner.token, { name: 'Parent' });
  const moved = await putCategory(owner.token, category.id, { parent_id: parent.id });
  t.equal(moved.status, 200, 'a category of this shop is a valid parent');
  t.equal(moved.body.data.parent_id, parent.id);
  t.strictSame(await listedIds(other.token), [theirs.id], 'the other shop\'s category is untouched and still alone there');
});

t.test('a category cannot be put inside itself or one of its descendants (422 on parent_id)', async (t) => {
  const owner = await registerShop(api);
  const top = await createCategory(api, owner.token, { name: 'Top' });
  const middle = await createCategory(api, owner.token, { name: 'Middle', parent_id: top.id });
  const bottom = await createCategory(api, owner.token, { name: 'Bottom', parent_id: middle.id });

  expectInvalid(t, await putCategory(owner.token, top.id, { parent_id: top.id }), 'parent_id', 'inside itself');
  expectInvalid(t, await putCategory(owner.token, top.id, { parent_id: middle.id }), 'parent_id', 'inside its child');
  expectInvalid(t, await putCategory(owner.token, top.id, { parent_id: bottom.id }), 'parent_id', 'inside its grandchild');
  expectInvalid(t, await putCategory(owner.token, middle.id, { parent_id: bottom.id }), 'parent_id', 'the middle inside its child');
  expectInvalid(t, await putCategory(owner.token, bottom.id, { parent_id: bottom.id }), 'parent_id', 'a leaf inside itself');
  expectInvalid(t, await putCategory(owner.token, top.id, { name: 'Renamed', parent_id: bottom.id }), 'parent_id', 'with another change');
  t.match(await storedCategory(top.id), { name: 'Top', parent_id: null }, 'the refused change kept nothing');
  t.equal((await storedCategory(middle.id))!.parent_id, top.id);
  t.equal((await storedCategory(bottom.id))!.parent_id, middle.id);

  const up = await putCategory(owner.token, bottom.id, { parent_id: top.id });
  t.equal(up.status, 200, 'a descendant may move up under an ancestor');
  t.equal(up.body.data.parent_id, top.id);
  const sideways = await putCategory(owner.token, middle.id, { parent_id: bottom.id });
  t.equal(sideways.status, 200, 'once no longer its descendant, a former child may become its parent');
  t.equal(sideways.body.data.parent_id, bottom.id);
});

// Listing

t.test('the list is ordered by sort_order, then id', async (t) => {
  const owner = await registerShop(api);
  const created = [];
  for (const sort_order of [5, -3, 5, 0, 1_000_000, -1_000_000, 5, 0]) created.push(await createCategory(api, owner.token, { sort_order }));
  const reply = await api.request('GET', '/categories', { token: owner.token });
  t.equal(reply.status, 200);
  t.strictSame(reply.body.data.map((c: any) => c.id), listOrder(created));
  t.strictSame(reply.body.data.map((c: any) => c.sort_order), [-1_000_000, -3, 0, 0, 5, 5, 5, 1_000_000]);

  const moved = created[0];
  t.equal((await putCategory(owner.token, moved.id, { sort_order: -5 })).status, 200);
  const after = await api.request('GET', '/categories', { token: owner.token });
  t.equal(after.body.data[1].id, moved.id, 'a new sort_order moves it in the list');
});

t.test('walking next_cursor with limit=1 visits every category exactly once, in order', async (t) => {
  const owner = await registerShop(api);
  const created = [];
  for (const sort_order of [2, 0, 2, 0, 0, -1, 2]) created.push(await createCategory(api, owner.token, { sort_order }));
  const visited: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (; pages < 20; pages++) {
    const query: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
    const reply: Reply = await api.request('GET', `/categories${query}`, { token: owner.token });
    t.equal(reply.status, 200, `page ${pages}`);
    t.ok(reply.body.data.length <= 1, `page ${pages} holds at most one category`);
    visited.push(...reply.body.data.map((c: any) => c.id));
    cursor = reply.body.meta.next_cursor;
    if (cursor === null) break;
  }
  t.equal(cursor, null, 'the walk ends');
  t.strictSame(visited, listOrder(created), 'every category once, in list order');

  const two = await api.request('GET', '/categories?limit=2', { token: owner.token });
  t.equal(two.body.data.length, 2);
  t.type(two.body.meta.next_cursor, 'string');
  expectInvalid(t, await api.request('GET', '/categories?limit=0', { token: owner.token }), 'limit', 'limit=0');
  expectInvalid(t, await api.request('GET', '/categories?limit=201', { token: owner.token }), 'limit', 'limit=201');
  expectInvalid(t, await api.request('GET', '/categories?cursor=garbage', { token: owner.token }), 'cursor', 'a garbage cursor');
});

// Deleting

t.test('a category holding a product cannot be deleted (409 category_not_empty)', async (t) => {
  const owner = await registerShop(api);
  const category = await createCategory(api, owner.token);
  const product = await createProduct(api, owner.token, { category_id: category.id });
  expectConflict(t, await deleteCategory(owner.token, category.id), 'category_not_empty');
  t.equal((await storedCategory(category.id))!.deleted_at, null, 'still there');
  t.strictSame(await listedIds(owner.token), [category.id], 'still listed');

  t.equal((await api.request('PUT', `/products/${product.id}`, { token: owner.token, body: { category_id: null } })).status, 200);
  t.equal((await deleteCategory(owner.token, category.id)).status, 204, 'once the product has moved out, it can go');
});

t.test('a category holding a subcategory cannot be deleted (409 category_not_empty)', async (t) => {
  const owner = await registerShop(api);
  const parent = await createCategory(api, owner.token);
  const child = await createCategory(api, owner.token, { parent_id: parent.id });
  expectConflict(t, await deleteCategory(owner.token, parent.id), 'category_not_empty');
  t.equal((await storedCategory(parent.id))!.deleted_at, null, 'still there');
  t.equal((await deleteCategory(owner.token, child.id)).status, 204, 'the empty child can go');
  t.equal((await deleteCategory(owner.token, parent.id)).status, 204, 'then the parent, now empty');
  t.strictSame(await listedIds(owner.token), []);
});

t.test('a category whose only product was deleted is empty and can be deleted', async (t) => {
  const owner = await registerShop(api);
  const category = await createCategory(api, owner.token);
  const product = await createProduct(api, owner.token, { category_id: category.id });
  t.equal((await api.request('DELETE', `/products/${product.id}`, { token: owner.token })).status, 204);
  t.equal((await deleteCategory(owner.token, category.id)).status, 204);
});

t.test('an empty category is deleted (204, no body) and disappears from the list', async (t) => {
  const owner = await registerShop(api);
  const kept = await createCategory(api, owner.token);
  const category = await createCategory(api, owner.token);
  const reply = await deleteCategory(owner.token, category.id);
  t.equal(reply.status, 204);
  t.equal(reply.body, '', 'no body');
  t.strictSame(await listedIds(owner.token), [kept.id]);
  t.not((await storedCategory(category.id))!.deleted_at, null, 'the row stays, marked deleted, for the tills to learn of it');
  expectError(t, await deleteCategory(owner.token, category.id), 404, NOT_FOUND, 'DELETE again');
  expectError(t, await putCategory(owner.token, category.id, { name: 'Back' }), 404, NOT_FOUND, 'PUT a deleted category');
});

// Identifiers, roles and tenancy

t.test('an unknown category id is 404 and a malformed one 422 on id', async (t) => {
  const owner = await registerShop(api);
  expectError(t, await putCategory(owner.token, randomUUID(), { name: 'Nobody' }), 404, NOT_FOUND, 'PUT unknown');
  expectError(t, await deleteCategory(owner.token, randomUUID()), 404, NOT_FOUND, 'DELETE unknown');
  expectInvalid(t, await putCategory(owner.token, 'not-a-uuid', { name: 'Nobody' }), 'id', 'PUT malformed');
  expectInvalid(t, await deleteCategory(owner.token, '123'), 'id', 'DELETE malformed');
});

t.test('every category route needs a valid token (401)', async (t) => {
  const owner = await registerShop(api);
  const category = await createCategory(api, owner.token);
  const calls: [string, string, unknown][] = [
    ['GET', '/categories', undefined],
    ['POST', '/categories', { name: 'X' }],
    ['PUT', `/categories/${category.id}`, { name: 'X' }],
    ['DELETE', `/categories/${category.id}`, undefined],
  ];
  for (const [method, path, body] of calls) {
    expectError(t, await api.request(method, path, { body }), 401, UNAUTHENTICATED, `${method} ${path} without a token`);
    expectError(t, await api.request(method, path, { body, token: 'not-a-token' }), 401, UNAUTHENTICATED, `${method} ${path} with a bad token`);
  }
  t.match(await storedCategory(category.id), { name: category.name, deleted_at: null });
});

t.test('a cashier lists the categories (200) but may not create, change or delete one (403)', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const category = await createCategory(api, owner.token, { name: 'Boissons' });
  const list = await api.request('GET', '/categories', { token: cashier.token });
  t.equal(list.status, 200);
  t.strictSame(list.body.data, [category]);

  expectError(t, await postCategory(cashier.token, { name: 'Nouveau' }), 403, FORBIDDEN, 'POST');
  expectError(t, await putCategory(cashier.token, category.id, { name: 'Renamed' }), 403, FORBIDDEN, 'PUT');
  expectError(t, await deleteCategory(cashier.token, category.id), 403, FORBIDDEN, 'DELETE');
  t.strictSame(await listedIds(owner.token), [category.id], 'nothing was created or deleted');
  t.match(await storedCategory(category.id), { name: 'Boissons', deleted_at: null });
});

t.test('another shop\'s category is 404 on PUT and DELETE, never listed, and left unchanged', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const other = await registerShop(api);
  const theirs = await createCategory(api, other.token, { name: 'Leur rayon', sort_order: 3 });
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await putCategory(token, theirs.id, { name: 'Hijacked' }), 404, NOT_FOUND, `${who} PUT`);
    expectError(t, await putCategory(token, theirs.id, {}), 404, NOT_FOUND, `${who} PUT with an empty body`);
    expectError(t, await deleteCategory(token, theirs.id), 404, NOT_FOUND, `${who} DELETE`);
    t.strictSame(await listedIds(token), [], `${who}: not listed`);
  }
  t.match(await storedCategory(theirs.id), { name: 'Leur rayon', sort_order: 3, deleted_at: null, shop_id: other.shop.id });
});

t.test('once the subscription has ended, category changes answer 402 and the list still answers 200', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const category = await createCategory(api, owner.token, { name: 'Boissons' });
  await expireSubscription(api, owner.shop.id);
  for (const [who, token] of [['owner', owner.token], ['manager', manager.token]] as const) {
    expectError(t, await postCategory(token, { name: 'Nouveau' }), 402, SUBSCRIPTION_REQUIRED, `${who} POST`);
    expectError(t, await putCategory(token, category.id, { name: 'Renamed' }), 402, SUBSCRIPTION_REQUIRED, `${who} PUT`);
    expectError(t, await deleteCategory(token, category.id), 402, SUBSCRIPTION_REQUIRED, `${who} DELETE`);
    const list = await api.request('GET', '/categories', { token });
    t.equal(list.status, 200, `${who} GET`);
    t.strictSame(list.body.data.map((c: any) => c.id), [category.id]);
  }
  t.match(await storedCategory(category.id), { name: 'Boissons', deleted_at: null }, 'unchanged');
});
