-- Forgot-password: records a hashed, single-use token valid p_ttl; returns who to write to.
create or replace function password_reset_request(p_email text, p_token_hash text, p_ttl interval)
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
create or replace function password_reset_consume(p_email text, p_token_hash text, p_password_hash text)
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
  update users set password_hash = p_password_hash, updated_at = now() where id = target_id;
  update sessions set revoked_at = now() where user_id = target_id and revoked_at is null;
  return true;
end $$;
