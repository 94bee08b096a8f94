/**
 * How the schema is distributed by shop (db/CONVENTIONS.md, "Distribution by shop"). Every table of the
 * public schema is one of three kinds:
 *
 * - a shop's table (any table with a `shop_id` column not listed below): its keys lead with `shop_id`
 *   (migration 0039) and on Citus it is distributed by `shop_id`, all of them co-located, so a shop's
 *   rows of every table live on one node;
 * - a reference table: the platform's few shared rows, read by every shop and written rarely; on Citus
 *   a copy on every node, so a shop's procedures join them where they run;
 * - a coordinator table: found before the shop is known (a session, a device's token, a pairing code,
 *   a shared link's token, a provider's charge reference) or the platform's own bookkeeping; on Citus
 *   it stays on the coordinator, where the web and the worker reach it.
 *
 * A new table is a shop's table by default; one that cannot be (it is looked up across shops) is
 * added here, with the reason, and `tests/platform/distribution-keys.test.ts` checks the lists
 * against the schema.
 */
export const REFERENCE_TABLES = [
  'shops', // the shop registry: a shop's own settings, read by its procedures
  'plans', // the subscription plans
  'users', // every person who logs in (shop staff, partners, administrators): the log-in index, e-mails unique across shops
  'partners', // resellers, keyed by their user
] as const;

export const COORDINATOR_TABLES = [
  'sessions', // a request's token names its session before the shop is known
  'password_resets', // a reset link names its token only
  'devices', // a till's token is looked up by its hash
  'device_pairings', // a pairing code is typed on a till that has no shop yet
  'shared_links', // /s/{token} is opened by anyone, with no shop in the URL
  'subscription_charges', // the platform's billing: providers call back with the charge's reference
  'subscription_reminders',
  'partner_commissions', // a partner's commissions across the shops it referred
  'commission_payouts',
  'rate_limits', // the platform's own bookkeeping from here on
  'sent_messages',
  'worker_heartbeats',
  'database_identity',
  'app_login_roles',
  'schema_migrations',
  'schema_functions',
] as const;

const PLATFORM: ReadonlySet<string> = new Set([...REFERENCE_TABLES, ...COORDINATOR_TABLES]);

/** Whether `table` (with a `shop_id` column) is a shop's table, distributed by shop. */
export function isShopTable(table: string): boolean {
  return !PLATFORM.has(table);
}
