-- POST /admin/partner-commissions/pay (CONTRACT sections 11 and 12): the commission lines p_ids (the
-- caller checked that each names a line), or without ids p_partner_id's lines one step behind
-- p_status (paid pays the payable ones, payable releases the pending ones, pending holds back the
-- payable ones), take p_status, in the caller's transaction.
--
-- A paid line is final: it is left as it is (status, payout, reference, paid_at) and listed in
-- `unchanged`. Paying lines that are all paid already changes nothing and says so (count 0); asking
-- lines that are all paid to go back to pending or payable is a 409 commission_already_paid. A line already in p_status is left alone too (a pending line is changed
-- when it was not held yet: pending holds it, so the daily task no longer makes it payable).
-- The lines are locked in id order, as commission__mark_payable locks them, so two requests never
-- deadlock; a request that waited for another's lock reads the line as the other left it, so twenty
-- identical requests at once pay a line once. The lines paid make one payout per partner, recorded
-- with p_reference and the administrator (app_user_id()), each line pointing at it; p_reference goes
-- with paid only (the caller refuses it with another status).
--
-- Security invoker: the row-level security of the lines and payouts applies (an administrator's
-- only). Returns {"changed": [ids], "unchanged": [ids], "payouts": [ids]}, ids in id order.
create or replace function commission_set_status(p_status text, p_reference text, p_ids uuid[], p_partner_id uuid)
  returns jsonb
  language plpgsql volatile
  as $$
declare
  v_changed uuid[];
  v_unchanged uuid[] := '{}';
  v_unpaid_named int;
  v_payouts uuid[] := '{}';
begin
  if p_ids is not null then
    with locked as (
      select c.id, c.status, c.payable_after from partner_commissions c where c.id = any(p_ids) order by c.id for update
    ), judged as (
      select l.id, l.status <> 'paid' as unpaid,
             l.status <> 'paid' and (l.status <> p_status or (p_status = 'pending' and l.payable_after is not null)) as changes
        from locked l
    )
    select coalesce(array_agg(j.id order by j.id) filter (where j.changes), '{}'),
           coalesce(array_agg(j.id order by j.id) filter (where not j.changes), '{}'),
           count(*) filter (where j.unpaid)
      into v_changed, v_unchanged, v_unpaid_named
      from judged j;
    if v_unpaid_named = 0 and p_status <> 'paid' then
      perform raise_app_error(409, 'commission_already_paid', 'Every line named is paid already: a paid line is final, and nothing was changed.');
    end if;
  else
    select coalesce(array_agg(l.id order by l.id), '{}')
      into v_changed
      from (select c.id from partner_commissions c
             where c.partner_id = p_partner_id
               and c.status = case p_status when 'paid' then 'payable' when 'payable' then 'pending' when 'pending' then 'payable' end
             order by c.id for update) l;
  end if;

  if p_status = 'paid' then
    with payouts as (
      insert into commission_payouts (partner_id, payout_reference, paid_by, line_count, amount_xaf)
      select c.partner_id, p_reference, app_user_id(), count(*), sum(c.amount_xaf)
        from partner_commissions c
       where c.id = any(v_changed)
       group by c.partner_id
      returning id, partner_id
    ), paid as (
      update partner_commissions c
         set status = 'paid', payout_id = p.id, payout_reference = p_reference, paid_at = now()
        from payouts p
       where c.id = any(v_changed) and c.partner_id = p.partner_id
      returning p.id
    )
    select coalesce(array_agg(distinct paid.id), '{}') into v_payouts from paid;
  else
    update partner_commissions c
       set status = p_status,
           payable_after = case when p_status = 'pending' then null else c.payable_after end
     where c.id = any(v_changed);
  end if;

  return jsonb_build_object('changed', to_jsonb(v_changed), 'unchanged', to_jsonb(v_unchanged), 'payouts', to_jsonb(v_payouts));
end $$;
