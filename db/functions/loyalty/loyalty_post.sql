-- The one way points change: a ledger row, and the customer's balance moved by it. A change that would
-- make the balance negative is refused with p_code on p_field.
create or replace function loyalty_post(p_customer_id uuid, p_kind text, p_points bigint, p_source_type text, p_source_id uuid,
                             p_reason text, p_field text, p_code text default 'insufficient_points')
  returns loyalty_points
  language plpgsql volatile
  as $$
declare
  customer customers;
  entry loyalty_points;
begin
  select * into customer from customers where id = p_customer_id for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', p_field);
  end if;
  if customer.points + p_points < 0 then
    perform raise_app_error(422, p_code, format('The customer has %s points.', customer.points), p_field);
  end if;
  insert into loyalty_points (customer_id, kind, points, source_type, source_id, reason)
  values (p_customer_id, p_kind, p_points, p_source_type, p_source_id, p_reason)
  returning * into entry;
  update customers set points = points + p_points where id = p_customer_id;
  return entry;
end $$;
