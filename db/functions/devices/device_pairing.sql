-- A new pairing request; false when the code is already live (the caller draws another).
create or replace function device_pairing_create(p_code text, p_poll_secret_hash text, p_name text, p_platform text, p_ttl interval)
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
create or replace function device_pairing_poll(p_code text, p_poll_secret_hash text)
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
create or replace function device_pairing_claim(p_code text, p_name text, p_token_hash text, p_sealed_token text)
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
