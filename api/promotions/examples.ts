import { example } from '../lib/examples.ts';
import { PRODUCT_IDS, SOAP_PROMOTION_ID } from '../sales/examples.ts';

/** The examples of the OpenAPI document for promotions: "buy 3 Savon Azur, get 1 free", and a basket priced with it. */

export const CREATE_PROMOTION = example({
  name: 'Savon Azur : 3 achetés, 1 offert',
  kind: 'buy_x_get_y',
  value: 1,
  product_ids: [PRODUCT_IDS.soap],
  min_quantity: 3,
});

export const UPDATE_PROMOTION = example({ ends_at: '2026-12-31T22:59:59Z', days_of_week: [6, 7] });

export const PROMOTION = example({
  id: SOAP_PROMOTION_ID,
  name: 'Savon Azur : 3 achetés, 1 offert',
  kind: 'buy_x_get_y',
  value: 1,
  scope: 'items',
  product_ids: [PRODUCT_IDS.soap],
  category_ids: [],
  variant_ids: [],
  min_quantity: 3,
  min_total_xaf: 0,
  starts_at: null,
  ends_at: null,
  days_of_week: null,
  starts_time: null,
  ends_time: null,
  active: true,
  created_at: '2026-11-21T08:02:44.944Z',
  updated_at: '2026-11-21T08:02:44.944Z',
});

export const PREVIEW_REQUEST = example({
  items: [
    { product_id: PRODUCT_IDS.rice, quantity: 2 },
    { product_id: PRODUCT_IDS.soap, quantity: 4 },
  ],
});

export const PREVIEW = example({
  at: '2026-11-21T09:14:31.978Z',
  items: [
    {
      index: 0,
      product_id: PRODUCT_IDS.rice,
      variant_id: null,
      quantity: 2,
      unit_price_xaf: 4500,
      gross_xaf: 9000,
      discount_xaf: 0,
      promotion_id: null,
      promotion_name: null,
      promotion_discount_xaf: 0,
      total_xaf: 9000,
    },
    {
      index: 1,
      product_id: PRODUCT_IDS.soap,
      variant_id: null,
      quantity: 4,
      unit_price_xaf: 250,
      gross_xaf: 1000,
      discount_xaf: 0,
      promotion_id: SOAP_PROMOTION_ID,
      promotion_name: 'Savon Azur : 3 achetés, 1 offert',
      promotion_discount_xaf: 250,
      total_xaf: 750,
    },
  ],
  subtotal_xaf: 10_000,
  discount_xaf: 250,
  total_xaf: 9750,
});
