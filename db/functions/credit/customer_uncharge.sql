-- Takes back up to p_amount_xaf of what a sale left on the customer's account, from the part still
-- unsettled. Returns what it took back.
create or replace function customer_uncharge(p_source_id uuid, p_amount_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  debt customer_debts;
  taken bigint;
begin
  select * into debt from customer_debts where source_type = 'sale' and source_id = p_source_id for update;
  if not found or p_amount_xaf <= 0 then
    return 0;
  end if;
  perform 1 from customers where id = debt.customer_id for update;
  taken := least(p_amount_xaf, debt.amount_xaf - debt.settled_xaf);
  if taken > 0 then
    update customer_debts set amount_xaf = amount_xaf - taken where id = debt.id;
    update customers set balance_xaf = balance_xaf - taken where id = debt.customer_id;
  end if;
  return taken;
end $$;
