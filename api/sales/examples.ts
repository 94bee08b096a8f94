import { example } from '../lib/examples.ts';

/**
 * The examples of the OpenAPI document for sales: one real sale of a Douala grocery (five lines at
 * 19.25 % VAT, a buy-3-get-1 promotion on the soap, a line discount on the milk, paid in cash and
 * MTN MoMo with change), as POST /sales answered it. tests/platform/openapi-docs.test.ts holds each
 * to its schema.
 */

/** The products of the examples, shared by the sales, quotes and promotions examples. */
export const PRODUCT_IDS = {
  rice: '52e91395-3b7b-40b6-bc80-e88c47c19a6a',
  oil: '8141686a-bb75-4e84-899d-6422f101220b',
  soap: 'efc3f6ce-5f65-4e6d-b0fb-1aef602061c1',
  sugar: 'b9e24377-345c-402f-94b4-39fd1ab23ff5',
  milk: '95bf4856-b6fe-4373-9349-f02452c6ff6a',
} as const;

/** The buy-3-get-1 promotion on Savon Azur (the promotions examples). */
export const SOAP_PROMOTION_ID = '8eff0fc9-03a9-456e-bfbe-9dc86f18b8ff';

export const CUSTOMER_ID = 'c8fd8915-c317-4581-afeb-8c107961bc8d';

const SALE_ID = '8ff286f1-ddbe-4c1d-ba18-b412f2cc5ea9';

export const CREATE_SALE = example({
  id: SALE_ID,
  customer_id: CUSTOMER_ID,
  items: [
    { product_id: PRODUCT_IDS.rice, quantity: 2 },
    { product_id: PRODUCT_IDS.oil, quantity: 3 },
    { product_id: PRODUCT_IDS.soap, quantity: 4 },
    { product_id: PRODUCT_IDS.sugar, quantity: 1.5 },
    { product_id: PRODUCT_IDS.milk, quantity: 1, discount_xaf: 200 },
  ],
  payments: [
    { method: 'cash', amount_xaf: 11_000 },
    { method: 'carrier1_momo', amount_xaf: 8000, reference: 'MP240611.1532.A81234' },
  ],
});

/** The sale as POST /sales recorded it (201). */
export const SALE = example({
  id: SALE_ID,
  receipt_no: 1,
  status: 'completed',
  customer_id: CUSTOMER_ID,
  device_id: null,
  cashier_id: 'bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b',
  cashier_name: 'Awa Ndiaye',
  shift_id: '29d1d319-b861-47ad-b1b1-36005243929f',
  note: null,
  subtotal_xaf: 18_900,
  discount_xaf: 450,
  vat_xaf: 2978,
  total_xaf: 18_450,
  paid_xaf: 19_000,
  change_xaf: 550,
  credit_xaf: 0,
  points_earned: 184,
  points_redeemed: 0,
  offline: false,
  items: [
    {
      id: '4cac650d-cef3-4fd6-871d-e018ce5010ef',
      line_no: 1,
      product_id: PRODUCT_IDS.rice,
      variant_id: null,
      name: 'Riz parfumé 5 kg',
      quantity: 2,
      unit_price_xaf: 4500,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 1453,
      total_xaf: 9000,
      refunded_quantity: 0,
    },
    {
      id: '09c04fbe-f109-4406-96ee-331eaa72898d',
      line_no: 2,
      product_id: PRODUCT_IDS.oil,
      variant_id: null,
      name: 'Huile Mayor 1 L',
      quantity: 3,
      unit_price_xaf: 1350,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 654,
      total_xaf: 4050,
      refunded_quantity: 0,
    },
    {
      id: '44523275-5270-4e6a-9bde-c1ff76ef836a',
      line_no: 3,
      product_id: PRODUCT_IDS.soap,
      variant_id: null,
      name: 'Savon Azur',
      quantity: 4,
      unit_price_xaf: 250,
      discount_xaf: 0,
      promotion_id: SOAP_PROMOTION_ID,
      promotion_discount_xaf: 250,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 121,
      total_xaf: 750,
      refunded_quantity: 0,
    },
    {
      id: '9f0856f1-234e-4f13-b498-f9eac3190987',
      line_no: 4,
      product_id: PRODUCT_IDS.sugar,
      variant_id: null,
      name: 'Sucre Sosucam 1 kg',
      quantity: 1.5,
      unit_price_xaf: 1100,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 266,
      total_xaf: 1650,
      refunded_quantity: 0,
    },
    {
      id: '693edd40-bf5d-4177-be70-34a03b3db15d',
      line_no: 5,
      product_id: PRODUCT_IDS.milk,
      variant_id: null,
      name: 'Lait Nido 400 g',
      quantity: 1,
      unit_price_xaf: 3200,
      discount_xaf: 200,
      promotion_id: null,
      promotion_discount_xaf: 0,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 484,
      total_xaf: 3000,
      refunded_quantity: 0,
    },
  ],
  payments: [
    {
      id: '47f2d69b-c099-4c1f-aa80-ebf2a68b9c56',
      kind: 'payment',
      method: 'cash',
      amount_xaf: 11_000,
      reference: null,
      created_at: '2026-11-21T09:14:32.000Z',
    },
    {
      id: '9d246cd7-ec04-4f8a-aa77-acdb69aa99de',
      kind: 'payment',
      method: 'carrier1_momo',
      amount_xaf: 8000,
      reference: 'MP240611.1532.A81234',
      created_at: '2026-11-21T09:14:32.000Z',
    },
    {
      id: 'e66ff2bc-cf0c-4b85-b00c-f003a281fbb2',
      kind: 'change',
      method: 'cash',
      amount_xaf: -550,
      reference: null,
      created_at: '2026-11-21T09:14:32.000Z',
    },
  ],
  refunds: [],
  vat_breakdown: [{ rate: 19.25, base_xaf: 15_472, vat_xaf: 2978, total_xaf: 18_450 }],
  certification: null,
  void_certification: null,
  quote_id: null,
  void_reason: null,
  voided_at: null,
  created_at: '2026-11-21T09:14:32.000Z',
  recorded_at: '2026-11-21T09:14:32.000Z',
  updated_at: '2026-11-21T09:14:32.000Z',
  till_created_at: null,
});

export const REFUND = example({
  id: 'de6275af-7e63-4063-8f43-309834debd07',
  credit_note_no: 1,
  method: 'cash',
  reason: 'Savon abîmé',
  total_xaf: 188,
  vat_xaf: 30,
  items: [{ sale_item_id: SALE.items[2]!.id, quantity: 1, total_xaf: 188, vat_xaf: 30 }],
  created_at: '2026-11-21T09:14:32.088Z',
  certification: null,
});

export const VOID_SALE = example({ reason: 'Vente saisie deux fois' });

export const REFUND_SALE = example({
  method: 'cash',
  reason: 'Savon abîmé',
  items: [{ sale_item_id: SALE.items[2]!.id, quantity: 1 }],
});

export const ATTRIBUTE_LOYALTY = example({ card_no: 'FID-000123' });
