-- A device token's hash to its device and shop, stamping the device as seen and synchronised. No
-- row: unknown or revoked token. Definer: the caller has no shop yet (the device names it).
create or replace function device_authenticate(p_token_hash text)
  returns table (device_id uuid, shop_id uuid)
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    update devices set last_seen_at = now(), last_sync_at = now()
     where token_hash = p_token_hash and revoked_at is null
    returning id, shop_id
$$;
