-- Sets an item's on-hand to a counted figure: an adjustment movement of the difference, and its value
-- at last cost posted to the journal. Null when the count equals the stock (nothing to record).
create or replace function stock_adjust(p_product_id uuid, p_variant_id uuid, p_new_quantity numeric, p_reason text)
  returns stock_movements
  language plpgsql volatile
  as $$
declare
  product products;
  current numeric;
  movement stock_movements;
begin
  select * into product from products where id = p_product_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if not product.tracked then
    perform raise_app_error(422, 'product_not_tracked', 'This product does not track stock.', 'product_id');
  end if;
  if p_variant_id is null then
    if exists (select 1 from variants where product_id = p_product_id and deleted_at is null) then
      perform raise_app_error(422, 'variant_required', 'This product keeps its stock on its variants: name one.', 'variant_id');
    end if;
    current := product.on_hand;
  else
    select on_hand into current from variants where id = p_variant_id and product_id = p_product_id and deleted_at is null;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This variant does not belong to this product.', 'variant_id');
    end if;
  end if;
  if current = p_new_quantity then
    return null;
  end if;
  movement := stock_move(p_product_id, p_variant_id, 'adjustment', p_new_quantity - current, p_reason, 'adjustment', null);
  perform journal_post_stock_change('stock_adjustment', movement.id, coalesce(p_reason, 'Stock adjustment'),
                                    round(movement.quantity * product.cost_xaf)::bigint);
  return movement;
end $$;
