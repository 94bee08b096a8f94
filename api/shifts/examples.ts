import { example } from '../lib/examples.ts';

/**
 * The examples of the OpenAPI document for shifts: a cashier's day, opened with a 25 000 float, cash
 * and MTN MoMo sales, a refund, 5 000 taken out for bags, then closed 500 short.
 */

const SHIFT_ID = '29d1d319-b861-47ad-b1b1-36005243929f';
const CASHIER_ID = 'bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b';
const OPENED_AT = '2026-11-21T09:14:31.883Z';

export const OPEN_SHIFT = example({ opening_float_xaf: 25_000 });

/** GET /shift before the close: live expected cash = 25 000 + 34 750 - 188 - 5 000. */
export const CURRENT_SHIFT = example({
  id: SHIFT_ID,
  user_id: CASHIER_ID,
  user_name: 'Awa Ndiaye',
  status: 'open',
  opening_float_xaf: 25_000,
  expected_cash_xaf: 54_562,
  counted_cash_xaf: null,
  difference_xaf: null,
  by_method: null,
  note: null,
  opened_at: OPENED_AT,
  closed_at: null,
  created_at: OPENED_AT,
  updated_at: OPENED_AT,
  totals: {
    opening_float_xaf: 25_000,
    cash_sales_xaf: 34_750,
    cash_refunds_xaf: 188,
    cash_settlements_xaf: 0,
    cash_in_xaf: 0,
    cash_out_xaf: 5000,
    cash_expenses_xaf: 0,
    cash_supplier_payments_xaf: 0,
    expected_cash_xaf: 54_562,
    by_method: { cash: 54_562, carrier1_momo: 8000, carrier2_money: 0, card: 0, bank: 0 },
  },
});

export const CLOSE_SHIFT = example({ counted_cash_xaf: 54_062, note: 'Il manque 500 F', counted_by_method: [54_062, 8000] });

/** The shift as POST /shift/close stored it. */
export const SHIFT = example({
  id: SHIFT_ID,
  user_id: CASHIER_ID,
  user_name: 'Awa Ndiaye',
  status: 'closed',
  opening_float_xaf: 25_000,
  expected_cash_xaf: 54_562,
  counted_cash_xaf: 54_062,
  difference_xaf: -500,
  by_method: {
    cash: { expected_xaf: 54_562, counted_xaf: 54_062, difference_xaf: -500 },
    carrier1_momo: { expected_xaf: 8000, counted_xaf: 8000, difference_xaf: 0 },
    carrier2_money: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
    card: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
    bank: { expected_xaf: 0, counted_xaf: null, difference_xaf: null },
  },
  note: 'Il manque 500 F',
  opened_at: OPENED_AT,
  closed_at: '2026-11-21T18:02:11.458Z',
  created_at: OPENED_AT,
  updated_at: '2026-11-21T18:02:11.458Z',
});

export const CASH_MOVEMENT_INPUT = example({ direction: 'out', amount_xaf: 5000, reason: 'Achat sachets' });

export const CASH_MOVEMENT = example({
  id: '601d4afa-5d1f-4345-909e-67e31e42587e',
  shift_id: SHIFT_ID,
  user_id: CASHIER_ID,
  ...CASH_MOVEMENT_INPUT,
  created_at: '2026-11-21T11:40:05.412Z',
  updated_at: '2026-11-21T11:40:05.412Z',
  till_created_at: null,
});
