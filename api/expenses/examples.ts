import { example } from '../lib/examples.ts';
import { OWNER } from '../users/examples.ts';

/** The examples of the OpenAPI document for expenses: a taxi to the wholesaler, paid from the till. */

export const CREATE_EXPENSE = example({
  category: 'transport',
  amount_xaf: 3500,
  payment_method: 'cash',
  description: 'Taxi aller-retour Bassa pour la commande Sodicam',
  spent_at: '2026-11-21',
});

export const EXPENSE = example({
  id: 'e3b8a5d1-6f2c-4a97-8d4e-0c9f7b3a1e62',
  category: 'transport',
  amount_xaf: 3500,
  payment_method: 'cash',
  description: 'Taxi aller-retour Bassa pour la commande Sodicam',
  spent_at: '2026-11-21T10:48:19.000Z',
  shift_id: '29d1d319-b861-47ad-b1b1-36005243929f',
  user_id: OWNER.id,
  deleted_at: null,
  deleted_by: null,
  created_at: '2026-11-21T10:48:19.000Z',
  updated_at: '2026-11-21T10:48:19.000Z',
});
