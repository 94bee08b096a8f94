-- Sales partners and administration (issue 17, CONTRACT section 11). A partner is a user of kind
-- 'partner' (its login) with a partners row (its terms and payout details); it refers shops by its
-- code at registration (shops.partner_id, set by shops_refer), and each succeeded subscription
-- charge of a referred shop within the partner's commission months accrues one commission line
-- (commission_accrue, run by the commission__accrue task). Lines go pending -> payable (the daily
-- commission__mark_payable task, 14 days after the charge) -> paid (an administrator).
--
-- Partners and administrators have no shop: what they may see is keyed by their user
-- (app_user_id(), app_is_admin(): db/functions/partners/partner_access.sql). A partner reads its own
-- partners row and lines, and of its referred shops only the columns of the referred_shops view.

create table partners (
  id uuid primary key references users (id),
  code text not null check (char_length(code) between 1 and 60),
  commission_rate numeric(5, 2) not null default 20 check (commission_rate between 0 and 100),
  commission_months int not null default 12 check (commission_months between 1 and 120),
  status text not null default 'active' check (status in ('active', 'suspended')),
  payout_method text check (char_length(payout_method) <= 40),
  payout_phone text check (char_length(payout_phone) <= 40),
  payout_account text check (char_length(payout_account) <= 80),
  payout_name text check (char_length(payout_name) <= 160),
  notes text check (char_length(notes) <= 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- A code is typed by the shop at signup in any case: unique whatever the case.
create unique index partners_code_key on partners (lower(code));
create index partners_created_idx on partners (created_at desc, id desc);
alter table partners enable row level security;
create policy partners_read on partners for select using (id = app_user_id() or (select app_is_admin()));
create policy partners_admin on partners for all using ((select app_is_admin())) with check ((select app_is_admin()));
revoke delete on partners from pos_app;

-- An administrator creates partners' logins and reads and renames them; nothing else of users.
create policy users_admin_partners on users for all
  using (kind = 'partner' and (select app_is_admin()))
  with check (kind = 'partner' and shop_id is null and (select app_is_admin()));

-- A user's kind and shop are fixed when it is created: the app role may update the other columns
-- only, so no statement in a partner's or a cashier's scope can turn its own row into an
-- administrator's (which app_is_admin() reads) or move it to another shop.
revoke update on users from pos_app;
grant update (role, name, email, phone, locale, password_hash, updated_at, deleted_at) on users to pos_app;

-- The partner a shop was referred by: set once, at registration, from referral_code (shops_refer).
alter table shops add column partner_id uuid references partners (id);
create index shops_partner_idx on shops (partner_id, created_at desc, id desc) where partner_id is not null;

create table partner_commissions (
  id uuid primary key default gen_random_uuid(),
  partner_id uuid not null references partners (id),
  shop_id uuid not null references shops (id),
  -- One line per charge at most: the accrual's insert does nothing on a second run.
  charge_reference text not null unique references subscription_charges (reference),
  base_amount_xaf bigint not null check (base_amount_xaf > 0),
  commission_rate numeric(5, 2) not null check (commission_rate between 0 and 100),
  amount_xaf bigint not null check (amount_xaf > 0),
  status text not null default 'pending' check (status in ('pending', 'payable', 'paid')),
  -- When the daily task makes a pending line payable (the end of the refund window); null: held
  -- pending by an administrator, made payable only by one.
  payable_after timestamptz,
  payout_reference text check (char_length(payout_reference) <= 120),
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'paid') = (paid_at is not null))
);
create index partner_commissions_partner_idx on partner_commissions (partner_id, created_at desc, id desc);
create index partner_commissions_shop_idx on partner_commissions (shop_id);
create index partner_commissions_created_idx on partner_commissions (created_at desc, id desc);
create index partner_commissions_due_idx on partner_commissions (payable_after) where status = 'pending';
alter table partner_commissions enable row level security;
create policy partner_commissions_read on partner_commissions for select using (partner_id = app_user_id() or (select app_is_admin()));
create policy partner_commissions_admin on partner_commissions for update using ((select app_is_admin())) with check ((select app_is_admin()));
-- Lines are accrued by the worker (the owner) alone, and never deleted.
revoke insert, delete on partner_commissions from pos_app;

-- Of a referred shop, a partner sees its name, signup date and subscription state, nothing else; an
-- administrator sees every referred shop's. The view runs as its owner (shops' row-level security
-- does not apply to it): these conditions are its whole access rule.
create view referred_shops with (security_barrier) as
  select s.id, s.partner_id, s.name, s.created_at, s.trial_ends_at, s.subscription_ends_at
    from shops s
   where s.partner_id is not null
     and (s.partner_id = app_user_id() or (select app_is_admin()));
revoke all on referred_shops from pos_app;
grant select on referred_shops to pos_app;
