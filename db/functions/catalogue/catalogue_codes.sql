-- Keeps catalogue_codes in step with a product's or a variant's sku and barcode; a clash is a 409.
create or replace function catalogue_codes_sync() returns trigger
  language plpgsql
  as $$
declare
  owner_product uuid;
  owner_variant uuid;
  kind text;
  code text;
begin
  -- Separate statements: PL/pgSQL resolves every field an expression names, even in a branch not taken.
  if tg_table_name = 'variants' then
    owner_product := new.product_id;
    owner_variant := new.id;
  else
    owner_product := new.id;
  end if;
  -- The row's shop leads: on Citus the statement then stays on the shard of the row that fired it.
  delete from catalogue_codes c
   where c.shop_id = new.shop_id and c.product_id = owner_product and c.variant_id is not distinct from owner_variant;
  if new.deleted_at is not null then
    return new;
  end if;
  foreach kind in array array['sku', 'barcode'] loop
    code := case kind when 'sku' then new.sku else new.barcode end;
    continue when code is null;
    begin
      insert into catalogue_codes (shop_id, kind, code, product_id, variant_id)
      values (new.shop_id, kind, code, owner_product, owner_variant);
    exception when unique_violation then
      perform raise_app_error(409, kind || '_taken',
        case kind when 'sku' then 'This SKU is already used by another product or variant.'
                  else 'This barcode is already used by another product or variant.' end);
    end;
  end loop;
  return new;
end $$;

create or replace trigger products_codes after insert or update of sku, barcode, deleted_at on products
  for each row execute function catalogue_codes_sync();
create or replace trigger variants_codes after insert or update of sku, barcode, deleted_at on variants
  for each row execute function catalogue_codes_sync();
