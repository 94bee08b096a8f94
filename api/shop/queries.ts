import type { Tx } from '../db.ts';
import { paymentLabels } from '../lib/payment-labels.ts';
import type { ShopRecord, UpdateShopBody } from './schemas.ts';

export const TRIAL_DAYS = 30;

interface ShopRow {
  id: string;
  name: string;
  business_type: string | null;
  phone: string | null;
  email: string | null;
  address: string | null;
  city: string | null;
  tax_id: string | null;
  trade_register_no: string | null;
  legal_form: string | null;
  share_capital_xaf: number | null;
  tax_regime: string | null;
  tax_centre: string | null;
  bank_details: string | null;
  momo_merchant_no: string | null;
  payment_terms_days: number | null;
  logo: { media_type: 'image/png' | 'image/jpeg'; width: number; height: number; bytes: number; updated_at: string } | null;
  payment_method_labels: Record<string, string>;
  locale: 'fr' | 'en';
  receipt_header: string | null;
  receipt_footer: string | null;
  allow_negative_stock: boolean;
  default_vat_rate: number;
  loyalty_earn_rate: number;
  loyalty_redeem_rate_xaf: number;
  timezone: string;
  cashier_price_override: boolean;
  cashier_max_discount_percent: number;
  trial_ends_at: Date;
  subscription_ends_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function subscriptionStatus(shop: Pick<ShopRow, 'trial_ends_at' | 'subscription_ends_at'>, now = new Date()): ShopRecord['subscription_status'] {
  if (shop.subscription_ends_at && shop.subscription_ends_at > now) return 'active';
  if (shop.trial_ends_at > now) return 'trial';
  return 'expired';
}

function toRecord(row: ShopRow): ShopRecord {
  return {
    id: row.id,
    name: row.name,
    business_type: row.business_type,
    phone: row.phone,
    email: row.email,
    address: row.address,
    city: row.city,
    tax_id: row.tax_id,
    trade_register_no: row.trade_register_no,
    legal_form: row.legal_form,
    share_capital_xaf: row.share_capital_xaf,
    tax_regime: row.tax_regime,
    tax_centre: row.tax_centre,
    bank_details: row.bank_details,
    momo_merchant_no: row.momo_merchant_no,
    payment_terms_days: row.payment_terms_days,
    logo: row.logo ? { ...row.logo, updated_at: new Date(row.logo.updated_at).toISOString() } : null,
    payment_method_labels: paymentLabels(row.locale, row.payment_method_labels),
    locale: row.locale,
    receipt_header: row.receipt_header,
    receipt_footer: row.receipt_footer,
    allow_negative_stock: row.allow_negative_stock,
    default_vat_rate: row.default_vat_rate,
    loyalty_earn_rate: row.loyalty_earn_rate,
    loyalty_redeem_rate_xaf: row.loyalty_redeem_rate_xaf,
    timezone: row.timezone,
    cashier_price_override: row.cashier_price_override,
    cashier_max_discount_percent: row.cashier_max_discount_percent,
    subscription_status: subscriptionStatus(row),
    trial_ends_at: row.trial_ends_at.toISOString(),
    subscription_ends_at: row.subscription_ends_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const COLUMNS = [
  'id', 'name', 'business_type', 'phone', 'email', 'address', 'city', 'tax_id', 'trade_register_no', 'legal_form', 'share_capital_xaf', 'tax_regime',
  'tax_centre', 'bank_details', 'momo_merchant_no', 'payment_terms_days', 'payment_method_labels', 'locale', 'receipt_header', 'receipt_footer',
  'allow_negative_stock', 'default_vat_rate', 'loyalty_earn_rate', 'loyalty_redeem_rate_xaf', 'timezone', 'cashier_price_override',
  'cashier_max_discount_percent', 'trial_ends_at', 'subscription_ends_at', 'created_at', 'updated_at',
] as const;

/** The shop's logo as documents embed it: the stored bytes and their pixel size. */
export interface ShopLogoImage {
  media_type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  content: Buffer;
}

/** The transaction's shop's logo, or null when it has none. Read only by what prints it (documents, e-mails, shared pages). */
export async function findShopLogo(tx: Tx): Promise<ShopLogoImage | null> {
  const [logo] = await tx<ShopLogoImage[]>`select media_type, width, height, content from shop_logos where shop_id = app_shop_id()`;
  return logo ?? null;
}

/** The logo's kind, size and SHA-256, not its bytes: the receipt printer's raster of it may be made already (api/receipts/logo-raster.ts). */
export async function findShopLogoStamp(tx: Tx): Promise<{ media_type: 'image/png' | 'image/jpeg'; width: number; height: number; sha256: string } | null> {
  const [logo] = await tx<{ media_type: 'image/png' | 'image/jpeg'; width: number; height: number; sha256: string }[]>`
    select media_type, width, height, sha256 from shop_logos where shop_id = app_shop_id()`;
  return logo ?? null;
}

/** The logo's bytes if it is still the one of this SHA-256, else null. */
export async function findShopLogoContent(tx: Tx, sha256: string): Promise<Buffer | null> {
  const [logo] = await tx<{ content: Buffer }[]>`select content from shop_logos where shop_id = app_shop_id() and sha256 = ${sha256}`;
  return logo?.content ?? null;
}

/** The logo's description (not its bytes), as the shop's `logo`. */
const logoColumn = (tx: Tx) => tx`(
  select json_build_object('media_type', l.media_type, 'width', l.width, 'height', l.height, 'bytes', octet_length(l.content), 'updated_at', l.updated_at)
    from shop_logos l where l.shop_id = shops.id) as logo`;

export interface NewShop {
  id: string;
  name: string;
  business_type: string | null;
  phone: string | null;
  city: string | null;
  tax_id: string | null;
  locale: 'fr' | 'en';
  referral_code: string | null;
}

/**
 * A new shop on a 30-day trial, the referral of the partner whose code it gives, with the default
 * loyalty tiers. The transaction's shop must already be `shop.id`.
 */
export async function createShop(tx: Tx, shop: NewShop): Promise<ShopRecord> {
  const [row] = await tx<ShopRow[]>`
    insert into shops (id, name, business_type, phone, city, tax_id, locale, referral_code, partner_id, trial_ends_at)
    values (${shop.id}, ${shop.name}, ${shop.business_type}, ${shop.phone}, ${shop.city}, ${shop.tax_id}, ${shop.locale},
            ${shop.referral_code}, shops_refer(${shop.referral_code}), now() + make_interval(days => ${TRIAL_DAYS}))
    returning ${tx(COLUMNS)}, ${logoColumn(tx)}`;
  await tx`select shops_default_tiers(${shop.id})`;
  return toRecord(row!);
}

/** The transaction's shop, or null when it has none (partners, administrators). */
export async function findCurrentShop(tx: Tx): Promise<ShopRecord | null> {
  const [row] = await tx<ShopRow[]>`select ${tx(COLUMNS)}, ${logoColumn(tx)} from shops where id = app_shop_id()`;
  return row ? toRecord(row) : null;
}

/**
 * The settings given change. `payment_method_labels` is merged into the shop's: a method named gets
 * its label, a method given null its default back; the whole setting null: every default back.
 */
export async function updateCurrentShop(tx: Tx, body: UpdateShopBody): Promise<ShopRecord> {
  const { payment_method_labels: labels, ...changes } = body;
  const keys = Object.keys(changes) as (keyof typeof changes)[];
  if (keys.length === 0 && labels === undefined) return (await findCurrentShop(tx))!;
  const merged =
    labels === undefined
      ? tx`payment_method_labels`
      : labels === null
        ? tx`'{}'::jsonb`
        : tx`jsonb_strip_nulls(payment_method_labels || ${tx.json(labels)}::jsonb)`;
  if (changes.timezone !== undefined) await tx`select shops_check_timezone(${changes.timezone})`;
  const [row] = keys.length
    ? await tx<ShopRow[]>`
        update shops set ${tx(changes, keys)}, payment_method_labels = ${merged}, updated_at = now()
         where id = app_shop_id() returning ${tx(COLUMNS)}, ${logoColumn(tx)}`
    : await tx<ShopRow[]>`
        update shops set payment_method_labels = ${merged}, updated_at = now()
         where id = app_shop_id() returning ${tx(COLUMNS)}, ${logoColumn(tx)}`;
  return toRecord(row!);
}

/** What new records take from the shop's settings when a request leaves them out. */
export async function shopDefaults(tx: Tx): Promise<{ default_vat_rate: number; allow_negative_stock: boolean }> {
  const [row] = await tx<{ default_vat_rate: number; allow_negative_stock: boolean }[]>`
    select default_vat_rate, allow_negative_stock from shops where id = app_shop_id()`;
  return row!;
}
