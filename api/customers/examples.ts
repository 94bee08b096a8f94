import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for customers: a regular of a Douala grocery with a loyalty card and credit. */

export const CUSTOMER = example({
  id: 'c8fd8915-c317-4581-afeb-8c107961bc8d',
  name: 'Jean-Pierre Mbarga',
  phone: '+237 699 00 01 11',
  email: 'jp.mbarga@example.cm',
  note: null,
  tax_id: 'M041812345678A',
  trade_register_no: null,
  address: 'Rue 1.234, Akwa, Douala',
  credit_ceiling_xaf: 50_000,
  balance_xaf: 4500,
  points: 371,
  tier: { key: 'bronze', name: 'Bronze', multiplier: 1 },
  card_no: 'FID-000123',
  created_at: '2026-11-21T09:14:31.867Z',
  updated_at: '2026-11-21T09:14:32.360Z',
  till_created_at: null,
});

export const CREATE_CUSTOMER = example({
  name: 'Jean-Pierre Mbarga',
  phone: '+237 699 00 01 11',
  email: 'jp.mbarga@example.cm',
  tax_id: 'M041812345678A',
  address: 'Rue 1.234, Akwa, Douala',
  credit_ceiling_xaf: 50_000,
  card_no: 'FID-000123',
});

export const UPDATE_CUSTOMER = example({ phone: '+237 677 45 12 90', credit_ceiling_xaf: 75_000 });
