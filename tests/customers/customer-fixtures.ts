import { randomUUID } from 'node:crypto';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { type ShopFixture } from '../support/fixtures.ts';
export { staffedShop, type StaffedShop } from '../support/fixtures.ts';
import type { Reply, Service } from '../support/service.ts';

/** Set-up shared by the customer and credit tests (tests/customers only; candidates for tests/support/fixtures.ts). */

export function postCustomer(api: Service, token: string, body: Record<string, unknown>): Promise<Reply> {
  return api.request('POST', '/customers', { token, body });
}

/** A customer created through the API; throws unless it answers 201. */
export async function createCustomer(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await postCustomer(api, token, { name: 'Aïcha Bello', ...fields });
  if (reply.status !== 201) throw new Error(`create customer failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/**
 * Gives a customer a debt the way a credit sale will: `customer_charge` as the app role, inside a
 * transaction with the shop set, dated `daysAgo` days before now (or at the given date). Rejects
 * with the PostgresError (code `PB422`, message the business code) when refused.
 */
export function charge(api: Service, shop: ShopFixture, customerId: string, amountXaf: number, when: number | Date = 0): Promise<any> {
  const at = when instanceof Date ? when : null;
  const daysAgo = when instanceof Date ? 0 : when;
  return inTenant(api.appSql, { shopId: shop.shop.id, userId: shop.user.id }, async (tx) => {
    const [row] = await tx`
      select * from customer_charge(${customerId}::uuid, 'sale', ${randomUUID()}::uuid, ${amountXaf}::bigint,
                                    coalesce(${at}::timestamptz, now() - ${daysAgo}::int * interval '1 day'))`;
    return row;
  });
}

/** The error a promise rejects with, or null when it resolves. */
export function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

/** What the database holds for a customer, read past row-level security. */
export async function storedCustomer(api: Service, id: string): Promise<any> {
  const [row] = await api.ownerSql`
    select id, shop_id, name, phone, email, note, credit_ceiling_xaf, balance_xaf, points, card_no, deleted_at, updated_at
      from customers where id = ${id}`;
  return row;
}

/** A customer's debts, oldest first, straight from the database. */
export async function storedDebts(api: Service, customerId: string): Promise<{ id: string; amount_xaf: number; settled_xaf: number }[]> {
  const rows = await api.ownerSql<{ id: string; amount_xaf: number; settled_xaf: number }[]>`
    select id, amount_xaf, settled_xaf from customer_debts where customer_id = ${customerId} order by occurred_at, id`;
  return rows.map((row) => ({ ...row }));
}

/** How many settlements, allocations and settlement journal entries a shop holds. */
export async function settlementCounts(api: Service, shopId: string): Promise<{ payments: number; allocations: number; entries: number }> {
  const [row] = await api.ownerSql<{ payments: number; allocations: number; entries: number }[]>`
    select (select count(*) from customer_payments where shop_id = ${shopId})::int as payments,
           (select count(*) from customer_payment_allocations where shop_id = ${shopId})::int as allocations,
           (select count(*) from journal_entries where shop_id = ${shopId} and source_type = 'customer_payment')::int as entries`;
  return row!;
}
