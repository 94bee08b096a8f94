import { CATEGORY } from '../categories/examples.ts';
import { example } from '../lib/examples.ts';
import { PRODUCT_IDS } from '../sales/examples.ts';

/**
 * The examples of the OpenAPI document for the catalogue: the rice of the sales examples
 * (api/sales/examples.ts), and a football shirt sold by size, the product with variants.
 */

/** Riz et céréales, the category of the categories examples. */
const RICE_CATEGORY_ID = CATEGORY.id;
export const SHIRT_ID = 'a4d2f7c1-9e3b-4a68-8f15-2c7e9b0d4a53';
export const SHIRT_M_ID = '5e8b1f34-7a2c-4d9e-b6f0-1c3a8e5d7b92';
const SIZE_OPTION_ID = 'd17c3e92-4b5a-4f08-a2e6-8b9f0c1d3e47';

export const PRODUCT = example({
  id: PRODUCT_IDS.rice,
  name: 'Riz parfumé 5 kg',
  sku: 'RIZ-PARF-5KG',
  barcode: '6181100152347',
  category_id: RICE_CATEGORY_ID,
  price_xaf: 4500,
  cost_xaf: 3900,
  vat_rate: 19.25,
  unit: 'piece',
  tracked: true,
  reorder_level: 10,
  on_hand: 46,
  active: true,
  has_variants: false,
  created_at: '2026-02-12T10:20:05.000Z',
  updated_at: '2026-11-18T15:41:27.000Z',
});

export const CREATE_PRODUCT = example({
  name: 'Riz parfumé 5 kg',
  sku: 'RIZ-PARF-5KG',
  barcode: '6181100152347',
  category_id: RICE_CATEGORY_ID,
  price_xaf: 4500,
  cost_xaf: 3900,
  vat_rate: 19.25,
  unit: 'piece',
  tracked: true,
  reorder_level: 10,
});

export const UPDATE_PRODUCT = example({ price_xaf: 4750, reorder_level: 12 });

export const SIZE_OPTION = example({
  id: SIZE_OPTION_ID,
  product_id: SHIRT_ID,
  name: 'Taille',
  values: ['S', 'M', 'L', 'XL'],
  position: 0,
  created_at: '2026-05-04T11:00:12.000Z',
  updated_at: '2026-05-04T11:00:12.000Z',
});

export const REPLACE_OPTIONS = example({ options: [{ name: 'Taille', values: ['S', 'M', 'L', 'XL'] }] });

export const VARIANT = example({
  id: SHIRT_M_ID,
  product_id: SHIRT_ID,
  options: { Taille: 'M' },
  sku: 'MAILLOT-LIONS-M',
  barcode: '2000000012348',
  price_xaf: 12_500,
  on_hand: 8,
  created_at: '2026-05-04T11:00:40.000Z',
  updated_at: '2026-05-04T11:00:40.000Z',
});

export const CREATE_VARIANT = example({ options: { Taille: 'M' }, sku: 'MAILLOT-LIONS-M', price_xaf: 12_500 });

export const UPDATE_VARIANT = example({ price_xaf: 13_000 });

export const GENERATE_VARIANTS = example({ default_price_xaf: 12_500 });

export const SHIRT = example({
  id: SHIRT_ID,
  name: 'Maillot Lions Indomptables',
  sku: 'MAILLOT-LIONS',
  barcode: null,
  category_id: '0b6e2d84-1f7a-4c39-9e5d-7a2c4b8f1e06',
  price_xaf: 12_500,
  cost_xaf: 8000,
  vat_rate: 19.25,
  unit: 'piece',
  tracked: true,
  reorder_level: 2,
  on_hand: 8,
  active: true,
  has_variants: true,
  created_at: '2026-05-04T10:58:31.000Z',
  updated_at: '2026-05-04T11:00:40.000Z',
});

export const PRODUCT_DETAIL = example({ ...SHIRT, options: [SIZE_OPTION], variants: [VARIANT] });

export const PRODUCT_LIST_ITEM = example({ ...PRODUCT, matched_variant: null });

export const GENERATE_BARCODES = example({ category_id: RICE_CATEGORY_ID, include_variants: true });

export const BARCODE_ASSIGNMENT = example({ product_id: PRODUCT_IDS.oil, variant_id: null, barcode: '2012345678903' });
