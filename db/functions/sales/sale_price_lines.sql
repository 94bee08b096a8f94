-- The VAT inside a VAT-included amount: round(total x rate / (100 + rate)), half away from zero. The
-- one VAT rule of sale lines and quote lines.
create or replace function vat_included(p_total_xaf bigint, p_rate numeric) returns bigint
  language sql immutable parallel safe
  as $$ select round(p_total_xaf * p_rate / (100 + p_rate))::bigint $$;

-- The pricing of a basket, shared by sales (sale_record) and quotes (quote_record): each line resolved
-- against the catalogue (its product and variant, which the caller has locked or may read), its
-- unit price and VAT rate (the catalogue's when omitted), the caller's limits, then the best
-- promotion per line (promotion_discounts, the one promotion rule).
-- p_items, p_product_ids, p_variant_ids: the basket's lines and their ids, in order, read in p_shop only.
-- p_restricted: a cashier selling online, held to the catalogue (CONTRACT section 3): another price
-- or VAT rate is a 403 unless the shop's cashier_price_override is on, a line discount beyond
-- cashier_max_discount_percent of the line's gross a 422 discount_not_allowed.
-- p_offline: an offline sale's lines may carry the catalogue's last figures of a product gone since.
-- p_quoted: a quote being converted: each line keeps the promotion it was quoted with
-- (promotion_id, promotion_discount_xaf) whatever today's promotions are.
-- Returns the lines as a JSON array: product_id, variant_id, name, quantity, unit_price_xaf, vat_rate,
-- tracked, cost_xaf, catalogue_price_xaf, catalogue_vat_rate, gross_xaf, discount_xaf (capped at the
-- gross), promotion_id, promotion_discount_xaf, net_xaf. Errors name the line (`items.N...`). Each line
-- fits a bigint (quantities and prices are bounded), but 500 of them may not: a basket beyond a
-- quadrillion XAF is refused (422 on items) rather than overflowing the ledger.
create or replace function sale_price_lines(p_items jsonb[], p_product_ids uuid[], p_variant_ids uuid[], p_shop shops,
                                            p_restricted boolean, p_offline boolean, p_at timestamptz, p_quoted boolean default false)
  returns jsonb
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  as $$
declare
  the_shop constant uuid := p_shop.id;
  item record;
  priced record;
  lines jsonb := '[]';
  product products;
  variant variants;
  line_name text;
  unit_price bigint;
  vat numeric;
  catalogue_price bigint;
  catalogue_vat numeric;
  line_discount bigint;
  promotion uuid;
  promotion_discount bigint;
begin
  -- Each line's product and variant read for the whole basket in one statement (a statement per
  -- line cost more than its probes), then checked line by line. Each is a scalar subquery on the ids
  -- as uuids, so a primary-key probe per line (joined, the planner hashed the shop's products;
  -- compared with `->>` of the JSON line, which is not leakproof, row-level security kept the
  -- primary key from being used); `offset 0` evaluates each once.
  for item in
    select b.v, b.i, b.product, b.variant, item_name((b.product).name, (b.variant).options) as catalogue_name,
           exists (select 1 from variants w where w.shop_id = the_shop and w.product_id = (b.product).id and w.deleted_at is null) as has_variants
      from (select l.v, (l.n - 1)::int as i,
                   (select p from products p where p.shop_id = the_shop and p.id = l.product_id and p.deleted_at is null) as product,
                   (select x from variants x where x.shop_id = the_shop and x.id = l.variant_id and x.product_id = l.product_id and x.deleted_at is null) as variant
              from unnest(p_items, p_product_ids, p_variant_ids) with ordinality as l (v, product_id, variant_id, n)
            offset 0) b
     order by b.i
  loop
    product := item.product;
    variant := item.variant;
    if item.v ->> 'product_id' is not null then
      if product.id is null then
        perform raise_app_error(422, 'validation_failed', 'No such product in this shop.', 'items.' || item.i || '.product_id');
      end if;
      if item.v ->> 'variant_id' is not null then
        if variant.id is null then
          perform raise_app_error(422, 'validation_failed', 'No such variant of this product.', 'items.' || item.i || '.variant_id');
        end if;
      elsif item.has_variants then
        perform raise_app_error(422, 'variant_required', 'This product is sold by variant: name one.', 'items.' || item.i || '.variant_id');
      end if;
      line_name := coalesce(item.v ->> 'name', item.catalogue_name);
      catalogue_price := coalesce(variant.price_xaf, product.price_xaf);
      catalogue_vat := product.vat_rate;
      unit_price := coalesce((item.v ->> 'unit_price_xaf')::bigint, catalogue_price);
      vat := coalesce((item.v ->> 'vat_rate')::numeric, catalogue_vat);
      line_discount := coalesce((item.v ->> 'discount_xaf')::bigint, 0);
      if p_restricted and not p_shop.cashier_price_override and (unit_price <> catalogue_price or vat <> catalogue_vat) then
        perform raise_app_error(403, 'forbidden', 'This action is unauthorized.');
      end if;
      if p_restricted and line_discount > round((item.v ->> 'quantity')::numeric * unit_price) * p_shop.cashier_max_discount_percent / 100 then
        perform raise_app_error(422, 'discount_not_allowed',
          format('A cashier may take at most %s%% off a line: %s XAF here.', trim_scale(p_shop.cashier_max_discount_percent),
                 floor(round((item.v ->> 'quantity')::numeric * unit_price) * p_shop.cashier_max_discount_percent / 100)),
          'items.' || item.i || '.discount_xaf');
      end if;
    else
      if item.v ->> 'variant_id' is not null then
        perform raise_app_error(422, 'validation_failed', 'A variant needs its product_id.', 'items.' || item.i || '.product_id');
      end if;
      if item.v ->> 'name' is null or item.v ->> 'unit_price_xaf' is null then
        perform raise_app_error(422, 'validation_failed', 'A line without a product needs a name and a unit price.', 'items.' || item.i || '.product_id');
      end if;
      line_name := item.v ->> 'name';
      unit_price := (item.v ->> 'unit_price_xaf')::bigint;
      vat := coalesce((item.v ->> 'vat_rate')::numeric, p_shop.default_vat_rate);
      -- No catalogue to compare with, except on an offline line whose product went since
      -- (sale_offline_lines passes on the catalogue's last figures).
      catalogue_price := case when p_offline then (item.v ->> 'catalogue_price_xaf')::bigint end;
      catalogue_vat := case when p_offline then (item.v ->> 'catalogue_vat_rate')::numeric end;
    end if;
    lines := lines || jsonb_build_array(jsonb_build_object(
      'product_id', product.id, 'variant_id', variant.id, 'name', line_name,
      'quantity', (item.v ->> 'quantity')::numeric, 'unit_price_xaf', unit_price,
      'discount_xaf', coalesce((item.v ->> 'discount_xaf')::bigint, 0), 'vat_rate', vat,
      'tracked', coalesce(product.tracked, false), 'cost_xaf', coalesce(product.cost_xaf, 0),
      'catalogue_price_xaf', catalogue_price, 'catalogue_vat_rate', catalogue_vat));
  end loop;

  -- Promotions (the one pricing rule), then each line's net. A quote converted keeps its own.
  for priced in select * from promotion_discounts(lines, p_at) loop
    if p_quoted then
      promotion := (p_items[priced.line + 1] ->> 'promotion_id')::uuid;
      promotion_discount := coalesce((p_items[priced.line + 1] ->> 'promotion_discount_xaf')::bigint, 0);
    else
      promotion := priced.promotion_id;
      promotion_discount := priced.discount_xaf;
    end if;
    lines := jsonb_set(lines, array[priced.line::text], (lines -> priced.line) || jsonb_build_object(
      'gross_xaf', priced.gross_xaf, 'discount_xaf', priced.line_discount_xaf,
      'promotion_id', promotion, 'promotion_discount_xaf', promotion_discount,
      'net_xaf', priced.gross_xaf - priced.line_discount_xaf - promotion_discount));
  end loop;
  if (select sum((value ->> 'gross_xaf')::numeric) from jsonb_array_elements(lines)) > 1000000000000000 then
    perform raise_app_error(422, 'validation_failed', 'The sale is too large to record.', 'items');
  end if;
  return lines;
end $$;
