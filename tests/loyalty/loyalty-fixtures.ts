import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { Tx } from '../../api/db.ts';
import { inTenant } from '../../api/middleware/tenancy.ts';
import { type ShopFixture } from '../support/fixtures.ts';
export { staffedShop, type StaffedShop } from '../support/fixtures.ts';
import type { Service } from '../support/service.ts';

/** Set-up shared by the loyalty tests (tests/loyalty only). */

/** A customer created through the API; fails the set-up loudly when refused. */
export async function createCustomer(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await api.request('POST', '/customers', { token, body: { name: `Client ${randomUUID().slice(0, 6)}`, ...fields } });
  if (reply.status !== 201) throw new Error(`create customer failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export async function readCustomer(api: Service, token: string, id: string): Promise<any> {
  const reply = await api.request('GET', `/customers/${id}`, { token });
  if (reply.status !== 200) throw new Error(`read customer failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A manager's points correction through the API; fails the set-up loudly when refused. */
export async function correct(api: Service, token: string, customerId: string, delta: number, reason = 'Correction'): Promise<any> {
  const reply = await api.request('POST', `/customers/${customerId}/points`, { token, body: { delta, reason } });
  if (reply.status !== 201) throw new Error(`points correction failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Runs `body` as the application role inside the shop's tenancy, as the sale procedures will. */
export function inShop<T>(api: Service, shop: ShopFixture, body: (tx: Tx) => Promise<T>): Promise<T> {
  return inTenant(api.appSql, { shopId: shop.shop.id, userId: shop.user.id }, body);
}

/** loyalty_earn_for_sale as the sale procedure calls it; answers the points earned. */
export async function earnForSale(api: Service, shop: ShopFixture, customerId: string, paidXaf: number, saleId: string = randomUUID()): Promise<number> {
  return inShop(api, shop, async (tx) => {
    const [row] = await tx<{ earned: number }[]>`select loyalty_earn_for_sale(${customerId}, ${saleId}, ${paidXaf}) as earned`;
    return row!.earned;
  });
}

/** loyalty_redeem_for_sale; answers the value of the points in XAF. */
export async function redeemForSale(api: Service, shop: ShopFixture, customerId: string, points: number, saleId: string = randomUUID()): Promise<number> {
  return inShop(api, shop, async (tx) => {
    const [row] = await tx<{ value: number }[]>`select loyalty_redeem_for_sale(${customerId}, ${saleId}, ${points}) as value`;
    return row!.value;
  });
}

export async function reverseForSale(api: Service, shop: ShopFixture, saleId: string, fraction: number): Promise<void> {
  await inShop(api, shop, (tx) => tx`select loyalty_reverse_for_sale(${saleId}, ${fraction})`);
}

export async function attributeToSale(api: Service, shop: ShopFixture, customerId: string, saleId: string, paidXaf: number): Promise<number> {
  return inShop(api, shop, async (tx) => {
    const [row] = await tx<{ earned: number }[]>`select loyalty_attribute(${customerId}, ${saleId}, ${paidXaf}) as earned`;
    return row!.earned;
  });
}

/** What the database holds, read past row-level security. */
export async function storedPoints(api: Service, customerId: string): Promise<number> {
  const [row] = await api.ownerSql<{ points: number }[]>`select points from customers where id = ${customerId}`;
  return row!.points;
}

export async function ledgerRows(api: Service, customerId: string): Promise<{ kind: string; points: number; source_type: string | null; source_id: string | null; reason: string | null }[]> {
  return [
    ...(await api.ownerSql<{ kind: string; points: number; source_type: string | null; source_id: string | null; reason: string | null }[]>`
      select kind, points, source_type, source_id, reason from loyalty_points where customer_id = ${customerId} order by created_at, id`),
  ];
}

/** Customers of the shop whose balance differs from the sum of their ledger (none, always). */
export async function ledgerMismatches(api: Service, shopId: string): Promise<unknown[]> {
  return [
    ...(await api.ownerSql`
      select c.id, c.points, coalesce(sum(lp.points), 0)::bigint as ledger
        from customers c left join loyalty_points lp on lp.shop_id = c.shop_id and lp.customer_id = c.id
       where c.shop_id = ${shopId}
       group by c.shop_id, c.id having c.points <> coalesce(sum(lp.points), 0)`),
  ];
}

/** Sets the shop's loyalty rates through PUT /shop (owner). */
export async function setShop(api: Service, owner: ShopFixture, body: Record<string, unknown>): Promise<void> {
  const reply = await api.request('PUT', '/shop', { token: owner.token, body });
  if (reply.status !== 200) throw new Error(`shop settings failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** The PostgreSQL error a SQL function raised: its SQLSTATE, message (the code) and column (the input). */
export async function sqlError(t: Test, promise: Promise<unknown>, expected: { code: string; message: string; column?: string }, what: string): Promise<void> {
  try {
    await promise;
    t.fail(`${what}: expected ${expected.code} ${expected.message}, got success`);
  } catch (error) {
    const e = error as { code?: string; message?: string; column_name?: string };
    t.equal(e.code, expected.code, `${what}: SQLSTATE ${expected.code}`);
    t.equal(e.message, expected.message, `${what}: ${expected.message}`);
    if (expected.column !== undefined) t.equal(e.column_name, expected.column, `${what}: on ${expected.column}`);
  }
}
