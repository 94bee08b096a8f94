-- The sale, void and refund procedures: each runs whole in one transaction, one round trip.

-- Takes back up to p_amount_xaf of what a sale left on the customer's account, from the part still
-- unsettled. Returns what it took back.
create function customer_uncharge(p_source_id uuid, p_amount_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  debt customer_debts;
  taken bigint;
begin
  select * into debt from customer_debts where source_type = 'sale' and source_id = p_source_id for update;
  if not found or p_amount_xaf <= 0 then
    return 0;
  end if;
  perform 1 from customers where id = debt.customer_id for update;
  taken := least(p_amount_xaf, debt.amount_xaf - debt.settled_xaf);
  if taken > 0 then
    update customer_debts set amount_xaf = amount_xaf - taken where id = debt.id;
    update customers set balance_xaf = balance_xaf - taken where id = debt.customer_id;
  end if;
  return taken;
end $$;

-- Whether any shop has a sale with this id. Row-level security hides other shops' sales, but ids are
-- unique across shops: a till that reuses one must get a 409, not collide halfway through. It tells
-- only whether a random UUID is taken.
create function sale_id_taken(p_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$ select exists (select 1 from sales where id = p_id) $$;

-- Records a sale. p_sale: {id, customer_id, device_id, note, redeem_points, created_at, request_hash,
-- items: [{product_id, variant_id, name, quantity, unit_price_xaf, discount_xaf, vat_rate}],
-- payments: [{method, amount_xaf, reference}]}. p_offline: a sale made on a till without connection,
-- never refused for stock, subscription or credit ceiling (it happened), keeping its created_at.
-- Returns {"id", "replayed"}: replayed when the same id came back with the same body.
create function sale_record(p_sale jsonb, p_offline boolean default false)
  returns jsonb
  language plpgsql volatile
  as $$
declare
  the_sale uuid := (p_sale ->> 'id')::uuid;
  occurred_at timestamptz := coalesce((p_sale ->> 'created_at')::timestamptz, now());
  shop shops;
  customer customers;
  existing sales;
  item record;
  line jsonb;
  lines jsonb := '[]';
  priced record;
  n integer;
  product products;
  variant variants;
  line_name text;
  unit_price bigint;
  vat numeric;
  redeem bigint := coalesce((p_sale ->> 'redeem_points')::bigint, 0);
  redeem_value bigint := 0;
  net_total bigint;
  allocated bigint := 0;
  share bigint;
  line_total bigint;
  subtotal bigint := 0;
  discounts bigint := 0;
  vat_total bigint := 0;
  total bigint := 0;
  paid bigint := 0;
  cash_paid bigint := 0;
  credit_given bigint := 0;
  excess bigint;
  change bigint := 0;
  credit bigint := 0;
  open_shift uuid;
  receipt bigint;
  earned bigint := 0;
  cost_value bigint := 0;
  available numeric;
  journal jsonb := '[]';
  method_total record;
begin
  -- Two identical requests at once: the second waits here, then finds the first's sale.
  perform pg_advisory_xact_lock(hashtextextended('sale:' || the_sale::text, 0));
  select * into existing from sales where id = the_sale;
  if found then
    if existing.request_hash = p_sale ->> 'request_hash' then
      return jsonb_build_object('id', the_sale, 'replayed', true);
    end if;
    perform raise_app_error(409, 'idempotency_conflict', 'A sale with this id was already recorded with other details.');
  end if;
  if sale_id_taken(the_sale) then
    perform raise_app_error(409, 'idempotency_conflict', 'This sale id is already taken.');
  end if;
  select * into shop from shops where id = app_shop_id();

  if p_sale ->> 'customer_id' is not null then
    select * into customer from customers where id = (p_sale ->> 'customer_id')::uuid and deleted_at is null;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', 'customer_id');
    end if;
  end if;

  -- Lock the tracked products, then their variants, in id order: concurrent baskets sharing products
  -- queue instead of deadlocking.
  perform 1 from products
   where id in (select (value ->> 'product_id')::uuid from jsonb_array_elements(p_sale -> 'items'))
   order by id for update;
  perform 1 from variants
   where id in (select (value ->> 'variant_id')::uuid from jsonb_array_elements(p_sale -> 'items'))
   order by id for update;

  -- Resolve each line against the catalogue.
  for item in select value as v, (ordinality - 1)::int as i from jsonb_array_elements(p_sale -> 'items') with ordinality loop
    product := null;
    variant := null;
    if item.v ->> 'product_id' is not null then
      select * into product from products where id = (item.v ->> 'product_id')::uuid and deleted_at is null;
      if not found then
        perform raise_app_error(422, 'validation_failed', 'No such product in this shop.', 'items.' || item.i || '.product_id');
      end if;
      if item.v ->> 'variant_id' is not null then
        select * into variant from variants
         where id = (item.v ->> 'variant_id')::uuid and product_id = product.id and deleted_at is null;
        if not found then
          perform raise_app_error(422, 'validation_failed', 'No such variant of this product.', 'items.' || item.i || '.variant_id');
        end if;
      elsif exists (select 1 from variants where product_id = product.id and deleted_at is null) then
        perform raise_app_error(422, 'variant_required', 'This product is sold by variant: name one.', 'items.' || item.i || '.variant_id');
      end if;
      line_name := coalesce(item.v ->> 'name', product.name ||
        case when variant.id is not null and variant.options <> '{}'
             then ' (' || (select string_agg(value, ', ') from jsonb_each_text(variant.options)) || ')' else '' end);
      unit_price := coalesce((item.v ->> 'unit_price_xaf')::bigint, variant.price_xaf, product.price_xaf);
      vat := coalesce((item.v ->> 'vat_rate')::numeric, product.vat_rate);
    else
      if item.v ->> 'variant_id' is not null then
        perform raise_app_error(422, 'validation_failed', 'A variant needs its product_id.', 'items.' || item.i || '.product_id');
      end if;
      if item.v ->> 'name' is null or item.v ->> 'unit_price_xaf' is null then
        perform raise_app_error(422, 'validation_failed', 'A line without a product needs a name and a unit price.', 'items.' || item.i || '.product_id');
      end if;
      line_name := item.v ->> 'name';
      unit_price := (item.v ->> 'unit_price_xaf')::bigint;
      vat := coalesce((item.v ->> 'vat_rate')::numeric, shop.default_vat_rate);
    end if;
    lines := lines || jsonb_build_array(jsonb_build_object(
      'product_id', product.id, 'variant_id', variant.id, 'name', line_name,
      'quantity', (item.v ->> 'quantity')::numeric, 'unit_price_xaf', unit_price,
      'discount_xaf', coalesce((item.v ->> 'discount_xaf')::bigint, 0), 'vat_rate', vat,
      'tracked', coalesce(product.tracked, false), 'cost_xaf', coalesce(product.cost_xaf, 0)));
  end loop;

  -- Promotions (the one pricing rule), then each line's net.
  for priced in select * from promotion_discounts(lines, occurred_at) loop
    lines := jsonb_set(lines, array[priced.line::text], (lines -> priced.line) || jsonb_build_object(
      'gross_xaf', priced.gross_xaf, 'discount_xaf', priced.line_discount_xaf,
      'promotion_id', priced.promotion_id, 'promotion_discount_xaf', priced.discount_xaf,
      'net_xaf', priced.gross_xaf - priced.line_discount_xaf - priced.discount_xaf));
  end loop;
  -- Each line fits a bigint (quantities and prices are bounded), but 500 of them may not: a sale
  -- beyond a quadrillion XAF is refused rather than overflowing the ledger.
  if (select sum((value ->> 'gross_xaf')::numeric) from jsonb_array_elements(lines)) > 1000000000000000 then
    perform raise_app_error(422, 'validation_failed', 'The sale is too large to record.', 'items');
  end if;
  select coalesce(sum((value ->> 'net_xaf')::bigint), 0) into net_total from jsonb_array_elements(lines);

  -- Redeemed points: their value comes off the lines pro rata (the last line takes the remainder).
  if redeem > 0 then
    if customer.id is null then
      perform raise_app_error(422, 'validation_failed', 'Points can only be redeemed for a named customer.', 'redeem_points');
    end if;
    redeem_value := loyalty_redeem_for_sale(customer.id, the_sale, redeem);
    if redeem_value > net_total then
      perform raise_app_error(422, 'redeem_exceeds_total',
        format('These points are worth %s XAF, more than the sale (%s XAF).', redeem_value, net_total), 'redeem_points');
    end if;
  end if;
  n := jsonb_array_length(lines);
  for i in 0 .. n - 1 loop
    line := lines -> i;
    share := case when redeem_value = 0 or net_total = 0 then 0
                  when i = n - 1 then redeem_value - allocated
                  else floor(redeem_value * (line ->> 'net_xaf')::bigint / net_total::numeric)::bigint end;
    allocated := allocated + share;
    line_total := (line ->> 'net_xaf')::bigint - share;
    lines := jsonb_set(lines, array[i::text], line || jsonb_build_object(
      'points_discount_xaf', share, 'total_xaf', line_total,
      'vat_xaf', round(line_total * (line ->> 'vat_rate')::numeric / (100 + (line ->> 'vat_rate')::numeric))::bigint));
    subtotal := subtotal + (line ->> 'gross_xaf')::bigint;
    discounts := discounts + (line ->> 'discount_xaf')::bigint + (line ->> 'promotion_discount_xaf')::bigint + share;
    total := total + line_total;
    vat_total := vat_total + (lines -> i ->> 'vat_xaf')::bigint;
  end loop;

  -- Payments: money taken, change from cash only, a shortfall on a named customer's account.
  select coalesce(sum((value ->> 'amount_xaf')::bigint) filter (where value ->> 'method' <> 'credit'), 0),
         coalesce(sum((value ->> 'amount_xaf')::bigint) filter (where value ->> 'method' = 'cash'), 0),
         coalesce(sum((value ->> 'amount_xaf')::bigint) filter (where value ->> 'method' = 'credit'), 0)
    into paid, cash_paid, credit_given
    from jsonb_array_elements(coalesce(p_sale -> 'payments', '[]'));
  excess := paid + credit_given - total;
  if excess > 0 then
    if credit_given > 0 then
      perform raise_app_error(422, 'validation_failed', 'Credit cannot exceed what is left to pay.', 'payments');
    end if;
    if excess > cash_paid then
      perform raise_app_error(422, 'change_without_cash', 'Only cash can be given back as change.', 'payments');
    end if;
    change := excess;
  else
    credit := credit_given - excess;
  end if;
  if credit > 0 then
    if customer.id is null then
      perform raise_app_error(422, 'payment_insufficient',
        format('The payments are %s XAF short: only a named customer may buy on credit.', credit - credit_given), 'payments');
    end if;
    perform customer_charge(customer.id, 'sale', the_sale, credit, occurred_at, 'customer_id', not p_offline);
  end if;

  -- Stock: refused beyond on-hand online (unless the shop allows negative stock), never offline.
  if not p_offline and not shop.allow_negative_stock then
    for item in
      select (value ->> 'product_id')::uuid as product_id, (value ->> 'variant_id')::uuid as variant_id,
             sum((value ->> 'quantity')::numeric) as quantity, min(ordinality - 1)::int as i
        from jsonb_array_elements(lines) with ordinality
       where (value ->> 'tracked')::boolean
       group by 1, 2
    loop
      if item.variant_id is null then
        select on_hand into available from products where id = item.product_id;
      else
        select on_hand into available from variants where id = item.variant_id;
      end if;
      if available < item.quantity then
        perform raise_app_error(422, 'insufficient_stock', format('Only %s in stock.', available), 'items.' || item.i || '.quantity');
      end if;
    end loop;
  end if;

  open_shift := current_shift_id();

  for item in select value as v, ordinality::int as line_no from jsonb_array_elements(lines) with ordinality loop
    insert into sale_items (sale_id, line_no, product_id, variant_id, name, quantity, unit_price_xaf, discount_xaf, promotion_id,
                            promotion_discount_xaf, points_discount_xaf, vat_rate, vat_xaf, total_xaf, cost_xaf)
    values (the_sale, item.line_no, (item.v ->> 'product_id')::uuid, (item.v ->> 'variant_id')::uuid, item.v ->> 'name',
            (item.v ->> 'quantity')::numeric, (item.v ->> 'unit_price_xaf')::bigint, (item.v ->> 'discount_xaf')::bigint,
            (item.v ->> 'promotion_id')::uuid, (item.v ->> 'promotion_discount_xaf')::bigint,
            (item.v ->> 'points_discount_xaf')::bigint, (item.v ->> 'vat_rate')::numeric, (item.v ->> 'vat_xaf')::bigint,
            (item.v ->> 'total_xaf')::bigint, (item.v ->> 'cost_xaf')::bigint);
    if (item.v ->> 'tracked')::boolean then
      perform stock_move((item.v ->> 'product_id')::uuid, (item.v ->> 'variant_id')::uuid, 'sale',
                         -(item.v ->> 'quantity')::numeric, null, 'sale', the_sale);
      cost_value := cost_value + round((item.v ->> 'quantity')::numeric * (item.v ->> 'cost_xaf')::bigint)::bigint;
    end if;
  end loop;

  insert into sale_payments (sale_id, kind, method, amount_xaf, reference, shift_id, created_at)
  select the_sale, 'payment', value ->> 'method', (value ->> 'amount_xaf')::bigint, value ->> 'reference', open_shift, occurred_at
    from jsonb_array_elements(coalesce(p_sale -> 'payments', '[]'))
   where (value ->> 'amount_xaf')::bigint > 0;
  if credit > credit_given then
    insert into sale_payments (sale_id, kind, method, amount_xaf, shift_id, created_at)
    values (the_sale, 'payment', 'credit', credit - credit_given, open_shift, occurred_at);
  end if;
  if change > 0 then
    insert into sale_payments (sale_id, kind, method, amount_xaf, shift_id, created_at)
    values (the_sale, 'change', 'cash', -change, open_shift, occurred_at);
  end if;

  if customer.id is not null then
    earned := loyalty_earn_for_sale(customer.id, the_sale, total - credit);
  end if;

  -- The journal: money in (net of change) and the customer's account against sales and VAT collected;
  -- the goods at cost out of stock.
  for method_total in
    select method, sum(amount_xaf) as amount from sale_payments where sale_payments.sale_id = the_sale group by method
  loop
    if method_total.amount > 0 then
      journal := journal || jsonb_build_array(jsonb_build_object(
        'account', case method_total.method when 'credit' then '411' else treasury_account(method_total.method) end,
        'debit_xaf', method_total.amount));
    end if;
  end loop;
  journal := journal || jsonb_build_array(jsonb_build_object('account', '701', 'credit_xaf', total - vat_total),
                                          jsonb_build_object('account', '4431', 'credit_xaf', vat_total));
  perform journal_post('sale', the_sale, 'Sale', journal);
  perform journal_post_stock_change('sale', the_sale, 'Sale at cost', -cost_value);

  if customer.email is not null then
    perform enqueue_job('sale__email_receipt',
      jsonb_build_object('sale_id', the_sale, 'shop_id', app_shop_id(), 'email', customer.email, 'locale', shop.locale),
      'sale_receipt:' || the_sale);
  end if;

  -- The receipt number last: its counter row stays locked until commit (that is what makes numbers
  -- gap-free), so every other sale of the shop waits on it; the shorter that wait, the more sales a
  -- shop's tills get through at once. The lines and payments above refer to this row through
  -- deferred foreign keys.
  insert into receipt_counters (shop_id, last_no) values (app_shop_id(), 1)
  on conflict (shop_id) do update set last_no = receipt_counters.last_no + 1
  returning last_no into receipt;
  insert into sales (id, receipt_no, customer_id, device_id, shift_id, note, subtotal_xaf, discount_xaf, vat_xaf, total_xaf,
                     paid_xaf, change_xaf, credit_xaf, points_earned, points_redeemed, offline, request_hash, created_at)
  values (the_sale, receipt, customer.id, (p_sale ->> 'device_id')::uuid, open_shift, p_sale ->> 'note', subtotal, discounts,
          vat_total, total, paid, change, credit, earned, redeem, p_offline, p_sale ->> 'request_hash', occurred_at);
  return jsonb_build_object('id', the_sale, 'replayed', false);
end $$;

-- Voids a completed sale with no refund: stock back, payments, credit, points and journal reversed by
-- new records; the sale keeps its number and shows as voided.
create function sale_void(p_sale_id uuid, p_reason text)
  returns void
  language plpgsql volatile
  as $$
declare
  sale sales;
  item record;
  entry record;
  open_shift uuid;
  reversed jsonb;
begin
  select * into sale from sales where id = p_sale_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if sale.status = 'voided' then
    perform raise_app_error(409, 'sale_already_voided', 'This sale is already voided.');
  end if;
  if sale.status <> 'completed' then
    perform raise_app_error(409, 'sale_refunded', 'This sale has refunds: it can no longer be voided.');
  end if;
  if sale.credit_xaf > 0 and customer_uncharge(p_sale_id, sale.credit_xaf) < sale.credit_xaf then
    perform raise_app_error(409, 'sale_credit_settled', 'Part of this credit sale has already been paid: refund it instead.');
  end if;
  open_shift := current_shift_id();

  for item in select * from sale_items where sale_id = p_sale_id order by product_id, variant_id nulls first loop
    if exists (select 1 from products p where p.id = item.product_id and p.deleted_at is null and p.tracked)
       and (item.variant_id is null or exists (select 1 from variants v where v.id = item.variant_id and v.deleted_at is null)) then
      perform stock_move(item.product_id, item.variant_id, 'void', item.quantity, p_reason, 'sale', p_sale_id);
    end if;
  end loop;

  insert into sale_payments (sale_id, kind, method, amount_xaf, shift_id)
  select p_sale_id, 'void', method, -sum(amount_xaf), open_shift
    from sale_payments where sale_id = p_sale_id and kind in ('payment', 'change')
   group by method having sum(amount_xaf) <> 0;

  -- Every entry the sale posted, reversed line by line.
  for entry in select id, memo from journal_entries where source_type = 'sale' and source_id = p_sale_id loop
    select jsonb_agg(jsonb_build_object('account', account, 'debit_xaf', credit_xaf, 'credit_xaf', debit_xaf))
      into reversed from journal_lines where entry_id = entry.id;
    perform journal_post('sale_void', p_sale_id, 'Void: ' || coalesce(entry.memo, ''), reversed);
  end loop;

  perform loyalty_reverse_for_sale(p_sale_id, 1);
  update sales set status = 'voided', void_reason = p_reason, voided_at = now(), voided_by = app_user_id() where id = p_sale_id;
end $$;

-- Refunds selected quantities of a completed (or partly refunded) sale: never more than sold less
-- already refunded; each line's share pro rata (its last unit takes the exact remainder), stock back
-- for tracked goods, VAT and journal reversed pro rata, points reversed pro rata, the money paid back
-- by p_method (credit: off the customer's account).
create function sale_refund(p_sale_id uuid, p_method text, p_reason text, p_items jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  sale sales;
  refund_id uuid := gen_random_uuid();
  request record;
  item sale_items;
  refunded_total bigint := 0;
  refunded_vat bigint := 0;
  part_total bigint;
  part_vat bigint;
  already_total bigint;
  already_vat bigint;
  already_cost bigint;
  part_cost bigint;
  cost_value bigint := 0;
  open_shift uuid;
begin
  select * into sale from sales where id = p_sale_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if sale.status = 'voided' then
    perform raise_app_error(409, 'sale_voided', 'This sale is voided: nothing is left to refund.');
  end if;
  if sale.status = 'refunded' then
    perform raise_app_error(409, 'sale_refunded', 'This sale is already fully refunded.');
  end if;
  open_shift := current_shift_id();

  for request in
    select (value ->> 'sale_item_id')::uuid as sale_item_id, (value ->> 'quantity')::numeric as quantity, (ordinality - 1)::int as i
      from jsonb_array_elements(p_items) with ordinality
  loop
    select * into item from sale_items where id = request.sale_item_id and sale_id = p_sale_id for update;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This item is not part of this sale.', 'items.' || request.i || '.sale_item_id');
    end if;
    if request.quantity > item.quantity - item.refunded_quantity then
      perform raise_app_error(422, 'refund_exceeds_sold',
        format('Only %s of this item are left to refund.', item.quantity - item.refunded_quantity), 'items.' || request.i || '.quantity');
    end if;
    if request.quantity = item.quantity - item.refunded_quantity then
      select coalesce(sum(ri.total_xaf), 0), coalesce(sum(ri.vat_xaf), 0), coalesce(sum(ri.cost_xaf), 0)
        into already_total, already_vat, already_cost
        from refund_items ri where ri.sale_item_id = item.id;
      part_total := item.total_xaf - already_total;
      part_vat := item.vat_xaf - already_vat;
      part_cost := round(item.quantity * item.cost_xaf)::bigint - already_cost;
    else
      part_total := round(item.total_xaf * request.quantity / item.quantity)::bigint;
      part_vat := round(item.vat_xaf * request.quantity / item.quantity)::bigint;
      part_cost := round(request.quantity * item.cost_xaf)::bigint;
    end if;
    insert into refund_items (refund_id, sale_item_id, quantity, total_xaf, vat_xaf, cost_xaf)
    values (refund_id, item.id, request.quantity, part_total, part_vat, part_cost);
    update sale_items set refunded_quantity = refunded_quantity + request.quantity where id = item.id;
    refunded_total := refunded_total + part_total;
    refunded_vat := refunded_vat + part_vat;
    if exists (select 1 from products p where p.id = item.product_id and p.deleted_at is null and p.tracked)
       and (item.variant_id is null or exists (select 1 from variants v where v.id = item.variant_id and v.deleted_at is null)) then
      perform stock_move(item.product_id, item.variant_id, 'refund', request.quantity, p_reason, 'sale', p_sale_id);
      cost_value := cost_value + part_cost;
    end if;
  end loop;

  if p_method = 'credit' then
    if sale.customer_id is null or customer_uncharge(p_sale_id, refunded_total) < refunded_total then
      perform raise_app_error(422, 'validation_failed', 'Only what this sale still owes on the customer''s account can be refunded to it.', 'method');
    end if;
  end if;
  insert into refunds (id, sale_id, method, reason, total_xaf, vat_xaf, shift_id)
  values (refund_id, p_sale_id, p_method, p_reason, refunded_total, refunded_vat, open_shift);
  insert into sale_payments (sale_id, kind, method, amount_xaf, shift_id, refund_id)
  values (p_sale_id, 'refund', p_method, -refunded_total, open_shift, refund_id);

  perform journal_post('sale_refund', refund_id, 'Refund of sale ' || sale.receipt_no, jsonb_build_array(
    jsonb_build_object('account', '701', 'debit_xaf', refunded_total - refunded_vat),
    jsonb_build_object('account', '4431', 'debit_xaf', refunded_vat),
    jsonb_build_object('account', case p_method when 'credit' then '411' else treasury_account(p_method) end, 'credit_xaf', refunded_total)));
  perform journal_post_stock_change('sale_refund', refund_id, 'Refund of sale ' || sale.receipt_no || ' at cost', cost_value);

  if sale.total_xaf > 0 then
    perform loyalty_reverse_for_sale(p_sale_id,
      (select sum(total_xaf) from refunds where sale_id = p_sale_id)::numeric / sale.total_xaf);
  end if;
  update sales set status = case when exists (select 1 from sale_items where sale_id = p_sale_id and refunded_quantity < quantity)
                                 then 'partially_refunded' else 'refunded' end
   where id = p_sale_id;
  return refund_id;
end $$;

-- A sale in the shape of the API's Sale record (also what the tills pull).
create function sale_json(p_sale_id uuid) returns jsonb
  language sql stable
  as $$
    select jsonb_build_object(
      'id', s.id, 'receipt_no', s.receipt_no, 'status', s.status, 'customer_id', s.customer_id, 'device_id', s.device_id,
      'cashier_id', s.cashier_id, 'cashier_name', u.name, 'shift_id', s.shift_id, 'note', s.note,
      'subtotal_xaf', s.subtotal_xaf, 'discount_xaf', s.discount_xaf, 'vat_xaf', s.vat_xaf, 'total_xaf', s.total_xaf,
      'paid_xaf', s.paid_xaf, 'change_xaf', s.change_xaf, 'credit_xaf', s.credit_xaf,
      'points_earned', s.points_earned + coalesce((select sum(points) from loyalty_points lp
                                                   where lp.source_type = 'sale' and lp.source_id = s.id and lp.kind = 'earn'
                                                     and s.customer_id is null), 0),
      'points_redeemed', s.points_redeemed, 'offline', s.offline,
      'items', coalesce((select jsonb_agg(jsonb_build_object(
          'id', i.id, 'line_no', i.line_no, 'product_id', i.product_id, 'variant_id', i.variant_id, 'name', i.name,
          'quantity', i.quantity, 'unit_price_xaf', i.unit_price_xaf, 'discount_xaf', i.discount_xaf,
          'promotion_id', i.promotion_id, 'promotion_discount_xaf', i.promotion_discount_xaf,
          'points_discount_xaf', i.points_discount_xaf, 'vat_rate', i.vat_rate, 'vat_xaf', i.vat_xaf,
          'total_xaf', i.total_xaf, 'refunded_quantity', i.refunded_quantity) order by i.line_no)
        from sale_items i where i.sale_id = s.id), '[]'),
      'payments', coalesce((select jsonb_agg(jsonb_build_object(
          'id', p.id, 'kind', p.kind, 'method', p.method, 'amount_xaf', p.amount_xaf, 'reference', p.reference,
          'created_at', iso_time(p.created_at)) order by p.created_at, p.kind, p.id)
        from sale_payments p where p.sale_id = s.id), '[]'),
      'refunds', coalesce((select jsonb_agg(jsonb_build_object(
          'id', r.id, 'method', r.method, 'reason', r.reason, 'total_xaf', r.total_xaf, 'vat_xaf', r.vat_xaf,
          'created_at', iso_time(r.created_at),
          'items', (select coalesce(jsonb_agg(jsonb_build_object('sale_item_id', ri.sale_item_id, 'quantity', ri.quantity,
                                                                 'total_xaf', ri.total_xaf, 'vat_xaf', ri.vat_xaf)), '[]')
                      from refund_items ri where ri.refund_id = r.id)) order by r.created_at, r.id)
        from refunds r where r.sale_id = s.id), '[]'),
      'vat_breakdown', coalesce((select jsonb_agg(jsonb_build_object('rate', v.rate, 'base_xaf', v.total - v.vat,
                                                                      'vat_xaf', v.vat, 'total_xaf', v.total) order by v.rate)
        from (select vat_rate as rate, sum(vat_xaf) as vat, sum(total_xaf) as total from sale_items where sale_id = s.id group by vat_rate) v), '[]'),
      'void_reason', s.void_reason, 'voided_at', iso_time(s.voided_at),
      'created_at', iso_time(s.created_at), 'recorded_at', iso_time(s.recorded_at), 'updated_at', iso_time(s.updated_at))
      from sales s left join users u on u.id = s.cashier_id
     where s.id = p_sale_id
$$;
