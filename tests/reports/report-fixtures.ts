import type { Service } from '../support/service.ts';
import { waitFor } from '../support/fixtures.ts';

/**
 * Days past for the report tests: the service only ever writes "now", so a shop's history is made by
 * moving its records back in time, as the owner role.
 */

/** The shop's calendar day `offset` days from today (`YYYY-MM-DD`). */
export async function shopDay(api: Service, shopId: string, offset = 0): Promise<string> {
  const [row] = await api.ownerSql<{ day: string }[]>`
    select ((now() at time zone timezone)::date + ${offset}::int)::text as day from shops where id = ${shopId}`;
  return row!.day;
}

/**
 * Moves every dated record of the shop `days` days back: the shop's creation, its sales and what
 * hangs on them, refunds, customers' debts and settlements, purchases and their returns, stock movements, stocktakes, shifts, expenses,
 * cash movements, the journal; and what sealing stored (the seal, the Zs and their facts, the days
 * late records went to); then the shop's fiscal chain is made again from the moved records. The
 * seal row is taken first, as the sealing task takes it: a task the crontab starts meanwhile seals
 * before or after the move, never halfway through it.
 */
export async function backdate(api: Service, shopId: string, days: number): Promise<void> {
  const by = `${days} days`;
  await api.ownerSql.begin(async (sql) => {
    await sql`insert into z_seals (shop_id, sealed_through)
              select id, (created_at at time zone timezone)::date - 1 from shops where id = ${shopId} on conflict (shop_id) do nothing`;
    await sql`select 1 from z_seals where shop_id = ${shopId} for update`;
    await sql`update shops set created_at = created_at - ${by}::interval where id = ${shopId}`;
    await sql`update sales set created_at = created_at - ${by}::interval, recorded_at = recorded_at - ${by}::interval,
                               voided_at = voided_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update sale_payments set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update refunds set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update purchases set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update purchase_returns set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update stock_movements set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update stocktakes set created_at = created_at - ${by}::interval, committed_at = committed_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update shifts set opened_at = opened_at - ${by}::interval, closed_at = closed_at - ${by}::interval,
                                created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update expenses set spent_at = spent_at - ${by}::interval, created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update cash_movements set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update customer_payments set created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update customer_debts set occurred_at = occurred_at - ${by}::interval, created_at = created_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update journal_entries set posted_at = posted_at - ${by}::interval where shop_id = ${shopId}`;
    await sql`update sales set reported_on = reported_on - ${days}::int where shop_id = ${shopId} and reported_on is not null`;
    await sql`update z_seals set sealed_through = sealed_through - ${days}::int where shop_id = ${shopId}`;
    await sql`update z_reports set day = day - ${days}::int where shop_id = ${shopId}`;
    await sql`update report_facts set day = day - ${days}::int where shop_id = ${shopId}`;
    // The fiscal chain records when things were made (its contents name their times, and the integrity
    // check recomputes them from the records): a test that moves the records in time makes their history
    // again. Its entries and closings go, past the insert-only trigger, and the shop is chained anew, in
    // order, from the records as they now stand (fiscal_backfill, as migration 0036 chained the history
    // made before the chain existed); the worker seals the closings of the new history when they are due.
    await sql`set local session_replication_role = replica`;
    await sql`delete from fiscal_closings where shop_id = ${shopId}`;
    await sql`delete from fiscal_entries where shop_id = ${shopId}`;
    await sql`select fiscal_backfill(${shopId})`;
  });
}

/**
 * Runs the sealing task (`times` jobs at once, in the test's graphile-worker) and waits until it and
 * the mails it queued are done; a failed attempt is reported at once rather than waited out.
 */
export async function seal(api: Service, times = 1): Promise<void> {
  await Promise.all(Array.from({ length: times }, () => api.ownerSql`select graphile_worker.add_job('report__seal_z', '{}'::json)`));
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number; error: string | null }[]>`
      select count(*)::int as n, max(last_error) as error from graphile_worker.jobs where task_identifier in ('report__seal_z', 'report__email_z')`;
    if (row!.error) throw new Error(`a sealing job failed: ${row!.error}`);
    return row!.n === 0;
  }, 'the sealing jobs');
}

/** What the journal posted to `account` (credit minus debit) per shop day, for the entries of `sources` (all when omitted). */
export async function journalByDay(api: Service, shopId: string, account: string, sources?: string[]): Promise<Map<string, number>> {
  const rows = await api.ownerSql<{ day: string; net: string }[]>`
    select ((e.posted_at at time zone s.timezone)::date)::text as day, sum(l.credit_xaf - l.debit_xaf)::text as net
      from journal_lines l join journal_entries e on e.id = l.entry_id join shops s on s.id = e.shop_id
     where e.shop_id = ${shopId} and l.account = ${account} ${sources ? api.ownerSql`and e.source_type = any(${sources})` : api.ownerSql``}
     group by 1`;
  return new Map(rows.map((row) => [row.day, Number(row.net)]));
}
