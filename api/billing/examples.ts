import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for billing: a shop whose trial ended pays its monthly plan by MTN MoMo. */

export const MONTHLY_PLAN = example({ id: '6b1c1a70-0000-4000-8000-000000000030', name: 'Mensuel', price_xaf: 5000, period_days: 30 });

export const SUBSCRIBE = example({ plan_id: MONTHLY_PLAN.id, method: 'carrier1_momo', phone: '+237 670 00 00 00' });

/** The charge once the payer approved it on the phone (POST /billing/confirm/{reference}); pending before. */
export const CHARGE = example({
  reference: '0f6c2b7e-3d41-4b8a-9c55-2a7e91d3f604',
  status: 'succeeded',
  plan_id: MONTHLY_PLAN.id,
  amount_xaf: 5000,
  method: 'carrier1_momo',
  phone: '+237 670 00 00 00',
  failure_reason: null,
  failure_message: null,
  created_at: '2026-11-21T09:14:32.712Z',
  settled_at: '2026-11-21T09:15:02.774Z',
  subscription_ends_at: '2026-12-21T09:15:02.774Z',
});

/** A charge the payer turned down on the phone, as GET /billing shows it to a French owner. */
export const DECLINED_CHARGE = example({
  ...CHARGE,
  reference: '7d2e9a41-58c0-4f3b-b1e6-0c94a5d7e812',
  status: 'failed',
  failure_reason: 'approval_rejected',
  failure_message: "Le paiement n'a pas été approuvé.",
  created_at: '2026-11-20T17:02:11.408Z',
  settled_at: '2026-11-20T17:03:40.116Z',
  subscription_ends_at: null,
});

export const BILLING = example({
  status: 'active',
  trial_ends_at: '2026-11-19T08:00:00.000Z',
  subscription_ends_at: CHARGE.subscription_ends_at,
  plan: MONTHLY_PLAN,
  charges: [CHARGE, DECLINED_CHARGE],
});
