-- Sale speed (issue 12): what a sale writes, fewer and narrower.

-- Where each product and variant stands for the tills' pulls: one position per item, moved by any
-- change of it, catalogue or stock (db/functions/sync/catalogue_positions.sql). The position used to
-- be the row's own txid in its (shop_id, txid, id) index, so every sale rewrote every index of every
-- product it sold, trigram index included (0% HOT updates); now a stock change writes on_hand only
-- (a HOT update) and moves the item's narrow position row. Pulls read products and variants in the
-- order of their positions (api/sync/queries.ts), each item at one place, its latest change.
create table catalogue_positions (
  -- A product's or a variant's id (the entity says which).
  item_id uuid primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  entity text not null check (entity in ('products', 'variants')),
  txid xid8 not null default pg_current_xact_id()
);
create index catalogue_positions_sync_idx on catalogue_positions (shop_id, entity, txid, item_id);
alter table catalogue_positions enable row level security;
create policy catalogue_positions_tenant on catalogue_positions using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on catalogue_positions from pos_app;
insert into catalogue_positions (item_id, shop_id, entity, txid) select id, shop_id, 'products', txid from products;
insert into catalogue_positions (item_id, shop_id, entity, txid) select id, shop_id, 'variants', txid from variants;
-- Pulls no longer read products and variants by their own stamps.
drop index products_sync_idx;
drop index variants_sync_idx;

-- Room on each page for the next version of a row, so that an update of on_hand stays on its page
-- (a HOT update needs free space where the row is). Applies to pages written from now on.
alter table products set (fillfactor = 70);
alter table variants set (fillfactor = 70);

-- The same columns as the unique key sale_items_sale_id_line_no_key: every line of every sale paid
-- for a second copy of one index.
drop index sale_items_sale_idx;
