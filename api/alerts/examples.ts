import { example } from '../lib/examples.ts';
import { PRODUCT_IDS } from '../sales/examples.ts';

/** The examples of the OpenAPI document for stock alerts: a batch of powdered milk expiring in 19 days, biscuits under their reorder level. */

export const EXPIRING_ALERT = example({
  kind: 'expiring',
  product_id: PRODUCT_IDS.milk,
  variant_id: null,
  name: 'Lait Nido 400 g',
  quantity: 23,
  reorder_level: 0,
  batch_id: 'e5d911ac-343d-44ec-ab1e-8c7cf7828d29',
  batch_number: 'NID2611A',
  expiry_date: '2026-12-10',
  days_left: 19,
  last_sold_at: null,
});

export const LOW_STOCK_ALERT = example({
  kind: 'low_stock',
  product_id: '14e939d6-b258-4ec1-af42-6222e3d89e06',
  variant_id: null,
  name: 'Biscuits Tartine 200 g',
  quantity: 8,
  reorder_level: 24,
  batch_id: null,
  batch_number: null,
  expiry_date: null,
  days_left: null,
  last_sold_at: null,
});

export const EXPIRING = example({
  data: [
    {
      batch_id: 'e5d911ac-343d-44ec-ab1e-8c7cf7828d29',
      product_id: PRODUCT_IDS.milk,
      variant_id: null,
      name: 'Lait Nido 400 g',
      batch_number: 'NID2611A',
      expiry_date: '2026-12-10',
      days_left: 19,
      quantity: 23,
      value_xaf: 52_900,
    },
  ],
  meta: { within_days: 30, as_of: '2026-11-21', total_value_xaf: 52_900 },
});
