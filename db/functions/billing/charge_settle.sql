-- Settles a pending charge with what the provider answered (POST /billing/confirm as the app, or the
-- charge__poll task as the owner): 'pending' changes nothing; 'succeeded' extends the shop's
-- subscription by the plan's period from the later of now and its current end; 'failed' (with the
-- provider's reason) and 'expired' end it. The charge is locked first: once settled, every later
-- call, concurrent or not, finds it settled and changes nothing, so a charge activates at most once.
-- A success queues the owners' receipt and, for a referred shop, its partner's commission.
-- Returns the charge as it stands. Definer: the app may not write shops' subscriptions itself.
create or replace function charge_settle(p_reference text, p_status text, p_failure_reason text default null)
  returns subscription_charges
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  charge subscription_charges;
  plan plans;
  ends timestamptz;
  referrer uuid;
begin
  if p_status not in ('pending', 'succeeded', 'failed', 'expired') then
    raise exception 'charge_settle: unknown status %', p_status;
  end if;
  select * into charge from subscription_charges where reference = p_reference for update;
  if not found then
    return null;
  end if;
  -- The app (any login of pos_app) settles only its own shop's charges, and never with no shop set;
  -- the worker, as the owner, settles any.
  if (session_is_app() or app_shop_id() is not null) and charge.shop_id is distinct from app_shop_id() then
    return null;
  end if;
  if charge.status <> 'pending' or p_status = 'pending' then
    return charge;
  end if;
  if p_status = 'succeeded' then
    select * into plan from plans where id = charge.plan_id;
    update shops set subscription_ends_at = greatest(now(), coalesce(subscription_ends_at, now())) + make_interval(days => plan.period_days),
                     updated_at = now()
     where id = charge.shop_id
    returning subscription_ends_at, partner_id into ends, referrer;
    -- The payment's receipt to the owners, queued with the activation (billing__email_receipt).
    perform enqueue_job('billing__email_receipt', jsonb_build_object('reference', charge.reference), 'billing_receipt:' || charge.reference);
    -- A referred shop's partner accrues its commission on the payment (commission__accrue).
    if referrer is not null then
      perform enqueue_job('commission__accrue', jsonb_build_object('reference', charge.reference), 'commission_accrue:' || charge.reference);
    end if;
  end if;
  update subscription_charges
     set status = p_status, failure_reason = case when p_status = 'failed' then left(coalesce(p_failure_reason, 'failed'), 120) end,
         settled_at = now(), subscription_ends_at = ends
   where id = charge.id
  returning * into charge;
  return charge;
end $$;
