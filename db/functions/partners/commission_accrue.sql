-- The commission of one succeeded subscription charge (CONTRACT section 11), run by the
-- commission__accrue task that charge_settle queues with the success: one line, pending, of
-- round(amount_xaf * commission_rate / 100) (numeric round: half away from zero), when the shop was
-- referred by a partner that is active now, and the charge was asked for within the partner's
-- commission_months of the shop's registration. At most one line per charge however often or on
-- however many workers it runs: the unique charge_reference, not a check before the insert. Nothing
-- for a commission that rounds to 0. It becomes payable 14 days after the charge succeeded (the
-- refund window; commission__mark_payable). Returns the line it wrote, or null.
create or replace function commission_accrue(p_reference text) returns partner_commissions
  language sql volatile
  as $$
    insert into partner_commissions (partner_id, shop_id, charge_reference, base_amount_xaf, commission_rate, amount_xaf, payable_after)
    select p.id, s.id, c.reference, c.amount_xaf, p.commission_rate, round(c.amount_xaf * p.commission_rate / 100)::bigint,
           c.settled_at + interval '14 days'
      from subscription_charges c
      join shops s on s.id = c.shop_id
      join partners p on p.id = s.partner_id
     where c.reference = p_reference
       and c.status = 'succeeded'
       and p.status = 'active'
       and c.created_at < s.created_at + make_interval(months => p.commission_months)
       and round(c.amount_xaf * p.commission_rate / 100) > 0
    on conflict (charge_reference) do nothing
    returning *
  $$;
revoke execute on function commission_accrue(text) from pos_app;
