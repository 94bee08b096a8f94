-- A movement that takes an item from zero or more to below zero raises a stock alert: the shop's
-- owners and managers are told by e-mail (worker task stock__negative_alert). Online this happens only
-- when the shop allows negative stock; an offline sale is never refused for stock, so it is how a
-- shop learns that its counts and its tills disagree. One pending job per item (job key: an item's id is
-- unique in its shop only, so the key names the shop too).
create or replace function stock_movements_alert_negative() returns trigger
  language plpgsql
  as $$
begin
  if new.on_hand_after < 0 and new.on_hand_after - new.quantity >= 0 then
    perform enqueue_job('stock__negative_alert',
      jsonb_build_object('shop_id', new.shop_id, 'product_id', new.product_id, 'variant_id', new.variant_id, 'movement_id', new.id),
      'stock_negative:' || new.shop_id || ':' || new.product_id || ':' || coalesce(new.variant_id::text, '-'));
  end if;
  return null;
end $$;

-- The WHEN clause spares the function call for the movements that stay at or above zero (nearly all).
create or replace trigger stock_movements_alert_negative after insert on stock_movements
  for each row when (new.on_hand_after < 0) execute function stock_movements_alert_negative();
