-- Quotes (proformas, issue 14, CONTRACT section 8): priced by the sale's own rule (sale_price_lines),
-- reserving no stock, converted into a real sale by sale_record at the quote's prices. A quote and
-- its sale point at each other (quotes.sale_id, sales.quote_id). Quotes are synchronised to the tills
-- (txid), soft-deleted so that a pull can tell a till to drop one.

-- Quote numbers, sequential per shop: a row per shop, locked by the quote being created until commit.
create table quote_counters (
  shop_id uuid primary key default app_shop_id() references shops (id),
  last_no bigint not null default 0
);
alter table quote_counters enable row level security;
create policy quote_counters_tenant on quote_counters using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on quote_counters from pos_app;

create table quotes (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  quote_no bigint not null,
  -- As stored; a draft or sent quote past valid_until is shown as expired (quote_shown_status).
  status text not null default 'draft' check (status in ('draft', 'sent', 'declined', 'expired', 'converted')),
  customer_id uuid references customers (id),
  note text check (char_length(note) <= 255),
  valid_until date not null,
  subtotal_xaf bigint not null check (subtotal_xaf >= 0),
  discount_xaf bigint not null check (discount_xaf >= 0),
  vat_xaf bigint not null check (vat_xaf >= 0),
  total_xaf bigint not null check (total_xaf >= 0),
  sale_id uuid unique references sales (id),
  created_by uuid references users (id) default app_user_id(),
  converted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id(),
  unique (shop_id, quote_no),
  check ((status = 'converted') = (sale_id is not null))
);
create index quotes_list_idx on quotes (shop_id, created_at desc, id desc) where deleted_at is null;
create index quotes_customer_idx on quotes (customer_id, created_at desc) where customer_id is not null and deleted_at is null;
create index quotes_sync_idx on quotes (shop_id, txid, id);
alter table quotes enable row level security;
create policy quotes_tenant on quotes using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on quotes from pos_app;

-- A quote's lines, replaced whole when the quote is updated.
create table quote_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  quote_id uuid not null references quotes (id),
  line_no int not null,
  product_id uuid references products (id),
  variant_id uuid references variants (id),
  name text not null check (char_length(name) between 1 and 200),
  quantity numeric(14, 3) not null check (quantity > 0),
  unit_price_xaf bigint not null check (unit_price_xaf >= 0),
  discount_xaf bigint not null default 0 check (discount_xaf >= 0),
  promotion_id uuid references promotions (id),
  promotion_discount_xaf bigint not null default 0 check (promotion_discount_xaf >= 0),
  vat_rate numeric(5, 2) not null check (vat_rate between 0 and 100),
  vat_xaf bigint not null check (vat_xaf >= 0),
  total_xaf bigint not null check (total_xaf >= 0),
  unique (quote_id, line_no)
);
alter table quote_items enable row level security;
create policy quote_items_tenant on quote_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- The quote a sale was converted from. Null for every other sale, and then no cost to its insert: the
-- index is partial and the foreign key is not checked for a null.
alter table sales add column quote_id uuid references quotes (id);
create unique index sales_quote_idx on sales (quote_id) where quote_id is not null;
