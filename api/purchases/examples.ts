import { example } from '../lib/examples.ts';
import { PRODUCT_IDS } from '../sales/examples.ts';
import { SUPPLIER } from '../suppliers/examples.ts';
import { OWNER } from '../users/examples.ts';

/**
 * The examples of the OpenAPI document for purchases: rice, oil and milk (into a dated batch) received
 * from the wholesaler with 19.25 % VAT (subtotal 168 000, VAT 32 340, total 200 340 XAF), half paid by
 * bank transfer, then two bottles of oil sent back (2 200 + 424 VAT).
 */

const PURCHASE_ID = '0e7c4b2a-9f1d-4a63-8b5e-2d6f9c1a7e34';
const RECEIVED_AT = '2026-11-19T10:05:37.000Z';

export const CREATE_PURCHASE = example({
  supplier_id: SUPPLIER.id,
  reference: 'FAC-2026-1187',
  note: null,
  vat_rate: 19.25,
  items: [
    { product_id: PRODUCT_IDS.rice, quantity: 20, unit_cost_xaf: 3900 },
    { product_id: PRODUCT_IDS.oil, quantity: 24, unit_cost_xaf: 1100 },
    { product_id: PRODUCT_IDS.milk, quantity: 24, unit_cost_xaf: 2650, batch_number: 'L2026-0418', expiry_date: '2027-04-18' },
  ],
});

const ITEMS = [
  {
    id: '7b2e9d4c-1a6f-4835-9c0e-3f8a5d2b7c61',
    line_no: 1,
    product_id: PRODUCT_IDS.rice,
    variant_id: null,
    name: 'Riz parfumé 5 kg',
    quantity: 20,
    unit_cost_xaf: 3900,
    total_xaf: 78_000,
    batch_number: null,
    expiry_date: null,
    batch_id: null,
    returned_quantity: 0,
  },
  {
    id: 'a9f3c6e1-4d2b-4978-8e5a-0c7b3f9d1e42',
    line_no: 2,
    product_id: PRODUCT_IDS.oil,
    variant_id: null,
    name: 'Huile Mayor 1 L',
    quantity: 24,
    unit_cost_xaf: 1100,
    total_xaf: 26_400,
    batch_number: null,
    expiry_date: null,
    batch_id: null,
    returned_quantity: 0,
  },
  {
    id: '3c8d1f7a-6e4b-4a29-b0d5-9e2c7a4f1b86',
    line_no: 3,
    product_id: PRODUCT_IDS.milk,
    variant_id: null,
    name: 'Lait Nido 400 g',
    quantity: 24,
    unit_cost_xaf: 2650,
    total_xaf: 63_600,
    batch_number: 'L2026-0418',
    expiry_date: '2027-04-18',
    batch_id: '9c4e1b7a-3f6d-4a28-b5e9-0d2c8f6a4e13',
    returned_quantity: 0,
  },
];

/** As POST /purchases answers it. */
export const PURCHASE = example({
  id: PURCHASE_ID,
  supplier_id: SUPPLIER.id,
  supplier_name: SUPPLIER.name,
  reference: 'FAC-2026-1187',
  note: null,
  vat_rate: 19.25,
  subtotal_xaf: 168_000,
  vat_xaf: 32_340,
  total_xaf: 200_340,
  paid_xaf: 0,
  returned_xaf: 0,
  balance_xaf: 200_340,
  status: 'unpaid',
  user_id: OWNER.id,
  created_at: RECEIVED_AT,
  updated_at: RECEIVED_AT,
  items: ITEMS,
  payments: [],
  returns: [],
});

export const PAY_PURCHASE = example({ amount_xaf: 100_000, method: 'bank', reference: 'VIR-AFB-20261120-0042' });

const PAYMENT = example({
  id: 'd4b7e2a9-8c1f-4e36-a5d0-7f3b9c6e2a15',
  amount_xaf: 100_000,
  method: 'bank',
  reference: 'VIR-AFB-20261120-0042',
  shift_id: null,
  user_id: OWNER.id,
  created_at: '2026-11-20T15:22:08.000Z',
});

/** As POST /purchases/{purchase_id}/pay answers it. */
export const PAID_PURCHASE = example({
  ...PURCHASE,
  paid_xaf: 100_000,
  balance_xaf: 100_340,
  status: 'partially_paid',
  updated_at: PAYMENT.created_at,
  payments: [PAYMENT],
});

export const PURCHASE_RETURN = example({ items: [{ purchase_item_id: ITEMS[1]!.id, quantity: 2, reason: 'Bouteilles percées à la livraison' }] });

const RETURN = example({
  id: 'f6a1c8e3-5b9d-4072-8e4f-1a3d7b5c9e28',
  subtotal_xaf: 2200,
  vat_xaf: 424,
  total_xaf: 2624,
  user_id: OWNER.id,
  created_at: '2026-11-21T11:30:55.000Z',
  items: [{ id: 'b2e5d8a1-7c3f-4b96-9a0e-4d6f1c8b3e57', purchase_item_id: ITEMS[1]!.id, quantity: 2, total_xaf: 2200, reason: 'Bouteilles percées à la livraison' }],
});

/** As POST /purchases/{purchase_id}/returns answers it, after the payment. */
export const RETURNED_PURCHASE = example({
  ...PAID_PURCHASE,
  returned_xaf: 2624,
  balance_xaf: 97_716,
  updated_at: RETURN.created_at,
  items: ITEMS.map((item, index) => (index === 1 ? { ...item, returned_quantity: 2 } : item)),
  returns: [RETURN],
});

export const PAYABLE_LINE = example({
  supplier_id: SUPPLIER.id,
  name: SUPPLIER.name,
  phone: SUPPLIER.phone,
  balance_xaf: 245_716,
  days_0_30_xaf: 97_716,
  days_31_60_xaf: 148_000,
  days_61_90_xaf: 0,
  days_over_90_xaf: 0,
  oldest_at: '2026-10-07T09:41:12.000Z',
});

export const PAYABLES = example({
  as_of: '2026-11-21T12:00:03.000Z',
  suppliers: [
    PAYABLE_LINE,
    {
      supplier_id: '2a8f5c1d-9e3b-4d76-b4a0-6c1e8f2d5b93',
      name: 'Établissements Fotso & Fils',
      phone: '+237 677 80 11 25',
      balance_xaf: 62_500,
      days_0_30_xaf: 0,
      days_31_60_xaf: 0,
      days_61_90_xaf: 0,
      days_over_90_xaf: 62_500,
      oldest_at: '2026-07-28T14:10:00.000Z',
    },
  ],
  totals: { balance_xaf: 308_216, days_0_30_xaf: 97_716, days_31_60_xaf: 148_000, days_61_90_xaf: 0, days_over_90_xaf: 62_500 },
});
