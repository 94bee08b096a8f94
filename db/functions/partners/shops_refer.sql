-- A shop registered with a referral code equal to an active partner's code, whatever the case, is
-- that partner's referral (CONTRACT section 11); any other code is kept as typed and refers nobody.
-- The registration's insert takes its partner_id from here; no later update changes it, as the app
-- role may not update that column (migration 0041). Definer, because the new shop's transaction
-- cannot read partners.
drop function if exists shops_refer();
create or replace function shops_refer(p_referral_code text) returns uuid
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
  select p.id from partners p where lower(p.code) = lower(btrim(p_referral_code)) and p.status = 'active';
$$;
