import { createRoute, z } from '@hono/zod-openapi';
import { revokeUserSessions } from '../auth/sessions.ts';
import type { Caller } from '../env.ts';
import { errors } from '../errors.ts';
import { hashPassword } from '../lib/password.ts';
import { CursorAt, decodeCursor, page } from '../lib/pagination.ts';
import { authenticate, hasRole, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, IdParam, jsonBody, jsonResponse, ListQuery, many, one, pickErrors, refusals } from '../schemas.ts';
import { CASHIER } from './examples.ts';
import { createShopUser, deleteShopUser, findUser, listShopUsers, toUserRecord, updateUser, type UserChanges } from './queries.ts';
import { CreateUserBody, UpdateUserBody, UserRecord } from './schemas.ts';

/**
 * Staff rules (CONTRACT section 3): managers manage cashiers; only the owner appoints, changes or
 * removes managers and owners, and only the owner changes a role.
 */
function mayManage(caller: Caller, target: Pick<UserRecord, 'role'>): boolean {
  return hasRole(caller, 'owner') || target.role === 'cashier';
}

const STAFF_RULES =
  'Managers may create, change and remove cashiers; creating or changing a manager or an owner, and any change of role, needs the owner. ' +
  'The shop\'s last owner cannot be demoted or removed (409 `last_owner`).';

const listUsers = createRoute({
  method: 'get',
  path: '/users',
  tags: ['Staff'],
  operationId: 'listUsers',
  summary: 'List the shop\'s staff (manager or owner)',
  description: 'Every user of the caller\'s shop, owners included, oldest first, by pages (`limit`, `cursor`). Cashiers get a 403. Passwords are never answered.',
  security: bearer,
  middleware: [authenticate, requireRole('manager')] as const,
  request: { query: ListQuery },
  responses: { 200: jsonResponse('Staff, oldest first.', many(UserRecord)), ...pickErrors(401, 403) },
});

const createUser = createRoute({
  method: 'post',
  path: '/users',
  tags: ['Staff'],
  operationId: 'createUser',
  summary: 'Add a staff member (manager or owner)',
  description: `${STAFF_RULES} The new user logs in with the e-mail and password given; an e-mail any account already uses is a 422 on \`email\`.`,
  security: bearer,
  middleware: [authenticate, requireRole('manager'), requireActiveSubscription] as const,
  request: { body: jsonBody(CreateUserBody) },
  responses: {
    201: jsonResponse('The new user.', one(UserRecord), { data: CASHIER }),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `email` is already taken by an account.' }),
  },
});

const putUser = createRoute({
  method: 'put',
  path: '/users/{id}',
  tags: ['Staff'],
  operationId: 'updateUser',
  summary: 'Change a staff member (manager or owner)',
  description: `${STAFF_RULES} A new password ends that user's sessions.`,
  security: bearer,
  middleware: [authenticate, requireRole('manager'), requireActiveSubscription] as const,
  request: { params: IdParam, body: jsonBody(UpdateUserBody) },
  responses: {
    200: jsonResponse('The user as saved.', one(UserRecord), { data: { ...CASHIER, role: 'manager', updated_at: '2026-11-21T08:05:44.000Z' } }),
    ...pickErrors(400, 401, 402, 403, 404, 413),
    ...refusals(409, { last_owner: 'This is the shop\'s last owner: it cannot be given another role.' }),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `email` is already taken by another account.' }),
  },
});

const deleteUser = createRoute({
  method: 'delete',
  path: '/users/{id}',
  tags: ['Staff'],
  operationId: 'deleteUser',
  summary: 'Remove a staff member (manager or owner)',
  description: `${STAFF_RULES} The user's sessions end at once; the history that names them is kept.`,
  security: bearer,
  middleware: [authenticate, requireRole('manager'), requireActiveSubscription] as const,
  request: { params: IdParam },
  responses: {
    204: { description: 'Removed.' },
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { last_owner: 'This is the shop\'s last owner: it cannot be removed.' }),
  },
});

export const userRoutes = newRouter()
  .openapi(listUsers, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const after = decodeCursor(cursor, z.tuple([CursorAt, z.uuid()]));
    const { rows, nextCursor } = page(await listShopUsers(c.var.tx, limit, after), limit, (row) => [row.cursor_at, row.id]);
    return c.json({ data: rows.map(toUserRecord), meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(createUser, async (c) => {
    const body = c.req.valid('json');
    const { caller, tx, deps } = c.var;
    if (!mayManage(caller, body)) throw errors.forbidden();
    const user = await createShopUser(tx, {
      shopId: caller.shopId!,
      name: body.name,
      email: body.email,
      passwordHash: await hashPassword(body.password, deps.config.BCRYPT_ROUNDS),
      role: body.role,
      phone: body.phone ?? null,
      locale: body.locale ?? 'fr',
    });
    return c.json({ data: user }, 201);
  })
  .openapi(putUser, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { caller, tx, deps } = c.var;
    const target = await findUser(tx, id);
    if (!target || target.shop_id !== caller.shopId) throw errors.notFound();
    const changesRole = body.role !== undefined && body.role !== target.role;
    if (!mayManage(caller, target) || (changesRole && !hasRole(caller, 'owner'))) throw errors.forbidden();
    const { password, ...rest } = body;
    const changes: UserChanges = { ...rest };
    if (password !== undefined) changes.password_hash = await hashPassword(password, deps.config.BCRYPT_ROUNDS);
    const user = (await updateUser(tx, id, changes))!;
    if (password !== undefined) await revokeUserSessions(tx, id, caller.sessionId);
    return c.json({ data: user }, 200);
  })
  .openapi(deleteUser, async (c) => {
    const { id } = c.req.valid('param');
    const { caller, tx } = c.var;
    const target = await findUser(tx, id);
    if (!target || target.shop_id !== caller.shopId) throw errors.notFound();
    if (!mayManage(caller, target)) throw errors.forbidden();
    await deleteShopUser(tx, id);
    await revokeUserSessions(tx, id);
    return c.body(null, 204);
  });
