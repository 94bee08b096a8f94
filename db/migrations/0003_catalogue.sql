-- Catalogue and stock: categories, products, options, variants, their SKUs and barcodes, the stock
-- ledger, adjustments and stocktakes. Categories, products, options and variants are pulled by the
-- tills: each carries txid (sync cursor) and deleted_at (deletions travel as records).

create extension if not exists unaccent;
create extension if not exists pg_trgm;

create table categories (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 120),
  parent_id uuid references categories (id),
  sort_order integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create index categories_list_idx on categories (shop_id, sort_order, id) where deleted_at is null;
create index categories_sync_idx on categories (shop_id, txid, id);
alter table categories enable row level security;
create policy categories_tenant on categories using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table products (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 200),
  search_name text not null default '',
  sku text check (char_length(sku) between 1 and 64),
  barcode text check (char_length(barcode) between 1 and 64),
  category_id uuid references categories (id),
  price_xaf bigint not null check (price_xaf >= 0),
  cost_xaf bigint not null default 0 check (cost_xaf >= 0),
  vat_rate numeric(5, 2) not null check (vat_rate between 0 and 100),
  unit text not null default 'piece' check (unit in ('piece', 'kg', 'g', 'l', 'ml', 'm')),
  tracked boolean not null default true,
  reorder_level numeric(14, 3) not null default 0 check (reorder_level >= 0),
  -- Only stock_move() changes it; for a product with variants it is the sum of theirs.
  on_hand numeric(14, 3) not null default 0,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create index products_list_idx on products (shop_id, name, id) where deleted_at is null;
create index products_category_idx on products (shop_id, category_id) where deleted_at is null;
create index products_search_idx on products using gin (search_name gin_trgm_ops) where deleted_at is null;
create index products_sync_idx on products (shop_id, txid, id);
alter table products enable row level security;
create policy products_tenant on products using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table product_options (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  product_id uuid not null references products (id),
  name text not null check (char_length(name) between 1 and 60),
  "values" text[] not null,
  position integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create index product_options_product_idx on product_options (product_id, position) where deleted_at is null;
create index product_options_sync_idx on product_options (shop_id, txid, id);
alter table product_options enable row level security;
create policy product_options_tenant on product_options using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table variants (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  product_id uuid not null references products (id),
  -- Axis name to value, e.g. {"Taille": "M", "Couleur": "Rouge"}.
  options jsonb not null default '{}' check (jsonb_typeof(options) = 'object'),
  sku text check (char_length(sku) between 1 and 64),
  barcode text check (char_length(barcode) between 1 and 64),
  price_xaf bigint not null check (price_xaf >= 0),
  on_hand numeric(14, 3) not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create unique index variants_combination_key on variants (product_id, options) where deleted_at is null;
create index variants_sync_idx on variants (shop_id, txid, id);
alter table variants enable row level security;
create policy variants_tenant on variants using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Every live SKU and barcode of the shop, products' and variants' alike, in one place: uniqueness
-- across both tables, and a scan resolved by one index lookup.
create table catalogue_codes (
  shop_id uuid not null references shops (id),
  kind text not null check (kind in ('sku', 'barcode')),
  code text not null,
  product_id uuid not null references products (id),
  variant_id uuid references variants (id),
  primary key (shop_id, kind, code)
);
create index catalogue_codes_owner_idx on catalogue_codes (product_id, variant_id);
alter table catalogue_codes enable row level security;
create policy catalogue_codes_tenant on catalogue_codes using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- The stock ledger. Append-only; on_hand always equals the sum of an item's movements.
create table stock_movements (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  product_id uuid not null references products (id),
  variant_id uuid references variants (id),
  type text not null check (type in ('sale', 'void', 'refund', 'purchase', 'purchase_return', 'adjustment', 'stocktake')),
  quantity numeric(14, 3) not null check (quantity <> 0),
  on_hand_after numeric(14, 3) not null,
  reason text check (char_length(reason) <= 255),
  source_type text check (char_length(source_type) <= 40),
  source_id uuid,
  user_id uuid references users (id),
  -- clock_timestamp: movements of one transaction keep their order.
  created_at timestamptz not null default clock_timestamp()
);
create index stock_movements_product_idx on stock_movements (shop_id, product_id, created_at desc, id desc);
create index stock_movements_source_idx on stock_movements (shop_id, source_type, source_id);
alter table stock_movements enable row level security;
create policy stock_movements_tenant on stock_movements using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on stock_movements from pos_app;

create table stocktakes (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  status text not null default 'open' check (status in ('open', 'committed', 'cancelled')),
  note text check (char_length(note) <= 255),
  category_id uuid references categories (id),
  created_by uuid references users (id) default app_user_id(),
  committed_by uuid references users (id),
  committed_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index stocktakes_list_idx on stocktakes (shop_id, created_at desc, id desc);
alter table stocktakes enable row level security;
create policy stocktakes_tenant on stocktakes using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table stocktake_items (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  stocktake_id uuid not null references stocktakes (id),
  product_id uuid not null references products (id),
  variant_id uuid references variants (id),
  expected_quantity numeric(14, 3) not null,
  counted_quantity numeric(14, 3) check (counted_quantity >= 0),
  counted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (stocktake_id, product_id, variant_id)
);
create index stocktake_items_stocktake_idx on stocktake_items (stocktake_id, product_id, variant_id);
alter table stocktake_items enable row level security;
create policy stocktake_items_tenant on stocktake_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
