import { z } from '@hono/zod-openapi';
import { CREATE_USER, OWNER, UPDATE_USER } from './examples.ts';
import { Email, Locale, optionalText, Password, requiredText, Timestamp, Uuid } from '../schemas.ts';

export const Role = z.enum(['owner', 'manager', 'cashier']);
export const UserKind = z.enum(['shop', 'partner', 'admin']).openapi({
  description: '`shop` for a shop\'s staff; `partner` and `admin` accounts belong to no shop.',
});

export const UserRecord = z
  .object({
    id: Uuid,
    kind: UserKind,
    shop_id: Uuid.nullable(),
    role: Role.nullable().openapi({ description: 'Shop role; null for partners and administrators.' }),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    locale: Locale,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('User', { example: OWNER });

export type UserRecord = z.infer<typeof UserRecord>;

const StaffFields = z.object({
  name: requiredText(160),
  email: Email,
  password: Password,
  role: Role,
  phone: optionalText(40),
});

export const CreateUserBody = StaffFields.extend({ locale: Locale.nullable().optional() }).openapi('CreateUser', { example: CREATE_USER });

export const UpdateUserBody = StaffFields.extend({ locale: Locale }).partial().openapi('UpdateUser', { example: UPDATE_USER });

export type UpdateUserBody = z.infer<typeof UpdateUserBody>;
