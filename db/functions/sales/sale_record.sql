-- Records a sale in the shop the transaction is bound to: called by sale_submit (the API's entry
-- point, which binds it: tenant_bind) and by quote_convert. Every statement names that shop (held in
-- the_shop), so the sale reads and writes that shop's rows only, whoever runs it (the owner role sees
-- every shop's) and wherever (on Citus, the node holding the shop).
-- p_sale: {id, customer_id, device_id, note, redeem_points, created_at, request_hash,
-- items: [{product_id, variant_id, name, quantity, unit_price_xaf, discount_xaf, vat_rate}],
-- payments: [{method, amount_xaf, reference}]}. p_offline: a sale made on a till without connection,
-- never refused for stock, subscription or credit ceiling (it happened), keeping its created_at;
-- till_created_at: the till's time of an offline sale recorded at now() instead, its till's clock being
-- plainly wrong (api/sync/push.ts decides; CONTRACT section 4).
-- p_quote_id: the quote converted into this sale (quote_convert): its lines carry the quote's prices,
-- discounts and promotions, kept whoever converts it (the quote was priced under its author's limits).
-- Returns {"id", "replayed"}: replayed when the same id came back with the same body.
-- Prices belong to managers (CONTRACT section 3): online, a cashier sells a catalogue line at the
-- catalogue's unit price and VAT rate (403 otherwise, unless the shop's cashier_price_override is on)
-- and gives a line discount of at most the shop's cashier_max_discount_percent of the line's gross
-- (422 discount_not_allowed). Free lines are the cashier's own. An offline sale keeps the till's
-- figures; every line records what the catalogue said (catalogue_price_xaf, catalogue_vat_rate) so
-- that GET /reports/price-overrides lists whatever differed.
-- Its statements and those of the functions it calls run on generic plans (plan_cache_mode): every
-- one is a probe bounded by the basket (tests/sales/plans.test.ts), and planning them again at each
-- sale, as PL/pgSQL chose to for the ones that take JSON, cost a fifth of the sale's CPU.
drop function if exists sale_record(jsonb, boolean);
create or replace function sale_record(p_sale jsonb, p_offline boolean default false, p_quote_id uuid default null)
  returns jsonb
  language plpgsql volatile
  set plan_cache_mode = force_generic_plan
  as $$
declare
  the_shop constant uuid := app_shop_id();
  the_user constant uuid := app_user_id();
  the_sale uuid := (p_sale ->> 'id')::uuid;
  occurred_at timestamptz := coalesce((p_sale ->> 'created_at')::timestamptz, now());
  shop shops;
  customer customers;
  device devices;
  existing sales;
  item record;
  line jsonb;
  lines jsonb := '[]';
  n integer;
  restricted boolean;
  redeem bigint := coalesce((p_sale ->> 'redeem_points')::bigint, 0);
  redeem_value bigint := 0;
  net_total bigint;
  net_sum numeric;
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
  reported date;
  earned bigint := 0;
  cost_value bigint := 0;
  available numeric;
  journal jsonb := '[]';
  stock_items jsonb;
  items jsonb[];
  product_ids uuid[];
  variant_ids uuid[];
  moved_products uuid[];
  moved_product_quantities numeric[];
  moved_variants uuid[];
  moved_variant_quantities numeric[];
  method_total record;
  header sales;
  content text;
begin
  if the_shop is null then
    raise exception 'sale_record needs its shop: call sale_submit';
  end if;
  -- Two identical requests at once: the second waits here, then finds the first's sale.
  perform pg_advisory_xact_lock(hashtextextended('sale:' || the_sale::text, 0));
  -- A sale's id is unique in its shop (the key is (shop_id, id)): one already here is this sale's
  -- replay, or a conflict. Another shop's sale with the same id is another sale.
  select * into existing from sales where shop_id = the_shop and id = the_sale;
  if found and existing.request_hash = p_sale ->> 'request_hash' then
    return jsonb_build_object('id', the_sale, 'replayed', true);
  elsif found then
    perform raise_app_error(409, 'idempotency_conflict', 'A sale with this id was already recorded with other details.');
  end if;
  select * into shop from shops where id = the_shop;
  -- The shop's receipt counter, made by its first sale (a plain read after that, no lock taken).
  if not exists (select 1 from receipt_counters where shop_id = the_shop) then
    insert into receipt_counters (shop_id, last_no) values (the_shop, 0) on conflict (shop_id) do nothing;
  end if;
  -- An online sale by a cashier (or by no known user: the least privilege) is held to the catalogue.
  restricted := not p_offline and p_quote_id is null and coalesce((select role from users where id = the_user and shop_id = the_shop), 'cashier') = 'cashier';

  -- The till the sale was made on: one of the shop's devices. Online a live one; offline also one
  -- revoked since (the sale happened on it).
  if p_sale ->> 'device_id' is not null then
    select * into device from devices where shop_id = the_shop and id = (p_sale ->> 'device_id')::uuid;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'No such device in this shop.', 'device_id');
    end if;
    if device.revoked_at is not null and not p_offline then
      perform raise_app_error(422, 'validation_failed', 'This device was revoked.', 'device_id');
    end if;
  end if;

  if p_sale ->> 'customer_id' is not null then
    select * into customer from customers where shop_id = the_shop and id = (p_sale ->> 'customer_id')::uuid and deleted_at is null;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', 'customer_id');
    end if;
  end if;

  -- Lock the products, then their variants, in id order: concurrent baskets sharing products queue
  -- instead of deadlocking. A join of the basket's ids with the table: one primary-key probe per line,
  -- whatever the size of the shop (`in (select ...)` was planned as a scan of the shop's products, and
  -- `id = any(ids)` as a bitmap AND with the shop's whole shop_id index). Every statement below that
  -- reads or writes products or variants reaches them the same way, by primary key from the basket.
  select array_agg(entry.value order by entry.position), array_agg((entry.value ->> 'product_id')::uuid order by entry.position),
         array_agg((entry.value ->> 'variant_id')::uuid order by entry.position)
    into items, product_ids, variant_ids
    from jsonb_array_elements(p_sale -> 'items') with ordinality as entry (value, position);
  perform 1 from unnest(product_ids) as basket (id) join products p on p.shop_id = the_shop and p.id = basket.id order by p.id for update of p;
  if array_remove(variant_ids, null) <> '{}' then
    perform 1 from unnest(variant_ids) as basket (id) join variants x on x.shop_id = the_shop and x.id = basket.id order by x.id for update of x;
  end if;

  -- Each line priced (sales/sale_price_lines.sql: the catalogue, the caller's limits, promotions).
  lines := sale_price_lines(items, product_ids, variant_ids, shop, restricted, p_offline, occurred_at, p_quote_id is not null);
  select coalesce(sum((value ->> 'net_xaf')::numeric), 0) into net_sum from jsonb_array_elements(lines);
  net_total := net_sum::bigint;

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
      'vat_xaf', vat_included(line_total, (line ->> 'vat_rate')::numeric)));
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
  -- One row per item sold (a product, or a variant of it), in the order of its first line.
  select coalesce(jsonb_agg(jsonb_build_object('product_id', t.product_id, 'variant_id', t.variant_id, 'quantity', t.quantity,
                                               'first_line', t.first_line,
                                               'on_hand', coalesce((select x.on_hand from variants x where x.shop_id = the_shop and x.id = t.variant_id),
                                                                   (select p.on_hand from products p where p.shop_id = the_shop and p.id = t.product_id)))
                            order by t.first_line), '[]')
    into stock_items
    from (select (value ->> 'product_id')::uuid as product_id, (value ->> 'variant_id')::uuid as variant_id,
                 sum((value ->> 'quantity')::numeric) as quantity, min(ordinality - 1)::int as first_line
            from jsonb_array_elements(lines) with ordinality
           where (value ->> 'tracked')::boolean
           group by 1, 2) t;
  if not p_offline and not shop.allow_negative_stock then
    select * into item from jsonb_to_recordset(stock_items) as si (first_line int, quantity numeric, on_hand numeric)
     where si.on_hand < si.quantity order by si.first_line limit 1;
    if found then
      perform raise_app_error(422, 'insufficient_stock', format('Only %s in stock.', trim_scale(item.on_hand)), 'items.' || item.first_line || '.quantity');
    end if;
  end if;

  open_shift := current_shift_id();
  -- An offline sale of a day whose Z is sealed is reported in the next Z (reported_on, z_reported_on);
  -- read before the receipt counter is taken, never while holding it.
  if p_offline then
    reported := z_reported_on((occurred_at at time zone shop.timezone)::date);
  end if;

  -- The basket as sets: one insert of the lines, one of the movements (each line's on_hand_after
  -- counts the lines of the same item before it), one update of the variants, one of the products.
  insert into sale_items (shop_id, sale_id, line_no, product_id, variant_id, name, quantity, unit_price_xaf, discount_xaf, promotion_id,
                          promotion_discount_xaf, points_discount_xaf, vat_rate, vat_xaf, total_xaf, cost_xaf,
                          stock_cost_xaf, catalogue_price_xaf, catalogue_vat_rate)
  select the_shop, the_sale, l.line_no, (l.v ->> 'product_id')::uuid, (l.v ->> 'variant_id')::uuid, l.v ->> 'name',
         (l.v ->> 'quantity')::numeric, (l.v ->> 'unit_price_xaf')::bigint, (l.v ->> 'discount_xaf')::bigint,
         (l.v ->> 'promotion_id')::uuid, (l.v ->> 'promotion_discount_xaf')::bigint,
         (l.v ->> 'points_discount_xaf')::bigint, (l.v ->> 'vat_rate')::numeric, (l.v ->> 'vat_xaf')::bigint,
         (l.v ->> 'total_xaf')::bigint, (l.v ->> 'cost_xaf')::bigint,
         case when (l.v ->> 'tracked')::boolean then round((l.v ->> 'quantity')::numeric * (l.v ->> 'cost_xaf')::bigint)::bigint else 0 end,
         (l.v ->> 'catalogue_price_xaf')::bigint, (l.v ->> 'catalogue_vat_rate')::numeric
    from jsonb_array_elements(lines) with ordinality as l (v, line_no)
   order by l.line_no;
  insert into stock_movements (shop_id, product_id, variant_id, type, quantity, on_hand_after, source_type, source_id, user_id)
  select the_shop, m.product_id, m.variant_id, 'sale', -m.quantity,
         si.on_hand - sum(m.quantity) over (partition by m.product_id, m.variant_id order by m.line_no),
         'sale', the_sale, the_user
    from (select (v ->> 'product_id')::uuid as product_id, (v ->> 'variant_id')::uuid as variant_id,
                 (v ->> 'quantity')::numeric as quantity, line_no
            from jsonb_array_elements(lines) with ordinality as l (v, line_no)
           where (v ->> 'tracked')::boolean) m
    join jsonb_to_recordset(stock_items) as si (product_id uuid, variant_id uuid, on_hand numeric) on si.product_id = m.product_id and si.variant_id is not distinct from m.variant_id
   order by m.line_no;
  with moved as (select * from jsonb_to_recordset(stock_items) as r (product_id uuid, variant_id uuid, quantity numeric))
  select v.ids, v.quantities, p.ids, p.quantities
    into moved_variants, moved_variant_quantities, moved_products, moved_product_quantities
    from (select array_agg(variant_id) as ids, array_agg(quantity) as quantities from moved where variant_id is not null) v,
         (select array_agg(product_id) as ids, array_agg(quantity) as quantities
            from (select product_id, sum(quantity) as quantity from moved group by product_id) per_product) p;
  if moved_variants is not null then
    update variants x set on_hand = x.on_hand - moved.quantity
      from unnest(moved_variants, moved_variant_quantities) as moved (id, quantity) where x.shop_id = the_shop and x.id = moved.id;
  end if;
  update products p set on_hand = p.on_hand - moved.quantity
    from unnest(moved_products, moved_product_quantities) as moved (id, quantity) where p.shop_id = the_shop and p.id = moved.id;
  -- Batches, first expired first out (stock/batches.sql), for the whole basket in one statement: each
  -- item's batches with stock read from batches_fefo_idx (none, for a shop that keeps no batches).
  with wanted as (
    select * from jsonb_to_recordset(stock_items) as r (product_id uuid, variant_id uuid, quantity numeric)
  ), candidates as (
    select b.id, b.quantity, w.quantity as wanted,
           sum(b.quantity) over (partition by w.product_id, w.variant_id order by b.expiry_date nulls last, b.created_at, b.id) - b.quantity as before
      from wanted w
      -- Lateral and kept apart (offset 0): an index probe per item, where a join was planned as a
      -- hash of the shop's batches.
      cross join lateral (select b.id, b.quantity, b.expiry_date, b.created_at from batches b
                           where b.shop_id = the_shop and b.product_id = w.product_id and b.variant_id is not distinct from w.variant_id and b.quantity > 0
                          offset 0) b
  ), takes as (
    select id, least(quantity, wanted - before) as take from candidates where before < wanted
  ), updated as (
    update batches b set quantity = b.quantity - t.take from takes t where b.shop_id = the_shop and b.id = t.id returning b.id, t.take
  )
  insert into batch_movements (shop_id, batch_id, type, quantity, sale_id, source_id)
  select the_shop, id, 'sale', -take, the_sale, the_sale from updated;
  select coalesce(sum(round((value ->> 'quantity')::numeric * (value ->> 'cost_xaf')::bigint)), 0)::bigint into cost_value
    from jsonb_array_elements(lines) where (value ->> 'tracked')::boolean;

  -- The payments, the credit left on the customer's account and the change given, in one insert.
  -- In the order taken (position), so that documents print them so.
  insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, reference, shift_id, created_at, position)
  select the_shop, the_sale, 'payment', value ->> 'method', (value ->> 'amount_xaf')::bigint, value ->> 'reference', open_shift, occurred_at, payment_order
    from jsonb_array_elements(coalesce(p_sale -> 'payments', '[]')) with ordinality as given (value, payment_order)
   where (value ->> 'amount_xaf')::bigint > 0
  union all
  select the_shop, the_sale, 'payment', 'credit', credit - credit_given, null, open_shift, occurred_at, 1000 where credit > credit_given
  union all
  select the_shop, the_sale, 'change', 'cash', -change, null, open_shift, occurred_at, 1001 where change > 0;

  if customer.id is not null then
    earned := loyalty_earn_for_sale(customer.id, the_sale, total - credit);
  end if;

  -- The journal, one entry: money in (net of change) and the customer's account against sales and VAT
  -- collected, and the goods at cost out of stock (journal_stock_change_lines).
  for method_total in
    select method, sum(amount_xaf) as amount from sale_payments where shop_id = the_shop and sale_id = the_sale group by method
  loop
    if method_total.amount > 0 then
      journal := journal || jsonb_build_array(jsonb_build_object(
        'account', settlement_account(method_total.method),
        'debit_xaf', method_total.amount));
    end if;
  end loop;
  journal := journal || jsonb_build_array(jsonb_build_object('account', '701', 'credit_xaf', total - vat_total),
                                          jsonb_build_object('account', '4431', 'credit_xaf', vat_total))
                     || journal_stock_change_lines(-cost_value);
  -- Dated as the Z reports the sale: when it happened, or now for a late one (reported_on).
  perform journal_post_at(case when reported is null then occurred_at else now() end, 'sale', the_sale, 'Sale', journal);

  if customer.email is not null then
    -- Recorded, so that POST /sales/{id}/receipt/email does not send it again within a minute.
    insert into receipt_emails (shop_id, sale_id, email) values (the_shop, the_sale, lower(customer.email)) on conflict do nothing;
    perform enqueue_job('sale__email_receipt',
      jsonb_build_object('sale_id', the_sale, 'shop_id', the_shop, 'email', customer.email, 'locale', shop.locale),
      'sale_receipt:' || the_sale);
  end if;

  -- The sale's fiscal entry (fiscal/fiscal_content.sql), written from its rows as the integrity check
  -- will read them back; its receipt number is put in under the counter's lock (fiscal_numbered).
  header.shop_id := the_shop;
  header.id := the_sale;
  header.cashier_id := the_user;
  header.customer_id := customer.id;
  header.device_id := device.id;
  header.created_at := occurred_at;
  header.subtotal_xaf := subtotal;
  header.discount_xaf := discounts;
  header.vat_xaf := vat_total;
  header.total_xaf := total;
  header.paid_xaf := paid;
  header.change_xaf := change;
  header.credit_xaf := credit;
  content := fiscal_sale_content(header);

  -- The receipt number and the chain position last, in one statement with the sale's own row and its
  -- fiscal entry: the counter row stays locked until commit (that is what makes numbers and the chain
  -- gap-free), so every other sale of the shop waits on it; nothing but the commit follows it (the API
  -- reads the answer after the commit, sale_submit). The lines and payments above refer to the sale's
  -- row through deferred foreign keys. Under the lock: a replace and a SHA-256 of the content.
  -- An UPDATE, not an upsert: the tills waiting for the row then queue on its lock and take it one
  -- after the other, where `insert ... on conflict do update` woke every waiter at each commit to try
  -- again (the row exists: made with the shop's first sale, above).
  with counter as (
    update receipt_counters
       set last_no = last_no + 1, chain_no = chain_no + 1, chain_previous_hash = chain_hash,
           chain_hash = fiscal_hash(chain_hash, fiscal_numbered(content, 'receipt_no', last_no + 1))
     where shop_id = the_shop
    returning last_no, chain_no, chain_previous_hash, chain_hash
  ), sale as (
    insert into sales (shop_id, id, receipt_no, cashier_id, customer_id, device_id, shift_id, note, subtotal_xaf, discount_xaf, vat_xaf, total_xaf,
                       paid_xaf, change_xaf, credit_xaf, points_earned, points_redeemed, offline, request_hash, created_at, quote_id, reported_on,
                       till_created_at, chain_no)
    select the_shop, the_sale, counter.last_no, the_user, customer.id, device.id, open_shift, p_sale ->> 'note', subtotal, discounts,
           vat_total, total, paid, change, credit, earned, redeem, p_offline, p_sale ->> 'request_hash', occurred_at, p_quote_id,
           reported, case when p_offline then (p_sale ->> 'till_created_at')::timestamptz end, counter.chain_no
      from counter
  )
  insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, amount_xaf, previous_hash, hash, content)
  select the_shop, counter.chain_no, 'sale', the_sale, occurred_at, total, counter.chain_previous_hash, counter.chain_hash,
         fiscal_numbered(content, 'receipt_no', counter.last_no)
    from counter;
  if not found then
    raise exception 'the receipt counter of shop % is missing', the_shop;
  end if;
  return jsonb_build_object('id', the_sale, 'replayed', false);
end $$;
