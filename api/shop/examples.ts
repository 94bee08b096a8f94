import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for the shop: a grocery in Akwa, Douala, on a paid subscription. */

export const SHOP_ID = '3b1f6c2e-8d4a-4f7e-9a51-6c0d2e7b9f14';

/** The shop's logo as PUT /shop/logo answers it and GET /shop shows it: a 600 x 240 PNG. */
export const SHOP_LOGO = example({ media_type: 'image/png', width: 600, height: 240, bytes: 18_432, updated_at: '2026-11-02T16:05:11.000Z' });

export const SHOP = example({
  id: SHOP_ID,
  name: 'Boutique Mama Ngono',
  business_type: 'Alimentation générale',
  phone: '+237 677 12 34 56',
  email: 'contact@mamangono.cm',
  address: 'Rue Joss, face pharmacie du Centre, Akwa',
  city: 'Douala',
  tax_id: 'M051912345678K',
  trade_register_no: 'RC/DLA/2019/B/1234',
  legal_form: 'SARL',
  share_capital_xaf: 1_000_000,
  tax_regime: 'Simplifié',
  tax_centre: 'CDI Douala Akwa',
  bank_details: 'Afriland First Bank, RIB 10005 00001 01234567890 12',
  momo_merchant_no: 'MTN MoMo marchand 456789',
  payment_terms_days: 30,
  logo: SHOP_LOGO,
  payment_method_labels: { cash: 'Espèces', carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money', card: 'Carte bancaire', bank: 'Virement bancaire', credit: 'Compte client' },
  locale: 'fr',
  receipt_header: 'Boutique Mama Ngono - Akwa, Douala',
  receipt_footer: 'Merci de votre visite ! Les marchandises vendues ne sont ni reprises ni échangées.',
  allow_negative_stock: false,
  default_vat_rate: 19.25,
  loyalty_earn_rate: 0.01,
  loyalty_redeem_rate_xaf: 5,
  timezone: 'Africa/Douala',
  cashier_price_override: false,
  cashier_max_discount_percent: 10,
  subscription_status: 'active',
  trial_ends_at: '2026-03-14T09:12:40.000Z',
  subscription_ends_at: '2026-12-14T09:12:40.000Z',
  created_at: '2026-02-12T09:12:40.000Z',
  updated_at: '2026-11-02T16:05:11.000Z',
});

export const UPDATE_SHOP = example({
  receipt_footer: 'Merci de votre visite ! Les marchandises vendues ne sont ni reprises ni échangées.',
  trade_register_no: 'RC/DLA/2019/B/1234',
  payment_method_labels: { carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money' },
  cashier_max_discount_percent: 5,
});
