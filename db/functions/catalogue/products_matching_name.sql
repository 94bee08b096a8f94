-- Products of the caller's shop whose accent-free name contains p_text (as typed). Row-level security keeps a non-leakproof operator such as LIKE from being an index
-- condition, so the trigram index would never be used under the app role: this runs as the owner
-- and filters on the caller's shop itself.
create or replace function products_matching_name(p_text text)
  returns table (id uuid)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select p.id from products p
     where p.shop_id = app_shop_id() and p.deleted_at is null
       and p.search_name like '%' || search_text(like_escape(p_text)) || '%'
$$;
