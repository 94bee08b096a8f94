import { z } from '@hono/zod-openapi';
import { CREATE_SUPPLIER, SUPPLIER, UPDATE_SUPPLIER } from './examples.ts';
import { Email, ListQuery, optionalText, requiredText, Text, Timestamp, Uuid } from '../schemas.ts';

export const SupplierRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    tax_id: z.string().nullable(),
    address: z.string().nullable(),
    note: z.string().nullable(),
    balance_xaf: z.number().int().openapi({
      description: 'Read-only: what the shop owes the supplier (purchases less payments less returns; negative: the supplier owes the shop).',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Supplier', { example: SUPPLIER });
export type SupplierRecord = z.infer<typeof SupplierRecord>;

const SupplierFields = z.object({
  name: requiredText(160),
  phone: optionalText(40),
  email: Email.nullable().optional(),
  tax_id: optionalText(60).openapi({ description: 'The supplier\'s taxpayer number (NIU).' }),
  address: optionalText(255),
  note: optionalText(255),
});

export const CreateSupplierBody = SupplierFields.openapi('CreateSupplier', { example: CREATE_SUPPLIER });
export type CreateSupplierBody = z.infer<typeof CreateSupplierBody>;
export const UpdateSupplierBody = SupplierFields.partial().openapi('UpdateSupplier', { example: UPDATE_SUPPLIER });
export type UpdateSupplierBody = z.infer<typeof UpdateSupplierBody>;

export const SupplierListQuery = ListQuery.extend({
  q: Text.trim().max(160).optional().transform((q) => q || undefined).openapi({
    param: { name: 'q', in: 'query' },
    description:
      'Accent- and case-insensitive part of the name (`epice` finds `Épices du Nord`), or, when `q` looks like a phone number (digits, spaces, `+`, `-`, `.`, ' +
      'parentheses), a run of the number\'s digits compared digits only: `699 00` finds `+237 699001122`. Empty: no filter.',
  }),
});

export const SupplierParam = z.object({ supplier_id: Uuid.openapi({ param: { name: 'supplier_id', in: 'path' } }) });
