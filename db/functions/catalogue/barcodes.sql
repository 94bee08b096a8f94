-- EAN-13 check digit of 12 digits.
create or replace function ean13_check_digit(p_digits text) returns text
  language sql immutable parallel safe
  as $$
    select ((10 - (sum(substr(p_digits, i, 1)::int * case when i % 2 = 0 then 3 else 1 end) % 10)) % 10)::text
      from generate_series(1, 12) i
$$;

-- Gives an in-store EAN-13 (prefix 20 to 29) to each chosen product (and, with p_include_variants,
-- variant) that has no barcode; never overwrites one. Chosen: p_product_ids, or p_category_id, or all.
create or replace function catalogue_generate_barcodes(p_product_ids uuid[], p_category_id uuid, p_include_variants boolean)
  returns table (product_id uuid, variant_id uuid, barcode text)
  language plpgsql volatile
  as $$
declare
  target record;
  code text;
begin
  for target in
    select p.id as product_id, null::uuid as variant_id
      from products p
     where p.deleted_at is null and p.barcode is null
       and (p_product_ids is null or p.id = any (p_product_ids))
       and (p_category_id is null or p.category_id = p_category_id)
    union all
    select v.product_id, v.id
      from variants v join products p on p.id = v.product_id and p.deleted_at is null
     where p_include_variants and v.deleted_at is null and v.barcode is null
       and (p_product_ids is null or p.id = any (p_product_ids))
       and (p_category_id is null or p.category_id = p_category_id)
     order by 1, 2 nulls first
  loop
    loop
      code := '2' || floor(random() * 10)::int || lpad(floor(random() * 10000000000)::bigint::text, 10, '0');
      code := code || ean13_check_digit(code);
      begin
        if target.variant_id is null then
          update products set barcode = code where id = target.product_id;
        else
          update variants set barcode = code where id = target.variant_id;
        end if;
        exit;
      exception when sqlstate 'PB409' then
        -- That code is taken in this shop: draw another.
      end;
    end loop;
    product_id := target.product_id;
    variant_id := target.variant_id;
    barcode := code;
    return next;
  end loop;
end $$;
