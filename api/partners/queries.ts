import { randomInt } from 'node:crypto';
import type { Tx } from '../db.ts';
import { errors, invalidField, onUniqueViolation, type FieldErrors } from '../errors.ts';
import { CURSOR_AT } from '../lib/pagination.ts';
import { subscriptionStatus } from '../shop/queries.ts';
import { createPlatformUser } from '../users/queries.ts';
import type { CommissionLine, CreatePartnerBody, PartnerPayout, PartnerRecord, PayBody, UpdatePartnerBody } from './schemas.ts';
import { DEFAULT_COMMISSION_MONTHS, DEFAULT_COMMISSION_RATE } from './schemas.ts';

/*
 * Partners, their referred shops, their commission lines and their payouts (CONTRACT sections 11
 * and 12). What a caller may see is the database's to decide: row-level security keys partners,
 * their lines and their payouts by the partner's user (or an administrator), and a referred shop is
 * read only through the referred_shops view (db/migrations/0028_partners.sql,
 * 0032_commission_payouts.sql). The `partner_id = app_user_id()` filters below only pick the
 * partner's own rows out of what an administrator could see too; they are not the access rule.
 */

type Status = CommissionLine['status'];

// ---------------------------------------------------------------------------------------- partners

/** The total of the commission lines `c` that `where` picks, per status (pending, payable, paid; null when none). */
const linesByStatus = (tx: Tx, where: ReturnType<Tx>) => tx`
  select sum(c.amount_xaf) filter (where c.status = 'pending')::bigint as pending,
         sum(c.amount_xaf) filter (where c.status = 'payable')::bigint as payable,
         sum(c.amount_xaf) filter (where c.status = 'paid')::bigint as paid
    from partner_commissions c where ${where}`;

interface PartnerRow extends Omit<PartnerRecord, 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
}

const partnerSelect = (tx: Tx) => tx`
  select p.id, u.name, u.email, u.phone, p.code, p.commission_rate, p.commission_months, p.status,
         p.payout_method, p.payout_phone, p.payout_account, p.payout_name, p.notes,
         coalesce(sh.referred, 0) as referred_shops, coalesce(sh.active, 0) as active_shops,
         coalesce(cm.pending, 0) as commission_pending_xaf, coalesce(cm.payable, 0) as commission_payable_xaf,
         coalesce(cm.paid, 0) as commission_paid_xaf, p.created_at, p.updated_at,
         ${tx.unsafe(CURSOR_AT('p.created_at'))} as cursor_at
    from partners p
    join users u on u.id = p.id
    left join lateral (
      select count(*)::int as referred, (count(*) filter (where r.subscription_ends_at > now()))::int as active
        from referred_shops r where r.partner_id = p.id
    ) sh on true
    left join lateral (${linesByStatus(tx, tx`c.partner_id = p.id`)}) cm on true`;

function toPartner(row: PartnerRow): PartnerRecord {
  const { cursor_at: _, ...fields } = row as PartnerRow & { cursor_at?: string };
  return { ...fields, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

export async function findPartner(tx: Tx, id: string): Promise<PartnerRecord | null> {
  const [row] = await tx<PartnerRow[]>`${partnerSelect(tx)} where p.id = ${id}`;
  return row ? toPartner(row) : null;
}

export async function listPartners(
  tx: Tx,
  filter: { status?: PartnerRecord['status'] | undefined; q?: string | undefined },
  limit: number,
  before: readonly [string, string] | null,
): Promise<{ partner: PartnerRecord; cursorAt: string }[]> {
  const like = filter.q ? `%${filter.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
  const rows = await tx<(PartnerRow & { cursor_at: string })[]>`
    ${partnerSelect(tx)}
     where true
       ${filter.status ? tx`and p.status = ${filter.status}` : tx``}
       ${like ? tx`and (u.name ilike ${like} or u.email ilike ${like} or p.code ilike ${like})` : tx``}
       ${before ? tx`and (p.created_at, p.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by p.created_at desc, p.id desc
     limit ${limit + 1}`;
  return rows.map((row) => ({ partner: toPartner(row), cursorAt: row.cursor_at }));
}

/** Crockford's base 32 without I, L, O and U: a code read out over the phone is typed right. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const newPartnerCode = () => `P${Array.from({ length: 7 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('')}`;

const codeTaken = () => invalidField('code', 'The code has already been taken.');

/** A partner and its login (a user of kind partner, no shop), in the caller's transaction. */
export async function createPartner(tx: Tx, id: string, body: CreatePartnerBody, passwordHash: string): Promise<PartnerRecord> {
  await createPlatformUser(tx, { id, kind: 'partner', name: body.name, email: body.email, passwordHash, phone: body.phone ?? null, locale: 'fr' });
  try {
    await tx`
      insert into partners (id, code, commission_rate, commission_months, payout_method, payout_phone, payout_account, payout_name, notes)
      values (${id}, ${body.code ?? newPartnerCode()}, ${body.commission_rate ?? DEFAULT_COMMISSION_RATE},
              ${body.commission_months ?? DEFAULT_COMMISSION_MONTHS}, ${body.payout_method ?? null}, ${body.payout_phone ?? null},
              ${body.payout_account ?? null}, ${body.payout_name ?? null}, ${body.notes ?? null})`;
  } catch (error) {
    onUniqueViolation(error, 'partners_code_key', codeTaken);
  }
  return (await findPartner(tx, id))!;
}

/** Changes what the body names (an empty body changes nothing, updated_at included); null if there is no such partner. */
export async function updatePartner(tx: Tx, id: string, body: UpdatePartnerBody): Promise<PartnerRecord | null> {
  const { name, phone, ...terms } = body;
  const login = Object.fromEntries(Object.entries({ name, phone }).filter(([, value]) => value !== undefined));
  const termKeys = Object.keys(terms).filter((key) => terms[key as keyof typeof terms] !== undefined) as (keyof typeof terms)[];
  if (termKeys.length === 0 && Object.keys(login).length === 0) return findPartner(tx, id);
  const [found] = termKeys.length
    ? await tx<{ id: string }[]>`update partners set ${tx(terms, termKeys)}, updated_at = now() where id = ${id} returning id`
    : await tx<{ id: string }[]>`update partners set updated_at = now() where id = ${id} returning id`;
  if (!found) return null;
  if (Object.keys(login).length) await tx`update users set ${tx(login)}, updated_at = now() where id = ${id} and kind = 'partner'`;
  return findPartner(tx, id);
}

// ------------------------------------------------------------------------------- commission lines

interface LineRow extends Omit<CommissionLine, 'payable_after' | 'paid_at' | 'created_at' | 'updated_at'> {
  payable_after: Date | null;
  paid_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

/** The lines of `lines` (a relation of partner_commissions rows) with their partner's and shop's names. */
const lineSelect = (tx: Tx, lines: ReturnType<Tx>) => tx`
  select c.id, c.partner_id, u.name as partner_name, c.shop_id, r.name as shop_name, c.charge_reference,
         c.base_amount_xaf, c.commission_rate, c.amount_xaf, c.status, c.payable_after, c.payout_id, c.payout_reference,
         c.paid_at, c.created_at, c.updated_at, ${tx.unsafe(CURSOR_AT('c.created_at'))} as cursor_at
    from ${lines} c
    join users u on u.id = c.partner_id
    join referred_shops r on r.id = c.shop_id`;

function toLine(row: LineRow): CommissionLine {
  const { cursor_at: _, ...fields } = row;
  return {
    ...fields,
    payable_after: row.payable_after?.toISOString() ?? null,
    paid_at: row.paid_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export interface LineFilter {
  partnerId?: string | undefined;
  shopId?: string | undefined;
  status?: Status | undefined;
  payoutId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Newest first; days are UTC days (partners and administrators belong to no shop, so to no time zone). */
export async function listLines(tx: Tx, filter: LineFilter, limit: number, before: readonly [string, string] | null) {
  const rows = await tx<LineRow[]>`
    ${lineSelect(tx, tx`partner_commissions`)}
     where true
       ${filter.partnerId ? tx`and c.partner_id = ${filter.partnerId}` : tx``}
       ${filter.shopId ? tx`and c.shop_id = ${filter.shopId}` : tx``}
       ${filter.status ? tx`and c.status = ${filter.status}` : tx``}
       ${filter.payoutId ? tx`and c.payout_id = ${filter.payoutId}` : tx``}
       ${filter.from ? tx`and c.created_at >= (${filter.from}::date)::timestamp at time zone 'UTC'` : tx``}
       ${filter.to ? tx`and c.created_at < (${filter.to}::date + 1)::timestamp at time zone 'UTC'` : tx``}
       ${before ? tx`and (c.created_at, c.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by c.created_at desc, c.id desc
     limit ${limit + 1}`;
  return rows.map((row) => ({ line: toLine(row), cursorAt: row.cursor_at }));
}

/**
 * POST /admin/partner-commissions/pay, in the request's one transaction: every bound checked first
 * (a payout reference with another status than paid, an unknown partner, an unknown line, a line of
 * another partner than partner_id: a 422 on its key, and nothing changes), then
 * commission_set_status (db/functions/partners/commission_set_status.sql) locks the lines and
 * changes them: a paid line is final, the lines paid make one payout per partner. The checks need
 * no lock: a line is never deleted, nor given to another partner.
 */
export async function setLineStatus(tx: Tx, body: PayBody) {
  const status: Status = body.status ?? 'paid';
  const reference = body.payout_reference ?? null;
  if (reference !== null && status !== 'paid') throw invalidField('payout_reference', 'A payout reference goes with status paid only.');
  if (body.partner_id !== undefined) {
    const [partner] = await tx`select id from partners where id = ${body.partner_id}`;
    if (!partner) throw invalidField('partner_id', 'This partner does not exist.');
  }
  let ids: string[] | null = null;
  if (body.ids) {
    ids = [...new Set(body.ids.map((id) => id.toLowerCase()))];
    const found = await tx<{ id: string; partner_id: string }[]>`select id, partner_id from partner_commissions where id = any(${ids}::uuid[])`;
    const owner = new Map(found.map((row) => [row.id, row.partner_id]));
    const problems: FieldErrors = {};
    body.ids.forEach((id, index) => {
      const partnerId = owner.get(id.toLowerCase());
      if (partnerId === undefined) problems[`ids.${index}`] = ['This commission line does not exist.'];
      else if (body.partner_id !== undefined && partnerId !== body.partner_id.toLowerCase()) problems[`ids.${index}`] = ['This line is another partner\'s.'];
    });
    if (Object.keys(problems).length) throw errors.invalid(problems);
  }
  const [set] = await tx<{ outcome: { changed: string[]; unchanged: string[]; payouts: string[] } }[]>`
    select commission_set_status(${status}, ${reference}, ${ids}::uuid[], ${body.partner_id ?? null}::uuid) as outcome`;
  const outcome = set!.outcome;
  const rows = await tx<LineRow[]>`
    ${lineSelect(tx, tx`partner_commissions`)}
     where c.id = any(${outcome.changed}::uuid[])
     order by c.created_at desc, c.id desc`;
  const lines = rows.map(toLine);
  const payouts = (await tx<PayoutRow[]>`${payoutSelect(tx)} where p.id = any(${outcome.payouts}::uuid[]) order by p.partner_id`).map(toPayout);
  return {
    status,
    payout_reference: reference,
    count: lines.length,
    amount_xaf: lines.reduce((sum, line) => sum + line.amount_xaf, 0),
    lines,
    unchanged: outcome.unchanged,
    payouts,
  };
}

// ------------------------------------------------------------------------------------------ payouts

interface PayoutRow extends Omit<PartnerPayout, 'created_at'> {
  created_at: Date;
  cursor_at: string;
}

const payoutSelect = (tx: Tx) => tx`
  select p.id, p.partner_id, u.name as partner_name, p.payout_reference, p.paid_by, p.line_count, p.amount_xaf, p.created_at,
         ${tx.unsafe(CURSOR_AT('p.created_at'))} as cursor_at
    from commission_payouts p
    join users u on u.id = p.partner_id`;

function toPayout(row: PayoutRow): PartnerPayout {
  const { cursor_at: _, ...fields } = row;
  return { ...fields, created_at: row.created_at.toISOString() };
}

/** Newest first: a partner's payouts, or (an administrator) every partner's. */
export async function listPayouts(tx: Tx, filter: { partnerId?: string | undefined }, limit: number, before: readonly [string, string] | null) {
  const rows = await tx<PayoutRow[]>`
    ${payoutSelect(tx)}
     where true
       ${filter.partnerId ? tx`and p.partner_id = ${filter.partnerId}` : tx``}
       ${before ? tx`and (p.created_at, p.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by p.created_at desc, p.id desc
     limit ${limit + 1}`;
  return rows.map((row) => ({ payout: toPayout(row), cursorAt: row.cursor_at }));
}

// ------------------------------------------------------------------------- the partner's own view

export async function partnerDashboard(tx: Tx) {
  const [row] = await tx<
    {
      id: string; name: string; code: string; commission_rate: number; commission_months: number; status: PartnerRecord['status'];
      referred: number; trial: number; active: number; pending: number; payable: number; paid: number;
    }[]
  >`
    select p.id, u.name, p.code, p.commission_rate, p.commission_months, p.status,
           sh.referred, sh.trial, sh.active, coalesce(cm.pending, 0) as pending, coalesce(cm.payable, 0) as payable, coalesce(cm.paid, 0) as paid
      from partners p
      join users u on u.id = p.id
      cross join lateral (
        select count(*)::int as referred,
               (count(*) filter (where r.subscription_ends_at > now()))::int as active,
               (count(*) filter (where not coalesce(r.subscription_ends_at > now(), false) and r.trial_ends_at > now()))::int as trial
          from referred_shops r where r.partner_id = p.id
      ) sh
      cross join lateral (${linesByStatus(tx, tx`c.partner_id = p.id`)}) cm
     where p.id = app_user_id()`;
  if (!row) throw errors.notFound();
  return {
    partner: { id: row.id, name: row.name, code: row.code, commission_rate: row.commission_rate, commission_months: row.commission_months, status: row.status },
    referred_shops: row.referred,
    trial_shops: row.trial,
    active_shops: row.active,
    expired_shops: row.referred - row.trial - row.active,
    commission_pending_xaf: row.pending,
    commission_payable_xaf: row.payable,
    commission_paid_xaf: row.paid,
    commission_total_xaf: row.pending + row.payable + row.paid,
  };
}

interface ReferralRow {
  id: string;
  name: string;
  created_at: Date;
  trial_ends_at: Date;
  subscription_ends_at: Date | null;
  commission_until: Date;
  pending: number;
  payable: number;
  paid: number;
  cursor_at: string;
}

/** The partner's referred shops, newest signup first, each with what it earned on it. */
export async function listReferrals(tx: Tx, limit: number, before: readonly [string, string] | null) {
  const rows = await tx<ReferralRow[]>`
    select r.id, r.name, r.created_at, r.trial_ends_at, r.subscription_ends_at,
           r.created_at + make_interval(months => p.commission_months) as commission_until,
           coalesce(cm.pending, 0) as pending, coalesce(cm.payable, 0) as payable, coalesce(cm.paid, 0) as paid,
           ${tx.unsafe(CURSOR_AT('r.created_at'))} as cursor_at
      from referred_shops r
      join partners p on p.id = r.partner_id
      left join lateral (${linesByStatus(tx, tx`c.shop_id = r.id and c.partner_id = r.partner_id`)}) cm on true
     where r.partner_id = app_user_id()
       ${before ? tx`and (r.created_at, r.id) < (${before[0]}::text::timestamptz, ${before[1]}::uuid)` : tx``}
     order by r.created_at desc, r.id desc
     limit ${limit + 1}`;
  return rows.map((row) => ({
    referral: {
      shop_id: row.id,
      name: row.name,
      signed_up_at: row.created_at.toISOString(),
      subscription_status: subscriptionStatus(row),
      trial_ends_at: row.trial_ends_at.toISOString(),
      subscription_ends_at: row.subscription_ends_at?.toISOString() ?? null,
      commission_until: row.commission_until.toISOString(),
      commission_total_xaf: row.pending + row.payable + row.paid,
      commission_pending_xaf: row.pending,
      commission_payable_xaf: row.payable,
      commission_paid_xaf: row.paid,
    },
    cursorAt: row.cursor_at,
  }));
}
