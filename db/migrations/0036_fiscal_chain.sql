-- Issue 30 (CONTRACT section 13): the shop's fiscal chain. Every sale, void, refund, sealed Z and
-- closing appends one entry, in the transaction that makes it: chain_no 1, 2, 3... per shop with no
-- gap, its content in canonical JSON (db/functions/fiscal/fiscal_content.sql) and
-- hash = sha256(previous_hash || content). The chain position is taken with the receipt counter, in
-- the same row and the same last statement (sale_record): the shop's tills already queue on that row
-- until commit, so the chain adds no wait of its own. The row keeps the last hash, so that a till
-- that waited for the row reads the hash its predecessor committed (no read of the entries table).

alter table receipt_counters
  add column chain_no bigint not null default 0,
  -- The hash of entry chain_no ('' before the first), and of the entry before it.
  add column chain_hash text not null default '',
  add column chain_previous_hash text not null default '',
  -- Refunds are credit notes (avoirs), numbered per shop with no gap, like receipts.
  add column credit_note_no bigint not null default 0;

-- Insert-only: a trigger (fiscal/fiscal_entries_insert_only.sql) refuses update, delete and truncate
-- to every role, the schema's owner included; only a migration that says why may lift it. recorded_at
-- is the clock when the entry took its position (under the counter's lock, so it grows with
-- chain_no); occurred_at is when the record happened (an offline sale's own time). amount_xaf is the
-- entry's effect on the perpetual total (a sale +total, a void or a refund minus what it gave back,
-- 0 otherwise): what closings add up, checked against the records like the content.
create table fiscal_entries (
  shop_id uuid not null default app_shop_id() references shops (id),
  chain_no bigint not null check (chain_no > 0),
  kind text not null check (kind in ('sale', 'void', 'refund', 'z', 'closing')),
  ref_id uuid not null,
  occurred_at timestamptz not null,
  recorded_at timestamptz not null default clock_timestamp(),
  amount_xaf bigint not null default 0,
  previous_hash text not null,
  hash text not null,
  content text not null,
  primary key (shop_id, chain_no)
);
alter table fiscal_entries enable row level security;
create policy fiscal_entries_tenant on fiscal_entries using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete, truncate on fiscal_entries from pos_app;

-- The entry each record got: a sale's and its void's, a refund's (with its credit note number), a Z's.
alter table sales add column chain_no bigint, add column void_chain_no bigint;
alter table refunds add column chain_no bigint, add column credit_note_no bigint;
alter table z_reports add column chain_no bigint;

-- Monthly and yearly closings, sealed by the worker after each period ends in the shop's time zone
-- (fiscal/fiscal_closings.sql): the entries first_chain_no..last_chain_no, their total and the
-- perpetual total since the shop's first entry; each closing is itself an entry (chain_no). Never
-- changed (same trigger as the entries).
create table fiscal_closings (
  id uuid not null default gen_random_uuid(),
  shop_id uuid not null references shops (id),
  period text not null check (period in ('month', 'year')),
  starts_on date not null,
  ends_on date not null,
  first_chain_no bigint not null,
  last_chain_no bigint not null,
  last_hash text not null,
  total_xaf bigint not null,
  cumulative_total_xaf bigint not null,
  chain_no bigint not null,
  sealed_at timestamptz not null default now(),
  primary key (shop_id, id),
  unique (shop_id, period, starts_on)
);
alter table fiscal_closings enable row level security;
create policy fiscal_closings_tenant on fiscal_closings using (shop_id = app_shop_id());
revoke insert, update, delete, truncate on fiscal_closings from pos_app;

-- The records made before this release are chained now, shop by shop, in the order they were made
-- (fiscal_backfill): a shop's chain starts with its history as it stands at the upgrade.
do $$
declare
  shop record;
begin
  for shop in select distinct shop_id from sales union select distinct shop_id from z_reports loop
    perform fiscal_backfill(shop.shop_id);
  end loop;
end $$;

alter table refunds add constraint refunds_credit_note_no_key unique (shop_id, credit_note_no);
