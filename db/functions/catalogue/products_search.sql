-- One page of the caller's shop's products that a search finds, by name: those whose accent-free
-- name contains p_text (as typed) or whose SKU or barcode (or a variant's) is exactly p_text, kept by
-- the list's filters (null: not filtered), after the cursor's (name, id) when given, at most p_limit.
-- Only ids and names come out, so the caller reads the full rows of one page, never of every match
-- (a 3-letter search matches thousands in a big shop).
--
-- A SECURITY DEFINER function filtering on app_shop_id() itself: under row-level security a
-- non-leakproof operator such as LIKE or @> is never an index condition, so the index of the shop's
-- name trigrams (shop_trigrams, products_name_keys_idx) would not be used as the app role. The pattern
-- and the keys are made once, in variables (written in the statement, unaccent ran again for every
-- row the index gave to recheck). When the search has a word of 3 characters, the index finds the
-- candidates, LIKE keeps the matches and they are sorted; they are materialized first, and their shop
-- checked after, so that no plan reads them from an index of the shop's rows (ordered by name, a rare
-- word reads the whole shop; the planner cannot tell how few the keys find). The products found by
-- code are added apart (one OR in the scan made every recheck twice as slow). With no key, the shop's
-- name index is read in order.
drop function if exists products_matching_name(text);

-- Whether a product (its columns first) passes the list's filters and comes after the cursor. Plain
-- SQL, inlined into the statements that call it.
create or replace function products_search_keeps(
  category_id uuid, active boolean, tracked boolean, on_hand numeric, reorder_level numeric, name text, id uuid,
  p_category_id uuid, p_active boolean, p_tracked boolean, p_low_stock boolean, p_after_name text, p_after_id uuid)
  returns boolean
  language sql immutable
  as $$
    select (p_category_id is null or category_id = p_category_id)
       and (p_active is null or active = p_active)
       and (p_tracked is null or tracked = p_tracked)
       and (p_low_stock is null or (tracked and on_hand <= reorder_level) = p_low_stock)
       and (p_after_name is null or (name, id) > (p_after_name, p_after_id))
$$;

create or replace function products_search(
  p_text text, p_category_id uuid, p_active boolean, p_tracked boolean, p_low_stock boolean,
  p_after_name text, p_after_id uuid, p_limit integer)
  returns table (id uuid, name text)
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
#variable_conflict use_column
declare
  shop constant uuid := app_shop_id();
  pattern constant text := '%' || search_text(like_escape(p_text)) || '%';
  keys constant text[] := shop_trigrams(shop, search_text(p_text));
  coded constant uuid[] := array(
    select c.product_id from catalogue_codes c
     where c.shop_id = shop and c.kind in ('sku', 'barcode') and c.code = p_text);
begin
  if cardinality(keys) > 0 then
    return query
      with matched as materialized (
        select p.id, p.shop_id, p.name, p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level
          from products p
         where shop_trigrams(p.shop_id, p.search_name) @> keys and p.deleted_at is null and p.search_name like pattern
        union all
        select p.id, p.shop_id, p.name, p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level
          from products p
         where p.id = any (coded) and p.deleted_at is null and p.search_name not like pattern
      )
      select m.id, m.name from matched m
       where m.shop_id = shop
         and products_search_keeps(m.category_id, m.active, m.tracked, m.on_hand, m.reorder_level, m.name, m.id,
                                   p_category_id, p_active, p_tracked, p_low_stock, p_after_name, p_after_id)
       order by m.name, m.id
       limit p_limit;
  else
    return query
      select p.id, p.name from products p
       where p.shop_id = shop and p.deleted_at is null
         and (p.search_name like pattern or p.id = any (coded))
         and products_search_keeps(p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level, p.name, p.id,
                                   p_category_id, p_active, p_tracked, p_low_stock, p_after_name, p_after_id)
       order by p.name, p.id
       limit p_limit;
  end if;
end $$;
