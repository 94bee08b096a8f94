import { adminAccount, login, PASSWORD, registerShop, uniqueEmail, waitFor, type ShopFixture } from '../support/fixtures.ts';
import type { Service } from '../support/service.ts';

/** Shared set-up of the partners tests: administrators, partners, referred shops, paid charges, lines. */

export const MONTHLY = '6b1c1a70-0000-4000-8000-000000000030';
export const YEARLY = '6b1c1a70-0000-4000-8000-000000000365';

export interface AccountFixture {
  id: string;
  token: string;
  email: string;
}

/** A platform administrator, as `npm run admin:create` makes one, logged in. */
export const admin = (api: Service): Promise<AccountFixture> => adminAccount(api);

export interface PartnerFixture extends AccountFixture {
  partner: any;
  code: string;
}

/** A partner created by `by` (POST /admin/partners), logged in. */
export async function createPartner(api: Service, by: AccountFixture, fields: Record<string, unknown> = {}): Promise<PartnerFixture> {
  const email = (fields.email as string) ?? uniqueEmail('partner');
  const reply = await api.request('POST', '/admin/partners', { token: by.token, body: { name: 'Moussa Diallo', email, password: PASSWORD, ...fields } });
  if (reply.status !== 201) throw new Error(`partner creation failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const partner = reply.body.data;
  return { id: partner.id, email, partner, code: partner.code, token: await login(api, email) };
}

/** A shop registered with `code` as its referral code. */
export const referredShop = (api: Service, code: string, overrides: Record<string, unknown> = {}) =>
  registerShop(api, { referral_code: code, ...overrides });

/**
 * A subscription the owner pays (the simulator succeeds on a number ending in 0), confirmed at once:
 * the charge succeeds in the request, and charge_settle queues the commission's accrual.
 */
export async function pay(api: Service, owner: ShopFixture, planId = MONTHLY): Promise<string> {
  const subscribed = await api.request('POST', '/billing/subscribe', { token: owner.token, body: { plan_id: planId, method: 'carrier1_momo', phone: '+237670000000' } });
  if (subscribed.status !== 202) throw new Error(`subscribe failed: ${subscribed.status} ${JSON.stringify(subscribed.body)}`);
  const { reference } = subscribed.body.data;
  const confirmed = await api.request('POST', `/billing/confirm/${reference}`, { token: owner.token });
  if (confirmed.body.data?.status !== 'succeeded') throw new Error(`confirm failed: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return reference;
}

export interface LineRow {
  id: string;
  partner_id: string;
  amount_xaf: number;
  status: string;
}

/** The commission lines of a charge, as stored. */
export const linesOf = (api: Service, reference: string) =>
  api.ownerSql<LineRow[]>`select id, partner_id, amount_xaf::int, status from partner_commissions where charge_reference = ${reference}`;

/** Waits until no job of `task` is left (done or failed: a failure is reported at once). */
async function jobsDone(api: Service, task: string): Promise<void> {
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number; error: string | null }[]>`
      select count(*)::int as n, max(last_error) as error from graphile_worker.jobs where task_identifier = ${task}`;
    if (row!.error) throw new Error(`${task} failed: ${row!.error}`);
    return row!.n === 0;
  }, `the ${task} jobs to finish`);
}

/** Waits until every queued commission__accrue job is done. */
export const accrualsDone = (api: Service) => jobsDone(api, 'commission__accrue');

/** A paid charge's line, once the worker accrued it. */
export async function paidLine(api: Service, owner: ShopFixture, planId = MONTHLY): Promise<{ reference: string; line: LineRow }> {
  const reference = await pay(api, owner, planId);
  await accrualsDone(api);
  const [line] = await linesOf(api, reference);
  if (!line) throw new Error(`no line accrued on ${reference}`);
  return { reference, line };
}

/** Queues `times` accrual jobs of one charge at once (no job key: each is its own job). */
export const queueAccruals = (api: Service, reference: string, times: number) =>
  Promise.all(Array.from({ length: times }, () => api.ownerSql`select graphile_worker.add_job('commission__accrue', json_build_object('reference', ${reference}::text))`));

/** Runs the daily task that makes lines payable, and waits until it is done. */
export async function markPayable(api: Service): Promise<void> {
  await api.ownerSql`select graphile_worker.add_job('commission__mark_payable', '{}'::json)`;
  await jobsDone(api, 'commission__mark_payable');
}

/** Moves a line's charge (and the line's refund window) `days` into the past. */
export async function ageLine(api: Service, reference: string, days: number): Promise<void> {
  const by = `${days} days`;
  await api.ownerSql`update subscription_charges set created_at = created_at - ${by}::interval, settled_at = settled_at - ${by}::interval where reference = ${reference}`;
  await api.ownerSql`update partner_commissions set created_at = created_at - ${by}::interval, payable_after = payable_after - ${by}::interval where charge_reference = ${reference}`;
}

/** POST /admin/partner-commissions/pay as `by`. */
export const payCommissions = (api: Service, by: AccountFixture, body: Record<string, unknown>) =>
  api.request('POST', '/admin/partner-commissions/pay', { token: by.token, body });

export interface StoredLine {
  status: string;
  payable_after: Date | null;
  payout_reference: string | null;
  paid_at: Date | null;
  payout_id: string | null;
  updated_at: Date;
}

/** One commission line as stored, its payout included. */
export async function storedLine(api: Service, id: string): Promise<StoredLine> {
  const [row] = await api.ownerSql<StoredLine[]>`
    select status, payable_after, payout_reference, paid_at, payout_id, updated_at from partner_commissions where id = ${id}`;
  if (!row) throw new Error(`no line ${id}`);
  return row;
}

/** A partner's payouts as stored, oldest first. */
export const storedPayouts = (api: Service, partnerId: string) =>
  api.ownerSql<{ id: string; partner_id: string; payout_reference: string | null; paid_by: string | null; line_count: number; amount_xaf: number; created_at: Date }[]>`
    select id, partner_id, payout_reference, paid_by, line_count, amount_xaf::int, created_at from commission_payouts where partner_id = ${partnerId} order by created_at, id`;
