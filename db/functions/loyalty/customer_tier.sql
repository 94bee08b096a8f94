-- The tier a customer holds: the highest whose min_points the points earned over the last 12 months
-- reach, net of earned points taken back (returned redemptions and manual corrections do not count).
-- PL/pgSQL: a SQL function returning a row is never inlined, and was parsed again on every call.
create or replace function customer_tier(p_customer_id uuid) returns loyalty_tiers
  language plpgsql stable
  as $$
begin
  return (
    select t from loyalty_tiers t
     where t.shop_id = app_shop_id() and t.deleted_at is null
       and t.min_points <= (select coalesce(sum(points), 0) from loyalty_points
                             where customer_id = p_customer_id
                               and (kind = 'earn' or (kind = 'reverse' and points < 0))
                               and created_at > now() - interval '12 months')
     order by t.min_points desc
     limit 1);
end $$;
