import { randomBytes } from 'node:crypto';
import type { Tx } from '../db.ts';
import type { Charge, Plan } from './schemas.ts';

type ChargeRow = Omit<Charge, 'created_at' | 'settled_at' | 'subscription_ends_at' | 'amount_xaf'> & {
  amount_xaf: string | number;
  created_at: Date;
  settled_at: Date | null;
  subscription_ends_at: Date | null;
  provider: string;
  id: string;
};

const CHARGE_COLUMNS = ['id', 'reference', 'status', 'plan_id', 'amount_xaf', 'method', 'phone', 'failure_reason', 'created_at', 'settled_at', 'subscription_ends_at', 'provider'] as const;

export type { ChargeRow };

export function toCharge({ provider: _, id: __, ...row }: ChargeRow): Charge {
  return {
    ...row,
    amount_xaf: Number(row.amount_xaf),
    created_at: row.created_at.toISOString(),
    settled_at: row.settled_at?.toISOString() ?? null,
    subscription_ends_at: row.subscription_ends_at?.toISOString() ?? null,
  };
}

/** A new charge's reference: random, readable on a phone, unique (the column says so). */
export const newReference = () => `SUB-${randomBytes(8).toString('hex').toUpperCase()}`;

export async function listPlans(tx: Tx): Promise<Plan[]> {
  const rows = await tx<(Plan & { price_xaf: string | number })[]>`
    select id, name, price_xaf, period_days from plans where active order by position, id`;
  return rows.map((row) => ({ ...row, price_xaf: Number(row.price_xaf) }));
}

export async function findPlan(tx: Tx, id: string): Promise<Plan | null> {
  const [row] = await tx<(Plan & { price_xaf: string | number })[]>`select id, name, price_xaf, period_days from plans where id = ${id} and active`;
  return row ? { ...row, price_xaf: Number(row.price_xaf) } : null;
}

/** The caller's shop's subscription: its dates, the plan of its last charge that succeeded, its newest charges. */
export async function billingOf(tx: Tx) {
  const [shop] = await tx<{ trial_ends_at: Date; subscription_ends_at: Date | null; plan: Plan | null }[]>`
    select s.trial_ends_at, s.subscription_ends_at,
           (select case when p.active then jsonb_build_object('id', p.id, 'name', p.name, 'price_xaf', p.price_xaf, 'period_days', p.period_days) end
              from subscription_charges c join plans p on p.id = c.plan_id
             where c.shop_id = s.id and c.status = 'succeeded' order by c.settled_at desc, c.id limit 1) as plan
      from shops s where s.id = app_shop_id()`;
  const charges = await tx<ChargeRow[]>`
    select ${tx(CHARGE_COLUMNS)} from subscription_charges where shop_id = app_shop_id() order by created_at desc, id desc limit 20`;
  return { shop: shop!, charges: charges.map(toCharge) };
}

export async function insertCharge(tx: Tx, charge: { reference: string; plan: Plan; method: 'carrier1_momo' | 'carrier2_money'; phone: string; provider: string }): Promise<ChargeRow> {
  const [row] = await tx<ChargeRow[]>`
    insert into subscription_charges (reference, plan_id, amount_xaf, method, phone, provider)
    values (${charge.reference}, ${charge.plan.id}, ${charge.plan.price_xaf}, ${charge.method}, ${charge.phone}, ${charge.provider})
    returning ${tx(CHARGE_COLUMNS)}`;
  // Polled by the worker from now on, whatever the client does (charge__poll backs off by itself).
  await tx`select enqueue_job('charge__poll', ${tx.json({ reference: charge.reference })}::jsonb, ${`charge_poll:${charge.reference}`})`;
  return row!;
}

export async function findCharge(tx: Tx, reference: string): Promise<ChargeRow | null> {
  const [row] = await tx<ChargeRow[]>`select ${tx(CHARGE_COLUMNS)} from subscription_charges where reference = ${reference} and shop_id = app_shop_id()`;
  return row ?? null;
}

/** charge_settle: the charge as it stands after what the provider said (settled once, whoever asks). */
export async function settleCharge(tx: Tx, reference: string, status: string, reason: string | null): Promise<ChargeRow> {
  const [row] = await tx<ChargeRow[]>`
    select ${tx(CHARGE_COLUMNS.map((column) => column))} from charge_settle(${reference}, ${status}, ${reason})`;
  return row!;
}
