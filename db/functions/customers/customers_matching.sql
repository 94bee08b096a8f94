-- Customers of the caller's shop matching q (as typed): accent-free name containing it, exactly its
-- card number, or, when q looks like a phone number (digits, spaces, "+", "-", ".", parentheses), a
-- number whose digits start with q's digits, with or without its country code (phone_digits,
-- phone_local: migration 0016; a null q digits matches no number). A SECURITY DEFINER function for the same reason as
-- products_search: under row-level security LIKE and @> cannot use the indexes. The pattern and keys
-- are made once, in variables, not for every row the index gives to recheck.
create or replace function customers_matching(p_text text)
  returns table (id uuid)
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
declare
  shop constant uuid := app_shop_id();
  pattern constant text := '%' || search_text(like_escape(p_text)) || '%';
  keys constant text[] := shop_trigrams(shop, search_text(p_text));
  digits constant text := case when p_text ~ '^[0-9+\s().-]+$' then nullif(regexp_replace(p_text, '[^0-9]', '', 'g'), '') end;
begin
  -- One index probe per way of matching, each gated by what q holds.
  return query
    select c.id from customers c
     where c.card_no = p_text and c.shop_id = shop and c.deleted_at is null
    union
    -- A prefix as a range (":" follows "9"), which an index on text_pattern_ops takes with a
    -- parameter, where LIKE needs a constant known when the plan is made.
    select c.id from customers c
     where c.phone_digits ~>=~ digits and c.phone_digits ~<~ (digits || ':') and c.shop_id = shop and c.deleted_at is null
    union
    select c.id from customers c
     where c.phone_local ~>=~ digits and c.phone_local ~<~ (digits || ':') and c.shop_id = shop and c.deleted_at is null
    union
    -- The name: through the shop's trigram keys when q has a word of 3 characters, the shop checked
    -- after (products_search says why); otherwise no key exists and the shop's customers are read.
    select named.id from (
      select c.id, c.shop_id from customers c
       where cardinality(keys) > 0 and shop_trigrams(c.shop_id, c.search_name) @> keys
         and c.deleted_at is null and c.search_name like pattern
      offset 0) named  -- offset 0: planned apart, the shop filter not pushed into the scan
     where named.shop_id = shop
    union
    select c.id from customers c
     where cardinality(keys) = 0 and c.shop_id = shop and c.deleted_at is null and c.search_name like pattern;
end $$;
