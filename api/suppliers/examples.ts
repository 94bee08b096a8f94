import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for suppliers: the grocery's wholesaler in Douala. */

export const SUPPLIER_ID = '6d3a9f1c-2e8b-4c57-a4f0-9b7e1d5c3a28';

export const SUPPLIER = example({
  id: SUPPLIER_ID,
  name: 'Sodicam Distribution',
  phone: '+237 233 42 18 60',
  email: 'commandes@sodicam-distribution.cm',
  tax_id: 'M071412345678P',
  address: 'Zone industrielle de Bassa, Douala',
  note: 'Livraison le mardi et le vendredi',
  balance_xaf: 245_716,
  created_at: '2026-02-13T08:44:02.000Z',
  updated_at: '2026-11-21T11:30:55.000Z',
});

export const CREATE_SUPPLIER = example({
  name: 'Sodicam Distribution',
  phone: '+237 233 42 18 60',
  email: 'commandes@sodicam-distribution.cm',
  tax_id: 'M071412345678P',
  address: 'Zone industrielle de Bassa, Douala',
  note: 'Livraison le mardi et le vendredi',
});

export const UPDATE_SUPPLIER = example({ phone: '+237 699 88 21 40', note: 'Livraison le mardi seulement' });
