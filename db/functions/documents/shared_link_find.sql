-- The shop and the record a shared link opens, for a public request that knows only the token (row-level
-- security hides every shop's links until the shop is known). A link past its expiry answers nothing.
-- It tells only what the token itself names.
create or replace function shared_link_find(p_token text)
  returns table (shop_id uuid, sale_id uuid, quote_id uuid, expires_at timestamptz)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select l.shop_id, l.sale_id, l.quote_id, l.expires_at
      from shared_links l
     where l.token = p_token and l.expires_at > now()
  $$;
