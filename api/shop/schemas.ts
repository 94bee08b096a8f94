import { z } from '@hono/zod-openapi';
import { PAYMENT_METHODS, type PaymentMethodKey } from '../lib/payment-labels.ts';
import { SHOP, UPDATE_SHOP } from './examples.ts';
import { decimal, emailAddress, Locale, nullableRef, optionalText, requiredText, Text, Timestamp, Uuid, VatRate } from '../schemas.ts';

const CASHIER_PRICE_OVERRIDE =
  'Whether a cashier may sell at another unit price or VAT rate than the catalogue\'s (default false: a cashier\'s online sale or quote ' +
  'that does is a 403). Managers and owners always may. Offline sales are never refused for it; every override is listed by ' +
  '`GET /reports/price-overrides`.';
const CASHIER_MAX_DISCOUNT =
  'The largest line discount (`discount_xaf`) a cashier may give, in percent of the line\'s gross round(quantity x unit price), 0 to 100 ' +
  'with at most 2 decimals (default 10). Beyond it a cashier\'s online sale is a 422 `discount_not_allowed` on `items.N.discount_xaf`. ' +
  'It applies whether or not `cashier_price_override` is on; managers and owners are not limited; free lines (no product) are not capped.';

const PaymentLabelFields = Object.fromEntries(PAYMENT_METHODS.map((method) => [method, z.string()])) as Record<PaymentMethodKey, z.ZodString>;

/** The shop's legal mentions (issue 31), printed under its name on invoices, quotes and credit notes. */
const LEGAL = {
  legal_form: 'Legal form, e.g. SARL, SA, Ets (établissement individuel): printed with the capital, "SARL au capital de 1 000 000 FCFA".',
  share_capital_xaf: 'Share capital in XAF (integer), printed after the legal form.',
  tax_regime: 'Tax regime as the tax office names it, e.g. "Réel", "Simplifié", "Impôt libératoire".',
  tax_centre: 'The tax centre the shop reports to, e.g. "CIME Douala".',
  bank_details: 'Bank and account number (RIB) for customers who pay by transfer, printed in the invoice\'s foot.',
  momo_merchant_no: 'Mobile money merchant number customers pay to, printed in the invoice\'s foot.',
  payment_terms_days: 'Days a sale left on a customer account gives before it is due (0 to 365): its invoice prints the due date, the sale\'s day plus these days. Null: no due date printed.',
} as const;

const LegalRecordFields = {
  legal_form: z.string().nullable().openapi({ description: LEGAL.legal_form }),
  share_capital_xaf: z.number().int().nullable().openapi({ description: LEGAL.share_capital_xaf }),
  tax_regime: z.string().nullable().openapi({ description: LEGAL.tax_regime }),
  tax_centre: z.string().nullable().openapi({ description: LEGAL.tax_centre }),
  bank_details: z.string().nullable().openapi({ description: LEGAL.bank_details }),
  momo_merchant_no: z.string().nullable().openapi({ description: LEGAL.momo_merchant_no }),
  payment_terms_days: z.number().int().nullable().openapi({ description: LEGAL.payment_terms_days }),
};

export const ShopLogo = z
  .object({
    media_type: z.enum(['image/png', 'image/jpeg']),
    width: z.number().int().openapi({ description: 'Width in pixels.' }),
    height: z.number().int().openapi({ description: 'Height in pixels.' }),
    bytes: z.number().int().openapi({ description: 'Size of the stored image in bytes.' }),
    updated_at: Timestamp,
  })
  .openapi('ShopLogo', { example: { media_type: 'image/png', width: 600, height: 240, bytes: 18_432, updated_at: '2026-11-02T16:05:11.000Z' } });

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
    ...LegalRecordFields,
    logo: nullableRef(ShopLogo, 'The logo printed on documents (PUT /shop/logo), null without one.'),
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
    legal_form: optionalText(60).openapi({ description: LEGAL.legal_form }),
    share_capital_xaf: z.number().int().min(0).max(1e15).nullable().openapi({ description: LEGAL.share_capital_xaf }),
    tax_regime: optionalText(60).openapi({ description: LEGAL.tax_regime }),
    tax_centre: optionalText(120).openapi({ description: LEGAL.tax_centre }),
    bank_details: optionalText(255).openapi({ description: LEGAL.bank_details }),
    momo_merchant_no: optionalText(60).openapi({ description: LEGAL.momo_merchant_no }),
    payment_terms_days: z.number().int().min(0).max(365).nullable().openapi({ description: LEGAL.payment_terms_days }),
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
