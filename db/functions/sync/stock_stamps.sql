-- After a statement that moved stock (an update of on_hand on products or variants), the items it
-- moved are stamped in stock_stamps for the tills' pulls: once per statement, however many rows, and
-- once per transaction per item. The catalogue rows' own stamp (stamp_txid) is left alone by such an
-- update, which is what keeps it a HOT update.
create or replace function stock_stamps_record() returns trigger
  language plpgsql
  as $$
begin
  insert into stock_stamps (item_id, shop_id, entity)
  select n.id, n.shop_id, tg_table_name
    from changed_rows n join previous_rows o on o.id = n.id
   where n.on_hand is distinct from o.on_hand
  on conflict (item_id) do update set txid = pg_current_xact_id()
   where stock_stamps.txid <> pg_current_xact_id();
  return null;
end $$;

create or replace trigger products_stock_stamps after update on products
  referencing old table as previous_rows new table as changed_rows
  for each statement execute function stock_stamps_record();
create or replace trigger variants_stock_stamps after update on variants
  referencing old table as previous_rows new table as changed_rows
  for each statement execute function stock_stamps_record();
