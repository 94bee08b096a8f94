-- Monthly and yearly closings (CONTRACT section 13), sealed by the worker (fiscal__close_periods) after
-- each month and year ends in the shop's time zone, from the month and year of the shop's first entry:
-- the entries recorded in the period (recorded_at grows with chain_no, so a period is a range of
-- positions), their total, the perpetual total since the first entry, and the last entry's hash. Each
-- closing is itself an entry of the chain. A month or year with nothing recorded is closed too, at 0.

-- The closing's content, as the entry hashes it and the integrity check recomputes it.
create or replace function fiscal_closing_content(p_closing fiscal_closings) returns text
  language sql stable parallel safe
  as $$
  select '{"cumulative_total_xaf":' || p_closing.cumulative_total_xaf || ',"ends_on":"' || to_char(p_closing.ends_on, 'YYYY-MM-DD')
    || '","first_chain_no":' || p_closing.first_chain_no || ',"last_chain_no":' || p_closing.last_chain_no
    || ',"last_hash":"' || p_closing.last_hash || '","period":"' || p_closing.period || '","sealed_at":"' || iso_time(p_closing.sealed_at)
    || '","starts_on":"' || to_char(p_closing.starts_on, 'YYYY-MM-DD') || '","total_xaf":' || p_closing.total_xaf || '}'
  $$;

-- Seals the next closing of shop p_shop that is due at p_now (a year after its December's month
-- closing), and answers its period and first day ('month 2026-11-01'), or null when none is due: the
-- caller calls again until null, one transaction per closing. Nothing is locked when none is due; when
-- one is, the shop's counter row is taken first, so every entry recorded before the period's end has
-- committed before the range is read, and a second worker waits, then finds the closing made.
-- p_now: the clock (the hourly task); a later time closes as of then (tests), its entry recorded then.
create or replace function fiscal_close_next(p_shop uuid, p_now timestamptz default now()) returns text
  language plpgsql volatile
  as $$
declare
  shop shops;
  first_recorded timestamptz;
  today date;
  previous_month fiscal_closings;
  previous_year fiscal_closings;
  previous fiscal_closings;
  month_starts date;
  year_starts date;
  closing fiscal_closings;
begin
  perform set_config('app.shop_id', p_shop::text, true);
  select * into shop from shops where id = p_shop;
  select recorded_at into first_recorded from fiscal_entries where shop_id = p_shop and chain_no = 1;
  if shop.id is null or first_recorded is null then
    return null;
  end if;
  for attempt in 1 .. 2 loop
    today := (p_now at time zone shop.timezone)::date;
    select * into previous_month from fiscal_closings where shop_id = p_shop and period = 'month' order by starts_on desc limit 1;
    select * into previous_year from fiscal_closings where shop_id = p_shop and period = 'year' order by starts_on desc limit 1;
    month_starts := coalesce(previous_month.ends_on + 1, date_trunc('month', first_recorded at time zone shop.timezone)::date);
    year_starts := coalesce(previous_year.ends_on + 1, date_trunc('year', first_recorded at time zone shop.timezone)::date);
    closing := null;
    if (year_starts + interval '1 year')::date <= today and previous_month.ends_on >= (year_starts + interval '1 year')::date - 1 then
      closing.period := 'year';
      closing.starts_on := year_starts;
      closing.ends_on := (year_starts + interval '1 year')::date - 1;
      previous := previous_year;
    elsif (month_starts + interval '1 month')::date <= today then
      closing.period := 'month';
      closing.starts_on := month_starts;
      closing.ends_on := (month_starts + interval '1 month')::date - 1;
      previous := previous_month;
    else
      return null;
    end if;
    exit when attempt = 2;
    -- Due: take the counter row, then look again (another worker may have sealed it meanwhile).
    perform 1 from receipt_counters where shop_id = p_shop for update;
  end loop;

  closing.id := gen_random_uuid();
  closing.shop_id := p_shop;
  closing.first_chain_no := coalesce(previous.last_chain_no, 0) + 1;
  -- The last entry recorded before the period's end: read backwards from the chain's end, past the
  -- entries recorded since (bounded by the time since the period ended, not by the shop's history).
  select e.chain_no, e.hash into closing.last_chain_no, closing.last_hash
    from fiscal_entries e
   where e.shop_id = p_shop and e.recorded_at < (closing.ends_on + 1)::timestamp at time zone shop.timezone
   order by e.chain_no desc limit 1;
  if closing.last_chain_no is null or closing.last_chain_no < closing.first_chain_no then
    closing.last_chain_no := closing.first_chain_no - 1;
    closing.last_hash := coalesce((select e.hash from fiscal_entries e where e.shop_id = p_shop and e.chain_no = closing.last_chain_no), '');
  end if;
  select coalesce(sum(e.amount_xaf), 0) into closing.total_xaf
    from fiscal_entries e where e.shop_id = p_shop and e.chain_no between closing.first_chain_no and closing.last_chain_no;
  closing.cumulative_total_xaf := coalesce(previous.cumulative_total_xaf, 0) + closing.total_xaf;
  closing.sealed_at := p_now;
  insert into fiscal_closings (id, shop_id, period, starts_on, ends_on, first_chain_no, last_chain_no, last_hash, total_xaf,
                               cumulative_total_xaf, sealed_at, chain_no)
  values (closing.id, p_shop, closing.period, closing.starts_on, closing.ends_on, closing.first_chain_no, closing.last_chain_no,
          closing.last_hash, closing.total_xaf, closing.cumulative_total_xaf, closing.sealed_at,
          fiscal_append('closing', closing.id, closing.sealed_at, 0, fiscal_closing_content(closing), greatest(clock_timestamp(), p_now)));
  return closing.period || ' ' || to_char(closing.starts_on, 'YYYY-MM-DD');
end $$;
revoke execute on function fiscal_close_next(uuid, timestamptz) from pos_app;
