import { example } from '../lib/examples.ts';
import { SHOP_ID } from '../shop/examples.ts';

/** The examples of the OpenAPI document for staff: the owner of the Douala grocery and her cashier. */

export const OWNER = example({
  id: '6f0e3c5a-2b7d-4e19-8c4f-1a9d7e2b5c83',
  kind: 'shop',
  shop_id: SHOP_ID,
  role: 'owner',
  name: 'Chantal Ngono',
  email: 'chantal.ngono@example.cm',
  phone: '+237 677 12 34 56',
  locale: 'fr',
  created_at: '2026-02-12T09:12:40.000Z',
  updated_at: '2026-02-12T09:12:40.000Z',
});

/** The cashier who records the sales examples (api/sales/examples.ts). */
export const CASHIER = example({
  id: 'bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b',
  kind: 'shop',
  shop_id: SHOP_ID,
  role: 'cashier',
  name: 'Awa Ndiaye',
  email: 'awa.ndiaye@example.cm',
  phone: '+237 690 45 67 89',
  locale: 'fr',
  created_at: '2026-02-15T08:30:00.000Z',
  updated_at: '2026-06-03T10:02:17.000Z',
});

export const CREATE_USER = example({
  name: 'Awa Ndiaye',
  email: 'awa.ndiaye@example.cm',
  password: 'Caisse-Akwa-2026',
  role: 'cashier',
  phone: '+237 690 45 67 89',
  locale: 'fr',
});

export const UPDATE_USER = example({ phone: '+237 690 45 67 89', role: 'manager' });
