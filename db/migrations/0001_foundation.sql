-- Foundation: the application role, shops, users, sessions, password resets and rate limits. Their
-- functions (tenancy, login, resets, rate limits, job queueing) are in db/functions/platform/, auth/
-- and users/. Conventions: db/CONVENTIONS.md.

-- The role every web request runs as. Row-level security binds it; it owns nothing.
do $$
begin
  create role pos_app nologin nosuperuser nobypassrls nocreatedb nocreaterole noinherit;
exception when duplicate_object then
  if exists (select from pg_roles where rolname = 'pos_app' and (rolsuper or rolbypassrls)) then
    raise exception 'role pos_app exists with SUPERUSER or BYPASSRLS: row-level security would not bind it';
  end if;
end $$;

revoke create on schema public from public;
grant usage on schema public to pos_app;
alter default privileges in schema public grant select, insert, update, delete on tables to pos_app;
alter default privileges in schema public grant usage, select on sequences to pos_app;

create table shops (
  id uuid primary key,
  name text not null check (char_length(name) between 1 and 160),
  business_type text check (char_length(business_type) <= 120),
  phone text check (char_length(phone) <= 40),
  email text check (char_length(email) <= 160),
  address text check (char_length(address) <= 255),
  city text check (char_length(city) <= 120),
  tax_id text check (char_length(tax_id) <= 60),
  locale text not null default 'fr' check (locale in ('fr', 'en')),
  receipt_header text check (char_length(receipt_header) <= 500),
  receipt_footer text check (char_length(receipt_footer) <= 500),
  allow_negative_stock boolean not null default false,
  default_vat_rate numeric(5, 2) not null default 19.25 check (default_vat_rate between 0 and 100),
  loyalty_earn_rate numeric(12, 4) not null default 0.01 check (loyalty_earn_rate between 0 and 1000),
  loyalty_redeem_rate_xaf bigint not null default 1 check (loyalty_redeem_rate_xaf between 0 and 1000000),
  -- Kept as typed at signup; the partners capability links it to a partner.
  referral_code text check (char_length(referral_code) <= 60),
  trial_ends_at timestamptz not null,
  subscription_ends_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table shops enable row level security;
create policy shops_tenant on shops using (id = app_shop_id()) with check (id = app_shop_id());

-- Shop users (owner, manager, cashier) belong to one shop; partners and administrators to none.
-- One login serves them all, so an e-mail is unique across the platform.
create table users (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid references shops (id),
  kind text not null check (kind in ('shop', 'partner', 'admin')),
  role text check (role in ('owner', 'manager', 'cashier')),
  name text not null check (char_length(name) between 1 and 160),
  email text not null check (char_length(email) <= 254),
  phone text check (char_length(phone) <= 40),
  locale text not null default 'fr' check (locale in ('fr', 'en')),
  password_hash text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  check ((kind = 'shop') = (shop_id is not null)),
  check ((kind = 'shop') = (role is not null))
);
create unique index users_email_key on users (lower(email)) where deleted_at is null;
create index users_shop_idx on users (shop_id, created_at, id) where shop_id is not null;
alter table users enable row level security;
create policy users_tenant on users
  using (shop_id = app_shop_id() or id = app_user_id())
  with check (shop_id = app_shop_id() or id = app_user_id());

-- A token is a JWT naming its session; revoking the session revokes the token at once.
create table sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id),
  shop_id uuid references shops (id),
  device_name text check (char_length(device_name) <= 160),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_user_idx on sessions (user_id) where revoked_at is null;
alter table sessions enable row level security;
create policy sessions_tenant on sessions
  using (user_id = app_user_id() or shop_id = app_shop_id())
  with check (user_id = app_user_id() or shop_id = app_shop_id());

-- Reached only through SECURITY DEFINER functions (db/functions/auth/password_reset.sql): the request has no shop yet.
create table password_resets (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id),
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
alter table password_resets enable row level security;
revoke all on password_resets from pos_app;

-- Fixed-window counters shared by every web process.
create table rate_limits (
  bucket text primary key,
  window_started_at timestamptz not null,
  hits integer not null
);
alter table rate_limits enable row level security;
revoke all on rate_limits from pos_app;

revoke execute on all functions in schema public from public;
grant execute on all functions in schema public to pos_app;
