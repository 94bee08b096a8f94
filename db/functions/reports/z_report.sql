-- The day a record of day p_day is reported on (its Z): null (its own day) while that day is not
-- sealed, else today, the shop's next Z (a late record); a day before the shop opened counts as sealed. Reads the shop's seal FOR SHARE, so that a
-- record pushed while its day is being sealed waits for the seal and then goes to the next Z, and the
-- seal waits for records already on their way (report__seal_z locks it FOR UPDATE). SECURITY DEFINER:
-- the app role may read the seal this way and never write it.
create or replace function z_reported_on(p_day date) returns date
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $$
declare
  sealed date;
begin
  select z.sealed_through into sealed from z_seals z where z.shop_id = app_shop_id() for share;
  -- Before the first sealing, the days before the shop opened count as sealed (z_seal_next starts there).
  sealed := coalesce(sealed, (select (s.created_at at time zone s.timezone)::date - 1 from shops s where s.id = app_shop_id()));
  if p_day > sealed then
    return null;
  end if;
  return (select (now() at time zone s.timezone)::date from shops s where s.id = app_shop_id());
end $$;

-- The sales reported in business day p_day of the caller's shop, given the day's bounds lo and hi:
-- made that day and not reported later, plus the late ones reported on it. Two ranges of the shop's
-- indexes (sales_list_idx, sales_late_idx); a SQL function, inlined into the queries that use it.
create or replace function z_day_sales(p_day date, lo timestamptz, hi timestamptz) returns setof sales
  language sql stable
  as $$
    select s.* from sales s where s.shop_id = app_shop_id() and s.created_at >= lo and s.created_at < hi and s.reported_on is null
    union all
    select s.* from sales s where s.shop_id = app_shop_id() and s.reported_on = p_day
$$;

-- The Z of business day p_day of the caller's shop (app_shop_id()), computed from the records that do
-- not change: the day's sales (made that day and reported in it, plus the late ones reported on it),
-- the voids and refunds made that day, their payments, the cash movements and expenses of the day.
-- Every read is a range of the day on an index of the shop (sales_list_idx, sales_late_idx,
-- sales_voided_idx, refunds_shop_idx, sale_payments_reversal_idx, cash_movements_day_idx,
-- expenses_list_idx): bounded by the day, not by the shop's history.
-- Money taken in per method is `payments` without `credit` (what was sold on the customers' accounts)
-- plus `settlements` (what they paid on them); `payments` already nets the refunds and voids.
-- net_xaf (sales less voids and refunds, excluding VAT) is what the journal credits 701 for the day;
-- vat_xaf what it credits 4431. grand_total_xaf: the last sealed Z's before this day, plus the nets
-- of the days between not sealed yet, plus this day's net_total_xaf.
create or replace function z_report(p_day date) returns jsonb
  language plpgsql stable
  -- Planned for the day asked (a generic plan, blind to the day's bounds, hashed all the shop's sale lines).
  set plan_cache_mode = force_custom_plan
  as $$
declare
  tz text := (select timezone from shops where id = app_shop_id());
  lo timestamptz := p_day::timestamp at time zone tz;
  hi timestamptz := (p_day + 1)::timestamp at time zone tz;
  figures jsonb;
  sales_fig record;
  voids_fig record;
  refunds_fig record;
  previous_grand bigint;
  open_from date;
  open_lo timestamptz;
begin
  select count(*)::bigint as count, coalesce(sum(subtotal_xaf), 0)::bigint as gross, coalesce(sum(discount_xaf), 0)::bigint as discounts,
         coalesce(sum(total_xaf), 0)::bigint as total, coalesce(sum(vat_xaf), 0)::bigint as vat,
         min(receipt_no) as first_no, max(receipt_no) as last_no,
         count(*) filter (where reported_on is not null)::bigint as late_count,
         coalesce(sum(total_xaf) filter (where reported_on is not null), 0)::bigint as late_total
    into sales_fig
    from z_day_sales(p_day, lo, hi);
  select count(*)::bigint as count, coalesce(sum(total_xaf), 0)::bigint as total, coalesce(sum(vat_xaf), 0)::bigint as vat
    into voids_fig
    from sales where shop_id = app_shop_id() and voided_at >= lo and voided_at < hi;
  select count(*)::bigint as count, coalesce(sum(total_xaf), 0)::bigint as total, coalesce(sum(vat_xaf), 0)::bigint as vat
    into refunds_fig
    from refunds where shop_id = app_shop_id() and created_at >= lo and created_at < hi;
  select coalesce(max(grand_total_xaf), 0) into previous_grand
    from z_reports where shop_id = app_shop_id() and z_no = (select max(z_no) from z_reports where shop_id = app_shop_id() and day < p_day);
  -- Days before this one not sealed yet (an open day's live Z): their nets count too.
  open_from := coalesce((select z.sealed_through + 1 from z_seals z where z.shop_id = app_shop_id()),
                        (select (s.created_at at time zone tz)::date from shops s where s.id = app_shop_id()));
  if open_from < p_day then
    open_lo := open_from::timestamp at time zone tz;
    previous_grand := previous_grand
      + coalesce((select sum(s.total_xaf) from sales s where s.shop_id = app_shop_id() and s.created_at >= open_lo and s.created_at < lo and s.reported_on is null), 0)
      + coalesce((select sum(s.total_xaf) from sales s where s.shop_id = app_shop_id() and s.reported_on >= open_from and s.reported_on < p_day), 0)
      - coalesce((select sum(v.total_xaf) from sales v where v.shop_id = app_shop_id() and v.voided_at >= open_lo and v.voided_at < lo), 0)
      - coalesce((select sum(r.total_xaf) from refunds r where r.shop_id = app_shop_id() and r.created_at >= open_lo and r.created_at < lo), 0);
  end if;

  figures := jsonb_build_object(
    'date', to_char(p_day, 'YYYY-MM-DD'),
    'timezone', tz,
    'first_receipt_no', sales_fig.first_no,
    'last_receipt_no', sales_fig.last_no,
    'sales', jsonb_build_object('count', sales_fig.count, 'gross_xaf', sales_fig.gross, 'discounts_xaf', sales_fig.discounts,
                                'total_xaf', sales_fig.total, 'vat_xaf', sales_fig.vat),
    'late_sales', jsonb_build_object('count', sales_fig.late_count, 'total_xaf', sales_fig.late_total),
    'voids', jsonb_build_object('count', voids_fig.count, 'total_xaf', voids_fig.total, 'vat_xaf', voids_fig.vat),
    'refunds', jsonb_build_object('count', refunds_fig.count, 'total_xaf', refunds_fig.total, 'vat_xaf', refunds_fig.vat),
    'net_total_xaf', sales_fig.total - voids_fig.total - refunds_fig.total,
    'vat_xaf', sales_fig.vat - voids_fig.vat - refunds_fig.vat,
    'net_xaf', (sales_fig.total - sales_fig.vat) - (voids_fig.total - voids_fig.vat) - (refunds_fig.total - refunds_fig.vat),
    -- Per VAT rate, net of the day's voids and refunds.
    'vat_per_rate', coalesce((
      select jsonb_agg(jsonb_build_object('rate', r.rate, 'base_xaf', r.total - r.vat, 'vat_xaf', r.vat, 'total_xaf', r.total) order by r.rate)
        from (select rate, sum(total)::bigint as total, sum(vat)::bigint as vat
                from (select i.vat_rate as rate, i.total_xaf as total, i.vat_xaf as vat
                        from z_day_sales(p_day, lo, hi) d join sale_items i on i.sale_id = d.id
                      union all
                      select i.vat_rate, -i.total_xaf, -i.vat_xaf
                        from sales v join sale_items i on i.sale_id = v.id
                       where v.shop_id = app_shop_id() and v.voided_at >= lo and v.voided_at < hi
                      union all
                      select i.vat_rate, -ri.total_xaf, -ri.vat_xaf
                        from refunds r join refund_items ri on ri.refund_id = r.id join sale_items i on i.id = ri.sale_item_id
                       where r.shop_id = app_shop_id() and r.created_at >= lo and r.created_at < hi) parts
               group by rate) r), '[]'),
    -- Money by method: the day's sales' payments net of change, less what its refunds and voids gave back.
    'payments', coalesce((
      select jsonb_agg(jsonb_build_object('method', m.method, 'amount_xaf', m.amount) order by m.method)
        from (select method, sum(amount_xaf)::bigint as amount
                from (select p.method, p.amount_xaf from z_day_sales(p_day, lo, hi) d join sale_payments p on p.sale_id = d.id
                       where p.kind in ('payment', 'change')
                      union all
                      select p.method, p.amount_xaf from sale_payments p
                       where p.shop_id = app_shop_id() and p.kind in ('refund', 'void') and p.created_at >= lo and p.created_at < hi) parts
               group by method) m), '[]'),
    -- What customers paid on their accounts that day, per method (customer_payments: always made online, in their day).
    'settlements', coalesce((
      select jsonb_agg(jsonb_build_object('method', m.method, 'amount_xaf', m.amount) order by m.method)
        from (select c.method, sum(c.amount_xaf)::bigint as amount from customer_payments c
               where c.shop_id = app_shop_id() and c.created_at >= lo and c.created_at < hi group by c.method) m), '[]'),
    'cash_movements', (
      select jsonb_build_object('in_xaf', coalesce(sum(amount_xaf) filter (where direction = 'in'), 0),
                                'out_xaf', coalesce(sum(amount_xaf) filter (where direction = 'out'), 0),
                                'count', count(*))
        from (select c.direction, c.amount_xaf from cash_movements c
               where c.shop_id = app_shop_id() and c.created_at >= lo and c.created_at < hi and c.reported_on is null
              union all
              select c.direction, c.amount_xaf from cash_movements c where c.shop_id = app_shop_id() and c.reported_on = p_day) c),
    'expenses', (
      with day_expenses as (
        select e.payment_method, e.amount_xaf from expenses e
         where e.shop_id = app_shop_id() and e.spent_at >= lo and e.spent_at < hi and e.reported_on is null and e.deleted_at is null
        union all
        select e.payment_method, e.amount_xaf from expenses e
         where e.shop_id = app_shop_id() and e.reported_on = p_day and e.deleted_at is null)
      select jsonb_build_object('count', (select count(*) from day_expenses),
                                'total_xaf', (select coalesce(sum(amount_xaf), 0) from day_expenses),
                                'per_method', coalesce((select jsonb_object_agg(method, amount) from (
                                    select payment_method as method, sum(amount_xaf)::bigint as amount from day_expenses group by 1) pm), '{}'))),
    'cashiers', coalesce((
      select jsonb_agg(jsonb_build_object('user_id', c.cashier_id, 'name', (select u.name from users u where u.id = c.cashier_id),
                                          'sales_count', c.count, 'total_xaf', c.total) order by c.total desc, c.cashier_id)
        from (select cashier_id, count(*)::bigint as count, sum(total_xaf)::bigint as total
                from z_day_sales(p_day, lo, hi) group by cashier_id) c), '[]'),
    'grand_total_xaf', previous_grand + (sales_fig.total - voids_fig.total - refunds_fig.total));
  return figures;
end $$;
