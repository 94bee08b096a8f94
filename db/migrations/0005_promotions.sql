-- Promotions, pulled by the tills (txid, deleted_at). The pricing rule that applies them, to a sale
-- and to its preview alike, is db/functions/promotions/promotion_discounts.sql.

-- Promotion days and hours are the shop's local time.
alter table shops add column timezone text not null default 'Africa/Douala';

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
alter table promotions enable row level security;
create policy promotions_tenant on promotions using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
