-- The one way stock changes: locks the product (then the variant), moves on_hand by p_delta, writes
-- the movement. A product with variants keeps its stock on them; its own on_hand is their sum.
-- Batches follow (stock/batches.sql): a sale, an adjustment or a stocktake that lowers the stock takes
-- first expired first out; a void or a refund gives back to the batches its sale took from (p_source_id
-- is the sale); a rise by adjustment or stocktake is unbatched stock. Purchases and their returns name
-- their batch themselves (purchase_record, purchase_return).
create or replace function stock_move(p_product_id uuid, p_variant_id uuid, p_type text, p_delta numeric,
                           p_reason text, p_source_type text, p_source_id uuid)
  returns stock_movements
  language plpgsql volatile
  as $$
declare
  product products;
  after numeric;
  movement stock_movements;
begin
  select * into product from products where id = p_product_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'This product does not exist in this shop.', 'product_id');
  end if;
  if not product.tracked then
    perform raise_app_error(422, 'product_not_tracked', 'This product does not track stock.', 'product_id');
  end if;
  if p_variant_id is null then
    if exists (select 1 from variants where product_id = p_product_id and deleted_at is null) then
      perform raise_app_error(422, 'variant_required', 'This product keeps its stock on its variants: name one.', 'variant_id');
    end if;
    update products set on_hand = on_hand + p_delta where id = p_product_id returning on_hand into after;
  else
    update variants set on_hand = on_hand + p_delta
     where id = p_variant_id and product_id = p_product_id and deleted_at is null
     returning on_hand into after;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This variant does not belong to this product.', 'variant_id');
    end if;
    update products set on_hand = on_hand + p_delta where id = p_product_id;
  end if;
  insert into stock_movements (product_id, variant_id, type, quantity, on_hand_after, reason, source_type, source_id, user_id)
  values (p_product_id, p_variant_id, p_type, p_delta, after, p_reason, p_source_type, p_source_id, app_user_id())
  returning * into movement;
  if p_delta < 0 and p_type in ('sale', 'adjustment', 'stocktake') then
    perform batch_take_fefo(p_product_id, p_variant_id, -p_delta, p_type, case when p_type = 'sale' then p_source_id end,
                            coalesce(p_source_id, movement.id));
  elsif p_delta > 0 and p_type in ('void', 'refund') then
    perform batch_give_back(p_product_id, p_variant_id, p_delta, p_type, p_source_id);
  end if;
  return movement;
end $$;
