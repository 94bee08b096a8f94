-- Seals the next business day of shop p_shop that has ended and is not sealed yet (report__seal_z,
-- the worker, as the owner role): the shop's seal row is locked first (a second worker waits, then
-- finds the day sealed; a record pushed for that day meanwhile waits too, z_reported_on), the day's Z
-- is computed (z_report) and, when the day saw any activity, stored as an immutable z_reports row with
-- the shop's next z_no and the cumulative grand total, chained as an entry of the shop's fiscal chain, and its
-- e-mail to the owners queued in the same transaction; the day's report_facts (the period reports' roll-ups) are stored whenever there are
-- any (a day of purchases only has no Z, but has deductible VAT). Returns the day sealed, or null
-- when none is due: the caller calls again until null, one transaction per day.
create or replace function z_seal_next(p_shop uuid) returns date
  language plpgsql volatile
  as $$
declare
  shop shops;
  sealed date;
  next_day date;
  report jsonb;
  number bigint;
  sealed_z z_reports;
begin
  perform set_config('app.shop_id', p_shop::text, true);
  select * into shop from shops where id = p_shop;
  if not found then
    return null;
  end if;
  insert into z_seals (shop_id, sealed_through) values (p_shop, (shop.created_at at time zone shop.timezone)::date - 1)
  on conflict (shop_id) do nothing;
  select z.sealed_through into sealed from z_seals z where z.shop_id = p_shop for update;
  next_day := sealed + 1;
  if next_day > (now() at time zone shop.timezone)::date - 1 then
    return null;
  end if;
  report := z_report(next_day);
  -- The day's facts, whether or not it has a Z: a day of purchases only still has deductible VAT.
  insert into report_facts (shop_id, day, kind, key, count, quantity, total_xaf, vat_xaf, cost_xaf)
  select p_shop, next_day, f.kind, f.key, f.count, f.quantity, f.total_xaf, f.vat_xaf, f.cost_xaf from report_day_facts(next_day) f;
  update z_seals set sealed_through = next_day where shop_id = p_shop;
  if (report #>> '{sales,count}')::bigint + (report #>> '{voids,count}')::bigint + (report #>> '{refunds,count}')::bigint
     + (report #>> '{expenses,count}')::bigint + (report #>> '{cash_movements,count}')::bigint + jsonb_array_length(report -> 'settlements') > 0 then
    select coalesce(max(z.z_no), 0) + 1 into number from z_reports z where z.shop_id = p_shop;
    report := report || jsonb_build_object('sealed', true, 'z_no', number, 'sealed_at', iso_time(now()));
    perform enqueue_job('report__email_z', jsonb_build_object('shop_id', p_shop, 'day', next_day), 'z_mail:' || p_shop || ':' || next_day);
    -- Last, the Z with its entry of the fiscal chain, which takes the shop's counter row until commit.
    sealed_z := row(gen_random_uuid(), p_shop, next_day, number, report, (report ->> 'net_total_xaf')::bigint,
             (report ->> 'grand_total_xaf')::bigint, now(), null)::z_reports;
    insert into z_reports (id, shop_id, day, z_no, report, net_total_xaf, grand_total_xaf, sealed_at, chain_no)
    values (sealed_z.id, sealed_z.shop_id, sealed_z.day, sealed_z.z_no, sealed_z.report, sealed_z.net_total_xaf, sealed_z.grand_total_xaf,
            sealed_z.sealed_at, fiscal_append('z', sealed_z.id, sealed_z.sealed_at, 0, fiscal_z_content(sealed_z)));
  end if;
  return next_day;
end $$;
revoke execute on function z_seal_next(uuid) from pos_app;

-- GET /reports/z: the sealed Z of the day when there is one; a day sealed without activity, its
-- (empty) figures marked sealed; else the live figures (sealed: false).
create or replace function z_report_for(p_day date) returns jsonb
  language plpgsql stable
  as $$
declare
  stored jsonb;
  sealed date;
begin
  select z.report into stored from z_reports z where z.shop_id = app_shop_id() and z.day = p_day;
  if found then
    return stored;
  end if;
  select z.sealed_through into sealed from z_seals z where z.shop_id = app_shop_id();
  return z_report(p_day) || jsonb_build_object('sealed', sealed is not null and p_day <= sealed, 'z_no', null, 'sealed_at', null);
end $$;
