-- A product's or a variant's position for the tills' pulls (catalogue_positions, migration 0015):
-- after a statement that inserts or updates them, each row it wrote moves to the writing
-- transaction, once per transaction per item, however many rows the statement wrote. Stock changes
-- and catalogue edits alike: a pull serves the item once, at its latest change.
create or replace function catalogue_positions_record() returns trigger
  language plpgsql
  as $$
declare
  -- A value, not a call, in the upsert: Citus refuses a function that is not immutable in an ON
  -- CONFLICT DO UPDATE of a distributed table (the trigger runs on the shop's node: its own xid).
  this_txid xid8 := pg_current_xact_id();
begin
  insert into catalogue_positions (item_id, shop_id, entity)
  select n.id, n.shop_id, tg_table_name from changed_rows n
  on conflict (shop_id, item_id) do update set txid = this_txid
   where catalogue_positions.txid <> this_txid;
  return null;
end $$;

create or replace trigger products_positions_insert after insert on products
  referencing new table as changed_rows for each statement execute function catalogue_positions_record();
create or replace trigger products_positions_update after update on products
  referencing new table as changed_rows for each statement execute function catalogue_positions_record();
create or replace trigger variants_positions_insert after insert on variants
  referencing new table as changed_rows for each statement execute function catalogue_positions_record();
create or replace trigger variants_positions_update after update on variants
  referencing new table as changed_rows for each statement execute function catalogue_positions_record();
