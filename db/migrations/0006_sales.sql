-- Sales and what surrounds them: shifts and drawer cash movements, expenses, sales with their items
-- and payments, refunds, gap-free receipt numbers and stored idempotent answers. The procedures that
-- record them are in db/functions/shifts, expenses and sales.

create table shifts (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  user_id uuid not null default app_user_id() references users (id),
  status text not null default 'open' check (status in ('open', 'closed')),
  opening_float_xaf bigint not null check (opening_float_xaf >= 0),
  expected_cash_xaf bigint,
  counted_cash_xaf bigint check (counted_cash_xaf >= 0),
  difference_xaf bigint,
  -- Per method at close: {"cash": {"expected_xaf", "counted_xaf", "difference_xaf"}, ...}
  by_method jsonb,
  note text check (char_length(note) <= 255),
  opened_at timestamptz not null default now(),
  closed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One open shift per cashier.
create unique index shifts_one_open on shifts (user_id) where status = 'open';
create index shifts_list_idx on shifts (shop_id, opened_at desc, id desc);
alter table shifts enable row level security;
create policy shifts_tenant on shifts using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Cash put into or taken out of the drawer that is not a sale (float top-up, bank deposit...).
create table cash_movements (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  shift_id uuid references shifts (id),
  user_id uuid references users (id) default app_user_id(),
  direction text not null check (direction in ('in', 'out')),
  amount_xaf bigint not null check (amount_xaf > 0),
  reason text not null check (char_length(reason) between 1 and 160),
  created_at timestamptz not null default now()
);
create index cash_movements_shift_idx on cash_movements (shift_id);
alter table cash_movements enable row level security;
create policy cash_movements_tenant on cash_movements using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on cash_movements from pos_app;

create table expenses (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  shift_id uuid references shifts (id),
  user_id uuid references users (id) default app_user_id(),
  category text not null check (category in ('rent', 'utilities', 'salaries', 'transport', 'supplies', 'other')),
  amount_xaf bigint not null check (amount_xaf > 0),
  payment_method text not null check (payment_method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank')),
  description text check (char_length(description) <= 255),
  spent_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- An expense is never erased: a delete reverses its journal entry and keeps it, marked deleted.
  deleted_at timestamptz,
  deleted_by uuid references users (id)
);
create index expenses_list_idx on expenses (shop_id, spent_at desc, id desc);
create index expenses_shift_idx on expenses (shift_id);
alter table expenses enable row level security;
create policy expenses_tenant on expenses using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- One counter row per shop: taking the next number locks it until the sale commits, so numbers are
-- gap-free (a rolled-back sale gives its number back).
create table receipt_counters (
  shop_id uuid primary key default app_shop_id() references shops (id),
  last_no bigint not null default 0
);
alter table receipt_counters enable row level security;
create policy receipt_counters_tenant on receipt_counters using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table sales (
  -- Client-supplied (offline tills, idempotent retries) or generated.
  id uuid primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  receipt_no bigint not null,
  status text not null default 'completed' check (status in ('completed', 'voided', 'partially_refunded', 'refunded')),
  customer_id uuid references customers (id),
  device_id uuid,
  cashier_id uuid references users (id) default app_user_id(),
  shift_id uuid references shifts (id),
  note text check (char_length(note) <= 255),
  subtotal_xaf bigint not null,
  discount_xaf bigint not null,
  vat_xaf bigint not null,
  total_xaf bigint not null,
  paid_xaf bigint not null,
  change_xaf bigint not null,
  credit_xaf bigint not null,
  points_earned bigint not null default 0,
  points_redeemed bigint not null default 0,
  offline boolean not null default false,
  -- The request as first received, to tell a retry (same body) from a clash (another body).
  request_hash text not null,
  void_reason text check (char_length(void_reason) <= 255),
  voided_at timestamptz,
  voided_by uuid references users (id),
  -- When the sale happened (an offline sale keeps its own time); recorded_at is when it reached us.
  created_at timestamptz not null default now(),
  recorded_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  txid xid8 not null default pg_current_xact_id(),
  unique (shop_id, receipt_no)
);
create index sales_list_idx on sales (shop_id, created_at desc, id desc);
create index sales_customer_idx on sales (customer_id, created_at);
create index sales_shift_idx on sales (shift_id);
create index sales_sync_idx on sales (shop_id, txid, id);
alter table sales enable row level security;
create policy sales_tenant on sales using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on sales from pos_app;

create table sale_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  -- Deferred: sale_record writes the lines first and the sale, with its receipt number, last.
  sale_id uuid not null references sales (id) deferrable initially deferred,
  line_no integer not null,
  product_id uuid references products (id),
  variant_id uuid references variants (id),
  name text not null check (char_length(name) between 1 and 200),
  quantity numeric(14, 3) not null check (quantity > 0),
  unit_price_xaf bigint not null check (unit_price_xaf >= 0),
  -- The line's own discount, and the promotion's (one at most), then its share of redeemed points.
  discount_xaf bigint not null default 0 check (discount_xaf >= 0),
  promotion_id uuid references promotions (id),
  promotion_discount_xaf bigint not null default 0 check (promotion_discount_xaf >= 0),
  points_discount_xaf bigint not null default 0 check (points_discount_xaf >= 0),
  vat_rate numeric(5, 2) not null check (vat_rate between 0 and 100),
  vat_xaf bigint not null,
  total_xaf bigint not null check (total_xaf >= 0),
  cost_xaf bigint not null default 0,
  refunded_quantity numeric(14, 3) not null default 0 check (refunded_quantity >= 0 and refunded_quantity <= quantity),
  unique (sale_id, line_no)
);
create index sale_items_sale_idx on sale_items (sale_id, line_no);
create index sale_items_product_idx on sale_items (shop_id, product_id);
alter table sale_items enable row level security;
create policy sale_items_tenant on sale_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on sale_items from pos_app;

-- Money in and out for a sale: payments taken, change given, refunds and void reversals paid back.
create table sale_payments (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  sale_id uuid not null references sales (id) deferrable initially deferred,
  kind text not null check (kind in ('payment', 'change', 'refund', 'void')),
  method text not null check (method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank', 'credit')),
  -- Signed as seen from the drawer: payments positive, change, refunds and void reversals negative.
  amount_xaf bigint not null,
  reference text check (char_length(reference) <= 120),
  shift_id uuid references shifts (id),
  refund_id uuid,
  created_at timestamptz not null default now()
);
create index sale_payments_sale_idx on sale_payments (sale_id);
create index sale_payments_shift_idx on sale_payments (shift_id, method);
alter table sale_payments enable row level security;
create policy sale_payments_tenant on sale_payments using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on sale_payments from pos_app;

create table refunds (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  sale_id uuid not null references sales (id),
  method text not null check (method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank', 'credit')),
  reason text check (char_length(reason) <= 255),
  total_xaf bigint not null,
  vat_xaf bigint not null,
  user_id uuid references users (id) default app_user_id(),
  shift_id uuid references shifts (id),
  created_at timestamptz not null default now()
);
create index refunds_sale_idx on refunds (sale_id);
alter table refunds enable row level security;
create policy refunds_tenant on refunds using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on refunds from pos_app;

create table refund_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  -- Deferred: a refund's items are written first and the refund, with their totals, last.
  refund_id uuid not null references refunds (id) deferrable initially deferred,
  sale_item_id uuid not null references sale_items (id),
  quantity numeric(14, 3) not null check (quantity > 0),
  total_xaf bigint not null,
  vat_xaf bigint not null,
  -- The goods back at cost; the last unit of a line takes the remainder, like its total.
  cost_xaf bigint not null default 0
);
create index refund_items_refund_idx on refund_items (refund_id);
alter table refund_items enable row level security;
create policy refund_items_tenant on refund_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on refund_items from pos_app;

-- Answers of POSTs carrying an Idempotency-Key, kept 24 hours: the same key and body answers the
-- stored response; the same key with another body is a 409.
create table idempotency_keys (
  shop_id uuid not null default app_shop_id() references shops (id),
  key text not null check (char_length(key) between 1 and 200),
  request_hash text not null,
  status integer,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (shop_id, key)
);
alter table idempotency_keys enable row level security;
create policy idempotency_keys_tenant on idempotency_keys using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
