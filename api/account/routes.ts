import { createRoute, z } from '@hono/zod-openapi';
import { Notice } from '../auth/schemas.ts';
import { revokeUserSessions } from '../auth/sessions.ts';
import { invalidField } from '../errors.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { authenticate } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, GivenPassword, jsonBody, jsonResponse, Locale, one, optionalText, Password, pickErrors, refusals, requiredText } from '../schemas.ts';
import { findPasswordHash, updateUser } from '../users/queries.ts';
import { UserRecord } from '../users/schemas.ts';

const ProfileBody = z
  .object({ name: requiredText(160), phone: optionalText(40), locale: Locale })
  .partial()
  .openapi('UpdateProfile', { example: { name: 'Chantal Ngono', phone: '+237 677 12 34 56', locale: 'fr' } });

const ChangePasswordBody = z.object({ current_password: GivenPassword, password: Password }).openapi('ChangePassword', { example: { current_password: 'Akwa-Douala-2026', password: 'Nouveau-Mot-2026' } });

const putProfile = createRoute({
  method: 'put',
  path: '/profile',
  tags: ['Account'],
  operationId: 'updateProfile',
  summary: 'Change one\'s own name, phone or locale',
  description: 'Any account (shop staff, partner, administrator); allowed after the shop\'s subscription has ended. Only the fields sent change. `locale` chooses the language of the caller\'s e-mails and error messages.',
  security: bearer,
  middleware: [authenticate] as const,
  request: { body: jsonBody(ProfileBody) },
  responses: { 200: jsonResponse('The user as saved.', one(UserRecord)), ...pickErrors(400, 401, 413) },
});

const changePassword = createRoute({
  method: 'post',
  path: '/profile/password',
  tags: ['Account'],
  operationId: 'changePassword',
  summary: 'Change one\'s own password',
  description: 'A wrong current password is a 422 on `current_password`. Every other session of the account ends; this one goes on.',
  security: bearer,
  middleware: [authenticate] as const,
  request: { body: jsonBody(ChangePasswordBody) },
  responses: {
    200: jsonResponse('Password changed.', one(Notice)),
    ...pickErrors(400, 401, 413),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `current_password` is not the account\'s password.' }),
  },
});

export const accountRoutes = newRouter()
  .openapi(putProfile, async (c) => {
    const user = await updateUser(c.var.tx, c.var.caller.userId, c.req.valid('json'));
    return c.json({ data: user! }, 200);
  })
  .openapi(changePassword, async (c) => {
    const { current_password, password } = c.req.valid('json');
    const { tx, caller, deps } = c.var;
    const currentHash = await findPasswordHash(tx, caller.userId);
    if (!currentHash || !(await verifyPassword(current_password, currentHash))) {
      throw invalidField('current_password', 'The current password is incorrect.');
    }
    await updateUser(tx, caller.userId, { password_hash: await hashPassword(password, deps.config.BCRYPT_ROUNDS) });
    await revokeUserSessions(tx, caller.userId, caller.sessionId);
    return c.json({ data: { message: 'Your password has been changed.' } }, 200);
  });
