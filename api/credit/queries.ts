import type { z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import type { Receivables, SettlementRecord } from './schemas.ts';

const iso = (date: Date) => date.toISOString();

/** Settles part or all of the balance (customer_settle: oldest debts first, journal posted). */
export async function settle(tx: Tx, customerId: string, payment: { amount_xaf: number; method: string; note: string | null }): Promise<string> {
  const [row] = await tx<{ id: string }[]>`
    select (customer_settle(${customerId}, ${payment.amount_xaf}, ${payment.method}, ${payment.note})).id`;
  return row!.id;
}

interface PaymentRow {
  id: string;
  customer_id: string;
  amount_xaf: number;
  method: SettlementRecord['method'];
  note: string | null;
  user_id: string | null;
  created_at: Date;
  allocations: { debt_id: string; source_type: string; source_id: string | null; amount_xaf: number }[];
}

/** Settlements of a customer (or one of them), newest first, each with what it settled. */
export async function settlements(tx: Tx, customerId: string, paymentId?: string): Promise<SettlementRecord[]> {
  const rows = await tx<PaymentRow[]>`
    select p.id, p.customer_id, p.amount_xaf, p.method, p.note, p.user_id, p.created_at,
           coalesce((select jsonb_agg(jsonb_build_object('debt_id', d.id, 'source_type', d.source_type, 'source_id', d.source_id,
                                                         'amount_xaf', a.amount_xaf) order by d.occurred_at, d.id)
                       from customer_payment_allocations a join customer_debts d on d.id = a.debt_id
                      where a.payment_id = p.id), '[]') as allocations
      from customer_payments p
     where p.customer_id = ${customerId} ${paymentId ? tx`and p.id = ${paymentId}` : tx``}
     order by p.created_at desc, p.id desc`;
  return rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
}

/** What a credit sale left on the customer's account: still charged (refunds and a void take their part back) and settled since. */
export async function saleDebt(tx: Tx, saleId: string): Promise<{ charged_xaf: number; settled_xaf: number } | null> {
  const [row] = await tx<{ charged_xaf: number; settled_xaf: number }[]>`
    select amount_xaf as charged_xaf, settled_xaf from customer_debts where source_type = 'sale' and source_id = ${saleId}`;
  return row ?? null;
}

export async function openDebts(tx: Tx, customerId: string) {
  const rows = await tx<{ id: string; source_type: string; source_id: string | null; occurred_at: Date; amount_xaf: number; settled_xaf: number }[]>`
    select id, source_type, source_id, occurred_at, amount_xaf, settled_xaf
      from customer_debts where customer_id = ${customerId} and settled_xaf < amount_xaf
     order by occurred_at, id`;
  return rows.map((row) => ({ ...row, occurred_at: iso(row.occurred_at), remaining_xaf: row.amount_xaf - row.settled_xaf }));
}

/** Every customer who owes, the open part of each debt aged by its date: 0-30, 31-60, 61-90, over 90 days. */
export async function receivables(tx: Tx): Promise<z.infer<typeof Receivables>> {
  const customers = await tx<
    { customer_id: string; name: string; phone: string | null; balance_xaf: number; days_0_30_xaf: number; days_31_60_xaf: number; days_61_90_xaf: number; days_over_90_xaf: number; oldest_at: Date }[]
  >`
    with open as (
      select d.customer_id, d.amount_xaf - d.settled_xaf as remaining, d.occurred_at,
             (now() at time zone s.timezone)::date - (d.occurred_at at time zone s.timezone)::date as age
        from customer_debts d join shops s on s.id = d.shop_id
       where d.shop_id = app_shop_id() and d.settled_xaf < d.amount_xaf
    )
    select c.id as customer_id, c.name, c.phone, c.balance_xaf,
           coalesce(sum(o.remaining) filter (where o.age <= 30), 0)::bigint as days_0_30_xaf,
           coalesce(sum(o.remaining) filter (where o.age between 31 and 60), 0)::bigint as days_31_60_xaf,
           coalesce(sum(o.remaining) filter (where o.age between 61 and 90), 0)::bigint as days_61_90_xaf,
           coalesce(sum(o.remaining) filter (where o.age > 90), 0)::bigint as days_over_90_xaf,
           min(o.occurred_at) as oldest_at
      from open o join customers c on c.id = o.customer_id
     group by c.shop_id, c.id
     order by c.balance_xaf desc, c.name, c.id`;
  const sum = (key: 'balance_xaf' | 'days_0_30_xaf' | 'days_31_60_xaf' | 'days_61_90_xaf' | 'days_over_90_xaf') =>
    customers.reduce((total, row) => total + row[key], 0);
  return {
    as_of: new Date().toISOString(),
    customers: customers.map((row) => ({ ...row, oldest_at: iso(row.oldest_at) })),
    totals: {
      balance_xaf: sum('balance_xaf'),
      days_0_30_xaf: sum('days_0_30_xaf'),
      days_31_60_xaf: sum('days_31_60_xaf'),
      days_61_90_xaf: sum('days_61_90_xaf'),
      days_over_90_xaf: sum('days_over_90_xaf'),
    },
  };
}

/** Headline credit and loyalty figures of the shop, for the dashboard. */
export async function customerSummary(tx: Tx): Promise<{ customers: number; owing: number; receivables_xaf: number; points_outstanding: number }> {
  const [row] = await tx<{ customers: number; owing: number; receivables_xaf: number; points_outstanding: number }[]>`
    select count(*)::int as customers, count(*) filter (where balance_xaf > 0)::int as owing,
           coalesce(sum(balance_xaf), 0)::bigint as receivables_xaf, coalesce(sum(points), 0)::bigint as points_outstanding
      from customers where shop_id = app_shop_id() and deleted_at is null`;
  return row!;
}
