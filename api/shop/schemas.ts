import { z } from '@hono/zod-openapi';
import { PAYMENT_METHODS, type PaymentMethodKey } from '../lib/payment-labels.ts';
import { SHOP, UPDATE_SHOP } from './examples.ts';
import { decimal, emailAddress, Locale, optionalText, requiredText, Text, Timestamp, Uuid, VatRate } from '../schemas.ts';

const CASHIER_PRICE_OVERRIDE =
  'Whether a cashier may sell at another unit price or VAT rate than the catalogue\'s (default false: a cashier\'s online sale or quote ' +
  'that does is a 403). Managers and owners always may. Offline sales are never refused for it; every override is listed by ' +
  '`GET /reports/price-overrides`.';
const CASHIER_MAX_DISCOUNT =
  'The largest line discount (`discount_xaf`) a cashier may give, in percent of the line\'s gross round(quantity x unit price), 0 to 100 ' +
  'with at most 2 decimals (default 10). Beyond it a cashier\'s online sale is a 422 `discount_not_allowed` on `items.N.discount_xaf`. ' +
  'It applies whether or not `cashier_price_override` is on; managers and owners are not limited; free lines (no product) are not capped.';

const PaymentLabelFields = Object.fromEntries(PAYMENT_METHODS.map((method) => [method, z.string()])) as Record<PaymentMethodKey, z.ZodString>;

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
    trade_register_no: z.string().nullable().openapi({ description: 'Trade register number (RCCM), printed beside the taxpayer number.' }),
    payment_method_labels: z.object(PaymentLabelFields).openapi({
      description: 'What each payment method is called on documents and reports: the shop\'s own names over the defaults of its language.',
      example: { cash: 'Espèces', carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money', card: 'Carte bancaire', bank: 'Virement bancaire', credit: 'Compte client' },
    }),
    locale: Locale,
    receipt_header: z.string().nullable(),
    receipt_footer: z.string().nullable(),
    allow_negative_stock: z.boolean(),
    default_vat_rate: z.number().openapi({ description: 'VAT rate in percent given to new products (19.25 in Cameroon).' }),
    loyalty_earn_rate: z.number().openapi({ description: 'Points earned per XAF paid (0.01 = one point per 100 XAF).' }),
    loyalty_redeem_rate_xaf: z.number().int().openapi({ description: 'Value in XAF of one redeemed point.' }),
    timezone: z.string().openapi({ description: 'IANA time zone of the shop: promotion hours and report days follow it.', example: 'Africa/Douala' }),
    cashier_price_override: z.boolean().openapi({ description: CASHIER_PRICE_OVERRIDE }),
    cashier_max_discount_percent: z.number().openapi({ description: CASHIER_MAX_DISCOUNT }),
    subscription_status: SubscriptionStatus,
    trial_ends_at: Timestamp,
    subscription_ends_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Shop', { example: SHOP });

export type ShopRecord = z.infer<typeof ShopRecord>;

export const UpdateShopBody = z
  .object({
    name: requiredText(160),
    business_type: optionalText(120),
    phone: optionalText(40),
    email: emailAddress(160).nullable(),
    address: optionalText(255),
    city: optionalText(120),
    tax_id: optionalText(60),
    trade_register_no: optionalText(60).openapi({ description: 'Trade register number (RCCM), e.g. RC/DLA/2019/B/1234.' }),
    payment_method_labels: z
      .object(Object.fromEntries(PAYMENT_METHODS.map((method) => [method, requiredText(40).nullable().optional()])) as Record<PaymentMethodKey, z.ZodOptional<z.ZodNullable<z.ZodString>>>)
      .strict()
      .nullable()
      .openapi({
        description: 'The names of the methods, merged into the shop\'s: a method given its name (1 to 40 characters), a method given null its default; null: every default.',
        example: { carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money' },
      }),
    locale: Locale,
    receipt_header: optionalText(500),
    receipt_footer: optionalText(500),
    allow_negative_stock: z.boolean(),
    default_vat_rate: VatRate,
    loyalty_earn_rate: decimal(4).min(0).max(1000),
    loyalty_redeem_rate_xaf: z.number().int().min(0).max(1_000_000),
    timezone: Text.min(1).max(64).openapi({ description: 'An IANA time zone (422 otherwise).' }),
    cashier_price_override: z.boolean().openapi({ description: CASHIER_PRICE_OVERRIDE }),
    cashier_max_discount_percent: decimal(2).min(0).max(100).openapi({ description: CASHIER_MAX_DISCOUNT }),
  })
  .partial()
  .openapi('UpdateShop', { example: UPDATE_SHOP });

export type UpdateShopBody = z.infer<typeof UpdateShopBody>;
