-- Points a sale earns: the amount paid x the shop's earn rate x the customer's tier multiplier,
-- rounded down. Posts them (kind earn, source the sale) and returns how many.
create or replace function loyalty_earn_for_sale(p_customer_id uuid, p_sale_id uuid, p_paid_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  earned bigint;
begin
  select floor(p_paid_xaf * s.loyalty_earn_rate * coalesce((customer_tier(p_customer_id)).multiplier, 1))::bigint
    into earned from shops s where s.id = app_shop_id();
  if earned > 0 then
    perform loyalty_post(p_customer_id, 'earn', earned, 'sale', p_sale_id, null, 'customer_id');
  end if;
  return coalesce(earned, 0);
end $$;
