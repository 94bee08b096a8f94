-- A product's record tells whether it has variants: when one is added or deleted, the product is
-- stamped again so that the tills pull it again (once per transaction, however many variants change).
-- The routes that change variants lock the product first, so this takes no new lock order. The
-- product is found by its shop and id, so on Citus the update stays on the variant's own shard.
create or replace function variants_restamp_product() returns trigger
  language plpgsql
  as $$
begin
  update products set updated_at = now()
   where shop_id = new.shop_id and id = new.product_id and txid <> pg_current_xact_id();
  return null;
end $$;

create or replace trigger variants_restamp_product after insert or update of deleted_at on variants
  for each row execute function variants_restamp_product();
