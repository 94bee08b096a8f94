-- Suppliers, purchases (supplier invoices, excluding VAT), their payments and returns, and batches
-- with expiry dates (issue 13, CONTRACT section 7). Purchases, their lines, payments and returns are
-- never updated by the API nor deleted: corrections are returns. Their running figures (paid,
-- returned, status) are kept on the purchase row by the procedures under its row lock.

create table suppliers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 160),
  search_name text not null default '',
  phone text check (char_length(phone) <= 40),
  phone_digits text generated always as (nullif(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), '')) stored,
  email text check (char_length(email) <= 254),
  tax_id text check (char_length(tax_id) <= 60),
  address text check (char_length(address) <= 255),
  note text check (char_length(note) <= 255),
  -- What the shop owes: purchases less payments less returns (negative: the supplier owes the shop).
  balance_xaf bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index suppliers_name_idx on suppliers (shop_id, name, id) where deleted_at is null;
alter table suppliers enable row level security;
create policy suppliers_tenant on suppliers using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- A batch: an item's units received under one batch number and expiry date, with what is left of
-- them. The sum of an item's batches never exceeds its on-hand (stock_batches_*: every change of
-- stock keeps it so); the rest of the on-hand is unbatched.
create table batches (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  product_id uuid not null references products (id),
  variant_id uuid references variants (id),
  batch_number text check (char_length(batch_number) between 1 and 80),
  expiry_date date,
  quantity numeric(14, 3) not null default 0 check (quantity >= 0),
  -- Unit cost excluding VAT of its last receipt: what /reports/expiring values it at.
  cost_xaf bigint not null default 0 check (cost_xaf >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (batch_number is not null or expiry_date is not null),
  unique nulls not distinct (shop_id, product_id, variant_id, batch_number, expiry_date)
);
-- First expired, first out: an item's batches with stock, soonest expiry first (undated last).
create index batches_fefo_idx on batches (product_id, variant_id, expiry_date nulls last, created_at, id) where quantity > 0;
create index batches_expiry_idx on batches (shop_id, expiry_date) where quantity > 0 and expiry_date is not null;
alter table batches enable row level security;
create policy batches_tenant on batches using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on batches from pos_app;

-- What each change of stock took from or gave to a batch. A sale's takes carry its id (sale_id), so
-- that its voids and refunds give back to the batches it took from.
create table batch_movements (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  batch_id uuid not null references batches (id),
  type text not null check (type in ('sale', 'void', 'refund', 'purchase', 'purchase_return', 'adjustment', 'stocktake')),
  quantity numeric(14, 3) not null check (quantity <> 0),
  sale_id uuid,
  source_id uuid,
  created_at timestamptz not null default clock_timestamp()
);
create index batch_movements_batch_idx on batch_movements (batch_id, created_at);
create index batch_movements_sale_idx on batch_movements (sale_id) where sale_id is not null;
alter table batch_movements enable row level security;
create policy batch_movements_tenant on batch_movements using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on batch_movements from pos_app;

create table purchases (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  supplier_id uuid references suppliers (id),
  reference text check (char_length(reference) <= 120),
  note text check (char_length(note) <= 255),
  vat_rate numeric(5, 2) not null default 0 check (vat_rate between 0 and 100),
  subtotal_xaf bigint not null check (subtotal_xaf >= 0),
  vat_xaf bigint not null check (vat_xaf >= 0),
  total_xaf bigint not null check (total_xaf >= 0),
  paid_xaf bigint not null default 0 check (paid_xaf >= 0),
  returned_xaf bigint not null default 0 check (returned_xaf >= 0),
  returned_vat_xaf bigint not null default 0 check (returned_vat_xaf >= 0),
  status text not null default 'unpaid' check (status in ('unpaid', 'partially_paid', 'paid')),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (total_xaf = subtotal_xaf + vat_xaf),
  check (returned_xaf <= total_xaf)
);
create index purchases_list_idx on purchases (shop_id, created_at desc, id desc);
create index purchases_supplier_idx on purchases (supplier_id, created_at desc) where supplier_id is not null;
-- What is still owed (the payables report): a paid purchase leaves it.
create index purchases_open_idx on purchases (shop_id, created_at) where status <> 'paid';
alter table purchases enable row level security;
create policy purchases_tenant on purchases using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on purchases from pos_app;

create table purchase_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  purchase_id uuid not null references purchases (id),
  line_no int not null,
  product_id uuid references products (id),
  variant_id uuid references variants (id),
  name text not null check (char_length(name) between 1 and 200),
  quantity numeric(14, 3) not null check (quantity > 0),
  unit_cost_xaf bigint not null check (unit_cost_xaf >= 0),
  total_xaf bigint not null check (total_xaf >= 0),
  batch_number text check (char_length(batch_number) between 1 and 80),
  expiry_date date,
  batch_id uuid references batches (id),
  returned_quantity numeric(14, 3) not null default 0 check (returned_quantity >= 0 and returned_quantity <= quantity),
  unique (purchase_id, line_no)
);
alter table purchase_items enable row level security;
create policy purchase_items_tenant on purchase_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on purchase_items from pos_app;

create table purchase_payments (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  purchase_id uuid not null references purchases (id),
  amount_xaf bigint not null check (amount_xaf > 0),
  method text not null check (method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank')),
  reference text check (char_length(reference) <= 120),
  -- Paid in cash during the caller's open shift: taken from that drawer (shift_totals).
  shift_id uuid references shifts (id),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default now()
);
create index purchase_payments_purchase_idx on purchase_payments (purchase_id, created_at);
create index purchase_payments_shift_idx on purchase_payments (shift_id) where shift_id is not null;
alter table purchase_payments enable row level security;
create policy purchase_payments_tenant on purchase_payments using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on purchase_payments from pos_app;

create table purchase_returns (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  purchase_id uuid not null references purchases (id),
  subtotal_xaf bigint not null check (subtotal_xaf >= 0),
  vat_xaf bigint not null check (vat_xaf >= 0),
  total_xaf bigint not null check (total_xaf >= 0),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default now()
);
create index purchase_returns_purchase_idx on purchase_returns (purchase_id, created_at);
alter table purchase_returns enable row level security;
create policy purchase_returns_tenant on purchase_returns using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on purchase_returns from pos_app;

create table purchase_return_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  return_id uuid not null references purchase_returns (id),
  line_no int not null,
  purchase_item_id uuid not null references purchase_items (id),
  quantity numeric(14, 3) not null check (quantity > 0),
  total_xaf bigint not null check (total_xaf >= 0),
  reason text check (char_length(reason) <= 255)
);
create index purchase_return_items_return_idx on purchase_return_items (return_id);
create index purchase_return_items_item_idx on purchase_return_items (purchase_item_id);
alter table purchase_return_items enable row level security;
create policy purchase_return_items_tenant on purchase_return_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on purchase_return_items from pos_app;

-- The daily digest of stock alerts: one per shop and day of its calendar, however often the task runs.
create table alert_digests (
  shop_id uuid not null references shops (id),
  day date not null,
  sent_at timestamptz not null default now(),
  primary key (shop_id, day)
);
alter table alert_digests enable row level security;
revoke all on alert_digests from pos_app;
