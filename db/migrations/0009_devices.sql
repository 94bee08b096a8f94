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
alter table devices enable row level security;
create policy devices_tenant on devices using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Pairing requests belong to no shop until claimed: reached only through db/functions/devices/device_pairing.sql.
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
