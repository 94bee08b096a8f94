import { randomUUID } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import { errors, invalidField } from '../errors.ts';
import { enableSimulator } from '../fiscal/certification-queries.ts';
import { enqueueJob } from '../lib/jobs.ts';
import { dummyHash, hashPassword, verifyPassword } from '../lib/password.ts';
import { randomToken, seal, sha256 } from '../lib/secrets.ts';
import { authenticate } from '../middleware/auth.ts';
import { emailBucket, limitPublicByAddress, refund, withinLimit } from '../middleware/rate-limit.ts';
import { enterTenant, inTenant } from '../middleware/tenancy.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, one, pickErrors, refusals } from '../schemas.ts';
import { createShop, findCurrentShop } from '../shop/queries.ts';
import { createShopUser, findUser } from '../users/queries.ts';
import { consumePasswordReset, findLogin, requestPasswordReset } from './queries.ts';
import { ForgotPasswordBody, LoginBody, Me, Notice, OwnerSession, RegisterBody, ResetPasswordBody, Session } from './schemas.ts';
import { openSession, revokeSession } from './sessions.ts';

const register = createRoute({
  method: 'post',
  path: '/auth/register',
  tags: ['Account'],
  operationId: 'register',
  summary: 'Create a shop and its owner, on a 30-day trial',
  description:
    'Public. Creates the shop (its 30-day trial starts now, French unless `locale` says otherwise) and its owner, and answers the owner\'s token with both records: ' +
    'the till is logged in at once. An e-mail already used by any account is a 422 on `owner_email`. A `referral_code` of an active partner makes the shop its referral; ' +
    'any other code is kept as typed and never blocks signup. Rate-limited per address (300 requests in 15 minutes) and per e-mail (10 registrations an hour): 429 `rate_limited`.',
  middleware: [limitPublicByAddress] as const,
  request: { body: jsonBody(RegisterBody) },
  responses: {
    201: jsonResponse('The new shop, its owner and a token.', one(OwnerSession)),
    ...pickErrors(400, 413, 429),
    ...refusals(422, { validation_failed: 'An input is missing or malformed, or `owner_email` is already taken by an account.' }),
  },
});

const login = createRoute({
  method: 'post',
  path: '/auth/login',
  tags: ['Account'],
  operationId: 'login',
  summary: 'Issue a bearer token',
  description:
    'Public; serves shop staff, partners and administrators alike (`user.kind`). After 10 failed attempts for one e-mail in 15 minutes, ' +
    'every attempt for it answers 429 until the window ends. A wrong e-mail or password is a 401 `invalid_credentials`, the same for both. ' +
    'The token opens a session valid 30 days; `device_name` ("Caisse 1") is kept on it.',
  middleware: [limitPublicByAddress] as const,
  request: { body: jsonBody(LoginBody) },
  responses: {
    200: jsonResponse('A token, the user and their shop (null for partners and administrators).', one(Session)),
    ...pickErrors(400, 413, 429),
    ...refusals(401, { invalid_credentials: 'No account has this e-mail, or the password is not its password (the answer does not say which).' }),
  },
});

const forgotPassword = createRoute({
  method: 'post',
  path: '/auth/forgot-password',
  tags: ['Account'],
  operationId: 'forgotPassword',
  summary: 'E-mail a password reset token',
  description:
    'Public. Answers 200 with the same message whether or not the address is known, so it tells nobody which e-mails have accounts. ' +
    'The e-mail, in the account\'s language, carries a token valid 60 minutes and single-use. 5 requests per e-mail an hour, then 429 `rate_limited`.',
  middleware: [limitPublicByAddress] as const,
  request: { body: jsonBody(ForgotPasswordBody) },
  responses: {
    200: jsonResponse('Accepted.', one(Notice), { data: { message: 'If this address belongs to an account, a reset token is on its way.' } }),
    ...pickErrors(400, 413, 429),
  },
});

const resetPassword = createRoute({
  method: 'post',
  path: '/auth/reset-password',
  tags: ['Account'],
  operationId: 'resetPassword',
  summary: 'Set a new password with a reset token',
  description: 'Public. The token from the e-mail of `POST /auth/forgot-password`, with the same e-mail. Ends every session of the account: log in again. A wrong, used or expired token is a 422 on `token` (`invalid_reset_token`).',
  middleware: [limitPublicByAddress] as const,
  request: { body: jsonBody(ResetPasswordBody) },
  responses: {
    200: jsonResponse('Password changed.', one(Notice), { data: { message: 'Your password has been reset.' } }),
    ...pickErrors(400, 413, 429),
    ...refusals(422, { invalid_reset_token: { on: 'token', meaning: 'The token is wrong, already used or expired.' } }),
  },
});

const me = createRoute({
  method: 'get',
  path: '/auth/me',
  tags: ['Account'],
  operationId: 'getMe',
  summary: 'The current user and their shop',
  description: 'Any account. `shop` is the caller\'s shop with its settings and subscription, or null for partners and administrators. A till calls it on start to check its token.',
  security: bearer,
  middleware: [authenticate] as const,
  responses: { 200: jsonResponse('The caller.', one(Me)), ...pickErrors(401) },
});

const logout = createRoute({
  method: 'post',
  path: '/auth/logout',
  tags: ['Account'],
  operationId: 'logout',
  summary: 'End the session: the token stops working at once',
  description: 'Any account. Ends this token\'s session only; the account\'s other sessions (other tills) go on. Allowed after the shop\'s subscription has ended. Answers no body.',
  security: bearer,
  middleware: [authenticate] as const,
  responses: { 204: { description: 'Logged out.' }, ...pickErrors(401) },
});

export const authRoutes = newRouter()
  .openapi(register, async (c) => {
    const body = c.req.valid('json');
    const { sql, appKey, config } = c.var.deps;
    await withinLimit(c, 'registrationsPerEmail', emailBucket('register', body.owner_email));
    const passwordHash = await hashPassword(body.password, config.BCRYPT_ROUNDS);
    const shopId = randomUUID();
    const session = await sql.begin(async (tx) => {
      await enterTenant(tx, { shopId, userId: null });
      const shop = await createShop(tx, {
        id: shopId,
        name: body.shop_name,
        business_type: body.business_type ?? null,
        phone: body.phone ?? null,
        city: body.city ?? null,
        tax_id: body.tax_id ?? null,
        locale: body.locale ?? 'fr',
        referral_code: body.referral_code?.trim() || null,
      });
      const user = await createShopUser(
        tx,
        { shopId, name: body.owner_name, email: body.owner_email, passwordHash, role: 'owner', phone: body.phone ?? null, locale: body.locale ?? 'fr' },
        'owner_email',
      );
      await enterTenant(tx, { shopId, userId: user.id });
      if (config.FISCAL_PROVIDER === 'simulator') await enableSimulator(tx);
      return { token: await openSession(tx, appKey, user, null), user, shop };
    });
    return c.json({ data: session }, 201);
  })
  .openapi(login, async (c) => {
    const { email, password, device_name } = c.req.valid('json');
    const { sql, appKey, config } = c.var.deps;
    // Each attempt is counted before the password is checked, in one atomic step, so a burst of
    // simultaneous guesses cannot slip past the limit; an attempt that succeeds is given back.
    const failures = emailBucket('login-failures', email);
    await withinLimit(c, 'failedLoginsPerEmail', failures);
    const account = await findLogin(sql, email);
    const matches = await verifyPassword(password, account?.password_hash ?? dummyHash(config.BCRYPT_ROUNDS));
    if (!account || !matches) throw errors.invalidCredentials();
    await refund(sql, failures);
    const session = await inTenant(sql, { shopId: account.shop_id, userId: account.user_id }, async (tx) => {
      const token = await openSession(tx, appKey, { id: account.user_id, shop_id: account.shop_id }, device_name ?? null);
      return { token, user: (await findUser(tx, account.user_id))!, shop: await findCurrentShop(tx) };
    });
    return c.json({ data: session }, 200);
  })
  .openapi(forgotPassword, async (c) => {
    const { email } = c.req.valid('json');
    const { sql, appKey } = c.var.deps;
    await withinLimit(c, 'forgotPasswordPerEmail', emailBucket('forgot-password', email));
    const token = randomToken(32);
    await sql.begin(async (tx) => {
      // No shop and no user: the request's id only, for the e-mail's job.
      await enterTenant(tx, { shopId: null, userId: null, requestId: c.var.requestId });
      const target = await requestPasswordReset(tx, email, sha256(token));
      if (target) {
        await enqueueJob(tx, 'user__forgot_password', {
          user_id: target.user_id,
          email: target.email,
          name: target.name,
          locale: target.locale,
          sealed_token: seal(appKey, token),
        });
      }
    });
    return c.json({ data: { message: 'If this address belongs to an account, a reset token is on its way.' } }, 200);
  })
  .openapi(resetPassword, async (c) => {
    const { token, email, password } = c.req.valid('json');
    const { sql, config } = c.var.deps;
    const passwordHash = await hashPassword(password, config.BCRYPT_ROUNDS);
    const changed = await sql.begin((tx) => consumePasswordReset(tx, email, sha256(token), passwordHash));
    if (!changed) throw invalidField('token', 'This password reset token is invalid or has expired.', 'invalid_reset_token');
    return c.json({ data: { message: 'Your password has been reset.' } }, 200);
  })
  .openapi(me, async (c) => {
    const { tx, caller } = c.var;
    return c.json({ data: { user: (await findUser(tx, caller.userId))!, shop: await findCurrentShop(tx) } }, 200);
  })
  .openapi(logout, async (c) => {
    await revokeSession(c.var.tx, c.var.caller.sessionId);
    return c.body(null, 204);
  });
