-- Promotions and the pricing function the sale procedure and the preview both use. Promotions are
-- pulled by the tills (txid, deleted_at).

-- Promotion days and hours are the shop's local time.
alter table shops add column timezone text not null default 'Africa/Douala';
create function shops_check_timezone() returns trigger
  language plpgsql
  as $$
begin
  if not exists (select 1 from pg_timezone_names where name = new.timezone) then
    perform raise_app_error(422, 'validation_failed', 'Must be an IANA time zone, such as Africa/Douala.', 'timezone');
  end if;
  return new;
end $$;
create trigger shops_check_timezone before insert or update of timezone on shops
  for each row execute function shops_check_timezone();

-- A promotion with no product_ids, category_ids or variant_ids applies to the whole sale (percent
-- only); otherwise to the lines it names. Kinds:
--   percent      value % off the line (0 < value <= 100)
--   amount_xaf   value XAF off each unit
--   price_xaf    each unit sold at value XAF
--   buy_x_get_y  buy min_quantity, get value free: in each group of (min_quantity + value) units,
--                value units are free
create table promotions (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 160),
  kind text not null check (kind in ('percent', 'amount_xaf', 'buy_x_get_y', 'price_xaf')),
  value numeric(14, 2) not null check (value >= 0),
  product_ids uuid[] not null default '{}',
  category_ids uuid[] not null default '{}',
  variant_ids uuid[] not null default '{}',
  min_quantity numeric(14, 3) not null default 0 check (min_quantity >= 0),
  min_total_xaf bigint not null default 0 check (min_total_xaf >= 0),
  starts_at timestamptz,
  ends_at timestamptz,
  -- ISO days, Monday = 1; null: every day.
  days_of_week smallint[] check (days_of_week <@ array[1, 2, 3, 4, 5, 6, 7]::smallint[]),
  -- Daily window in the shop's time zone; ends before it starts: over midnight.
  starts_time time,
  ends_time time,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id(),
  check (starts_at is null or ends_at is null or ends_at > starts_at)
);
create index promotions_live_idx on promotions (shop_id, created_at, id) where deleted_at is null;
create index promotions_sync_idx on promotions (shop_id, txid, id);
create trigger promotions_touch before update on promotions for each row execute function touch_updated_at();
create trigger promotions_stamp before update on promotions for each row execute function stamp_txid();
alter table promotions enable row level security;
create policy promotions_tenant on promotions using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- The discount a promotion gives a line of quantity q at unit price p whose net (after the line's own
-- discount) is p_net_xaf; never more than the net, never negative. Rounding half away from zero.
create function promotion_line_discount(p_kind text, p_value numeric, p_min_quantity numeric,
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
create function promotion_discounts(p_lines jsonb, p_at timestamptz)
  returns table (line integer, gross_xaf bigint, line_discount_xaf bigint, promotion_id uuid, discount_xaf bigint)
  language sql stable
  as $$
    with shop as (
      select (p_at at time zone timezone) as local_at from shops where id = app_shop_id()
    ), raw as (
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
             greatest(0, gross_xaf - least(asked_discount_xaf, greatest(gross_xaf, 0))) as net_xaf
        from raw
    ), basket as (
      select coalesce(sum(net_xaf), 0) as total_xaf from lines
    ), live as (
      select p.* from promotions p, shop, basket
       where p.deleted_at is null and p.active
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
      left join products pr on pr.id = l.product_id
      left join lateral (
        select c.id, c.discount_xaf from (
          select p.id, p.created_at,
                 promotion_line_discount(p.kind, p.value, p.min_quantity, l.quantity, l.unit_price_xaf, l.net_xaf) as discount_xaf
            from live p
           where (cardinality(p.product_ids) + cardinality(p.category_ids) + cardinality(p.variant_ids) = 0
                  or l.product_id = any (p.product_ids)
                  or pr.category_id = any (p.category_ids)
                  or l.variant_id = any (p.variant_ids))
             and (p.kind = 'buy_x_get_y' or l.quantity >= p.min_quantity)
        ) c
        where c.discount_xaf > 0
        order by c.discount_xaf desc, c.created_at, c.id
        limit 1
      ) best on true
     order by l.line
$$;
