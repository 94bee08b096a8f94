-- The status of a purchase from its figures: paid once payments cover the total less returns.
create or replace function purchase_status(p_total_xaf bigint, p_returned_xaf bigint, p_paid_xaf bigint) returns text
  language sql immutable parallel safe
  as $$
    select case when p_paid_xaf >= p_total_xaf - p_returned_xaf then 'paid' when p_paid_xaf > 0 then 'partially_paid' else 'unpaid' end
$$;

-- Settles all or part of a supplier invoice: never beyond what remains (the total less returns less
-- payments: 422 overpayment on amount_xaf). Cash paid now is taken from the caller's open drawer
-- (shift_id: shift_totals counts it). Journal: the supplier 401 debited, the method's treasury
-- account credited. The supplier's balance goes down by the amount.
create or replace function purchase_pay(p_purchase_id uuid, p_amount_xaf bigint, p_method text, p_reference text)
  returns purchase_payments
  language plpgsql volatile
  as $$
declare
  purchase purchases;
  remaining bigint;
  payment purchase_payments;
begin
  select * into purchase from purchases where id = p_purchase_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  remaining := purchase.total_xaf - purchase.returned_xaf - purchase.paid_xaf;
  if p_amount_xaf > remaining then
    perform raise_app_error(422, 'overpayment',
      format('Only %s XAF remain to pay on this purchase.', greatest(remaining, 0)), 'amount_xaf');
  end if;
  insert into purchase_payments (purchase_id, amount_xaf, method, reference, shift_id)
  values (p_purchase_id, p_amount_xaf, p_method, p_reference, case when p_method = 'cash' then current_shift_id() end)
  returning * into payment;
  update purchases set paid_xaf = paid_xaf + p_amount_xaf,
                       status = purchase_status(total_xaf, returned_xaf, paid_xaf + p_amount_xaf)
   where id = p_purchase_id;
  if purchase.supplier_id is not null then
    update suppliers set balance_xaf = balance_xaf - p_amount_xaf where id = purchase.supplier_id;
  end if;
  perform journal_post('purchase_payment', payment.id, coalesce('Supplier payment ' || p_reference, 'Supplier payment'),
    jsonb_build_array(jsonb_build_object('account', '401', 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', treasury_account(p_method), 'credit_xaf', p_amount_xaf)));
  return payment;
end $$;
