-- A paid commission line is final (CONTRACT section 12): whatever writes it (the pay request, a
-- task, a statement run by hand), its status, payout, payout reference and paid_at stay as they were
-- paid, and so do its partner and amount, which its payout's total counts. Other columns (the
-- refund window, updated_at) are not the payout's.
create or replace function commission_paid_is_final() returns trigger
  language plpgsql volatile
  as $$
begin
  if (new.status, new.payout_id, new.payout_reference, new.paid_at, new.partner_id, new.amount_xaf)
     is distinct from (old.status, old.payout_id, old.payout_reference, old.paid_at, old.partner_id, old.amount_xaf) then
    perform raise_app_error(409, 'commission_already_paid', 'This commission line is paid: a paid line is final.');
  end if;
  return new;
end $$;
revoke execute on function commission_paid_is_final() from pos_app;

create or replace trigger partner_commissions_paid_is_final before update on partner_commissions
  for each row when (old.status = 'paid') execute function commission_paid_is_final();
