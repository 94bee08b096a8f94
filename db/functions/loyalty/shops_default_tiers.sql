-- Every shop starts with Bronze, Silver and Gold (0004_customers gave them to the shops that existed
-- then). Called by the registration, in the new shop's transaction: no trigger on shops, a reference
-- table on Citus, where a trigger would run on every node's copy.
drop function if exists shops_default_tiers();
create or replace function shops_default_tiers(p_shop_id uuid) returns void
  language sql volatile
  as $$
  insert into loyalty_tiers (shop_id, key, name, min_points, multiplier)
  values (p_shop_id, 'bronze', 'Bronze', 0, 1), (p_shop_id, 'silver', 'Silver', 1000, 1.25), (p_shop_id, 'gold', 'Gold', 5000, 1.5);
$$;
