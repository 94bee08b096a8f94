-- Name search bounded by the shop (issue 12): the trigram indexes of products and customers gave a
-- search the candidates of every shop of the service. Their keys are now the shop's trigrams
-- (shop_trigrams(), applied before this migration). Without fastupdate: a GIN index's pending list
-- of recent inserts is read whole by every search until vacuum merges it (2,000 new products made a
-- search 10 ms slower), and products and customers are written seldom and searched all day.
create index products_name_keys_idx on products using gin (shop_trigrams(shop_id, search_name)) with (fastupdate = off)
  where deleted_at is null;
drop index products_search_idx;
create index customers_name_keys_idx on customers using gin (shop_trigrams(shop_id, search_name)) with (fastupdate = off)
  where deleted_at is null;
drop index customers_search_idx;
