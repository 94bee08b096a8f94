-- The report facts of business day p_day of the caller's shop, live (the rows report_facts stores for
-- a sealed day): the sales reported in the day (as the Z: made that day, plus the late ones), less
-- the voids and refunds made that day.
-- product and category: count of lines, quantity, total_xaf (VAT included), vat_xaf and cost_xaf (what
-- each line moved through 6031, stock_cost_xaf: tracked goods at the cost recorded with the line), net
-- of voids and refunds. cashier: the day's sales per cashier (count, total). method: money per
-- payment method, as the Z's payments. settlement: what customers paid on their accounts, per method,
-- as the Z's settlements. hour: the day's sales per local hour (count, total).
-- account: what the journal posted that day to 4431 and 4452 (total_xaf: credit minus debit).
-- deductible: the day's VAT deductible per purchase VAT rate (total_xaf: purchases less returns, cost
-- excluding VAT; vat_xaf: 4452 debit minus credit).
create or replace function report_day_facts(p_day date)
  returns table (kind text, key text, count bigint, quantity numeric, total_xaf bigint, vat_xaf bigint, cost_xaf bigint)
  language plpgsql stable
  -- Planned for the day asked (a generic plan, blind to the day's bounds, hashed all the shop's sale lines).
  set plan_cache_mode = force_custom_plan
  as $$
declare
  tz text := (select s.timezone from shops s where s.id = app_shop_id());
  lo timestamptz := p_day::timestamp at time zone tz;
  hi timestamptz := (p_day + 1)::timestamp at time zone tz;
begin
  return query
  with lines as (
    -- The day's sale lines, the lines of the sales voided this day (negative), the refunded parts (negative).
    select i.product_id, 1 as n, i.quantity, i.total_xaf, i.vat_xaf, i.stock_cost_xaf as cost
      from z_day_sales(p_day, lo, hi) d join sale_items i on i.sale_id = d.id
    union all
    select i.product_id, -1, -i.quantity, -i.total_xaf, -i.vat_xaf, -i.stock_cost_xaf
      from sales v join sale_items i on i.sale_id = v.id
     where v.shop_id = app_shop_id() and v.voided_at >= lo and v.voided_at < hi
    union all
    select i.product_id, 0, -ri.quantity, -ri.total_xaf, -ri.vat_xaf, -ri.stock_cost_xaf
      from refunds r join refund_items ri on ri.refund_id = r.id join sale_items i on i.id = ri.sale_item_id
     where r.shop_id = app_shop_id() and r.created_at >= lo and r.created_at < hi
  ), priced as (
    select l.product_id, p.category_id, l.n, l.quantity, l.total_xaf, l.vat_xaf, l.cost
      from lines l left join products p on p.id = l.product_id
  ), posted as (
    -- The day's journal lines on the VAT accounts, with the purchase rate of the deductible ones.
    select jl.account, jl.credit_xaf - jl.debit_xaf as net, e.source_type, e.source_id
      from journal_entries e join journal_lines jl on jl.entry_id = e.id
     where e.shop_id = app_shop_id() and e.posted_at >= lo and e.posted_at < hi and jl.account in ('4431', '4452')
  )
  select 'product', coalesce(x.product_id::text, ''), sum(x.n)::bigint, sum(x.quantity), sum(x.total_xaf)::bigint, sum(x.vat_xaf)::bigint, sum(x.cost)::bigint
    from priced x group by x.product_id
  union all
  select 'category', coalesce(x.category_id::text, ''), sum(x.n)::bigint, sum(x.quantity), sum(x.total_xaf)::bigint, sum(x.vat_xaf)::bigint, sum(x.cost)::bigint
    from priced x group by x.category_id
  union all
  select 'cashier', coalesce(s.cashier_id::text, ''), count(*)::bigint, 0::numeric, sum(s.total_xaf)::bigint, sum(s.vat_xaf)::bigint, 0::bigint
    from z_day_sales(p_day, lo, hi) s group by s.cashier_id
  union all
  select 'hour', extract(hour from s.created_at at time zone tz)::int::text, count(*)::bigint, 0::numeric, sum(s.total_xaf)::bigint,
         sum(s.vat_xaf)::bigint, 0::bigint
    from z_day_sales(p_day, lo, hi) s group by 2
  union all
  select 'method', m.method, count(*)::bigint, 0::numeric, sum(m.amount_xaf)::bigint, 0::bigint, 0::bigint
    from (select p.method, p.amount_xaf from z_day_sales(p_day, lo, hi) d join sale_payments p on p.sale_id = d.id
           where p.kind in ('payment', 'change')
          union all
          select p.method, p.amount_xaf from sale_payments p
           where p.shop_id = app_shop_id() and p.kind in ('refund', 'void') and p.created_at >= lo and p.created_at < hi) m
   group by m.method
  union all
  select 'settlement', c.method, count(*)::bigint, 0::numeric, sum(c.amount_xaf)::bigint, 0::bigint, 0::bigint
    from customer_payments c
   where c.shop_id = app_shop_id() and c.created_at >= lo and c.created_at < hi
   group by c.method
  union all
  select 'account', x.account, count(*)::bigint, 0::numeric, sum(x.net)::bigint, 0::bigint, 0::bigint
    from posted x group by x.account
  union all
  select 'deductible', trim_scale(pu.vat_rate)::text, count(*)::bigint, 0::numeric,
         sum(case when x.net < 0 then pu.subtotal_xaf else -pr.subtotal_xaf end)::bigint, sum(-x.net)::bigint, 0::bigint
    from posted x
    left join purchase_returns pr on x.source_type = 'purchase_return' and pr.id = x.source_id
    join purchases pu on pu.id = case when x.source_type = 'purchase' then x.source_id else pr.purchase_id end
   where x.account = '4452' and x.source_type in ('purchase', 'purchase_return')
   group by pu.vat_rate;
end $$;

-- The caller's shop's business days from p_from to p_to that are not sealed yet: computed live. None
-- before the shop opened (a record dated earlier is reported late, z_reported_on).
create or replace function report_open_days(p_from date, p_to date) returns setof date
  language sql stable
  as $$
    select d::date
      from generate_series(greatest(p_from, coalesce((select z.sealed_through + 1 from z_seals z where z.shop_id = app_shop_id()),
                                                     (select (s.created_at at time zone s.timezone)::date from shops s where s.id = app_shop_id()))),
                           p_to, interval '1 day') d
$$;

-- The report facts of the days from p_from to p_to (both included), of the given kinds: the stored
-- rows of the sealed days, the live ones of the others. One row per day, kind and key.
create or replace function report_facts_between(p_from date, p_to date, p_kinds text[])
  returns table (day date, kind text, key text, count bigint, quantity numeric, total_xaf bigint, vat_xaf bigint, cost_xaf bigint)
  language sql stable
  as $$
    select f.day, f.kind, f.key, f.count, f.quantity, f.total_xaf, f.vat_xaf, f.cost_xaf
      from report_facts f
     where f.shop_id = app_shop_id() and f.kind = any (p_kinds) and f.day between p_from and p_to
    union all
    select o.day, live.kind, live.key, live.count, live.quantity, live.total_xaf, live.vat_xaf, live.cost_xaf
      from report_open_days(p_from, p_to) o (day), lateral report_day_facts(o.day) live
     where live.kind = any (p_kinds)
$$;

-- The Z of each day from p_from to p_to: the stored one of a sealed day with activity, the live one
-- of an open day (sealed days without activity have none). Ordered by day.
create or replace function z_reports_between(p_from date, p_to date)
  returns table (day date, report jsonb)
  language sql stable
  as $$
    select z.day, z.report from z_reports z where z.shop_id = app_shop_id() and z.day between p_from and p_to
    union all
    select o.day, z_report(o.day) from report_open_days(p_from, p_to) o (day)
    order by 1
$$;
