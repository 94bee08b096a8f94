-- Records that a pending charge's request to pay was sent to its provider (charge__poll, or POST
-- /billing/confirm), and whether the provider said it has it. The first acknowledgement is kept: the
-- approval window runs from it. A settled charge, another shop's (for the app) or an unknown
-- reference is left alone. Definer: the app may not write charges itself.
create or replace function charge_note_request(p_reference text, p_acknowledged boolean)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
begin
  update subscription_charges
     set requested_at = now(),
         acknowledged_at = coalesce(acknowledged_at, case when p_acknowledged then now() end)
   where reference = p_reference
     and status = 'pending'
     -- The app's own shop only (any login of pos_app), and never with no shop set; the worker, as
     -- the owner, any.
     and (shop_id = app_shop_id() or (not session_is_app() and app_shop_id() is null));
end $$;
