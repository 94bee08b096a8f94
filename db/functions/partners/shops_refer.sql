-- A shop registered with a referral code equal to an active partner's code, whatever the case, is
-- that partner's referral (CONTRACT section 11); any other code is kept as typed and refers nobody.
-- The partner is set once, at registration: no later update changes it. Definer, because the new
-- shop's transaction cannot read partners.
create or replace function shops_refer() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, public
  as $$
begin
  if tg_op = 'INSERT' then
    new.partner_id := (select p.id from partners p
                        where lower(p.code) = lower(btrim(new.referral_code)) and p.status = 'active');
  else
    new.partner_id := old.partner_id;
  end if;
  return new;
end $$;
revoke execute on function shops_refer() from pos_app;

create or replace trigger shops_refer before insert or update of partner_id on shops
  for each row execute function shops_refer();
