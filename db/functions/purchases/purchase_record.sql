-- Receives goods (CONTRACT section 7), one transaction: p_purchase {supplier_id, reference, note,
-- vat_rate, items: [{product_id, variant_id, name, quantity, unit_cost_xaf, batch_number, expiry_date}]}.
-- Costs exclude VAT: a line is round(quantity * unit_cost_xaf), vat_xaf = round(subtotal * vat_rate / 100).
-- A line naming a product or a variant (the variant alone is enough) moves its stock in (tracked
-- products), into the batch of its number and expiry date when it gives either, and refreshes the
-- product's cost_xaf (variants share their product's cost); a line with only a name is a cost that is
-- not stock (transport). Journal, one entry: 601 and 4452 debited against the supplier 401, and the
-- goods into stock at cost (31 against 6031, as a sale books them out). The supplier's balance grows
-- by the total. Returns the purchase's id.
create or replace function purchase_record(p_purchase jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  purchase_id uuid := coalesce((p_purchase ->> 'id')::uuid, gen_random_uuid());
  supplier suppliers;
  rate numeric := coalesce((p_purchase ->> 'vat_rate')::numeric, 0);
  item record;
  product products;
  variant variants;
  line_name text;
  line_total bigint;
  subtotal numeric := 0;
  vat bigint;
  stock_value numeric := 0;
  batch uuid;
  ids uuid[];
  locked uuid;
begin
  if p_purchase ->> 'supplier_id' is not null then
    select * into supplier from suppliers where id = (p_purchase ->> 'supplier_id')::uuid and deleted_at is null for update;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'No such supplier in this shop.', 'supplier_id');
    end if;
  end if;

  -- The products named, locked one by one in id order (as sales lock them): concurrent receipts and
  -- sales queue instead of deadlocking, and each lock is a primary-key probe whatever the shop's size.
  select array_agg(distinct coalesce((value ->> 'product_id')::uuid,
                                     (select v.product_id from variants v where v.id = (value ->> 'variant_id')::uuid)))
    into ids from jsonb_array_elements(p_purchase -> 'items');
  for locked in select id from unnest(ids) as basket (id) where id is not null order by id loop
    perform 1 from products where id = locked for update;
  end loop;

  insert into purchases (id, supplier_id, reference, note, vat_rate, subtotal_xaf, vat_xaf, total_xaf)
  values (purchase_id, supplier.id, p_purchase ->> 'reference', p_purchase ->> 'note', rate, 0, 0, 0);

  for item in
    select value as v, (ordinality - 1)::int as i from jsonb_array_elements(p_purchase -> 'items') with ordinality order by ordinality
  loop
    product := null;
    variant := null;
    if item.v ->> 'variant_id' is not null then
      select * into variant from variants where id = (item.v ->> 'variant_id')::uuid and deleted_at is null;
      if not found or (item.v ->> 'product_id' is not null and variant.product_id <> (item.v ->> 'product_id')::uuid) then
        perform raise_app_error(422, 'validation_failed', 'No such variant in this shop.', 'items.' || item.i || '.variant_id');
      end if;
      select * into product from products where id = variant.product_id and deleted_at is null;
      if not found then
        perform raise_app_error(422, 'validation_failed', 'No such variant in this shop.', 'items.' || item.i || '.variant_id');
      end if;
    elsif item.v ->> 'product_id' is not null then
      select * into product from products where id = (item.v ->> 'product_id')::uuid and deleted_at is null;
      if not found then
        perform raise_app_error(422, 'validation_failed', 'No such product in this shop.', 'items.' || item.i || '.product_id');
      end if;
      if product.tracked and exists (select 1 from variants w where w.product_id = product.id and w.deleted_at is null) then
        perform raise_app_error(422, 'variant_required', 'This product keeps its stock on its variants: name one.', 'items.' || item.i || '.variant_id');
      end if;
    elsif item.v ->> 'name' is null then
      perform raise_app_error(422, 'validation_failed', 'A line names a product, a variant, or at least what it is.', 'items.' || item.i || '.name');
    end if;
    if (product.id is null or not product.tracked) and (item.v ->> 'batch_number' is not null or item.v ->> 'expiry_date' is not null) then
      perform raise_app_error(422, 'validation_failed', 'Only goods whose stock is tracked come in batches.', 'items.' || item.i || '.batch_number');
    end if;
    line_name := coalesce(item.v ->> 'name', item_name(product.name, variant.options));
    line_total := round((item.v ->> 'quantity')::numeric * (item.v ->> 'unit_cost_xaf')::bigint)::bigint;
    subtotal := subtotal + line_total;
    if subtotal > 1000000000000000 then
      perform raise_app_error(422, 'validation_failed', 'The purchase is too large to record.', 'items');
    end if;
    batch := null;
    if product.id is not null then
      update products set cost_xaf = (item.v ->> 'unit_cost_xaf')::bigint where id = product.id and cost_xaf <> (item.v ->> 'unit_cost_xaf')::bigint;
      if product.tracked then
        if coalesce((select v.on_hand from variants v where v.id = variant.id), (select p.on_hand from products p where p.id = product.id))
           + (item.v ->> 'quantity')::numeric >= 100000000000 then
          perform raise_app_error(422, 'validation_failed', 'The stock would be too large to record.', 'items.' || item.i || '.quantity');
        end if;
        perform stock_move(product.id, variant.id, 'purchase', (item.v ->> 'quantity')::numeric, p_purchase ->> 'reference', 'purchase', purchase_id);
        stock_value := stock_value + line_total;
        if item.v ->> 'batch_number' is not null or item.v ->> 'expiry_date' is not null then
          batch := batch_receive(product.id, variant.id, item.v ->> 'batch_number', (item.v ->> 'expiry_date')::date,
                                 (item.v ->> 'quantity')::numeric, (item.v ->> 'unit_cost_xaf')::bigint, purchase_id);
        end if;
      end if;
    end if;
    insert into purchase_items (purchase_id, line_no, product_id, variant_id, name, quantity, unit_cost_xaf, total_xaf,
                                batch_number, expiry_date, batch_id)
    values (purchase_id, item.i + 1, product.id, variant.id, line_name, (item.v ->> 'quantity')::numeric,
            (item.v ->> 'unit_cost_xaf')::bigint, line_total, item.v ->> 'batch_number', (item.v ->> 'expiry_date')::date, batch);
  end loop;

  vat := round(subtotal * rate / 100)::bigint;
  update purchases set subtotal_xaf = subtotal, vat_xaf = vat, total_xaf = subtotal + vat,
                       status = case when subtotal + vat = 0 then 'paid' else 'unpaid' end
   where id = purchase_id;
  if supplier.id is not null then
    update suppliers set balance_xaf = balance_xaf + subtotal + vat where id = supplier.id;
  end if;

  perform journal_post('purchase', purchase_id, coalesce('Purchase ' || (p_purchase ->> 'reference'), 'Purchase'),
    jsonb_build_array(jsonb_build_object('account', '601', 'debit_xaf', subtotal),
                      jsonb_build_object('account', '4452', 'debit_xaf', vat),
                      jsonb_build_object('account', '401', 'credit_xaf', subtotal + vat))
    || journal_stock_change_lines(stock_value::bigint));
  return purchase_id;
end $$;
