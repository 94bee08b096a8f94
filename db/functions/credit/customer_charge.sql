-- Adds a charge to a customer's account (the sales procedure calls it for the unpaid part of a credit
-- sale). Refused beyond the credit ceiling: 422 credit_limit_exceeded on p_field. Journal entries are
-- the caller's (the sale posts 411 against its own accounts).
create or replace function customer_charge(p_customer_id uuid, p_source_type text, p_source_id uuid, p_amount_xaf bigint,
                                p_occurred_at timestamptz default now(), p_field text default 'customer_id',
                                p_enforce_ceiling boolean default true)
  returns customer_debts
  language plpgsql volatile
  as $$
declare
  customer customers;
  debt customer_debts;
begin
  select * into customer from customers where id = p_customer_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', p_field);
  end if;
  if p_enforce_ceiling and customer.balance_xaf + p_amount_xaf > customer.credit_ceiling_xaf then
    perform raise_app_error(422, 'credit_limit_exceeded',
      format('This would bring the balance to %s XAF, over the credit ceiling of %s XAF.',
             customer.balance_xaf + p_amount_xaf, customer.credit_ceiling_xaf), p_field);
  end if;
  insert into customer_debts (customer_id, source_type, source_id, amount_xaf, occurred_at)
  values (p_customer_id, p_source_type, p_source_id, p_amount_xaf, p_occurred_at)
  returning * into debt;
  update customers set balance_xaf = balance_xaf + p_amount_xaf where id = p_customer_id;
  return debt;
end $$;
