-- One page of the caller's shop's products that a search finds, in three groups, each in the order of
-- the accent-free name (byte order) then id: (0) the products whose SKU or barcode (or a variant's)
-- is exactly p_text, a scan; (1) those whose accent-free name starts with p_text, what a cashier
-- typing the start of a name wants first; (2) those whose name contains it further on. The list's
-- filters apply (null: not filtered); the cursor (p_after_rank, p_after_key, p_after_id) is the last
-- row's group, search_name and id; at most p_limit rows. Only ids, names and those keys come out, so
-- the caller reads the full rows of one page, never of every match.
--
-- The first page of a name's start reads its rows from products_search_name_idx in order and stops
-- at the page's end, whatever the number of matches (a 3-letter start matches thousands in a big
-- shop); group 2 is read from the index of the shop's trigrams (shop_trigrams,
-- products_name_keys_idx), its candidates kept by LIKE and sorted, so it costs what its matches cost.
--
-- A SECURITY DEFINER function filtering on app_shop_id() itself: under row-level security a
-- non-leakproof operator such as LIKE or @> is never an index condition. The pattern, the bounds and
-- the keys are made once, in variables (written in the statement, unaccent ran again for every row
-- the index gave to recheck). Group 2's matches are materialized first and their shop checked after,
-- so that no plan reads them from an index of the shop's rows in order (a rare word would read the
-- whole shop; the planner cannot tell how few the keys find). With no key (no word of 3 characters),
-- group 2 reads the shop's names in order.
drop function if exists products_matching_name(text);

-- Whether a product (its columns first) of search group p_group passes the list's filters and comes
-- after the cursor (p_after_rank, p_after_key, p_after_id), which bounds its own group only. Plain
-- SQL, inlined into the statements that call it.
drop function if exists products_search_keeps(uuid, boolean, boolean, numeric, numeric, text, uuid, uuid, boolean, boolean, boolean, text, uuid);
drop function if exists products_search_keeps(uuid, boolean, boolean, numeric, numeric, uuid, boolean, boolean, boolean);
create or replace function products_search_keeps(
  category_id uuid, active boolean, tracked boolean, on_hand numeric, reorder_level numeric, search_name text, id uuid,
  p_group integer, p_category_id uuid, p_active boolean, p_tracked boolean, p_low_stock boolean,
  p_after_rank integer, p_after_key text, p_after_id uuid)
  returns boolean
  language sql immutable
  as $$
    select (p_category_id is null or category_id = p_category_id)
       and (p_active is null or active = p_active)
       and (p_tracked is null or tracked = p_tracked)
       and (p_low_stock is null or (tracked and on_hand <= reorder_level) = p_low_stock)
       and (p_after_rank is distinct from p_group or (search_name collate "C", id) > (p_after_key collate "C", p_after_id))
$$;

drop function if exists products_search(text, uuid, boolean, boolean, boolean, text, uuid, integer);
create or replace function products_search(
  p_text text, p_category_id uuid, p_active boolean, p_tracked boolean, p_low_stock boolean,
  p_after_rank integer, p_after_key text, p_after_id uuid, p_limit integer)
  returns table (id uuid, name text, rank integer, key text)
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
#variable_conflict use_column
declare
  shop constant uuid := app_shop_id();
  needle constant text := search_text(p_text);
  -- Every text that starts with needle sorts (bytewise) at or after it and before this.
  past_needle constant text := needle || chr(1114111);
  pattern constant text := '%' || like_escape(needle) || '%';
  keys constant text[] := shop_trigrams(shop, needle);
  coded constant uuid[] := array(
    select c.product_id from catalogue_codes c
     where c.shop_id = shop and c.kind in ('sku', 'barcode') and c.code = p_text);
  left_over integer := p_limit;
  found_now integer;
begin
  -- (0) by code.
  if coalesce(p_after_rank, 0) <= 0 and cardinality(coded) > 0 then
    return query
      select p.id, p.name, 0, p.search_name from products p
       where p.id = any (coded) and p.shop_id = shop and p.deleted_at is null
         and products_search_keeps(p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level, p.search_name, p.id, 0,
                                   p_category_id, p_active, p_tracked, p_low_stock, p_after_rank, p_after_key, p_after_id)
       order by p.search_name collate "C", p.id
       limit left_over;
    get diagnostics found_now = row_count;
    left_over := left_over - found_now;
  end if;
  -- (1) the name starts with the text, read in order.
  if left_over > 0 and coalesce(p_after_rank, 1) <= 1 then
    return query
      select p.id, p.name, 1, p.search_name from products p
       where p.shop_id = shop and p.deleted_at is null
         and p.search_name collate "C" >= needle and p.search_name collate "C" < past_needle
         and not p.id = any (coded)
         and products_search_keeps(p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level, p.search_name, p.id, 1,
                                   p_category_id, p_active, p_tracked, p_low_stock, p_after_rank, p_after_key, p_after_id)
       order by p.search_name collate "C", p.id
       limit left_over;
    get diagnostics found_now = row_count;
    left_over := left_over - found_now;
  end if;
  -- (2) the name contains the text further on.
  if left_over > 0 and needle <> '' then
    if cardinality(keys) > 0 then
      return query
        with matched as materialized (
          select p.id, p.shop_id, p.name, p.search_name, p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level
            from products p
           where shop_trigrams(p.shop_id, p.search_name) @> keys and p.deleted_at is null and p.search_name like pattern
        )
        select m.id, m.name, 2, m.search_name from matched m
         where m.shop_id = shop
           and not (m.search_name collate "C" >= needle and m.search_name collate "C" < past_needle)
           and not m.id = any (coded)
           and products_search_keeps(m.category_id, m.active, m.tracked, m.on_hand, m.reorder_level, m.search_name, m.id, 2,
                                     p_category_id, p_active, p_tracked, p_low_stock, p_after_rank, p_after_key, p_after_id)
         order by m.search_name collate "C", m.id
         limit left_over;
    else
      return query
        select p.id, p.name, 2, p.search_name from products p
         where p.shop_id = shop and p.deleted_at is null
           and p.search_name like pattern
           and not (p.search_name collate "C" >= needle and p.search_name collate "C" < past_needle)
           and not p.id = any (coded)
           and products_search_keeps(p.category_id, p.active, p.tracked, p.on_hand, p.reorder_level, p.search_name, p.id, 2,
                                     p_category_id, p_active, p_tracked, p_low_stock, p_after_rank, p_after_key, p_after_id)
         order by p.search_name collate "C", p.id
         limit left_over;
    end if;
  end if;
end $$;
