-- The general journal: every money event posts one balanced double-entry entry on the SYSCOHADA
-- chart. Entries are never updated or deleted: a correction is a new, reversing entry.
--
-- Accounts used (SYSCOHADA revised): 31 stocks of goods, 401 suppliers, 411 customers,
-- 4431 VAT collected, 4452 VAT deductible, 521 bank, 571 cash, 585 mobile money in transit,
-- 601 purchases of goods, 6031 change in stocks of goods, 701 sales of goods.

create table journal_entries (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  source_type text not null check (char_length(source_type) between 1 and 40),
  source_id uuid,
  memo text check (char_length(memo) <= 255),
  posted_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index journal_entries_shop_idx on journal_entries (shop_id, posted_at, id);
create index journal_entries_source_idx on journal_entries (shop_id, source_type, source_id);
alter table journal_entries enable row level security;
create policy journal_entries_tenant on journal_entries using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table journal_lines (
  id bigint generated always as identity primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  entry_id uuid not null references journal_entries (id),
  account text not null check (account ~ '^[1-9][0-9]{1,7}$'),
  debit_xaf bigint not null default 0 check (debit_xaf >= 0),
  credit_xaf bigint not null default 0 check (credit_xaf >= 0),
  check ((debit_xaf = 0) <> (credit_xaf = 0))
);
create index journal_lines_entry_idx on journal_lines (entry_id);
create index journal_lines_account_idx on journal_lines (shop_id, account);
alter table journal_lines enable row level security;
create policy journal_lines_tenant on journal_lines using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

revoke update, delete on journal_entries, journal_lines from pos_app;
