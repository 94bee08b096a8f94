-- A provider's callback (PUT /billing/callbacks/{provider}/{reference}, no token): what it says is
-- never trusted, it only brings the charge's next poll forward to now. The poll's job key makes a
-- burst of callbacks one job. Answers nothing, whether the charge exists or not, so that the caller
-- learns nothing of which references exist. Definer: the caller has no shop.
create or replace function charge_callback(p_provider text, p_reference text)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
begin
  if exists (select 1 from subscription_charges where reference = p_reference and provider = p_provider and status = 'pending') then
    perform enqueue_job('charge__poll', jsonb_build_object('reference', p_reference), 'charge_poll:' || p_reference);
  end if;
end $$;
