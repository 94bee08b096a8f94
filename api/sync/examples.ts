import { CATEGORY } from '../categories/examples.ts';
import { CUSTOMER } from '../customers/examples.ts';
import { CREATE_EXPENSE } from '../expenses/examples.ts';
import { example } from '../lib/examples.ts';
import { TIERS } from '../loyalty/examples.ts';
import { PRODUCT, SHIRT, SIZE_OPTION, VARIANT } from '../products/examples.ts';
import { PROMOTION } from '../promotions/examples.ts';
import { QUOTE } from '../quotes/examples.ts';
import { CREATE_SALE, SALE } from '../sales/examples.ts';
import { CASH_MOVEMENT_INPUT } from '../shifts/examples.ts';
import { CASHIER } from '../users/examples.ts';

/**
 * The examples of the OpenAPI document for sync: a till's pull after the rice price changed and a
 * shelf was removed, and the push of what it recorded during a power cut (a new customer, a sale, a
 * taxi paid from the drawer, cash taken out).
 */

const live = <T extends object>(record: T) => ({ ...record, deleted_at: null });

export const PULLED = {
  category: live(CATEGORY),
  product: live(PRODUCT),
  option: live(SIZE_OPTION),
  variant: live(VARIANT),
  customer: live(CUSTOMER),
  promotion: live(PROMOTION),
  tier: live(TIERS[0]!),
  sale: { ...SALE, deleted_at: null },
  quote: live(QUOTE),
};

export const PULL = example({
  data: {
    categories: [
      PULLED.category,
      { id: '5a1d8c3f-2e7b-4960-b4a8-9f3c6e1d7b25', name: 'Boissons gazeuses', parent_id: null, sort_order: 40, created_at: '2026-02-12T10:04:51.000Z', updated_at: '2026-11-20T19:02:33.000Z', deleted_at: '2026-11-20T19:02:33.000Z' },
    ],
    products: [PULLED.product, live(SHIRT)],
    product_options: [PULLED.option],
    variants: [PULLED.variant],
    customers: [PULLED.customer],
    promotions: [PULLED.promotion],
    loyalty_tiers: [],
    sales: [],
    quotes: [],
  },
  has_more: { categories: false, products: false, product_options: false, variants: false, customers: false, promotions: false, loyalty_tiers: false, sales: false, quotes: false },
  cursor:
    'WzEsbnVsbCxbWyI5MTgyNzQiLCI1YTFkOGMzZi0yZTdiLTQ5NjAtYjRhOC05ZjNjNmUxZDdiMjUiLCI5MTgyNzAiXSxbIjkxODI3NCIsImE0ZD' +
    'JmN2MxLTllM2ItNGE2OC04ZjE1LTJjN2U5YjBkNGE1MyIsIjkxODI3MCJdLFsiOTE4Mjc0IiwiZDE3YzNlOTItNGI1YS00ZjA4LWEyZTYtOGI5' +
    'ZjBjMWQzZTQ3IiwiOTE4MjcwIl0sWyI5MTgyNzQiLCI1ZThiMWYzNC03YTJjLTRkOWUtYjZmMC0xYzNhOGU1ZDdiOTIiLCI5MTgyNzAiXSxbIj' +
    'kxODI3NCIsImM4ZmQ4OTE1LWMzMTctNDU4MS1hZmViLThjMTA3OTYxYmM4ZCIsIjkxODI3MCJdLFsiOTE4Mjc0IiwiOGVmZjBmYzktMDNhOS00' +
    'NTZlLWJmYmUtOWRjODZmMThiOGZmIiwiOTE4MjcwIl0sWyIwIiwiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIiwiOTE4Mj' +
    'cwIl0sWyIwIiwiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIiwiOTE4MjcwIl0sWyIwIiwiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIiwiOTE4MjcwIl1dXQ',
});

export const SYNC_CUSTOMER = example({
  id: '4b9e2d7a-1c5f-4e38-8a6d-0f3b7c9e2a14',
  name: 'Odile Tchamba',
  phone: '+237 655 31 72 08',
  created_at: '2026-11-20T17:38:02.000Z',
});

export const SYNC_SALE = example({
  ...CREATE_SALE,
  id: '6c2f9a4e-8b1d-4753-9e0a-3d7c5b1f8e46',
  customer_id: SYNC_CUSTOMER.id,
  items: CREATE_SALE.items.slice(0, 2),
  payments: [{ method: 'cash', amount_xaf: 13_050 }],
  created_at: '2026-11-20T17:42:10.000Z',
  user_id: CASHIER.id,
});

export const SYNC_EXPENSE = example({ ...CREATE_EXPENSE, id: '8e4a1c7f-3b6d-4290-a5e8-2c9f7d1b4a63', spent_at: '2026-11-20', user_id: CASHIER.id });

export const SYNC_CASH_MOVEMENT = example({ ...CASH_MOVEMENT_INPUT, id: 'b1d7e4a2-9c3f-4816-8d5b-7e0a2c6f9b31', created_at: '2026-11-20T18:05:44.000Z', user_id: CASHIER.id });

export const PUSH = example({
  customers: [SYNC_CUSTOMER],
  sales: [SYNC_SALE],
  expenses: [SYNC_EXPENSE],
  cash_movements: [SYNC_CASH_MOVEMENT],
});

export const PUSH_RESULTS = example({
  data: {
    results: [
      { entity: 'customers', id: SYNC_CUSTOMER.id, status: 'applied' },
      { entity: 'sales', id: SYNC_SALE.id, status: 'applied', receipt_no: 1187 },
      { entity: 'expenses', id: SYNC_EXPENSE.id, status: 'duplicate' },
      {
        entity: 'cash_movements',
        id: SYNC_CASH_MOVEMENT.id,
        status: 'rejected',
        code: 'no_open_shift',
        message: "Ouvrez d'abord une session de caisse : l'argent du tiroir appartient à une session.",
      },
    ],
  },
});
