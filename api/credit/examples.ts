import { CUSTOMER } from '../customers/examples.ts';
import { example } from '../lib/examples.ts';

/**
 * The examples of the OpenAPI document for credit: a regular who took 8 500 of rice on account, then
 * paid 4 000 back by MTN MoMo.
 */

const CREDIT_SALE_ID = '1a06b042-9595-49c2-9d2a-3364efe71b64';
const DEBT_ID = '549ba9b2-719c-42b1-b86d-dcba3482bdaf';

export const SETTLEMENT_INPUT = example({ amount_xaf: 4000, method: 'carrier1_momo', note: 'Versement MoMo' });

export const SETTLEMENT = example({
  id: '97e90f3e-bbaf-45aa-aed8-19aeead8fd09',
  customer_id: CUSTOMER.id,
  ...SETTLEMENT_INPUT,
  user_id: 'bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b',
  allocations: [{ debt_id: DEBT_ID, source_type: 'sale', source_id: CREDIT_SALE_ID, amount_xaf: 4000 }],
  created_at: '2026-11-24T16:05:12.237Z',
});

export const OPEN_DEBT = example({
  id: DEBT_ID,
  source_type: 'sale',
  source_id: CREDIT_SALE_ID,
  occurred_at: '2026-11-21T09:31:02.184Z',
  amount_xaf: 8500,
  settled_xaf: 4000,
  remaining_xaf: 4500,
});

export const STATEMENT = example({
  customer_id: CUSTOMER.id,
  name: CUSTOMER.name,
  balance_xaf: 4500,
  credit_ceiling_xaf: 50_000,
  available_credit_xaf: 45_500,
  unsettled: [OPEN_DEBT],
  settlements: [SETTLEMENT],
});

export const RECEIVABLE_LINE = example({
  customer_id: CUSTOMER.id,
  name: CUSTOMER.name,
  phone: CUSTOMER.phone,
  balance_xaf: 4500,
  days_0_30_xaf: 4500,
  days_31_60_xaf: 0,
  days_61_90_xaf: 0,
  days_over_90_xaf: 0,
  oldest_at: OPEN_DEBT.occurred_at,
});

export const RECEIVABLES = example({
  as_of: '2026-11-25T07:30:00.000Z',
  customers: [RECEIVABLE_LINE],
  totals: { balance_xaf: 4500, days_0_30_xaf: 4500, days_31_60_xaf: 0, days_61_90_xaf: 0, days_over_90_xaf: 0 },
});
