-- Redeems points on a sale: returns their value in XAF at the shop's redeem rate. Beyond the
-- balance: 422 insufficient_points on redeem_points.
create or replace function loyalty_redeem_for_sale(p_customer_id uuid, p_sale_id uuid, p_points bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  rate bigint;
begin
  if p_points <= 0 then
    return 0;
  end if;
  perform loyalty_post(p_customer_id, 'redeem', -p_points, 'sale', p_sale_id, null, 'redeem_points');
  select loyalty_redeem_rate_xaf into rate from shops where id = app_shop_id();
  return p_points * rate;
end $$;
