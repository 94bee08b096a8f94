import { example } from '../lib/examples.ts';
import { SHOP } from '../shop/examples.ts';
import { OWNER } from '../users/examples.ts';

/** The examples of the OpenAPI document for accounts: the owner of the Douala grocery signs up and logs in. */

export const REGISTER = example({
  shop_name: 'Boutique Mama Ngono',
  owner_name: 'Chantal Ngono',
  owner_email: 'chantal.ngono@example.cm',
  password: 'Akwa-Douala-2026',
  business_type: 'Alimentation générale',
  phone: '+237 677 12 34 56',
  city: 'Douala',
  tax_id: 'M051912345678K',
  locale: 'fr',
  referral_code: 'NJOYA-DLA',
});

export const LOGIN = example({ email: 'chantal.ngono@example.cm', password: 'Akwa-Douala-2026', device_name: 'Caisse 1' });

export const FORGOT_PASSWORD = example({ email: 'chantal.ngono@example.cm' });

export const RESET_PASSWORD = example({
  token: 'q3Zk8WmT1vR6yB0pXc4LhN9sEaJ2uF7dGiO5tYwKbM',
  email: 'chantal.ngono@example.cm',
  password: 'Nouveau-Mot-2026',
});

export const SESSION = example({
  token: 'pos_6f0e3c5a2b7d4e19.Xq8RzV3mK0tN5wYb1cLd7hJ2sP9uA4eG',
  user: OWNER,
  shop: SHOP,
});

export const ME = example({ user: OWNER, shop: SHOP });

export const PASSWORD_CHANGED = example({ message: 'Your password has been changed.' });
