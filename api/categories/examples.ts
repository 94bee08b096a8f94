import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for categories: the grocery's shelves. */

export const GROCERY_CATEGORY_ID = '1c7a9e3f-5b2d-4c8e-a6f1-3d9b7e5c2a40';

export const CATEGORY = example({
  id: '7e2c4a91-3f6b-4d58-b0e7-9a1c5f3d8b26',
  name: 'Riz et céréales',
  parent_id: GROCERY_CATEGORY_ID,
  sort_order: 10,
  created_at: '2026-02-12T10:03:18.000Z',
  updated_at: '2026-02-12T10:03:18.000Z',
});

export const CREATE_CATEGORY = example({ name: 'Riz et céréales', parent_id: GROCERY_CATEGORY_ID, sort_order: 10 });

export const UPDATE_CATEGORY = example({ name: 'Riz, pâtes et céréales', sort_order: 5 });
