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

-- Checked at commit, whatever path wrote the lines: an entry's debits equal its credits.
create function journal_entry_must_balance() returns trigger
  language plpgsql
  as $$
declare
  difference bigint;
begin
  select coalesce(sum(debit_xaf), 0) - coalesce(sum(credit_xaf), 0) into difference
    from journal_lines where entry_id = new.entry_id;
  if difference <> 0 then
    raise exception 'journal entry % is unbalanced by % XAF', new.entry_id, difference;
  end if;
  return null;
end $$;
create constraint trigger journal_lines_balanced after insert on journal_lines
  deferrable initially deferred for each row execute function journal_entry_must_balance();

-- Posts one entry. p_lines: [{"account": "31", "debit_xaf": 1200}, {"account": "6031", "credit_xaf": 1200}].
-- Lines of zero are dropped; an entry left with nothing to post is not written (returns null).
create function journal_post(p_source_type text, p_source_id uuid, p_memo text, p_lines jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  entry_id uuid;
begin
  if not exists (select 1 from jsonb_array_elements(p_lines) line
                  where coalesce((line ->> 'debit_xaf')::bigint, 0) > 0 or coalesce((line ->> 'credit_xaf')::bigint, 0) > 0) then
    return null;
  end if;
  insert into journal_entries (source_type, source_id, memo) values (p_source_type, p_source_id, left(p_memo, 255))
    returning id into entry_id;
  insert into journal_lines (entry_id, account, debit_xaf, credit_xaf)
  select entry_id, line ->> 'account', coalesce((line ->> 'debit_xaf')::bigint, 0), coalesce((line ->> 'credit_xaf')::bigint, 0)
    from jsonb_array_elements(p_lines) line
   where coalesce((line ->> 'debit_xaf')::bigint, 0) > 0 or coalesce((line ->> 'credit_xaf')::bigint, 0) > 0;
  return entry_id;
end $$;

-- A change of stock value: a loss (p_value_xaf < 0) debits 6031 and credits 31; a gain the reverse.
create function journal_post_stock_change(p_source_type text, p_source_id uuid, p_memo text, p_value_xaf bigint)
  returns uuid
  language sql volatile
  as $$
    select journal_post(p_source_type, p_source_id, p_memo,
      case when p_value_xaf < 0
        then jsonb_build_array(jsonb_build_object('account', '6031', 'debit_xaf', -p_value_xaf),
                               jsonb_build_object('account', '31', 'credit_xaf', -p_value_xaf))
        else jsonb_build_array(jsonb_build_object('account', '31', 'debit_xaf', p_value_xaf),
                               jsonb_build_object('account', '6031', 'credit_xaf', p_value_xaf))
      end)
$$;
