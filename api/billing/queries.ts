import { randomUUID } from 'node:crypto';
import type { Sql, Tx } from '../db.ts';
import type { Locale } from '../lib/locale.ts';
import { inTenant, type TenantScope } from '../middleware/tenancy.ts';
import type { ChargeBook, PendingCharge } from './charges.ts';
import { failureMessage } from './failure-reasons.ts';
import type { ChargeMethod } from './providers/index.ts';
import type { Charge, Plan } from './schemas.ts';

type ChargeRow = Omit<Charge, 'created_at' | 'settled_at' | 'subscription_ends_at' | 'amount_xaf' | 'failure_message'> & {
  amount_xaf: string | number;
  created_at: Date;
  settled_at: Date | null;
  subscription_ends_at: Date | null;
};

const CHARGE_COLUMNS = ['reference', 'status', 'plan_id', 'amount_xaf', 'method', 'phone', 'failure_reason', 'created_at', 'settled_at', 'subscription_ends_at'] as const;

export function toCharge(row: ChargeRow, locale: Locale): Charge {
  return {
    ...row,
    amount_xaf: Number(row.amount_xaf),
    failure_message: failureMessage(row.status === 'expired' ? 'expired' : row.failure_reason, locale),
    created_at: row.created_at.toISOString(),
    settled_at: row.settled_at?.toISOString() ?? null,
    subscription_ends_at: row.subscription_ends_at?.toISOString() ?? null,
  };
}

export async function listPlans(tx: Tx): Promise<Plan[]> {
  const rows = await tx<(Plan & { price_xaf: string | number })[]>`
    select id, name, price_xaf, period_days from plans where active order by position, id`;
  return rows.map((row) => ({ ...row, price_xaf: Number(row.price_xaf) }));
}

/** A plan on sale; plans are the company's, readable outside any shop's transaction. */
export async function findPlan(sql: Sql | Tx, id: string): Promise<Plan | null> {
  const [row] = await sql<(Plan & { price_xaf: string | number })[]>`select id, name, price_xaf, period_days from plans where id = ${id} and active`;
  return row ? { ...row, price_xaf: Number(row.price_xaf) } : null;
}

/** The caller's shop's subscription: its dates, the plan of its last charge that succeeded, its newest charges. */
export async function billingOf(tx: Tx, locale: Locale) {
  const [shop] = await tx<{ trial_ends_at: Date; subscription_ends_at: Date | null; plan: Plan | null }[]>`
    select s.trial_ends_at, s.subscription_ends_at,
           (select case when p.active then jsonb_build_object('id', p.id, 'name', p.name, 'price_xaf', p.price_xaf, 'period_days', p.period_days) end
              from subscription_charges c join plans p on p.id = c.plan_id
             where c.shop_id = s.id and c.status = 'succeeded' order by c.settled_at desc, c.id limit 1) as plan
      from shops s where s.id = app_shop_id()`;
  const charges = await tx<ChargeRow[]>`
    select ${tx(CHARGE_COLUMNS)} from subscription_charges where shop_id = app_shop_id() order by created_at desc, id desc limit 20`;
  return { shop: shop!, charges: charges.map((row) => toCharge(row, locale)) };
}

/**
 * A new pending charge, and its poll queued to run at once in the same transaction: the request to
 * pay leaves only once the charge exists (charge__poll sends it). Its id, a UUID v4, names the
 * request at the provider and is its public reference.
 */
export async function insertCharge(tx: Tx, charge: { plan: Plan; method: ChargeMethod; phone: string; provider: string }): Promise<ChargeRow> {
  const id = randomUUID();
  const [row] = await tx<ChargeRow[]>`
    insert into subscription_charges (id, reference, plan_id, amount_xaf, method, phone, provider)
    values (${id}, ${id}, ${charge.plan.id}, ${charge.plan.price_xaf}, ${charge.method}, ${charge.phone}, ${charge.provider})
    returning ${tx(CHARGE_COLUMNS)}`;
  await tx`select enqueue_job('charge__poll', ${tx.json({ reference: id })}::jsonb, ${`charge_poll:${id}`})`;
  return row!;
}

export async function findCharge(tx: Tx, reference: string): Promise<ChargeRow | null> {
  const [row] = await tx<ChargeRow[]>`select ${tx(CHARGE_COLUMNS)} from subscription_charges where reference = ${reference} and shop_id = app_shop_id()`;
  return row ?? null;
}

/** The caller's shop's charge of that reference while it is pending, as asking its provider needs it. */
export async function findPendingCharge(tx: Tx, reference: string): Promise<PendingCharge | null> {
  const [row] = await tx<PendingCharge[]>`
    select id, reference, provider, amount_xaf, phone, method, created_at, requested_at, acknowledged_at
      from subscription_charges where reference = ${reference} and shop_id = app_shop_id() and status = 'pending'`;
  return row ?? null;
}

/** The charge's book for the API: each write in a short transaction of the caller's shop, none open while a provider is asked. */
export function tenantBook(sql: Sql, scope: TenantScope): ChargeBook {
  return {
    async noteRequest(reference, acknowledged) {
      await inTenant(sql, scope, (tx) => tx`select charge_note_request(${reference}, ${acknowledged})`);
    },
    async settle(reference, status, reason) {
      await inTenant(sql, scope, (tx) => tx`select 1 from charge_settle(${reference}, ${status}, ${reason})`);
    },
  };
}

/** A provider's callback: brings the poll of that pending charge forward, if there is one (charge_callback). */
export async function chargeCallback(sql: Sql, provider: string, reference: string): Promise<void> {
  await sql`select charge_callback(${provider}, ${reference})`;
}
