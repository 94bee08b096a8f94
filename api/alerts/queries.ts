import type { z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import type { Alert, ExpiringLine } from './schemas.ts';

type AlertRecord = z.infer<typeof Alert>;

/** The shop's stock alerts, most urgent first (stock_alerts: the one definition, also the daily digest's). */
export async function stockAlerts(tx: Tx, deadDays: number, expiringDays: number, limit: number): Promise<AlertRecord[]> {
  const rows = await tx<(Omit<AlertRecord, 'last_sold_at' | 'expiry_date'> & { last_sold_at: Date | null; expiry_date: string | null })[]>`
    select kind, product_id, variant_id, name, quantity, reorder_level, batch_id, batch_number, to_char(expiry_date, 'YYYY-MM-DD') as expiry_date,
           days_left, last_sold_at
      from stock_alerts(${deadDays}, ${expiringDays}, ${limit})`;
  return rows.map((row) => ({ ...row, last_sold_at: row.last_sold_at?.toISOString() ?? null }));
}

/** Batches with stock expiring within `withinDays` of today (shop calendar), expired ones included, soonest first. */
export async function expiringBatches(tx: Tx, withinDays: number): Promise<{ rows: z.infer<typeof ExpiringLine>[]; asOf: string }> {
  const [today] = await tx<{ today: string }[]>`select to_char((now() at time zone timezone)::date, 'YYYY-MM-DD') as today from shops where id = app_shop_id()`;
  const rows = await tx<z.infer<typeof ExpiringLine>[]>`
    select b.id as batch_id, b.product_id, b.variant_id, item_name(p.name, v.options) as name, b.batch_number,
           to_char(b.expiry_date, 'YYYY-MM-DD') as expiry_date, (b.expiry_date - ${today!.today}::date)::int as days_left,
           b.quantity, round(b.quantity * b.cost_xaf)::bigint as value_xaf
      from batches b
      join products p on p.id = b.product_id and p.deleted_at is null
      left join variants v on v.id = b.variant_id
     where b.shop_id = app_shop_id() and b.quantity > 0 and b.expiry_date <= ${today!.today}::date + ${withinDays}::int
       and (v.id is null or v.deleted_at is null)
     order by b.expiry_date, name, b.id`;
  return { rows, asOf: today!.today };
}
