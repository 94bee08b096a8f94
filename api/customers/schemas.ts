import { z } from '@hono/zod-openapi';
import { CREATE_CUSTOMER, CUSTOMER, UPDATE_CUSTOMER } from './examples.ts';
import { emailAddress, ListQuery, Money, nullableRef, optionalText, QueryBoolean, requiredText, Text, Timestamp, TillCreatedAt, Uuid } from '../schemas.ts';

export const CardNo = requiredText(60);

export const TierRef = z
  .object({ key: z.string(), name: z.string(), multiplier: z.number() })
  .openapi('TierRef', { description: 'The tier the customer holds, from the points earned over the last 12 months.', example: CUSTOMER.tier });

export const CustomerRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    note: z.string().nullable(),
    tax_id: z.string().nullable().openapi({ description: 'A business customer\'s taxpayer number (NIU), printed on its invoices.' }),
    trade_register_no: z.string().nullable().openapi({ description: 'A business customer\'s trade register number (RCCM), printed on its invoices beside its NIU.' }),
    address: z.string().nullable().openapi({ description: 'Printed on its invoices.' }),
    credit_ceiling_xaf: z.number().int().openapi({ description: 'How much the customer may owe; 0: no credit.' }),
    balance_xaf: z.number().int().openapi({ description: 'Read-only: what the customer owes now.' }),
    points: z.number().int().openapi({ description: 'Read-only: the sum of the points ledger.' }),
    tier: nullableRef(TierRef, 'Null when the customer holds no tier: the shop has none, or the points earned over the last 12 months reach no tier\'s `min_points`.'),
    card_no: z.string().nullable(),
    created_at: Timestamp.openapi({ description: 'When the customer was made: one made on a till offline keeps the till\'s time, unless its clock was plainly wrong.' }),
    updated_at: Timestamp,
    till_created_at: TillCreatedAt,
  })
  .openapi('Customer', { example: CUSTOMER });
export type CustomerRecord = z.infer<typeof CustomerRecord>;

const CustomerFields = z.object({
  name: requiredText(160),
  phone: optionalText(40),
  email: emailAddress(160).nullable().optional(),
  note: optionalText(255),
  tax_id: optionalText(60).openapi({ description: 'A business customer\'s taxpayer number (NIU), printed on its invoices.' }),
  trade_register_no: optionalText(60).openapi({ description: 'A business customer\'s trade register number (RCCM), e.g. RC/DLA/2021/B/0456, printed on its invoices.' }),
  address: optionalText(255).openapi({ description: 'Printed on its invoices.' }),
  credit_ceiling_xaf: Money.optional().openapi({ description: 'Default 0 (no credit). Setting it needs a manager or the owner.' }),
  card_no: CardNo.nullable().optional().openapi({ description: 'Loyalty card number, unique in the shop (409 `card_taken`).' }),
});

export const CreateCustomerBody = CustomerFields.openapi('CreateCustomer', { example: CREATE_CUSTOMER });
export type CreateCustomerBody = z.infer<typeof CreateCustomerBody>;
export const UpdateCustomerBody = CustomerFields.partial().openapi('UpdateCustomer', { example: UPDATE_CUSTOMER });
export type UpdateCustomerBody = z.infer<typeof UpdateCustomerBody>;

export const CustomerListQuery = ListQuery.extend({
  q: Text.trim().max(160).optional().transform((q) => q || undefined).openapi({
    param: { name: 'q', in: 'query' },
    description:
      'Accent-insensitive part of the name, or exactly the card number, or, when `q` looks like a phone number (digits, spaces, `+`, `-`, `.`, parentheses), ' +
      'the first digits of the number compared digits only, the country code optional: a customer saved as `+237 699 00 01 11` is found by `699000111`, ' +
      '`699 00 01 11`, `6990` and `+237 699` (a number saved as `+...` or `00...` is also compared without its 3-digit country code). Empty: no filter.',
  }),
  owing: QueryBoolean.optional().openapi({
    param: { name: 'owing', in: 'query' },
    description: 'Only customers who owe (true) or owe nothing (false).',
  }),
});
