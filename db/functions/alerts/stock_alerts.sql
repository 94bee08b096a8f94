-- The stock alerts of the caller's shop (CONTRACT section 7, GET /alerts and the daily digest), most
-- urgent first: negative_stock, expired, out_of_stock, expiring (soonest first), low_stock,
-- dead_stock; then by name. An item is a tracked, active product without variants, or a variant of one
-- (a product with variants is judged by its variants). A batch with stock expiring within
-- p_expiring_days days of today (the shop's calendar) is `expiring`, one past its date `expired`. An
-- item with stock and no sale for p_dead_days days (never sold: created that long ago) is `dead_stock`.
create or replace function stock_alerts(p_dead_days integer, p_expiring_days integer, p_limit integer)
  returns table (kind text, product_id uuid, variant_id uuid, name text, quantity numeric, reorder_level numeric,
                 batch_id uuid, batch_number text, expiry_date date, days_left integer, last_sold_at timestamptz)
  language plpgsql stable
  -- Planned costs grow with the shop's catalogue (one probe of stock_movements per item with stock), and
  -- past a few thousand items JIT compilation took 77 ms of a 106 ms answer that runs in 30 ms without it.
  set jit = off
  as $$
#variable_conflict use_column
declare
  today constant date := (select (now() at time zone s.timezone)::date from shops s where s.id = app_shop_id());
begin
  return query
  with items as (
    select p.id as product_id, null::uuid as variant_id, p.name, p.on_hand, p.reorder_level, p.created_at
      from products p
     where p.shop_id = app_shop_id() and p.deleted_at is null and p.tracked and p.active
       and not exists (select 1 from variants v where v.product_id = p.id and v.deleted_at is null)
    union all
    select p.id, v.id, item_name(p.name, v.options), v.on_hand, p.reorder_level, v.created_at
      from products p join variants v on v.product_id = p.id and v.deleted_at is null
     where p.shop_id = app_shop_id() and p.deleted_at is null and p.tracked and p.active
  ), dated as (
    select i.*, b.id as batch_id, b.batch_number, b.expiry_date, b.quantity, (b.expiry_date - today)::int as days_left
      from batches b join items i on i.product_id = b.product_id and i.variant_id is not distinct from b.variant_id
     where b.shop_id = app_shop_id() and b.quantity > 0 and b.expiry_date <= today + p_expiring_days
  ), sold as (
    select i.*, (select m.created_at from stock_movements m
                  where m.shop_id = app_shop_id() and m.product_id = i.product_id and m.variant_id is not distinct from i.variant_id
                    and m.type = 'sale'
                  order by m.created_at desc limit 1) as last_sold_at
      from items i where i.on_hand > 0
  ), alerts as (
    select 1 as rank, 'negative_stock' as kind, i.product_id, i.variant_id, i.name, i.on_hand as quantity, i.reorder_level,
           null::uuid as batch_id, null::text as batch_number, null::date as expiry_date, null::int as days_left, null::timestamptz as last_sold_at
      from items i where i.on_hand < 0
    union all
    select case when d.days_left < 0 then 2 else 4 end, case when d.days_left < 0 then 'expired' else 'expiring' end,
           d.product_id, d.variant_id, d.name, d.quantity, d.reorder_level, d.batch_id, d.batch_number, d.expiry_date, d.days_left, null
      from dated d
    union all
    select 3, 'out_of_stock', i.product_id, i.variant_id, i.name, i.on_hand, i.reorder_level, null, null, null, null, null
      from items i where i.on_hand = 0
    union all
    select 5, 'low_stock', i.product_id, i.variant_id, i.name, i.on_hand, i.reorder_level, null, null, null, null, null
      from items i where i.on_hand > 0 and i.reorder_level > 0 and i.on_hand <= i.reorder_level
    union all
    select 6, 'dead_stock', s.product_id, s.variant_id, s.name, s.on_hand, s.reorder_level, null, null, null, null, s.last_sold_at
      from sold s where coalesce(s.last_sold_at, s.created_at) < now() - make_interval(days => p_dead_days)
  )
  select a.kind, a.product_id, a.variant_id, a.name, a.quantity, a.reorder_level, a.batch_id, a.batch_number, a.expiry_date,
         a.days_left, a.last_sold_at
    from alerts a
   order by a.rank, a.expiry_date nulls last, a.name, a.product_id, a.variant_id nulls first, a.batch_id
   limit p_limit;
end $$;
