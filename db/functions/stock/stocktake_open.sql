-- Opens a stocktake with the expected on-hand of every tracked item (products without variants, and
-- variants), of one category and its subcategories when p_category_id is given.
create or replace function stocktake_open(p_note text, p_category_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
begin
  insert into stocktakes (note, category_id) values (p_note, p_category_id) returning * into stocktake;
  with recursive scope (id) as (
    select id from categories where id = p_category_id and deleted_at is null
    union
    select c.id from categories c join scope s on c.parent_id = s.id where c.deleted_at is null
  ), counted_products as (
    select p.* from products p
     where p.deleted_at is null and p.tracked
       and (p_category_id is null or p.category_id in (select id from scope))
  )
  insert into stocktake_items (stocktake_id, product_id, variant_id, expected_quantity)
  select stocktake.id, p.id, null, p.on_hand
    from counted_products p
   where not exists (select 1 from variants v where v.product_id = p.id and v.deleted_at is null)
  union all
  select stocktake.id, p.id, v.id, v.on_hand
    from counted_products p join variants v on v.product_id = p.id and v.deleted_at is null;
  return stocktake;
end $$;
