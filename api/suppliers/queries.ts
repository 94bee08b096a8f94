import type { Tx } from '../db.ts';
import type { CreateSupplierBody, SupplierRecord, UpdateSupplierBody } from './schemas.ts';

interface SupplierRow {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
  tax_id: string | null;
  address: string | null;
  note: string | null;
  balance_xaf: number;
  created_at: Date;
  updated_at: Date;
}

export function toSupplierRecord(row: SupplierRow): SupplierRecord {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    tax_id: row.tax_id,
    address: row.address,
    note: row.note,
    balance_xaf: row.balance_xaf,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const supplierColumns = (tx: Tx) => tx`s.id, s.name, s.phone, s.email, s.tax_id, s.address, s.note, s.balance_xaf, s.created_at, s.updated_at`;

/** What q looks like when it is a phone number (digits and the usual separators): its digits; otherwise null. */
function phoneDigits(q: string): string | null {
  if (!/^[0-9+\s().-]+$/.test(q)) return null;
  return q.replace(/[^0-9]/g, '') || null;
}

export async function findSupplier(tx: Tx, id: string): Promise<SupplierRecord | null> {
  const [row] = await tx<SupplierRow[]>`select ${supplierColumns(tx)} from suppliers s where s.id = ${id} and s.deleted_at is null`;
  return row ? toSupplierRecord(row) : null;
}

/** Locks a live supplier (purchase_record locks it too, so its balance cannot move meanwhile); null when there is none. */
export async function lockSupplier(tx: Tx, id: string): Promise<SupplierRecord | null> {
  const [row] = await tx<SupplierRow[]>`select ${supplierColumns(tx)} from suppliers s where s.id = ${id} and s.deleted_at is null for update`;
  return row ? toSupplierRecord(row) : null;
}

export async function listSuppliers(tx: Tx, filters: { q?: string | undefined }, limit: number, after: readonly [string, string] | null): Promise<SupplierRow[]> {
  // A shop has few suppliers: the shop's rows are filtered in place (under row-level security LIKE uses no index anyway).
  const digits = filters.q ? phoneDigits(filters.q) : null;
  return tx<SupplierRow[]>`
    select ${supplierColumns(tx)} from suppliers s
     where s.shop_id = app_shop_id() and s.deleted_at is null
       ${filters.q ? tx`and (s.search_name like '%' || like_escape(search_text(${filters.q})) || '%'
                             ${digits ? tx`or s.phone_digits like '%' || ${digits} || '%'` : tx``})` : tx``}
       ${after ? tx`and (s.name, s.id) > (${after[0]}, ${after[1]}::uuid)` : tx``}
     order by s.name, s.id
     limit ${limit + 1}`;
}

export async function createSupplier(tx: Tx, supplier: CreateSupplierBody): Promise<SupplierRecord> {
  const [row] = await tx<SupplierRow[]>`
    insert into suppliers as s (name, phone, email, tax_id, address, note)
    values (${supplier.name}, ${supplier.phone ?? null}, ${supplier.email ?? null}, ${supplier.tax_id ?? null}, ${supplier.address ?? null}, ${supplier.note ?? null})
    returning ${supplierColumns(tx)}`;
  return toSupplierRecord(row!);
}

/** The fields given, the others kept; null when there is no live supplier of this id. */
export async function updateSupplier(tx: Tx, id: string, changes: UpdateSupplierBody): Promise<SupplierRecord | null> {
  const keys = Object.keys(changes) as (keyof UpdateSupplierBody)[];
  if (keys.length === 0) return findSupplier(tx, id);
  const [row] = await tx<SupplierRow[]>`
    update suppliers s set ${tx(changes, keys)} where s.id = ${id} and s.deleted_at is null
    returning ${supplierColumns(tx)}`;
  return row ? toSupplierRecord(row) : null;
}

/** A soft delete: the supplier's purchases keep naming them. */
export async function deleteSupplier(tx: Tx, id: string): Promise<void> {
  await tx`update suppliers set deleted_at = now() where id = ${id} and deleted_at is null`;
}
