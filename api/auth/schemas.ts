import { z } from '@hono/zod-openapi';
import { ShopRecord } from '../shop/schemas.ts';
import { Email, GivenPassword, Locale, nullableRef, optionalText, Password, requiredText, Text } from '../schemas.ts';
import { UserRecord } from '../users/schemas.ts';
import { FORGOT_PASSWORD, LOGIN, ME, PASSWORD_CHANGED, REGISTER, RESET_PASSWORD, SESSION } from './examples.ts';

export const RegisterBody = z
  .object({
    shop_name: requiredText(160),
    owner_name: requiredText(160),
    owner_email: Email,
    password: Password,
    business_type: optionalText(120),
    phone: optionalText(40),
    city: optionalText(120),
    tax_id: optionalText(60),
    locale: Locale.nullable().optional().openapi({ description: 'fr when omitted.' }),
    referral_code: optionalText(60).openapi({
      description: 'A sales partner\'s code, matched whatever the case and surrounding spaces: an active partner\'s makes the shop its referral (its subscriptions earn the partner commissions). Any other code is kept as typed and never blocks signup.',
    }),
  })
  .openapi('Register', { example: REGISTER });

export const LoginBody = z
  .object({
    email: Email,
    password: GivenPassword,
    device_name: optionalText(160).openapi({ description: 'Kept on the session, e.g. "Caisse 1".' }),
  })
  .openapi('Login', { example: LOGIN });

export const ForgotPasswordBody = z.object({ email: Email }).openapi('ForgotPassword', { example: FORGOT_PASSWORD });

export const ResetPasswordBody = z
  .object({ token: Text.min(1).max(200), email: Email, password: Password })
  .openapi('ResetPassword', { example: RESET_PASSWORD });

export const Session = z
  .object({
    token: z.string().openapi({ description: 'Bearer token: `Authorization: Bearer <token>`. Valid 30 days unless revoked.' }),
    user: UserRecord,
    shop: nullableRef(ShopRecord, 'null for partners and administrators.'),
  })
  .openapi('Session', { example: SESSION });

/** What register answers: the session of the new shop's owner, whose shop is always there. */
export const OwnerSession = z.object({ ...Session.shape, shop: ShopRecord }).openapi('OwnerSession', { example: SESSION });

export const Me = z.object({ user: UserRecord, shop: nullableRef(ShopRecord, 'null for partners and administrators.') }).openapi('Me', { example: ME });

export const Notice = z.object({ message: z.string() }).openapi('Notice', { example: PASSWORD_CHANGED });
