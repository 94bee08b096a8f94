-- Login: the one lookup by e-mail across shops. Returns the hash for the API to compare.
create or replace function auth_find_login(p_email text)
  returns table (user_id uuid, shop_id uuid, kind text, role text, password_hash text)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select u.id, u.shop_id, u.kind, u.role, u.password_hash
      from users u
     where lower(u.email) = lower(p_email) and u.deleted_at is null
$$;
