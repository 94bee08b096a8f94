-- Customers, their credit accounts (debts, settlements and their allocation), loyalty cards, the
-- points ledger and the tier ladder. Customers and tiers are pulled by the tills (txid, deleted_at).

create table customers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 160),
  search_name text not null default '',
  phone text check (char_length(phone) <= 40),
  email text check (char_length(email) <= 160),
  note text check (char_length(note) <= 255),
  credit_ceiling_xaf bigint not null default 0 check (credit_ceiling_xaf >= 0),
  -- Maintained by customer_charge / customer_settle: what the customer owes now.
  balance_xaf bigint not null default 0 check (balance_xaf >= 0),
  -- Maintained by loyalty_post: the sum of the customer's points ledger.
  points bigint not null default 0 check (points >= 0),
  card_no text check (char_length(card_no) between 1 and 60),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create unique index customers_card_key on customers (shop_id, card_no) where deleted_at is null and card_no is not null;
create index customers_list_idx on customers (shop_id, name, id) where deleted_at is null;
create index customers_phone_idx on customers (shop_id, phone) where deleted_at is null;
create index customers_search_idx on customers using gin (search_name gin_trgm_ops) where deleted_at is null;
create index customers_sync_idx on customers (shop_id, txid, id);
alter table customers enable row level security;
create policy customers_tenant on customers using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- What a customer owes, one row per credit sale (or other charge), settled oldest first.
create table customer_debts (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  source_type text not null check (char_length(source_type) between 1 and 40),
  source_id uuid,
  -- 0 once a void or a refund to the account has cancelled it all.
  amount_xaf bigint not null check (amount_xaf >= 0),
  settled_xaf bigint not null default 0 check (settled_xaf >= 0),
  occurred_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  check (settled_xaf <= amount_xaf)
);
create index customer_debts_open_idx on customer_debts (customer_id, occurred_at, id) where settled_xaf < amount_xaf;
create index customer_debts_source_idx on customer_debts (shop_id, source_type, source_id);
alter table customer_debts enable row level security;
create policy customer_debts_tenant on customer_debts using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table customer_payments (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  amount_xaf bigint not null check (amount_xaf > 0),
  method text not null check (method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank')),
  note text check (char_length(note) <= 255),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default now()
);
create index customer_payments_customer_idx on customer_payments (customer_id, created_at desc, id desc);
alter table customer_payments enable row level security;
create policy customer_payments_tenant on customer_payments using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on customer_payments from pos_app;

create table customer_payment_allocations (
  id bigint generated always as identity primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  payment_id uuid not null references customer_payments (id),
  debt_id uuid not null references customer_debts (id),
  amount_xaf bigint not null check (amount_xaf > 0)
);
create index customer_payment_allocations_payment_idx on customer_payment_allocations (payment_id);
alter table customer_payment_allocations enable row level security;
create policy customer_payment_allocations_tenant on customer_payment_allocations using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on customer_payment_allocations from pos_app;

-- The tier ladder of each shop; a customer's tier follows the points earned over the last 12 months.
create table loyalty_tiers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  key text not null check (char_length(key) between 1 and 40),
  name text not null check (char_length(name) between 1 and 60),
  min_points bigint not null check (min_points >= 0),
  multiplier numeric(4, 2) not null check (multiplier between 0 and 10),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create unique index loyalty_tiers_key on loyalty_tiers (shop_id, key) where deleted_at is null;
create unique index loyalty_tiers_min_points on loyalty_tiers (shop_id, min_points) where deleted_at is null;
create index loyalty_tiers_sync_idx on loyalty_tiers (shop_id, txid, id);
alter table loyalty_tiers enable row level security;
create policy loyalty_tiers_tenant on loyalty_tiers using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

insert into loyalty_tiers (shop_id, key, name, min_points, multiplier)
select s.id, t.key, t.name, t.min_points, t.multiplier
  from shops s, (values ('bronze', 'Bronze', 0, 1.0), ('silver', 'Silver', 1000, 1.25), ('gold', 'Gold', 5000, 1.5)) t (key, name, min_points, multiplier);

-- The points ledger: every change of a customer's points is a row; the balance is their sum.
create table loyalty_points (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  kind text not null check (kind in ('earn', 'redeem', 'adjust', 'reverse')),
  points bigint not null check (points <> 0),
  source_type text check (char_length(source_type) <= 40),
  source_id uuid,
  reason text check (char_length(reason) <= 160),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default clock_timestamp()
);
create index loyalty_points_customer_idx on loyalty_points (customer_id, created_at);
create index loyalty_points_source_idx on loyalty_points (shop_id, source_type, source_id);
create index loyalty_points_shop_idx on loyalty_points (shop_id, created_at);
alter table loyalty_points enable row level security;
create policy loyalty_points_tenant on loyalty_points using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on loyalty_points from pos_app;
