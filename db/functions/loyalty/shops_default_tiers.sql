-- Every shop starts with Bronze, Silver and Gold (0004_customers gave them to the shops that existed then).
create or replace function shops_default_tiers() returns trigger
  language plpgsql
  as $$
begin
  insert into loyalty_tiers (shop_id, key, name, min_points, multiplier)
  values (new.id, 'bronze', 'Bronze', 0, 1), (new.id, 'silver', 'Silver', 1000, 1.25), (new.id, 'gold', 'Gold', 5000, 1.5);
  return new;
end $$;

create or replace trigger shops_default_tiers after insert on shops for each row execute function shops_default_tiers();
