import type { Tx } from '../db.ts';
import { errors, onUniqueViolation } from '../errors.ts';
import type { CreateCustomerBody, CustomerRecord, UpdateCustomerBody } from './schemas.ts';

interface CustomerRow {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
  note: string | null;
  tax_id: string | null;
  trade_register_no: string | null;
  address: string | null;
  credit_ceiling_xaf: number;
  balance_xaf: number;
  points: number;
  tier_key: string | null;
  tier_name: string | null;
  tier_multiplier: number | null;
  card_no: string | null;
  created_at: Date;
  updated_at: Date;
  till_created_at: Date | null;
}

export function toCustomerRecord(row: CustomerRow): CustomerRecord {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    note: row.note,
    tax_id: row.tax_id,
    trade_register_no: row.trade_register_no,
    address: row.address,
    credit_ceiling_xaf: row.credit_ceiling_xaf,
    balance_xaf: row.balance_xaf,
    points: row.points,
    tier: row.tier_key ? { key: row.tier_key, name: row.tier_name!, multiplier: row.tier_multiplier! } : null,
    card_no: row.card_no,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    till_created_at: row.till_created_at?.toISOString() ?? null,
  };
}

export const customerColumns = (tx: Tx) => tx`
  c.id, c.name, c.phone, c.email, c.note, c.tax_id, c.trade_register_no, c.address, c.credit_ceiling_xaf, c.balance_xaf, c.points, c.card_no, c.created_at, c.updated_at, c.till_created_at,
  t.key as tier_key, t.name as tier_name, t.multiplier as tier_multiplier`;

export const withTier = (tx: Tx) => tx`left join lateral customer_tier(c.id) t on t.id is not null`;

const cardTaken = () => errors.conflict('card_taken', 'This card number is already held by another customer.');

export async function findCustomer(tx: Tx, id: string): Promise<CustomerRecord | null> {
  const [row] = await tx<CustomerRow[]>`select ${customerColumns(tx)} from customers c ${withTier(tx)} where c.id = ${id} and c.deleted_at is null`;
  return row ? toCustomerRecord(row) : null;
}

export async function findCustomerByCard(tx: Tx, cardNo: string): Promise<CustomerRecord | null> {
  const [row] = await tx<CustomerRow[]>`
    select ${customerColumns(tx)} from customers c ${withTier(tx)}
     where c.shop_id = app_shop_id() and c.card_no = ${cardNo} and c.deleted_at is null`;
  return row ? toCustomerRecord(row) : null;
}

/** Whether a live customer of the shop has this id (references in bodies must). Share-locked until commit. */
export async function customerExists(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx`select 1 from customers where id = ${id} and deleted_at is null for share`;
  return row !== undefined;
}

/** Locks a live customer; null when there is none. */
export async function lockCustomer(tx: Tx, id: string): Promise<CustomerRecord | null> {
  const [row] = await tx`select 1 from customers where id = ${id} and deleted_at is null for update`;
  return row ? findCustomer(tx, id) : null;
}

export async function listCustomers(
  tx: Tx,
  filters: { q?: string; owing?: boolean },
  limit: number,
  after: readonly [string, string] | null,
): Promise<CustomerRow[]> {
  // The page's ids first, then the columns (the tier is a sum per customer) of those rows only.
  return tx<CustomerRow[]>`
    with page as (
      select c.id, c.name from customers c
       where c.shop_id = app_shop_id() and c.deleted_at is null
         ${filters.q ? tx`and c.id in (select id from customers_matching(${filters.q}))` : tx``}
         ${filters.owing === true ? tx`and c.balance_xaf > 0` : filters.owing === false ? tx`and c.balance_xaf = 0` : tx``}
         ${after ? tx`and (c.name, c.id) > (${after[0]}, ${after[1]}::uuid)` : tx``}
       order by c.name, c.id
       limit ${limit + 1}
    )
    select ${customerColumns(tx)} from page join customers c on c.id = page.id ${withTier(tx)}
     order by page.name, page.id`;
}

/** A new customer; `id` when the client chose it (a till's offline customer). */
/**
 * A new customer. A till's customer (api/sync/push.ts) keeps the till's `created_at`, or, its clock
 * plainly wrong, is made now with the till's time as `till_created_at`.
 */
export async function createCustomer(
  tx: Tx,
  customer: CreateCustomerBody & { id?: string; created_at?: string | undefined; till_created_at?: string | null },
): Promise<CustomerRecord> {
  try {
    const [row] = await tx<{ id: string }[]>`
      insert into customers (id, name, phone, email, note, tax_id, trade_register_no, address, credit_ceiling_xaf, card_no, created_at, till_created_at)
      values (coalesce(${customer.id ?? null}::uuid, gen_random_uuid()), ${customer.name}, ${customer.phone ?? null}, ${customer.email ?? null}, ${customer.note ?? null},
              ${customer.tax_id ?? null}, ${customer.trade_register_no ?? null}, ${customer.address ?? null}, ${customer.credit_ceiling_xaf ?? 0}, ${customer.card_no ?? null},
              coalesce(${customer.created_at ?? null}::timestamptz, now()), ${customer.till_created_at ?? null}::timestamptz)
      returning id`;
    return (await findCustomer(tx, row!.id))!;
  } catch (error) {
    onUniqueViolation(error, 'customers_card_key', cardTaken);
  }
}

export async function updateCustomer(tx: Tx, id: string, changes: UpdateCustomerBody): Promise<CustomerRecord | null> {
  const keys = Object.keys(changes) as (keyof UpdateCustomerBody)[];
  if (keys.length > 0) {
    try {
      await tx`update customers set ${tx(changes, keys)} where id = ${id} and deleted_at is null`;
    } catch (error) {
      onUniqueViolation(error, 'customers_card_key', cardTaken);
    }
  }
  return findCustomer(tx, id);
}

/** A soft delete: the customer's sales, debts and points keep naming them. */
export async function deleteCustomer(tx: Tx, id: string): Promise<void> {
  await tx`update customers set deleted_at = now() where id = ${id} and deleted_at is null`;
}
