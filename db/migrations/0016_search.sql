-- Customer search by phone compares digits (issue 12): a cashier types the local number, with or
-- without spaces, or its first digits, and a number saved as "+237 699 00 01 11" must be found by
-- "699000111", "699 00 01 11", "6990" or "+237 699...". Two forms of each number, both indexed for
-- prefix search within the shop: all its digits, and its digits without the country code when it was
-- saved in international form ("+" or "00" then a 3-digit African country code).
alter table customers
  add column phone_digits text generated always as (nullif(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), '')) stored,
  add column phone_local text generated always as (
    case when phone ~ '^\s*(\+|00)'
         then nullif(substr(regexp_replace(regexp_replace(phone, '^\s*(\+|00)', ''), '[^0-9]', '', 'g'), 4), '')
         else nullif(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), '') end) stored;
create index customers_phone_digits_idx on customers (shop_id, phone_digits text_pattern_ops) where deleted_at is null;
create index customers_phone_local_idx on customers (shop_id, phone_local text_pattern_ops) where deleted_at is null;
drop index customers_phone_idx;
