-- updated_at is the time of the row's last change. Every table that has the column is listed below
-- but the reference tables shops, users and partners, which have no trigger at all (on Citus it would
-- run on every node's copy, and Citus refuses their trigger DDL): whatever updates them sets
-- `updated_at = now()` itself.
create or replace function touch_updated_at() returns trigger
  language plpgsql
  as $$
begin
  new.updated_at := now();
  return new;
end $$;

create or replace trigger categories_touch before update on categories for each row execute function touch_updated_at();
create or replace trigger products_touch before update on products for each row execute function touch_updated_at();
create or replace trigger product_options_touch before update on product_options for each row execute function touch_updated_at();
create or replace trigger variants_touch before update on variants for each row execute function touch_updated_at();
create or replace trigger stocktakes_touch before update on stocktakes for each row execute function touch_updated_at();
create or replace trigger stocktake_items_touch before update on stocktake_items for each row execute function touch_updated_at();
create or replace trigger customers_touch before update on customers for each row execute function touch_updated_at();
create or replace trigger loyalty_tiers_touch before update on loyalty_tiers for each row execute function touch_updated_at();
create or replace trigger promotions_touch before update on promotions for each row execute function touch_updated_at();
create or replace trigger shifts_touch before update on shifts for each row execute function touch_updated_at();
create or replace trigger expenses_touch before update on expenses for each row execute function touch_updated_at();
create or replace trigger sales_touch before update on sales for each row execute function touch_updated_at();
create or replace trigger devices_touch before update on devices for each row execute function touch_updated_at();
create or replace trigger suppliers_touch before update on suppliers for each row execute function touch_updated_at();
create or replace trigger batches_touch before update on batches for each row execute function touch_updated_at();
create or replace trigger purchases_touch before update on purchases for each row execute function touch_updated_at();
create or replace trigger quotes_touch before update on quotes for each row execute function touch_updated_at();
create or replace trigger partner_commissions_touch before update on partner_commissions for each row execute function touch_updated_at();
