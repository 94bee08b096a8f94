-- The one way stock changes: locks the product (then the variant), moves on_hand by p_delta, writes
-- the movement. A product with variants keeps its stock on them; its own on_hand is their sum.
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
  return movement;
end $$;
