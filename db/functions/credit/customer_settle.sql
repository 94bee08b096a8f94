-- Settles p_amount_xaf of a customer's balance, allocated to the oldest unsettled debts first, and
-- posts it: debit the treasury account of the method, credit 411. More than owed: 422 overpayment.
-- The money joins the receiver's open shift, if any (shift_totals counts it: cash in the drawer).
create or replace function customer_settle(p_customer_id uuid, p_amount_xaf bigint, p_method text, p_note text)
  returns customer_payments
  language plpgsql volatile
  as $$
declare
  customer customers;
  payment customer_payments;
  debt record;
  remaining bigint := p_amount_xaf;
  part bigint;
begin
  select * into customer from customers where id = p_customer_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if p_amount_xaf > customer.balance_xaf then
    perform raise_app_error(422, 'overpayment',
      format('The customer owes %s XAF: a settlement cannot be more.', customer.balance_xaf), 'amount_xaf');
  end if;
  insert into customer_payments (customer_id, amount_xaf, method, note, shift_id)
  values (p_customer_id, p_amount_xaf, p_method, p_note, current_shift_id())
    returning * into payment;
  for debt in
    select id, amount_xaf - settled_xaf as open_xaf from customer_debts
     where customer_id = p_customer_id and settled_xaf < amount_xaf
     order by occurred_at, id
     for update
  loop
    exit when remaining = 0;
    part := least(remaining, debt.open_xaf);
    insert into customer_payment_allocations (payment_id, debt_id, amount_xaf) values (payment.id, debt.id, part);
    update customer_debts set settled_xaf = settled_xaf + part where id = debt.id;
    remaining := remaining - part;
  end loop;
  update customers set balance_xaf = balance_xaf - p_amount_xaf where id = p_customer_id;
  perform journal_post('customer_payment', payment.id, coalesce(p_note, 'Customer settlement'),
    jsonb_build_array(jsonb_build_object('account', treasury_account(p_method), 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', '411', 'credit_xaf', p_amount_xaf)));
  return payment;
end $$;
