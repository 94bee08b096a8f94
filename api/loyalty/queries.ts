import type { z } from '@hono/zod-openapi';
import type { Tx } from '../db.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import type { LoyaltyReport, TierRecord } from './schemas.ts';

const iso = (date: Date) => date.toISOString();

interface EntryRow {
  id: string;
  customer_id: string;
  kind: 'earn' | 'redeem' | 'adjust' | 'reverse';
  points: number;
  source_type: string | null;
  source_id: string | null;
  reason: string | null;
  user_id: string | null;
  created_at: Date;
  cursor_at: string;
}

const ENTRY_COLUMNS = ['id', 'customer_id', 'kind', 'points', 'source_type', 'source_id', 'reason', 'user_id', 'created_at'] as const;

export const toEntry = ({ cursor_at: _cursor, ...row }: EntryRow) => ({ ...row, created_at: iso(row.created_at) });

/** A manager's correction outside any sale: one ledger row; never below zero (422 insufficient_points on delta). */
export async function correctPoints(tx: Tx, customerId: string, delta: number, reason: string) {
  const [row] = await tx<EntryRow[]>`
    select ${tx(ENTRY_COLUMNS)}, '' as cursor_at
      from loyalty_post(${customerId}, 'adjust', ${delta}, 'adjustment', null, ${reason}, 'delta')`;
  return toEntry(row!);
}

export async function pointsHistory(tx: Tx, customerId: string, limit: number, before: readonly [string, string] | null): Promise<EntryRow[]> {
  return tx<EntryRow[]>`
    select ${tx(ENTRY_COLUMNS)}, ${tx.unsafe(CURSOR_AT('created_at'))} as cursor_at
      from loyalty_points
     where customer_id = ${customerId}
       ${before ? tx`and (created_at, id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by created_at desc, id desc
     limit ${limit + 1}`;
}

interface TierRow extends Omit<TierRecord, 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
}

export const TIER_COLUMNS = ['id', 'key', 'name', 'min_points', 'multiplier', 'created_at', 'updated_at'] as const;

export const toTierRecord = (row: TierRow): TierRecord => ({ ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) });

export async function listTiers(tx: Tx): Promise<TierRecord[]> {
  const rows = await tx<TierRow[]>`
    select ${tx(TIER_COLUMNS)} from loyalty_tiers where shop_id = app_shop_id() and deleted_at is null order by min_points`;
  return rows.map(toTierRecord);
}

/** The ladder becomes exactly `tiers`. The shop row is locked so that two replacements queue. */
export async function replaceTiers(tx: Tx, tiers: { key: string; name: string; min_points: number; multiplier: number }[]): Promise<TierRecord[]> {
  await tx`select 1 from shops where id = app_shop_id() for update`;
  await tx`update loyalty_tiers set deleted_at = now() where shop_id = app_shop_id() and deleted_at is null`;
  for (const tier of tiers) {
    await tx`insert into loyalty_tiers (key, name, min_points, multiplier) values (${tier.key}, ${tier.name}, ${tier.min_points}, ${tier.multiplier})`;
  }
  return listTiers(tx);
}

/** Points issued, redeemed, adjusted and reversed between two days of the shop's calendar, and who holds what now. */
export async function loyaltyReport(tx: Tx, from: string | undefined, to: string | undefined): Promise<z.infer<typeof LoyaltyReport>> {
  const [period] = await tx<{ from: string; to: string }[]>`
    select coalesce(${from ?? null}::date, (now() at time zone timezone)::date - 30)::text as from,
           coalesce(${to ?? null}::date, (now() at time zone timezone)::date)::text as to
      from shops where id = app_shop_id()`;
  const [flows] = await tx<{ issued: number; redeemed: number; adjusted: number; reversed: number }[]>`
    select coalesce(sum(points) filter (where kind = 'earn'), 0)::bigint as issued,
           coalesce(-sum(points) filter (where kind = 'redeem'), 0)::bigint as redeemed,
           coalesce(sum(points) filter (where kind = 'adjust'), 0)::bigint as adjusted,
           coalesce(sum(points) filter (where kind = 'reverse'), 0)::bigint as reversed
      from loyalty_points lp join shops s on s.id = lp.shop_id
     where lp.shop_id = app_shop_id()
       and (lp.created_at at time zone s.timezone)::date between ${period!.from}::date and ${period!.to}::date`;
  const [held] = await tx<{ outstanding: number }[]>`
    select coalesce(sum(points), 0)::bigint as outstanding from customers where shop_id = app_shop_id() and deleted_at is null`;
  const topHolders = await tx<{ customer_id: string; name: string; points: number }[]>`
    select id as customer_id, name, points from customers
     where shop_id = app_shop_id() and deleted_at is null and points > 0
     order by points desc, name, id limit 10`;
  const tiers = await tx<{ key: string; name: string; min_points: number; customers: number; points: number }[]>`
    with held as (
      select c.points, (customer_tier(c.id)).id as tier_id from customers c where c.shop_id = app_shop_id() and c.deleted_at is null
    )
    select t.key, t.name, t.min_points, count(h.tier_id)::int as customers, coalesce(sum(h.points), 0)::bigint as points
      from loyalty_tiers t left join held h on h.tier_id = t.id
     where t.shop_id = app_shop_id() and t.deleted_at is null
     group by t.shop_id, t.id order by t.min_points`;
  return { ...period!, ...flows!, outstanding: held!.outstanding, top_holders: [...topHolders], tiers: [...tiers] };
}
