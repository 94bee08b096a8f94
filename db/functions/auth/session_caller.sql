-- Who a verified token's session names, in one statement outside any transaction: the request then
-- checks roles and reads its body without holding a pooled connection, and opens its transaction
-- only once the input is valid. Definer, because no shop is set yet; safe, because the caller passes
-- the ids of a token whose signature the API has verified, and every one of them must match. No row:
-- the session is over (logged out, revoked, expired) or the user is gone.
drop function if exists session_caller(uuid, uuid, uuid);
create or replace function session_caller(p_session_id uuid, p_user_id uuid, p_shop_id uuid)
  returns table (kind text, shop_id uuid, role text, locale text, trial_ends_at timestamptz, subscription_ends_at timestamptz)
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
begin
  return query
    select u.kind, u.shop_id, u.role, u.locale, sh.trial_ends_at, sh.subscription_ends_at
      from sessions s
      join users u on u.id = s.user_id
      left join shops sh on sh.id = u.shop_id
     where s.id = p_session_id
       and s.user_id = p_user_id
       and s.revoked_at is null
       and s.expires_at > now()
       and u.deleted_at is null
       and u.shop_id is not distinct from p_shop_id;
end $$;
