import { CATEGORY } from '../categories/examples.ts';
import { example } from '../lib/examples.ts';
import { PRODUCT } from '../products/examples.ts';
import { PRODUCT_IDS } from '../sales/examples.ts';
import { OWNER } from '../users/examples.ts';

/**
 * The examples of the OpenAPI document for stock: the rice of the sales examples counted at 46 bags
 * where 48 were expected (two torn bags), a stocktake of the rice shelf, the batches of the milk.
 */

const STOCKTAKE_ID = 'f2b8d1c6-4e7a-4930-8b5d-3c9e1a7f6d28';

export const ADJUST_STOCK = example({ new_quantity: 46, reason: 'Deux sacs déchirés' });

export const MOVEMENT = example({
  id: 'c5a9e2f7-1d3b-4867-9f0a-6e4b2d8c1a35',
  product_id: PRODUCT_IDS.rice,
  variant_id: null,
  type: 'adjustment',
  quantity: -2,
  on_hand_after: 46,
  reason: 'Deux sacs déchirés',
  source_type: 'adjustment',
  source_id: null,
  user_id: OWNER.id,
  user_name: OWNER.name,
  created_at: '2026-11-21T07:45:10.000Z',
});

export const ADJUSTED = example({ product: { ...PRODUCT, updated_at: MOVEMENT.created_at }, movement: MOVEMENT });

const RICE_ITEM = example({
  id: '8a3f6c1e-2b9d-4e57-a0c4-7d1e5b9f3a62',
  product_id: PRODUCT_IDS.rice,
  variant_id: null,
  name: 'Riz parfumé 5 kg',
  sku: 'RIZ-PARF-5KG',
  expected_quantity: 48,
  counted_quantity: 46,
  variance: -2,
  variance_value_xaf: -7800,
  counted_at: '2026-11-20T18:32:44.000Z',
});

export const STOCKTAKE_ITEM = RICE_ITEM;

const RICE_25_ITEM = example({
  id: '3d7b2e9a-6c1f-48d5-b3e0-9a5c7f2d1b84',
  product_id: 'e6c1a8f3-5d2b-4a97-8e0c-1b4f7d9a3c56',
  variant_id: null,
  name: 'Riz brisé 25 kg',
  sku: 'RIZ-BRISE-25KG',
  expected_quantity: 12,
  counted_quantity: 12,
  variance: 0,
  variance_value_xaf: 0,
  counted_at: '2026-11-20T18:35:02.000Z',
});

export const STOCKTAKE = example({
  id: STOCKTAKE_ID,
  status: 'open',
  note: 'Inventaire du rayon riz',
  category_id: CATEGORY.id,
  created_by: OWNER.id,
  committed_by: null,
  committed_at: null,
  cancelled_at: null,
  summary: { items: 2, counted: 2, variance_value_xaf: -7800 },
  created_at: '2026-11-20T18:05:00.000Z',
  updated_at: '2026-11-20T18:35:02.000Z',
});

export const STOCKTAKE_DETAIL = example({ ...STOCKTAKE, items: [RICE_ITEM, RICE_25_ITEM] });

/** As POST /stocktakes answers it: nothing counted yet. */
export const OPENED_STOCKTAKE = example({
  ...STOCKTAKE,
  summary: { items: 2, counted: 0, variance_value_xaf: 0 },
  updated_at: STOCKTAKE.created_at,
  items: [RICE_ITEM, RICE_25_ITEM].map((item) => ({ ...item, counted_quantity: null, variance: null, variance_value_xaf: null, counted_at: null })),
});

export const COMMITTED_STOCKTAKE = example({
  ...STOCKTAKE_DETAIL,
  status: 'committed',
  committed_by: OWNER.id,
  committed_at: '2026-11-20T18:40:11.000Z',
  updated_at: '2026-11-20T18:40:11.000Z',
});

export const CANCELLED_STOCKTAKE = example({
  ...STOCKTAKE_DETAIL,
  status: 'cancelled',
  cancelled_at: '2026-11-20T18:38:27.000Z',
  updated_at: '2026-11-20T18:38:27.000Z',
});

export const CREATE_STOCKTAKE = example({ note: 'Inventaire du rayon riz', category_id: CATEGORY.id });

export const RECORD_COUNTS = example({
  counts: [
    { item_id: RICE_ITEM.id, counted_quantity: 46 },
    { item_id: RICE_25_ITEM.id, counted_quantity: 12 },
  ],
});

export const VALUATION_LINE = example({
  product_id: PRODUCT_IDS.rice,
  name: 'Riz parfumé 5 kg',
  sku: 'RIZ-PARF-5KG',
  unit: 'piece',
  on_hand: 46,
  cost_xaf: 3900,
  value_xaf: 179_400,
});

export const VALUATION = example({
  data: [
    { product_id: PRODUCT_IDS.oil, name: 'Huile Mayor 1 L', sku: 'HUILE-MAYOR-1L', unit: 'piece', on_hand: 60, cost_xaf: 1100, value_xaf: 66_000 },
    { product_id: PRODUCT_IDS.milk, name: 'Lait Nido 400 g', sku: 'NIDO-400G', unit: 'piece', on_hand: 24, cost_xaf: 2650, value_xaf: 63_600 },
    VALUATION_LINE,
    { product_id: PRODUCT_IDS.sugar, name: 'Sucre Sosucam 1 kg', sku: 'SUCRE-1KG', unit: 'kg', on_hand: 37.5, cost_xaf: 850, value_xaf: 31_875 },
  ],
  meta: { next_cursor: 'WyJTdWNyZSBTb3N1Y2FtIDEga2ciLCJiOWUyNDM3Ny0zNDVjLTQwMmYtOTRiNC0zOWZkMWFiMjNmZjUiXQ', total_xaf: 8_465_300, products: 412 },
});

export const BATCH = example({
  id: '9c4e1b7a-3f6d-4a28-b5e9-0d2c8f6a4e13',
  product_id: PRODUCT_IDS.milk,
  variant_id: null,
  name: 'Lait Nido 400 g',
  batch_number: 'L2026-0418',
  expiry_date: '2027-04-18',
  quantity: 24,
  cost_xaf: 2650,
  value_xaf: 63_600,
  created_at: '2026-10-30T09:20:15.000Z',
  updated_at: '2026-11-21T09:14:32.000Z',
});

export const LOW_STOCK = example({ data: [{ ...PRODUCT, on_hand: 6 }], meta: { next_cursor: null } });
