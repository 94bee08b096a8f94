-- Synchronised tables carry `txid xid8` stamped by this trigger on insert and update; pulls serve
-- rows below the snapshot's xmin, paging by (txid, id), so a transaction that commits late is never
-- skipped (CONVENTIONS.md, "Sync cursors"). Every synchronised table is listed below. Products and
-- variants are pulled by their positions in catalogue_positions (catalogue_positions.sql); their own
-- stamp is kept for variants_restamp_product and left alone by a stock change (an update that moves
-- on_hand and nothing else, as only stock_move and the sale procedure write on_hand).
-- Inserts are stamped here too, not left to the column's default: on Citus a default is evaluated
-- where the statement is planned (the coordinator, another transaction id counter), while a row
-- trigger runs on the shard, in the transaction whose id the pulls compare.
create or replace function stamp_txid() returns trigger
  language plpgsql
  as $$
begin
  new.txid := pg_current_xact_id();
  return new;
end $$;

create or replace trigger categories_stamp before insert or update on categories for each row execute function stamp_txid();
create or replace trigger products_stamp before update on products
  for each row when (old.on_hand is not distinct from new.on_hand) execute function stamp_txid();
create or replace trigger products_stamp_insert before insert on products for each row execute function stamp_txid();
create or replace trigger product_options_stamp before insert or update on product_options for each row execute function stamp_txid();
create or replace trigger variants_stamp before update on variants
  for each row when (old.on_hand is not distinct from new.on_hand) execute function stamp_txid();
create or replace trigger variants_stamp_insert before insert on variants for each row execute function stamp_txid();
create or replace trigger customers_stamp before insert or update on customers for each row execute function stamp_txid();
create or replace trigger loyalty_tiers_stamp before insert or update on loyalty_tiers for each row execute function stamp_txid();
create or replace trigger promotions_stamp before insert or update on promotions for each row execute function stamp_txid();
create or replace trigger sales_stamp before insert or update on sales for each row execute function stamp_txid();
create or replace trigger quotes_stamp before insert or update on quotes for each row execute function stamp_txid();
create or replace trigger catalogue_positions_stamp before insert or update on catalogue_positions for each row execute function stamp_txid();
