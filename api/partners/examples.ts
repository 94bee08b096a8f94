import { example } from '../lib/examples.ts';

/**
 * The examples of the OpenAPI document for partners: Kamga Conseil, a reseller at 20 % for 12 months,
 * who referred three Douala shops; one of them paid its monthly plan (5 000 XAF), earning it 1 000.
 */

const PARTNER_ID = 'b9b1bfd8-e132-4563-a6c6-3213b332165d';
const SHOP_ID = '0d4f6a9e-2c1b-4e57-9a83-5f0c7d2e1b64';

export const CREATE_PARTNER = example({
  name: 'Kamga Conseil',
  email: 'contact@kamga-conseil.cm',
  password: 'Kamga-2026-secret',
  phone: '+237 677 12 34 56',
  code: 'KAMGA',
  commission_rate: 20,
  commission_months: 12,
  payout_method: 'carrier1_momo',
  payout_phone: '+237 677 12 34 56',
  payout_name: 'Paul Kamga',
});

export const UPDATE_PARTNER = example({ commission_rate: 25, notes: 'Taux relevé à 25 % à partir de décembre.' });

export const PARTNER = example({
  id: PARTNER_ID,
  name: 'Kamga Conseil',
  email: 'contact@kamga-conseil.cm',
  phone: '+237 677 12 34 56',
  code: 'KAMGA',
  commission_rate: 20,
  commission_months: 12,
  status: 'active',
  payout_method: 'carrier1_momo',
  payout_phone: '+237 677 12 34 56',
  payout_account: null,
  payout_name: 'Paul Kamga',
  notes: null,
  referred_shops: 3,
  active_shops: 2,
  commission_pending_xaf: 1000,
  commission_payable_xaf: 2000,
  commission_paid_xaf: 10_000,
  created_at: '2026-06-02T10:20:41.099Z',
  updated_at: '2026-06-02T10:20:41.099Z',
});

export const COMMISSION_LINE = example({
  id: 'e3a1c6f0-7b52-4d19-8e0a-93c4b1f27d55',
  partner_id: PARTNER_ID,
  partner_name: 'Kamga Conseil',
  shop_id: SHOP_ID,
  shop_name: 'Quincaillerie Ngono',
  charge_reference: 'SUB-AB09CEF16C754C9D',
  base_amount_xaf: 5000,
  commission_rate: 20,
  amount_xaf: 1000,
  status: 'payable',
  payable_after: '2026-12-05T09:15:02.774Z',
  payout_id: null,
  payout_reference: null,
  paid_at: null,
  created_at: '2026-11-21T09:15:02.774Z',
  updated_at: '2026-12-05T09:15:02.774Z',
});

export const PAY_COMMISSIONS = example({ partner_id: PARTNER_ID, status: 'paid', payout_reference: 'MP261207.0932.K55120' });

/** The payout of the example: Kamga Conseil's one payable line, paid by mobile money on 7 December. */
export const PARTNER_PAYOUT = example({
  id: '5c2e8f31-9a4d-4b7e-b1f0-6d83a2c9e417',
  partner_id: PARTNER_ID,
  partner_name: 'Kamga Conseil',
  payout_reference: PAY_COMMISSIONS.payout_reference,
  paid_by: '7f0a3b52-1c6e-4d89-a2b4-e95d0c8f1a36',
  line_count: 1,
  amount_xaf: 1000,
  created_at: '2026-12-07T08:32:10.000Z',
});

export const COMMISSION_PAYOUT = example({
  status: 'paid',
  payout_reference: PAY_COMMISSIONS.payout_reference,
  count: 1,
  amount_xaf: 1000,
  lines: [
    {
      ...COMMISSION_LINE,
      status: 'paid',
      payout_id: PARTNER_PAYOUT.id,
      payout_reference: PAY_COMMISSIONS.payout_reference,
      paid_at: PARTNER_PAYOUT.created_at,
      updated_at: PARTNER_PAYOUT.created_at,
    },
  ],
  unchanged: [],
  payouts: [PARTNER_PAYOUT],
});

export const PARTNER_DASHBOARD = example({
  partner: { id: PARTNER_ID, name: 'Kamga Conseil', code: 'KAMGA', commission_rate: 20, commission_months: 12, status: 'active' },
  referred_shops: 3,
  trial_shops: 1,
  active_shops: 2,
  expired_shops: 0,
  commission_pending_xaf: 1000,
  commission_payable_xaf: 2000,
  commission_paid_xaf: 10_000,
  commission_total_xaf: 13_000,
});

export const REFERRAL = example({
  shop_id: SHOP_ID,
  name: 'Quincaillerie Ngono',
  signed_up_at: '2026-10-20T08:00:00.000Z',
  subscription_status: 'active',
  trial_ends_at: '2026-11-19T08:00:00.000Z',
  subscription_ends_at: '2026-12-21T09:15:02.774Z',
  commission_until: '2027-10-20T08:00:00.000Z',
  commission_total_xaf: 1000,
  commission_pending_xaf: 0,
  commission_payable_xaf: 1000,
  commission_paid_xaf: 0,
});
