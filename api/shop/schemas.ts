import { z } from '@hono/zod-openapi';
import { hasDecimals, Locale, optionalText, Timestamp, Uuid, VatRate } from '../schemas.ts';

export const SubscriptionStatus = z.enum(['trial', 'active', 'expired']);

export const ShopRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    business_type: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    tax_id: z.string().nullable(),
    locale: Locale,
    receipt_header: z.string().nullable(),
    receipt_footer: z.string().nullable(),
    allow_negative_stock: z.boolean(),
    default_vat_rate: z.number().openapi({ description: 'VAT rate in percent given to new products (19.25 in Cameroon).' }),
    loyalty_earn_rate: z.number().openapi({ description: 'Points earned per XAF paid (0.01 = one point per 100 XAF).' }),
    loyalty_redeem_rate_xaf: z.number().int().openapi({ description: 'Value in XAF of one redeemed point.' }),
    timezone: z.string().openapi({ description: 'IANA time zone of the shop: promotion hours and report days follow it.', example: 'Africa/Douala' }),
    subscription_status: SubscriptionStatus,
    trial_ends_at: Timestamp,
    subscription_ends_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Shop');

export type ShopRecord = z.infer<typeof ShopRecord>;

export const UpdateShopBody = z
  .object({
    name: z.string().trim().min(1).max(160),
    business_type: optionalText(120),
    phone: optionalText(40),
    email: z.email().max(160).nullable(),
    address: optionalText(255),
    city: optionalText(120),
    tax_id: optionalText(60),
    locale: Locale,
    receipt_header: optionalText(500),
    receipt_footer: optionalText(500),
    allow_negative_stock: z.boolean(),
    default_vat_rate: VatRate,
    loyalty_earn_rate: z.number().min(0).max(1000).refine(hasDecimals(4), 'Must have at most 4 decimals.'),
    loyalty_redeem_rate_xaf: z.number().int().min(0).max(1_000_000),
    timezone: z.string().min(1).max(64).openapi({ description: 'An IANA time zone (422 otherwise).' }),
  })
  .partial()
  .openapi('UpdateShop');

export type UpdateShopBody = z.infer<typeof UpdateShopBody>;
