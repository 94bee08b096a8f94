-- Devices (tills) and their pairing: a device without credentials asks for a code, an owner or
-- manager claims it for the shop, and the device's poll receives its token once.

create table devices (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text check (char_length(name) <= 120),
  platform text check (platform in ('pwa', 'desktop')),
  token_hash text not null unique,
  claimed_by uuid references users (id) default app_user_id(),
  last_seen_at timestamptz,
  last_sync_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index devices_list_idx on devices (shop_id, created_at, id) where revoked_at is null;
create trigger devices_touch before update on devices for each row execute function touch_updated_at();
alter table devices enable row level security;
create policy devices_tenant on devices using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Pairing requests belong to no shop until claimed: reached only through the functions below.
create table device_pairings (
  id uuid primary key default gen_random_uuid(),
  code text not null,
  poll_secret_hash text not null,
  name text check (char_length(name) <= 120),
  platform text check (platform in ('pwa', 'desktop')),
  shop_id uuid references shops (id),
  device_id uuid references devices (id),
  -- The device token, sealed with APP_KEY, kept only until the device's poll has taken it.
  sealed_token text,
  claimed_at timestamptz,
  handed_over_at timestamptz,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create unique index device_pairings_live_code on device_pairings (code) where claimed_at is null;
create index device_pairings_code_idx on device_pairings (code, created_at desc);
alter table device_pairings enable row level security;
revoke all on device_pairings from pos_app;

-- A new pairing request; false when the code is already live (the caller draws another).
create function device_pairing_create(p_code text, p_poll_secret_hash text, p_name text, p_platform text, p_ttl interval)
  returns timestamptz
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  expires timestamptz := now() + p_ttl;
begin
  delete from device_pairings where code = p_code and claimed_at is null and expires_at <= now();
  insert into device_pairings (code, poll_secret_hash, name, platform, expires_at)
  values (p_code, p_poll_secret_hash, p_name, p_platform, expires);
  return expires;
exception when unique_violation then
  return null;
end $$;

-- The newest request with this code: its status, and the sealed token once, to the poll that
-- presents the right secret after the claim.
create function device_pairing_poll(p_code text, p_poll_secret_hash text)
  returns table (status text, expires_at timestamptz, device_id uuid, sealed_token text)
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  pairing device_pairings;
begin
  select * into pairing from device_pairings where code = p_code order by created_at desc limit 1 for update;
  if not found then
    return;
  end if;
  if pairing.claimed_at is not null then
    if p_poll_secret_hash is not null and p_poll_secret_hash = pairing.poll_secret_hash and pairing.sealed_token is not null then
      update device_pairings set sealed_token = null, handed_over_at = now() where id = pairing.id;
      return query select 'claimed'::text, pairing.expires_at, pairing.device_id, pairing.sealed_token;
    else
      return query select 'claimed'::text, pairing.expires_at, null::uuid, null::text;
    end if;
  elsif pairing.expires_at <= now() then
    return query select 'expired'::text, pairing.expires_at, null::uuid, null::text;
  else
    return query select 'pending'::text, pairing.expires_at, null::uuid, null::text;
  end if;
end $$;

-- Claims a live pending code for the caller's shop: creates the device with the token's hash and
-- keeps the sealed token for the device's next poll. Null when no live pending request has the code.
create function device_pairing_claim(p_code text, p_name text, p_token_hash text, p_sealed_token text)
  returns uuid
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  pairing device_pairings;
  device uuid;
begin
  if app_shop_id() is null then
    raise exception 'device_pairing_claim needs a shop';
  end if;
  select * into pairing from device_pairings
   where code = p_code and claimed_at is null and expires_at > now()
   for update;
  if not found then
    return null;
  end if;
  insert into devices (shop_id, name, platform, token_hash, claimed_by)
  values (app_shop_id(), coalesce(p_name, pairing.name), pairing.platform, p_token_hash, app_user_id())
  returning id into device;
  update device_pairings set shop_id = app_shop_id(), device_id = device, sealed_token = p_sealed_token, claimed_at = now()
   where id = pairing.id;
  return device;
end $$;
