-- Catalogue and stock: categories, products, options, variants, their SKUs and barcodes, the stock
-- ledger, adjustments and stocktakes. Categories, products, options and variants are pulled by the
-- tills: each carries txid (sync cursor) and deleted_at (deletions travel as records).

create extension if not exists unaccent;
create extension if not exists pg_trgm;

-- Text as searched: lower case, accents removed ("Café" is found by "cafe").
create function search_text(p_text text) returns text
  language sql stable parallel safe
  as $$ select lower(unaccent(coalesce(p_text, ''))) $$;

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
create trigger categories_touch before update on categories for each row execute function touch_updated_at();
create trigger categories_stamp before update on categories for each row execute function stamp_txid();
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
create trigger products_touch before update on products for each row execute function touch_updated_at();
create trigger products_stamp before update on products for each row execute function stamp_txid();
alter table products enable row level security;
create policy products_tenant on products using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Keeps a table's search_name the searchable form of its name (products here, customers later).
create function set_search_name() returns trigger
  language plpgsql
  as $$
begin
  new.search_name := search_text(new.name);
  return new;
end $$;
create trigger products_search_name before insert or update of name on products
  for each row execute function set_search_name();

-- p_text with LIKE's wildcards taken literally.
create function like_escape(p_text text) returns text
  language sql immutable parallel safe
  as $$ select replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_') $$;

-- Products of the caller's shop whose accent-free name contains p_text (as typed). Row-level security keeps a non-leakproof operator such as LIKE from being an index
-- condition, so the trigram index would never be used under the app role: this runs as the owner
-- and filters on the caller's shop itself.
create function products_matching_name(p_text text)
  returns table (id uuid)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select p.id from products p
     where p.shop_id = app_shop_id() and p.deleted_at is null
       and p.search_name like '%' || search_text(like_escape(p_text)) || '%'
$$;

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
create trigger product_options_touch before update on product_options for each row execute function touch_updated_at();
create trigger product_options_stamp before update on product_options for each row execute function stamp_txid();
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
create trigger variants_touch before update on variants for each row execute function touch_updated_at();
create trigger variants_stamp before update on variants for each row execute function stamp_txid();
alter table variants enable row level security;
create policy variants_tenant on variants using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Timestamps as the JSON answers write them (JavaScript's toISOString: UTC, milliseconds).
create function iso_time(p_time timestamptz) returns text
  language sql stable parallel safe
  as $$ select to_char(p_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- A variant in the shape of the API's Variant record.
create function variant_json(v variants) returns jsonb
  language sql stable parallel safe
  as $$
    select jsonb_build_object('id', v.id, 'product_id', v.product_id, 'options', v.options, 'sku', v.sku,
      'barcode', v.barcode, 'price_xaf', v.price_xaf, 'on_hand', v.on_hand,
      'created_at', iso_time(v.created_at), 'updated_at', iso_time(v.updated_at))
$$;

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

-- Keeps catalogue_codes in step with a product's or a variant's sku and barcode; a clash is a 409.
create function catalogue_codes_sync() returns trigger
  language plpgsql
  as $$
declare
  owner_product uuid;
  owner_variant uuid;
  kind text;
  code text;
begin
  -- Separate statements: PL/pgSQL resolves every field an expression names, even in a branch not taken.
  if tg_table_name = 'variants' then
    owner_product := new.product_id;
    owner_variant := new.id;
  else
    owner_product := new.id;
  end if;
  delete from catalogue_codes c
   where c.product_id = owner_product and c.variant_id is not distinct from owner_variant;
  if new.deleted_at is not null then
    return new;
  end if;
  foreach kind in array array['sku', 'barcode'] loop
    code := case kind when 'sku' then new.sku else new.barcode end;
    continue when code is null;
    begin
      insert into catalogue_codes (shop_id, kind, code, product_id, variant_id)
      values (new.shop_id, kind, code, owner_product, owner_variant);
    exception when unique_violation then
      perform raise_app_error(409, kind || '_taken',
        case kind when 'sku' then 'This SKU is already used by another product or variant.'
                  else 'This barcode is already used by another product or variant.' end);
    end;
  end loop;
  return new;
end $$;
create trigger products_codes after insert or update of sku, barcode, deleted_at on products
  for each row execute function catalogue_codes_sync();
create trigger variants_codes after insert or update of sku, barcode, deleted_at on variants
  for each row execute function catalogue_codes_sync();

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

-- The one way stock changes: locks the product (then the variant), moves on_hand by p_delta, writes
-- the movement. A product with variants keeps its stock on them; its own on_hand is their sum.
create function stock_move(p_product_id uuid, p_variant_id uuid, p_type text, p_delta numeric,
                           p_reason text, p_source_type text, p_source_id uuid)
  returns stock_movements
  language plpgsql volatile
  as $$
declare
  product products;
  after numeric;
  movement stock_movements;
begin
  select * into product from products where id = p_product_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'This product does not exist in this shop.', 'product_id');
  end if;
  if not product.tracked then
    perform raise_app_error(422, 'product_not_tracked', 'This product does not track stock.', 'product_id');
  end if;
  if p_variant_id is null then
    if exists (select 1 from variants where product_id = p_product_id and deleted_at is null) then
      perform raise_app_error(422, 'variant_required', 'This product keeps its stock on its variants: name one.', 'variant_id');
    end if;
    update products set on_hand = on_hand + p_delta where id = p_product_id returning on_hand into after;
  else
    update variants set on_hand = on_hand + p_delta
     where id = p_variant_id and product_id = p_product_id and deleted_at is null
     returning on_hand into after;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This variant does not belong to this product.', 'variant_id');
    end if;
    update products set on_hand = on_hand + p_delta where id = p_product_id;
  end if;
  insert into stock_movements (product_id, variant_id, type, quantity, on_hand_after, reason, source_type, source_id, user_id)
  values (p_product_id, p_variant_id, p_type, p_delta, after, p_reason, p_source_type, p_source_id, app_user_id())
  returning * into movement;
  return movement;
end $$;

-- Sets an item's on-hand to a counted figure: an adjustment movement of the difference, and its value
-- at last cost posted to the journal. Null when the count equals the stock (nothing to record).
create function stock_adjust(p_product_id uuid, p_variant_id uuid, p_new_quantity numeric, p_reason text)
  returns stock_movements
  language plpgsql volatile
  as $$
declare
  product products;
  current numeric;
  movement stock_movements;
begin
  select * into product from products where id = p_product_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if not product.tracked then
    perform raise_app_error(422, 'product_not_tracked', 'This product does not track stock.', 'product_id');
  end if;
  if p_variant_id is null then
    if exists (select 1 from variants where product_id = p_product_id and deleted_at is null) then
      perform raise_app_error(422, 'variant_required', 'This product keeps its stock on its variants: name one.', 'variant_id');
    end if;
    current := product.on_hand;
  else
    select on_hand into current from variants where id = p_variant_id and product_id = p_product_id and deleted_at is null;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This variant does not belong to this product.', 'variant_id');
    end if;
  end if;
  if current = p_new_quantity then
    return null;
  end if;
  movement := stock_move(p_product_id, p_variant_id, 'adjustment', p_new_quantity - current, p_reason, 'adjustment', null);
  perform journal_post_stock_change('stock_adjustment', movement.id, coalesce(p_reason, 'Stock adjustment'),
                                    round(movement.quantity * product.cost_xaf)::bigint);
  return movement;
end $$;

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
create trigger stocktakes_touch before update on stocktakes for each row execute function touch_updated_at();
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
create trigger stocktake_items_touch before update on stocktake_items for each row execute function touch_updated_at();
alter table stocktake_items enable row level security;
create policy stocktake_items_tenant on stocktake_items using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Opens a stocktake with the expected on-hand of every tracked item (products without variants, and
-- variants), of one category and its subcategories when p_category_id is given.
create function stocktake_open(p_note text, p_category_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
begin
  insert into stocktakes (note, category_id) values (p_note, p_category_id) returning * into stocktake;
  with recursive scope (id) as (
    select id from categories where id = p_category_id and deleted_at is null
    union
    select c.id from categories c join scope s on c.parent_id = s.id where c.deleted_at is null
  ), counted_products as (
    select p.* from products p
     where p.deleted_at is null and p.tracked
       and (p_category_id is null or p.category_id in (select id from scope))
  )
  insert into stocktake_items (stocktake_id, product_id, variant_id, expected_quantity)
  select stocktake.id, p.id, null, p.on_hand
    from counted_products p
   where not exists (select 1 from variants v where v.product_id = p.id and v.deleted_at is null)
  union all
  select stocktake.id, p.id, v.id, v.on_hand
    from counted_products p join variants v on v.product_id = p.id and v.deleted_at is null;
  return stocktake;
end $$;

-- Records counts (p_counts: [{"item_id", "counted_quantity"}]; null clears a count) while open.
create function stocktake_record_counts(p_stocktake_id uuid, p_counts jsonb)
  returns void
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
  count_row record;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ': counts can no longer change.');
  end if;
  for count_row in
    select ordinality - 1 as position, (value ->> 'item_id')::uuid as item_id, (value ->> 'counted_quantity')::numeric as counted
      from jsonb_array_elements(p_counts) with ordinality
  loop
    update stocktake_items
       set counted_quantity = count_row.counted,
           counted_at = case when count_row.counted is null then null else now() end
     where id = count_row.item_id and stocktake_id = p_stocktake_id;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This item is not part of this stocktake.',
                              'counts.' || count_row.position || '.item_id');
    end if;
  end loop;
end $$;

-- Commits once: each counted item's variance (counted - expected) moves the stock as it is now, so
-- sales made during the count are kept; uncounted items are left alone, and so are items that no
-- longer keep stock of their own (deleted, untracked, or given variants); the variance's value at last
-- cost is posted to the journal. A second or concurrent commit finds the stocktake no longer open.
create function stocktake_commit(p_stocktake_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
  item record;
  movement stock_movements;
  value_xaf bigint := 0;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ' and cannot be committed.');
  end if;
  for item in
    select i.product_id, i.variant_id, i.counted_quantity - i.expected_quantity as variance, p.cost_xaf
      from stocktake_items i
      join products p on p.id = i.product_id and p.deleted_at is null and p.tracked
      left join variants v on v.id = i.variant_id
     where i.stocktake_id = p_stocktake_id
       and i.counted_quantity is not null
       and i.counted_quantity <> i.expected_quantity
       and (i.variant_id is null or v.deleted_at is null)
       -- A product counted on its own that has since been given variants keeps its stock on them.
       and (i.variant_id is not null
            or not exists (select 1 from variants vv where vv.product_id = i.product_id and vv.deleted_at is null))
     order by i.product_id, i.variant_id nulls first
  loop
    movement := stock_move(item.product_id, item.variant_id, 'stocktake', item.variance, 'Stocktake', 'stocktake', p_stocktake_id);
    value_xaf := value_xaf + round(item.variance * item.cost_xaf)::bigint;
  end loop;
  perform journal_post_stock_change('stocktake', p_stocktake_id, coalesce(stocktake.note, 'Stocktake'), value_xaf);
  update stocktakes set status = 'committed', committed_at = now(), committed_by = app_user_id()
   where id = p_stocktake_id returning * into stocktake;
  return stocktake;
end $$;

create function stocktake_cancel(p_stocktake_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ' and cannot be cancelled.');
  end if;
  update stocktakes set status = 'cancelled', cancelled_at = now() where id = p_stocktake_id returning * into stocktake;
  return stocktake;
end $$;

-- EAN-13 check digit of 12 digits.
create function ean13_check_digit(p_digits text) returns text
  language sql immutable parallel safe
  as $$
    select ((10 - (sum(substr(p_digits, i, 1)::int * case when i % 2 = 0 then 3 else 1 end) % 10)) % 10)::text
      from generate_series(1, 12) i
$$;

-- Gives an in-store EAN-13 (prefix 20 to 29) to each chosen product (and, with p_include_variants,
-- variant) that has no barcode; never overwrites one. Chosen: p_product_ids, or p_category_id, or all.
create function catalogue_generate_barcodes(p_product_ids uuid[], p_category_id uuid, p_include_variants boolean)
  returns table (product_id uuid, variant_id uuid, barcode text)
  language plpgsql volatile
  as $$
declare
  target record;
  code text;
begin
  for target in
    select p.id as product_id, null::uuid as variant_id
      from products p
     where p.deleted_at is null and p.barcode is null
       and (p_product_ids is null or p.id = any (p_product_ids))
       and (p_category_id is null or p.category_id = p_category_id)
    union all
    select v.product_id, v.id
      from variants v join products p on p.id = v.product_id and p.deleted_at is null
     where p_include_variants and v.deleted_at is null and v.barcode is null
       and (p_product_ids is null or p.id = any (p_product_ids))
       and (p_category_id is null or p.category_id = p_category_id)
     order by 1, 2 nulls first
  loop
    loop
      code := '2' || floor(random() * 10)::int || lpad(floor(random() * 10000000000)::bigint::text, 10, '0');
      code := code || ean13_check_digit(code);
      begin
        if target.variant_id is null then
          update products set barcode = code where id = target.product_id;
        else
          update variants set barcode = code where id = target.variant_id;
        end if;
        exit;
      exception when sqlstate 'PB409' then
        -- That code is taken in this shop: draw another.
      end;
    end loop;
    product_id := target.product_id;
    variant_id := target.variant_id;
    barcode := code;
    return next;
  end loop;
end $$;
