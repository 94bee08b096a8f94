-- Foundation: the application role, tenancy helpers, shops, users, sessions, password resets,
-- rate limits and job queueing. Conventions: db/CONVENTIONS.md.

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

-- Tenancy: the shop and the user of the current transaction, set with set_config(..., true) by the
-- API. nullif because a setting once used on a connection reads '' rather than NULL afterwards.
create function app_shop_id() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.shop_id', true), '')::uuid $$;

create function app_user_id() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.user_id', true), '')::uuid $$;

create function touch_updated_at() returns trigger
  language plpgsql
  as $$
begin
  new.updated_at := now();
  return new;
end $$;

-- Synchronised tables carry `txid xid8` stamped by this trigger on insert and update; pulls serve
-- rows below the snapshot's xmin, paging by (txid, id), so a transaction that commits late is never
-- skipped (CONVENTIONS.md, "Sync cursors").
create function stamp_txid() returns trigger
  language plpgsql
  as $$
begin
  new.txid := pg_current_xact_id();
  return new;
end $$;

-- Business-rule failures: one shape for every procedure. errcode PB<status>, message = the
-- CONTRACT's code, detail = the sentence, column = the input's dotted key (or empty).
create function raise_app_error(p_status int, p_code text, p_message text, p_field text default '')
  returns void
  language plpgsql
  as $$
begin
  raise exception using errcode = 'PB' || p_status::text, message = p_code, detail = p_message, column = coalesce(p_field, '');
end $$;

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
create trigger shops_touch before update on shops for each row execute function touch_updated_at();
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
create trigger users_touch before update on users for each row execute function touch_updated_at();
alter table users enable row level security;
create policy users_tenant on users
  using (shop_id = app_shop_id() or id = app_user_id())
  with check (shop_id = app_shop_id() or id = app_user_id());

-- A shop always keeps an owner. The shop row is locked first, so two owners demoting each other
-- at once queue behind one another (the second is refused) instead of deadlocking.
create function users_keep_an_owner() returns trigger
  language plpgsql
  as $$
begin
  if old.role = 'owner' and old.deleted_at is null
     and (new.role is distinct from 'owner' or new.deleted_at is not null) then
    perform 1 from shops where id = old.shop_id for update;
    if not exists (select 1 from users
                    where shop_id = old.shop_id and role = 'owner' and deleted_at is null and id <> old.id) then
      perform raise_app_error(409, 'last_owner', 'The shop''s last owner cannot be removed or demoted.');
    end if;
  end if;
  return new;
end $$;
create trigger users_keep_an_owner before update on users for each row execute function users_keep_an_owner();

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

-- Reached only through the SECURITY DEFINER functions below: the request has no shop yet.
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

-- Login: the one lookup by e-mail across shops. Returns the hash for the API to compare.
create function auth_find_login(p_email text)
  returns table (user_id uuid, shop_id uuid, kind text, role text, password_hash text)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select u.id, u.shop_id, u.kind, u.role, u.password_hash
      from users u
     where lower(u.email) = lower(p_email) and u.deleted_at is null
$$;

-- Forgot-password: records a hashed, single-use token valid p_ttl; returns who to write to.
create function password_reset_request(p_email text, p_token_hash text, p_ttl interval)
  returns table (user_id uuid, name text, email text, locale text)
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  target users;
begin
  select * into target from users u where lower(u.email) = lower(p_email) and u.deleted_at is null;
  if not found then
    return;
  end if;
  insert into password_resets (user_id, token_hash, expires_at) values (target.id, p_token_hash, now() + p_ttl);
  return query select target.id, target.name, target.email, target.locale;
end $$;

-- Reset: consumes a live token of that e-mail's user, sets the new hash and revokes every session.
create function password_reset_consume(p_email text, p_token_hash text, p_password_hash text)
  returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  reset_id uuid;
  target_id uuid;
begin
  select r.id, r.user_id into reset_id, target_id
    from password_resets r
    join users u on u.id = r.user_id
   where r.token_hash = p_token_hash
     and lower(u.email) = lower(p_email)
     and u.deleted_at is null
     and r.used_at is null
     and r.expires_at > now()
     for update of r;
  if not found then
    return false;
  end if;
  update password_resets set used_at = now() where user_id = target_id and used_at is null;
  update users set password_hash = p_password_hash where id = target_id;
  update sessions set revoked_at = now() where user_id = target_id and revoked_at is null;
  return true;
end $$;

-- Counts one hit in the bucket's current window; true while the count stays within p_max.
create function rate_limit_hit(p_bucket text, p_max integer, p_window interval)
  returns boolean
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    insert into rate_limits as r (bucket, window_started_at, hits) values (p_bucket, now(), 1)
    on conflict (bucket) do update set
      window_started_at = case when r.window_started_at <= now() - p_window then now() else r.window_started_at end,
      hits = case when r.window_started_at <= now() - p_window then 1 else r.hits + 1 end
    returning hits <= p_max
$$;

-- Gives back one hit (an attempt counted up front that turned out not to be a failure).
create function rate_limit_refund(p_bucket text)
  returns void
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    update rate_limits set hits = greatest(hits - 1, 0) where bucket = p_bucket
$$;

-- The app role's only door into graphile-worker: the job exists if and only if the caller's
-- transaction commits.
create function enqueue_job(p_task text, p_payload jsonb, p_job_key text default null, p_max_attempts integer default null)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
begin
  perform graphile_worker.add_job(p_task, p_payload::json, job_key := p_job_key, max_attempts := p_max_attempts);
end $$;

revoke execute on all functions in schema public from public;
grant execute on all functions in schema public to pos_app;
