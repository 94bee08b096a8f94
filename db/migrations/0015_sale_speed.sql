-- Sale speed (issue 12): what a sale writes, fewer and narrower.

-- A stock change no longer restamps the product or variant it moves: their sync index
-- (shop_id, txid, id) made every sale rewrite every index of every product it sold, trigram index
-- included (0% HOT updates). A stock change now leaves the catalogue row's indexed columns alone
-- (an update of on_hand only, HOT) and stamps the item here; a pull merges these stamps with the
-- catalogue's own (api/sync/queries.ts), so on-hand changes still reach the tills, in order.
create table stock_stamps (
  -- A product's or a variant's id (the entity says which).
  item_id uuid primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  entity text not null check (entity in ('products', 'variants')),
  txid xid8 not null default pg_current_xact_id()
);
create index stock_stamps_sync_idx on stock_stamps (shop_id, entity, txid, item_id);
alter table stock_stamps enable row level security;
create policy stock_stamps_tenant on stock_stamps using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on stock_stamps from pos_app;

-- Room on each page for the next version of a row, so that an update of on_hand stays on its page
-- (a HOT update needs free space where the row is). Applies to pages written from now on.
alter table products set (fillfactor = 70);
alter table variants set (fillfactor = 70);

-- The same columns as the unique key sale_items_sale_id_line_no_key: every line of every sale paid
-- for a second copy of one index.
drop index sale_items_sale_idx;
