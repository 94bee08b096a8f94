import { CUSTOMER } from '../customers/examples.ts';
import { example } from '../lib/examples.ts';
import { SHOP } from '../shop/examples.ts';
import { OWNER } from '../users/examples.ts';

/** The examples of the OpenAPI document for loyalty: the card of the customer of the sales examples, the default tier ladder. */

export const REGISTER_CARD = example({ card_no: CUSTOMER.card_no, customer_id: CUSTOMER.id });

export const CARD_PRINT = example({
  shop_name: SHOP.name,
  customer_id: CUSTOMER.id,
  customer_name: CUSTOMER.name,
  card_no: CUSTOMER.card_no,
  points: CUSTOMER.points,
  tier: CUSTOMER.tier,
  barcode: {
    format: 'code128',
    svg: '<svg xmlns="http://www.w3.org/2000/svg" width="189" height="60" viewBox="0 0 189 60"><rect width="189" height="60" fill="#fff"/><path d="M10 0h2v50h-2zM13 0h1v50h-1zM16 0h3v50h-3z" fill="#000"/><text x="94.5" y="58" font-size="9" text-anchor="middle">FID-000123</text></svg>',
  },
});

export const CORRECT_POINTS = example({ delta: 50, reason: 'Points de la carte perdue repris' });

export const POINTS_ENTRY = example({
  id: '2f9c7a4e-1b6d-4853-a0e2-5d8b3c7f9e16',
  customer_id: CUSTOMER.id,
  kind: 'adjust',
  points: 50,
  source_type: 'adjustment',
  source_id: null,
  reason: 'Points de la carte perdue repris',
  user_id: OWNER.id,
  created_at: '2026-11-21T10:02:45.000Z',
});

export const POINTS_CORRECTION = example({ customer: { ...CUSTOMER, points: CUSTOMER.points + 50, updated_at: POINTS_ENTRY.created_at }, entry: POINTS_ENTRY });

const tier = (id: string, key: string, name: string, min_points: number, multiplier: number) =>
  ({ id, key, name, min_points, multiplier, created_at: '2026-02-12T09:12:40.000Z', updated_at: '2026-02-12T09:12:40.000Z' });

export const TIERS = example([
  tier('b3e8c1d5-7a2f-4e96-8c0b-4d1f6a9e2c73', 'bronze', 'Bronze', 0, 1),
  tier('e7a2d9f4-3c6b-4158-9e0d-2b5c8f1a7d64', 'silver', 'Argent', 1000, 1.25),
  tier('4c1f8b6e-9d3a-4e72-b5f0-8a2e7c4d1b95', 'gold', 'Or', 5000, 1.5),
]);

export const TIER = TIERS[1]!;

export const REPLACE_TIERS = example({
  tiers: [
    { key: 'bronze', name: 'Bronze', min_points: 0, multiplier: 1 },
    { key: 'silver', name: 'Argent', min_points: 1000, multiplier: 1.25 },
    { key: 'gold', name: 'Or', min_points: 5000, multiplier: 1.5 },
  ],
});

export const LOYALTY_REPORT = example({
  from: '2026-10-22',
  to: '2026-11-21',
  issued: 8420,
  redeemed: 2100,
  adjusted: 50,
  reversed: -96,
  outstanding: 12_730,
  top_holders: [
    { customer_id: 'f1d4a7c2-8e5b-4396-b0a3-6c9e2d5f8a17', name: 'Marie-Claire Ebanda', points: 2315 },
    { customer_id: CUSTOMER.id, name: CUSTOMER.name, points: CUSTOMER.points },
  ],
  tiers: [
    { key: 'bronze', name: 'Bronze', min_points: 0, customers: 211, points: 7_985 },
    { key: 'silver', name: 'Argent', min_points: 1000, customers: 25, points: 3_960 },
    { key: 'gold', name: 'Or', min_points: 5000, customers: 2, points: 785 },
  ],
});
