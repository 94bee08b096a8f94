-- Customers of the caller's shop matching q (as typed): accent-free name containing it, exactly its
-- card number, or, when q looks like a phone number (digits, spaces, "+", "-", ".", parentheses), a
-- number whose digits start with q's digits, with or without its country code (phone_digits,
-- phone_local: migration 0016; a null q digits matches no number). A SECURITY DEFINER function for the same reason as
-- products_matching_name: under row-level security LIKE cannot use the indexes.
create or replace function customers_matching(p_text text)
  returns table (id uuid)
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
declare
  digits text := case when p_text ~ '^[0-9+\s().-]+$' then nullif(regexp_replace(p_text, '[^0-9]', '', 'g'), '') end;
begin
  return query
    select c.id from customers c
     where c.shop_id = app_shop_id() and c.deleted_at is null
       and (c.search_name like '%' || search_text(like_escape(p_text)) || '%'
            or c.card_no = p_text
            -- A prefix as a range (":" follows "9"), which an index on text_pattern_ops takes with a
            -- parameter, where LIKE needs a constant known when the plan is made.
            or (c.phone_digits ~>=~ digits and c.phone_digits ~<~ (digits || ':'))
            or (c.phone_local ~>=~ digits and c.phone_local ~<~ (digits || ':')));
end $$;
