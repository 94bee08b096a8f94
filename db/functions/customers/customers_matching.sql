-- Customers of the caller's shop matching q (as typed): accent-free name containing it, phone
-- starting with it, or exactly its card number. A SECURITY DEFINER function for the same reason as
-- products_matching_name: under row-level security LIKE cannot use the indexes.
create or replace function customers_matching(p_text text)
  returns table (id uuid)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select c.id from customers c
     where c.shop_id = app_shop_id() and c.deleted_at is null
       and (c.search_name like '%' || search_text(like_escape(p_text)) || '%'
            or c.phone like like_escape(p_text) || '%'
            or c.card_no = p_text)
$$;
