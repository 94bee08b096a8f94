-- After the fact: a customer shows a card once the sale is paid. Credits what the sale would have
-- earned, once per sale (409 loyalty_already_attributed).
create or replace function loyalty_attribute(p_customer_id uuid, p_sale_id uuid, p_paid_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('loyalty_attribute:' || p_sale_id::text, 0));
  if exists (select 1 from loyalty_points where source_type = 'sale' and source_id = p_sale_id and kind = 'earn') then
    perform raise_app_error(409, 'loyalty_already_attributed', 'The points of this sale have already been credited.');
  end if;
  return loyalty_earn_for_sale(p_customer_id, p_sale_id, p_paid_xaf);
end $$;
