-- The period reports of CONTRACT section 9 (api/reports/period.ts, losses.ts, vat.ts), each one
-- function answering its JSON. They read the daily roll-ups of the sealed days (z_reports,
-- report_facts: one index range of the shop per kind, whatever the number of sales) and compute the
-- few days not sealed yet live (report_facts_between, z_reports_between): a year is a few thousand
-- rows. Dates are business days of the shop's time zone, both ends included.

-- The period asked, resolved in the shop's calendar: both days given; only `from` (to today); only
-- `to` (the p_default_days days ending then); neither (the p_default_days days ending today). `from`
-- after today is a 422 on from, a period longer than 1,096 days (3 years) a 422 on to (`to` before
-- `from` is refused by the route's schema). upto: the last day that has begun (to, or today).
create or replace function report_period(p_from date, p_to date, p_default_days int)
  returns table (from_day date, to_day date, upto date)
  language plpgsql stable
  as $$
declare
  today date := (select (now() at time zone s.timezone)::date from shops s where s.id = app_shop_id());
begin
  to_day := coalesce(p_to, today);
  from_day := coalesce(p_from, to_day - (p_default_days - 1));
  if from_day > today then
    perform raise_app_error(422, 'validation_failed', 'Cannot be after today.', 'from');
  end if;
  if to_day < from_day then
    perform raise_app_error(422, 'validation_failed', 'Must be on or after from.', 'to');
  end if;
  if to_day - from_day + 1 > 1096 then
    perform raise_app_error(422, 'validation_failed', 'The period cannot be longer than 1,096 days (3 years).', 'to');
  end if;
  upto := least(to_day, today);
  return next;
end $$;

-- The VAT declaration's period: `from` and `to` (both, checked by report_period), else the month
-- p_month (its first day; one after the current month is a 422 on month), else the previous month:
-- the one to file.
create or replace function report_vat_period(p_month date, p_from date, p_to date)
  returns table (from_day date, to_day date, upto date)
  language plpgsql stable
  as $$
declare
  today date := (select (now() at time zone s.timezone)::date from shops s where s.id = app_shop_id());
begin
  if p_from is not null or p_to is not null then
    return query select * from report_period(p_from, p_to, 1);
    return;
  end if;
  from_day := coalesce(p_month, (date_trunc('month', today) - interval '1 month')::date);
  if from_day > today then
    perform raise_app_error(422, 'validation_failed', 'Cannot be after the current month.', 'month');
  end if;
  to_day := (from_day + interval '1 month')::date - 1;
  upto := least(to_day, today);
  return next;
end $$;

-- Half away from zero of a / b (b > 0), in integers: the CONTRACT's rounding.
create or replace function round_div(a numeric, b numeric) returns bigint
  language sql immutable parallel safe
  as $$ select round(a / b)::bigint $$;

-- GET /reports/sales-summary: totals, per day (every day of the period up to today, zeros included),
-- per payment method, per category (net of voids and refunds), per cashier. The days' figures are
-- their Zs' (the stored one of a sealed day, live otherwise), so the summary equals the Zs.
create or replace function report_sales_summary(p_from date, p_to date, p_upto date) returns jsonb
  language sql stable
  -- JIT would compile for longer than the report runs (its estimates count every day and month as a thousand rows).
  set jit = off
  as $$
    with z as materialized (
      select day, report from z_reports_between(p_from, p_upto)
    ), totals as (
      select coalesce(sum((report #>> '{sales,count}')::bigint), 0) as sales_count,
             coalesce(sum((report #>> '{sales,gross_xaf}')::bigint), 0) as gross,
             coalesce(sum((report #>> '{sales,discounts_xaf}')::bigint), 0) as discounts,
             coalesce(sum((report #>> '{sales,total_xaf}')::bigint), 0) as sales_total,
             coalesce(sum((report #>> '{voids,count}')::bigint), 0) as voids_count,
             coalesce(sum((report #>> '{voids,total_xaf}')::bigint), 0) as voids_total,
             coalesce(sum((report #>> '{refunds,count}')::bigint), 0) as refunds_count,
             coalesce(sum((report #>> '{refunds,total_xaf}')::bigint), 0) as refunds_total,
             coalesce(sum((report ->> 'net_total_xaf')::bigint), 0) as net_total,
             coalesce(sum((report ->> 'vat_xaf')::bigint), 0) as vat,
             coalesce(sum((report ->> 'net_xaf')::bigint), 0) as net
        from z
    )
    select jsonb_build_object(
      'from', to_char(p_from, 'YYYY-MM-DD'),
      'to', to_char(p_to, 'YYYY-MM-DD'),
      'totals', (select jsonb_build_object(
                   'sales_count', t.sales_count, 'gross_xaf', t.gross, 'discounts_xaf', t.discounts, 'sales_total_xaf', t.sales_total,
                   'voids_count', t.voids_count, 'voids_total_xaf', t.voids_total,
                   'refunds_count', t.refunds_count, 'refunds_total_xaf', t.refunds_total,
                   'net_total_xaf', t.net_total, 'vat_xaf', t.vat, 'net_xaf', t.net,
                   'average_basket_xaf', case when t.sales_count > 0 then round_div(t.sales_total, t.sales_count) else 0 end)
                   from totals t),
      'days', (select coalesce(jsonb_agg(jsonb_build_object(
                        'date', to_char(d.day, 'YYYY-MM-DD'),
                        'sales_count', coalesce((z.report #>> '{sales,count}')::bigint, 0),
                        'sales_total_xaf', coalesce((z.report #>> '{sales,total_xaf}')::bigint, 0),
                        'voids_total_xaf', coalesce((z.report #>> '{voids,total_xaf}')::bigint, 0),
                        'refunds_total_xaf', coalesce((z.report #>> '{refunds,total_xaf}')::bigint, 0),
                        'net_total_xaf', coalesce((z.report ->> 'net_total_xaf')::bigint, 0),
                        'vat_xaf', coalesce((z.report ->> 'vat_xaf')::bigint, 0),
                        'net_xaf', coalesce((z.report ->> 'net_xaf')::bigint, 0)) order by d.day), '[]')
                 from (select g::date as day from generate_series(p_from, p_upto, interval '1 day') g) d
                 left join z on z.day = d.day),
      'payments', (select coalesce(jsonb_agg(jsonb_build_object('method', m.method, 'amount_xaf', m.amount) order by m.method), '[]')
                     from (select p ->> 'method' as method, sum((p ->> 'amount_xaf')::bigint)::bigint as amount
                             from z, jsonb_array_elements(z.report -> 'payments') p group by 1) m),
      'settlements', (select coalesce(jsonb_agg(jsonb_build_object('method', m.method, 'amount_xaf', m.amount) order by m.method), '[]')
                        from (select p ->> 'method' as method, sum((p ->> 'amount_xaf')::bigint)::bigint as amount
                                from z, jsonb_array_elements(z.report -> 'settlements') p group by 1) m),
      'categories', (select coalesce(jsonb_agg(jsonb_build_object(
                              'category_id', c.id, 'name', c.name, 'quantity', c.quantity, 'total_xaf', c.total,
                              'vat_xaf', c.vat, 'net_xaf', c.total - c.vat) order by c.total desc, c.name nulls last), '[]')
                       from (select f.key::uuid as id, (select k.name from categories k where k.id = f.key::uuid) as name,
                                    sum(f.quantity) as quantity, sum(f.total_xaf)::bigint as total, sum(f.vat_xaf)::bigint as vat
                               from (select nullif(key, '') as key, quantity, total_xaf, vat_xaf
                                       from report_facts_between(p_from, p_upto, array['category'])) f
                              group by f.key) c),
      'cashiers', (select coalesce(jsonb_agg(jsonb_build_object(
                            'user_id', c.user_id, 'name', (select u.name from users u where u.id = c.user_id),
                            'sales_count', c.count, 'total_xaf', c.total) order by c.total desc, c.user_id), '[]')
                     from (select (x ->> 'user_id')::uuid as user_id, sum((x ->> 'sales_count')::bigint)::bigint as count,
                                  sum((x ->> 'total_xaf')::bigint)::bigint as total
                             from z, jsonb_array_elements(z.report -> 'cashiers') x group by 1) c))
$$;

-- GET /reports/margin: per product and per category, revenue excluding VAT, the cost of goods sold
-- (what each line moved through 6031: tracked goods at the cost recorded with the line; nothing for
-- untracked ones), margin and margin rate (percent of revenue, 2 decimals), net of voids and refunds.
create or replace function report_margin(p_from date, p_to date, p_upto date) returns jsonb
  language sql stable
  -- JIT would compile for longer than the report runs (its estimates count every day and month as a thousand rows).
  set jit = off
  as $$
    with f as materialized (
      select kind, nullif(key, '') as key, sum(quantity) as quantity, sum(total_xaf - vat_xaf)::bigint as revenue, sum(cost_xaf)::bigint as cost
        from report_facts_between(p_from, p_upto, array['product', 'category'])
       group by kind, key
    )
    select jsonb_build_object(
      'from', to_char(p_from, 'YYYY-MM-DD'),
      'to', to_char(p_to, 'YYYY-MM-DD'),
      'totals', (select jsonb_build_object('revenue_xaf', coalesce(sum(revenue), 0), 'cost_xaf', coalesce(sum(cost), 0),
                                           'margin_xaf', coalesce(sum(revenue - cost), 0),
                                           'margin_rate', case when sum(revenue) <> 0 then round(100.0 * sum(revenue - cost) / sum(revenue), 2) end)
                   from f where kind = 'product'),
      'products', (select coalesce(jsonb_agg(jsonb_build_object(
                            'product_id', f.key::uuid, 'name', p.name, 'category_id', p.category_id, 'tracked', coalesce(p.tracked, false),
                            'quantity', f.quantity, 'revenue_xaf', f.revenue, 'cost_xaf', f.cost, 'margin_xaf', f.revenue - f.cost,
                            'margin_rate', case when f.revenue <> 0 then round(100.0 * (f.revenue - f.cost) / f.revenue, 2) end)
                          order by f.revenue - f.cost desc, p.name nulls last, f.key), '[]')
                     from f left join products p on p.id = f.key::uuid where f.kind = 'product'),
      'categories', (select coalesce(jsonb_agg(jsonb_build_object(
                              'category_id', f.key::uuid, 'name', c.name,
                              'quantity', f.quantity, 'revenue_xaf', f.revenue, 'cost_xaf', f.cost, 'margin_xaf', f.revenue - f.cost,
                              'margin_rate', case when f.revenue <> 0 then round(100.0 * (f.revenue - f.cost) / f.revenue, 2) end)
                            order by f.revenue - f.cost desc, c.name nulls last, f.key), '[]')
                       from f left join categories c on c.id = f.key::uuid where f.kind = 'category'))
$$;

-- GET /reports/analytics: best sellers (top 10 by quantity and by revenue, net of voids and refunds),
-- the sales made per local hour and per ISO weekday (1 Monday .. 7 Sunday), the average basket (sales
-- made: total over count) and the payment mix (money per method, net, with its share in percent).
create or replace function report_analytics(p_from date, p_to date, p_upto date) returns jsonb
  language sql stable
  -- JIT would compile for longer than the report runs (its estimates count every day and month as a thousand rows).
  set jit = off
  as $$
    with f as materialized (
      select day, kind, nullif(key, '') as key, count, quantity, total_xaf
        from report_facts_between(p_from, p_upto, array['product', 'hour', 'method'])
    ), sold_products as (
      select f.key::uuid as id, sum(f.quantity) as quantity, sum(f.total_xaf)::bigint as total
        from f where f.kind = 'product' and f.key is not null group by f.key
    ), sold as (
      select coalesce(sum(count), 0)::bigint as count, coalesce(sum(total_xaf), 0)::bigint as total from f where kind = 'hour'
    ), methods as (
      select key as method, sum(total_xaf)::bigint as amount from f where kind = 'method' group by key
    )
    select jsonb_build_object(
      'from', to_char(p_from, 'YYYY-MM-DD'),
      'to', to_char(p_to, 'YYYY-MM-DD'),
      'sales_count', s.count,
      'sales_total_xaf', s.total,
      'average_basket_xaf', case when s.count > 0 then round_div(s.total, s.count) else 0 end,
      'best_sellers_by_quantity', (select coalesce(jsonb_agg(b order by b.rank), '[]') from (
          select row_number() over (order by x.quantity desc, x.total desc, x.id) as rank, x.id as product_id,
                 (select p.name from products p where p.id = x.id) as name, x.quantity, x.total as total_xaf
            from sold_products x where x.quantity > 0 order by x.quantity desc, x.total desc, x.id limit 10) b),
      'best_sellers_by_revenue', (select coalesce(jsonb_agg(b order by b.rank), '[]') from (
          select row_number() over (order by x.total desc, x.quantity desc, x.id) as rank, x.id as product_id,
                 (select p.name from products p where p.id = x.id) as name, x.quantity, x.total as total_xaf
            from sold_products x where x.total > 0 order by x.total desc, x.quantity desc, x.id limit 10) b),
      'hours', (select jsonb_agg(jsonb_build_object('hour', h, 'sales_count', coalesce(x.count, 0), 'total_xaf', coalesce(x.total, 0)) order by h)
                  from generate_series(0, 23) h
                  left join (select key::int as hour, sum(count)::bigint as count, sum(total_xaf)::bigint as total
                               from f where kind = 'hour' group by key) x on x.hour = h),
      'weekdays', (select jsonb_agg(jsonb_build_object('weekday', w, 'sales_count', coalesce(x.count, 0), 'total_xaf', coalesce(x.total, 0)) order by w)
                     from generate_series(1, 7) w
                     left join (select extract(isodow from day)::int as weekday, sum(count)::bigint as count, sum(total_xaf)::bigint as total
                                  from f where kind = 'hour' group by 1) x on x.weekday = w),
      'payment_mix', (select coalesce(jsonb_agg(jsonb_build_object(
                               'method', m.method, 'amount_xaf', m.amount,
                               'share', case when t.total <> 0 then round(100.0 * m.amount / t.total, 1) else 0 end) order by m.amount desc, m.method), '[]')
                        from methods m, (select sum(amount) as total from methods where amount > 0) t
                       where m.amount <> 0))
      from sold s
$$;

-- GET /reports/losses: stock lost and found at cost, as the journal posted it (6031 against 31): each
-- manual adjustment by its reason (those whose reason says the goods expired also counted apart) and
-- each stocktake's variance (one entry per stocktake: its losses net of its gains); and the cash
-- shortages and overages of the shifts closed in the period, per cashier and per shift.
create or replace function report_losses(p_from date, p_to date, p_upto date) returns jsonb
  language plpgsql stable
  set plan_cache_mode = force_custom_plan
  set jit = off
  as $$
declare
  tz text := (select s.timezone from shops s where s.id = app_shop_id());
  lo timestamptz := p_from::timestamp at time zone tz;
  hi timestamptz := (p_upto + 1)::timestamp at time zone tz;
begin
  return (
    with entries as materialized (
      select e.id, e.source_type, e.source_id, e.posted_at,
             coalesce(sum(l.debit_xaf), 0)::bigint as lost, coalesce(sum(l.credit_xaf), 0)::bigint as gained
        from journal_entries e join journal_lines l on l.entry_id = e.id and l.account = '6031'
       where e.shop_id = app_shop_id() and e.source_type in ('stock_adjustment', 'stocktake')
         and e.posted_at >= lo and e.posted_at < hi
       group by e.shop_id, e.id
    ), adjustments as materialized (
      select x.lost, x.gained, m.quantity, nullif(btrim(m.reason), '') as reason,
             coalesce(m.reason ~* '(expir|p[ée]rim)', false) as expired
        from entries x join stock_movements m on m.id = x.source_id
       where x.source_type = 'stock_adjustment'
    ), shifts_closed as materialized (
      select sh.id, sh.user_id, sh.closed_at, sh.expected_cash_xaf, sh.counted_cash_xaf, sh.difference_xaf
        from shifts sh
       where sh.shop_id = app_shop_id() and sh.status = 'closed' and sh.closed_at >= lo and sh.closed_at < hi
    )
    select jsonb_build_object(
      'from', to_char(p_from, 'YYYY-MM-DD'),
      'to', to_char(p_to, 'YYYY-MM-DD'),
      'stock', jsonb_build_object(
        'lost_xaf', (select coalesce(sum(lost), 0) from entries),
        'gained_xaf', (select coalesce(sum(gained), 0) from entries),
        'net_loss_xaf', (select coalesce(sum(lost - gained), 0) from entries),
        'adjustments', jsonb_build_object(
          'count', (select count(*) from adjustments),
          'lost_xaf', (select coalesce(sum(lost), 0) from adjustments),
          'gained_xaf', (select coalesce(sum(gained), 0) from adjustments),
          'by_reason', (select coalesce(jsonb_agg(jsonb_build_object(
                                 'reason', r.reason, 'count', r.count, 'quantity_lost', r.quantity_lost, 'quantity_gained', r.quantity_gained,
                                 'lost_xaf', r.lost, 'gained_xaf', r.gained) order by r.lost desc, r.reason nulls last), '[]')
                          from (select min(a.reason) as reason, count(*) as count,
                                       coalesce(-sum(a.quantity) filter (where a.quantity < 0), 0) as quantity_lost,
                                       coalesce(sum(a.quantity) filter (where a.quantity > 0), 0) as quantity_gained,
                                       sum(a.lost)::bigint as lost, sum(a.gained)::bigint as gained
                                  from adjustments a group by lower(a.reason)) r)),
        'expired', (select jsonb_build_object('count', count(*), 'quantity', coalesce(-sum(a.quantity), 0), 'lost_xaf', coalesce(sum(a.lost), 0))
                      from adjustments a where a.expired and a.quantity < 0),
        'stocktakes', (select coalesce(jsonb_agg(jsonb_build_object(
                                'stocktake_id', x.source_id, 'note', st.note, 'committed_at', iso_time(x.posted_at),
                                'lost_xaf', x.lost, 'gained_xaf', x.gained) order by x.posted_at, x.source_id), '[]')
                         from entries x left join stocktakes st on st.id = x.source_id where x.source_type = 'stocktake')),
      'cash', jsonb_build_object(
        'shortages_xaf', (select coalesce(-sum(difference_xaf) filter (where difference_xaf < 0), 0) from shifts_closed),
        'overages_xaf', (select coalesce(sum(difference_xaf) filter (where difference_xaf > 0), 0) from shifts_closed),
        'shifts_closed', (select count(*) from shifts_closed),
        'cashiers', (select coalesce(jsonb_agg(jsonb_build_object(
                               'user_id', c.user_id, 'name', (select u.name from users u where u.id = c.user_id), 'shifts', c.shifts,
                               'shortages_xaf', c.shortages, 'overages_xaf', c.overages) order by c.shortages desc, c.user_id), '[]')
                       from (select user_id, count(*) as shifts,
                                    coalesce(-sum(difference_xaf) filter (where difference_xaf < 0), 0) as shortages,
                                    coalesce(sum(difference_xaf) filter (where difference_xaf > 0), 0) as overages
                               from shifts_closed group by user_id) c),
        'shifts', (select coalesce(jsonb_agg(jsonb_build_object(
                             'shift_id', s.id, 'user_id', s.user_id, 'name', (select u.name from users u where u.id = s.user_id),
                             'closed_at', iso_time(s.closed_at), 'expected_cash_xaf', s.expected_cash_xaf,
                             'counted_cash_xaf', s.counted_cash_xaf, 'difference_xaf', s.difference_xaf) order by s.closed_at, s.id), '[]')
                     from shifts_closed s where s.difference_xaf <> 0)))
  );
end $$;

-- The VAT of one rate split as the 19.25% is declared: 17.5% principal and the council surtax (CAC,
-- 10% of the principal): principal = round(vat x 17.5 / 19.25), CAC the rest. Other rates: all principal.
create or replace function vat_split(p_rate numeric, p_vat bigint, out principal_xaf bigint, out cac_xaf bigint)
  language sql immutable parallel safe
  as $$ select case when p_rate = 19.25 then round_div(p_vat * 10, 11) else p_vat end,
               case when p_rate = 19.25 then p_vat - round_div(p_vat * 10, 11) else 0 end $$;

-- GET /reports/vat-declaration: one declaration per calendar month of the period (the first and last
-- cut to it), as the monthly form: VAT collected (4431: sales less voids and refunds, per rate from
-- the days' Zs), deductible VAT (4452: purchases less returns, per purchase rate), the credit brought
-- forward, then the VAT due or the credit carried forward (4449). The credit is carried month after
-- month from the shop's first day: the months before the period (and the days of its first month
-- before `from`, as a period of their own) are worked out the same way first. A month without
-- activity still answers (a nil declaration).
create or replace function report_vat_declaration(p_from date, p_to date, p_upto date) returns jsonb
  language plpgsql stable
  -- JIT would compile for longer than the report runs (its estimates count every day and month as a thousand rows).
  set jit = off
  as $$
declare
  opened date := (select (s.created_at at time zone s.timezone)::date from shops s where s.id = app_shop_id());
  carried bigint := 0;
  month_row record;
  months jsonb := '[]';
  balance bigint;
  due bigint;
  brought bigint;
  total_due bigint := 0;
  first_brought bigint;
  collected_total bigint := 0;
  deductible_total bigint := 0;
begin
  -- The credit carried into the period: month by month from the shop's first day to the day before `from`.
  for month_row in
    select sum(f.total_xaf) filter (where f.key = '4431') as collected, -sum(f.total_xaf) filter (where f.key = '4452') as deductible
      from report_facts_between(least(opened, p_from), p_from - 1, array['account']) f
     group by date_trunc('month', f.day) order by date_trunc('month', f.day)
  loop
    balance := coalesce(month_row.collected, 0) - coalesce(month_row.deductible, 0) - carried;
    carried := greatest(-balance, 0);
  end loop;
  first_brought := carried;

  for month_row in
    with facts as materialized (
      select f.day, f.kind, f.key, f.total_xaf, f.vat_xaf from report_facts_between(p_from, p_upto, array['account', 'deductible']) f
    ), collected_rates as (
      select date_trunc('month', z.day)::date as month, (r ->> 'rate')::numeric as rate,
             sum((r ->> 'base_xaf')::bigint)::bigint as base, sum((r ->> 'vat_xaf')::bigint)::bigint as vat
        from z_reports_between(p_from, p_upto) z, jsonb_array_elements(z.report -> 'vat_per_rate') r
       group by 1, 2
    )
    select m::date as month, greatest(m::date, p_from) as first_day, least((m + interval '1 month')::date - 1, p_to) as last_day,
           coalesce((select sum(f.total_xaf) from facts f where f.kind = 'account' and f.key = '4431' and date_trunc('month', f.day) = m), 0)::bigint as collected,
           coalesce((select -sum(f.total_xaf) from facts f where f.kind = 'account' and f.key = '4452' and date_trunc('month', f.day) = m), 0)::bigint as deductible,
           (select coalesce(jsonb_agg(jsonb_build_object('rate', c.rate, 'base_xaf', c.base, 'vat_xaf', c.vat,
                                                         'principal_xaf', (vat_split(c.rate, c.vat)).principal_xaf,
                                                         'cac_xaf', (vat_split(c.rate, c.vat)).cac_xaf) order by c.rate), '[]')
              from collected_rates c where c.month = m::date and (c.vat <> 0 or c.base <> 0)) as collected_rates,
           (select coalesce(jsonb_agg(jsonb_build_object('rate', d.rate, 'base_xaf', d.base, 'vat_xaf', d.vat,
                                                         'principal_xaf', (vat_split(d.rate, d.vat)).principal_xaf,
                                                         'cac_xaf', (vat_split(d.rate, d.vat)).cac_xaf) order by d.rate), '[]')
              from (select f.key::numeric as rate, sum(f.total_xaf)::bigint as base, sum(f.vat_xaf)::bigint as vat
                      from facts f where f.kind = 'deductible' and date_trunc('month', f.day) = m group by f.key) d
             where d.vat <> 0 or d.base <> 0) as deductible_rates
      from generate_series(date_trunc('month', p_from), date_trunc('month', p_to), interval '1 month') m
     order by m
  loop
    brought := carried;
    balance := month_row.collected - month_row.deductible - brought;
    due := greatest(balance, 0);
    carried := greatest(-balance, 0);
    total_due := total_due + due;
    collected_total := collected_total + month_row.collected;
    deductible_total := deductible_total + month_row.deductible;
    months := months || jsonb_build_array(jsonb_build_object(
      'month', to_char(month_row.month, 'YYYY-MM'),
      'from', to_char(month_row.first_day, 'YYYY-MM-DD'),
      'to', to_char(month_row.last_day, 'YYYY-MM-DD'),
      'collected', jsonb_build_object(
        'vat_xaf', month_row.collected,
        'principal_xaf', (select coalesce(sum((r ->> 'principal_xaf')::bigint), 0) from jsonb_array_elements(month_row.collected_rates) r),
        'cac_xaf', (select coalesce(sum((r ->> 'cac_xaf')::bigint), 0) from jsonb_array_elements(month_row.collected_rates) r),
        'per_rate', month_row.collected_rates),
      'deductible', jsonb_build_object(
        'vat_xaf', month_row.deductible,
        'principal_xaf', (select coalesce(sum((r ->> 'principal_xaf')::bigint), 0) from jsonb_array_elements(month_row.deductible_rates) r),
        'cac_xaf', (select coalesce(sum((r ->> 'cac_xaf')::bigint), 0) from jsonb_array_elements(month_row.deductible_rates) r),
        'per_rate', month_row.deductible_rates),
      'credit_brought_forward_xaf', brought,
      'vat_due_xaf', due,
      'credit_carried_forward_xaf', carried,
      'nil', month_row.collected = 0 and month_row.deductible = 0));
  end loop;

  return jsonb_build_object(
    'from', to_char(p_from, 'YYYY-MM-DD'),
    'to', to_char(p_to, 'YYYY-MM-DD'),
    'collected_xaf', collected_total,
    'deductible_xaf', deductible_total,
    'credit_brought_forward_xaf', first_brought,
    'vat_due_xaf', total_due,
    'credit_carried_forward_xaf', carried,
    'months', months);
end $$;
