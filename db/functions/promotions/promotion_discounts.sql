-- The discount a promotion gives a line of quantity q at unit price p whose net (after the line's own
-- discount) is p_net_xaf; never more than the net, never negative. Rounding half away from zero.
create or replace function promotion_line_discount(p_kind text, p_value numeric, p_min_quantity numeric,
                                        p_quantity numeric, p_unit_price_xaf bigint, p_net_xaf bigint)
  returns bigint
  language sql immutable parallel safe
  as $$
    select greatest(0, least(p_net_xaf, case p_kind
      when 'percent' then round(p_net_xaf * p_value / 100)
      when 'amount_xaf' then round(p_quantity * p_value)
      when 'price_xaf' then round(p_quantity * p_unit_price_xaf) - round(p_quantity * p_value)
      when 'buy_x_get_y' then case when p_min_quantity + p_value > 0
        then round(floor(p_quantity / (p_min_quantity + p_value)) * p_value * p_unit_price_xaf) else 0 end
    end))::bigint
$$;

-- The pricing rule: for each line of the basket, the single best promotion live at p_at (largest
-- discount; on a tie the oldest promotion), never two stacked.
-- p_lines: [{"product_id", "variant_id", "quantity", "unit_price_xaf", "discount_xaf"}].
-- Returns one row per line (0-based): its gross (quantity x price, rounded half away from zero), its
-- own discount (capped at the gross), the promotion (null when none applies) and its discount.
create or replace function promotion_discounts(p_lines jsonb, p_at timestamptz)
  returns table (line integer, gross_xaf bigint, line_discount_xaf bigint, promotion_id uuid, discount_xaf bigint)
  language sql stable
  as $$
    with shop as (
      select (p_at at time zone timezone) as local_at from shops where id = app_shop_id()
    ), raw as materialized (
      select (l.ordinality - 1)::int as line,
             (l.value ->> 'product_id')::uuid as product_id,
             (l.value ->> 'variant_id')::uuid as variant_id,
             (l.value ->> 'quantity')::numeric as quantity,
             (l.value ->> 'unit_price_xaf')::bigint as unit_price_xaf,
             round((l.value ->> 'quantity')::numeric * (l.value ->> 'unit_price_xaf')::bigint)::bigint as gross_xaf,
             coalesce((l.value ->> 'discount_xaf')::bigint, 0) as asked_discount_xaf
        from jsonb_array_elements(p_lines) with ordinality l
    ), lines as (
      select raw.*, least(asked_discount_xaf, greatest(gross_xaf, 0)) as line_discount_xaf,
             greatest(0, gross_xaf - least(asked_discount_xaf, greatest(gross_xaf, 0))) as net_xaf,
             -- One primary-key probe per line. Compared with a column of `raw` (materialized, so that
             -- it stays a column), not with a cast of the JSON: a cast is not leakproof, so row-level
             -- security would filter the shop's products first and check the id on each, a scan of
             -- the shop's products (which the join this replaces was planned as too).
             (select pr.category_id from products pr where pr.shop_id = app_shop_id() and pr.id = raw.product_id) as category_id
        from raw
    ), basket as (
      select coalesce(sum(net_xaf), 0) as total_xaf from lines
    ), live as (
      select p.* from promotions p, shop, basket
       where p.shop_id = app_shop_id() and p.deleted_at is null and p.active
         and (p.starts_at is null or p.starts_at <= p_at)
         and (p.ends_at is null or p_at < p.ends_at)
         and (p.days_of_week is null or extract(isodow from shop.local_at)::smallint = any (p.days_of_week))
         and (p.starts_time is null or p.ends_time is null
              or case when p.starts_time <= p.ends_time
                   then shop.local_at::time >= p.starts_time and shop.local_at::time < p.ends_time
                   else shop.local_at::time >= p.starts_time or shop.local_at::time < p.ends_time end)
         and p.min_total_xaf <= basket.total_xaf
    )
    select l.line, l.gross_xaf, l.line_discount_xaf, best.id, coalesce(best.discount_xaf, 0)
      from lines l
      left join lateral (
        select c.id, c.discount_xaf from (
          select p.id, p.created_at,
                 promotion_line_discount(p.kind, p.value, p.min_quantity, l.quantity, l.unit_price_xaf, l.net_xaf) as discount_xaf
            from live p
           where (cardinality(p.product_ids) + cardinality(p.category_ids) + cardinality(p.variant_ids) = 0
                  or l.product_id = any (p.product_ids)
                  or l.category_id = any (p.category_ids)
                  or l.variant_id = any (p.variant_ids))
             and (p.kind = 'buy_x_get_y' or l.quantity >= p.min_quantity)
        ) c
        where c.discount_xaf > 0
        order by c.discount_xaf desc, c.created_at, c.id
        limit 1
      ) best on true
     order by l.line
$$;
