-- Brings the reversal of a sale's points to p_fraction (0 < p_fraction <= 1) of what it earned and
-- redeemed, for a void or a refund: p_fraction is the share reversed in all so far (a refund of a third,
-- then another third, passes 1/3 then 2/3), so rounding never drifts over successive refunds. Earned
-- points are taken back (never below zero: what was already spent stays spent), redeemed points given
-- back; rounded down for earned, up for redeemed: the customer never loses a point. Negative reverse
-- rows take back earned points, positive ones return redeemed points.
create or replace function loyalty_reverse_for_sale(p_sale_id uuid, p_fraction numeric)
  returns void
  language plpgsql volatile
  as $$
declare
  line record;
  taken bigint;
  given bigint;
begin
  for line in
    select customer_id,
           coalesce(sum(points) filter (where kind = 'earn'), 0) as earned,
           coalesce(-sum(points) filter (where kind = 'reverse' and points < 0), 0) as taken_back,
           coalesce(-sum(points) filter (where kind = 'redeem'), 0) as redeemed,
           coalesce(sum(points) filter (where kind = 'reverse' and points > 0), 0) as given_back
      from loyalty_points where source_type = 'sale' and source_id = p_sale_id
     group by customer_id order by customer_id
  loop
    -- round(, 9) first: 1/3 as a numeric times 30 is 9.999..., which must count as 10.
    select least(floor(round(line.earned * p_fraction, 9))::bigint - line.taken_back, points) into taken
      from customers where id = line.customer_id for update;
    if taken > 0 then
      perform loyalty_post(line.customer_id, 'reverse', -taken, 'sale', p_sale_id, 'Sale reversed', 'customer_id');
    end if;
    given := ceil(round(line.redeemed * p_fraction, 9))::bigint - line.given_back;
    if given > 0 then
      perform loyalty_post(line.customer_id, 'reverse', given, 'sale', p_sale_id, 'Redeemed points returned', 'customer_id');
    end if;
  end loop;
end $$;
