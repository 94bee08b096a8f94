-- A product search lists first the products whose accent-free name starts with what was typed
-- (products_search), read from this index in order: the first page of a 3-letter start reads its
-- 50 rows, not the thousands of products that start so in a big shop. Byte order ("C"), so that the
-- start of a name is one range of the index. Neither column changes when stock does: sales stay HOT.
create index products_search_name_idx on products (shop_id, (search_name collate "C"), id) where deleted_at is null;
