-- Offline synchronisation: device credentials, client ids for the records a till pushes (expenses,
-- cash movements), and the stock alert an offline sale raises when it takes stock below zero.

-- A device token's hash to its device and shop, stamping the device as seen and synchronised. No
-- row: unknown or revoked token. Definer: the caller has no shop yet (the device names it).
create function device_authenticate(p_token_hash text)
  returns table (device_id uuid, shop_id uuid)
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    update devices set last_seen_at = now(), last_sync_at = now()
     where token_hash = p_token_hash and revoked_at is null
    returning id, shop_id
$$;

-- expense_record and cash_movement_record gain a client id (a till's offline record keeps its own,
-- so a retried push finds it) and otherwise behave as in 0007.
drop function expense_record(text, bigint, text, text, date);

-- Records an expense spent on p_spent_on, a day of the shop's calendar. None or today: spent now,
-- and, paid in cash, taken from the caller's open drawer (attached to the open shift, if any). An
-- earlier day: spent at the start of that day, from a drawer long counted, so attached to no shift.
-- A later day: 422 on spent_at. Journal: debit expense_account, credit the method's treasury account.
create function expense_record(p_category text, p_amount_xaf bigint, p_payment_method text, p_description text, p_spent_on date,
                               p_id uuid default null)
  returns expenses
  language plpgsql volatile
  as $$
declare
  shop_today date;
  shop_zone text;
  spent_now boolean;
  recorded expenses;
begin
  select (now() at time zone timezone)::date, timezone into shop_today, shop_zone from shops where id = app_shop_id();
  if p_spent_on > shop_today then
    perform raise_app_error(422, 'validation_failed', 'Cannot be after today.', 'spent_at');
  end if;
  spent_now := p_spent_on is null or p_spent_on = shop_today;
  insert into expenses (id, shift_id, category, amount_xaf, payment_method, description, spent_at)
  values (coalesce(p_id, gen_random_uuid()), case when spent_now and p_payment_method = 'cash' then current_shift_id() end,
          p_category, p_amount_xaf, p_payment_method, p_description,
          case when spent_now then now() else p_spent_on::timestamp at time zone shop_zone end)
  returning * into recorded;
  perform journal_post('expense', recorded.id, coalesce(p_description, 'Expense: ' || p_category),
    jsonb_build_array(jsonb_build_object('account', expense_account(p_category), 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', treasury_account(p_payment_method), 'credit_xaf', p_amount_xaf)));
  return recorded;
end $$;

drop function cash_movement_record(text, bigint, text);

-- Cash into or out of the drawer that is not a sale. Drawer cash belongs to a shift: with no open
-- shift it is refused (409 no_open_shift). Journal: in debits 571 and credits 588, out the reverse.
-- p_created_at: when it happened (a till's offline record), else now.
create function cash_movement_record(p_direction text, p_amount_xaf bigint, p_reason text,
                                     p_id uuid default null, p_created_at timestamptz default null)
  returns cash_movements
  language plpgsql volatile
  as $$
declare
  open_shift uuid := current_shift_id();
  movement cash_movements;
begin
  if open_shift is null then
    perform raise_app_error(409, 'no_open_shift', 'Open a shift first: drawer cash belongs to a shift.');
  end if;
  insert into cash_movements (id, shift_id, direction, amount_xaf, reason, created_at)
  values (coalesce(p_id, gen_random_uuid()), open_shift, p_direction, p_amount_xaf, p_reason, coalesce(p_created_at, now()))
    returning * into movement;
  perform journal_post('cash_movement', movement.id, p_reason,
    case p_direction
      when 'in' then jsonb_build_array(jsonb_build_object('account', '571', 'debit_xaf', p_amount_xaf),
                                       jsonb_build_object('account', '588', 'credit_xaf', p_amount_xaf))
      else jsonb_build_array(jsonb_build_object('account', '588', 'debit_xaf', p_amount_xaf),
                             jsonb_build_object('account', '571', 'credit_xaf', p_amount_xaf))
    end);
  return movement;
end $$;

-- Whether any shop holds a record of this kind with this id. Row-level security hides other shops'
-- rows, but ids are global: a till that reuses one gets a rejected record rather than a collision
-- halfway through. It tells only whether a random UUID is taken.
create function sync_id_taken(p_table text, p_id uuid) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
declare
  taken boolean;
begin
  if p_table not in ('customers', 'expenses', 'cash_movements') then
    raise exception 'sync_id_taken: unknown table %', p_table;
  end if;
  execute format('select exists (select 1 from %I where id = $1)', p_table) into taken using p_id;
  return taken;
end $$;

-- A movement that takes an item from zero or more to below zero raises a stock alert: the shop's
-- owners and managers are told by e-mail (worker task stock__negative_alert). Online this happens only
-- when the shop allows negative stock; an offline sale is never refused for stock, so it is how a
-- shop learns that its counts and its tills disagree. One pending job per item (job key).
create function stock_movements_alert_negative() returns trigger
  language plpgsql
  as $$
begin
  if new.on_hand_after < 0 and new.on_hand_after - new.quantity >= 0 then
    perform enqueue_job('stock__negative_alert',
      jsonb_build_object('shop_id', new.shop_id, 'product_id', new.product_id, 'variant_id', new.variant_id, 'movement_id', new.id),
      'stock_negative:' || new.product_id || ':' || coalesce(new.variant_id::text, '-'));
  end if;
  return null;
end $$;

create trigger stock_movements_alert_negative after insert on stock_movements
  for each row execute function stock_movements_alert_negative();

-- What a line, a receipt or an alert calls a product or one of its variants: `Chemise (M, Bleu)`.
-- (sale_record in 0008 spells the same rule out inline.)
create function item_name(p_product_name text, p_options jsonb) returns text
  language sql immutable parallel safe
  as $$ select p_product_name || coalesce(' (' || (select string_agg(value, ', ') from jsonb_each_text(p_options)) || ')', '') $$;

-- An offline sale names what the till held when it sold. By the time it is pushed, a product or a
-- variant may have been deleted, a product may have been given variants, a customer deleted, the
-- customer's points spent on another till: the sale happened all the same, so sale_record must not
-- refuse it for that. Such a line becomes a free line (the name, price and VAT the till sold it at,
-- else the catalogue's last ones), which moves no stock; a deleted customer is restored, since what
-- they owe or earn must land on them; points redeemed beyond the customer's balance are redeemed up to
-- it, and the value of the rest becomes a discount on the lines (first lines first), so the sale
-- keeps the total the customer paid. Lines naming an id the shop never had are left as they are
-- (sale_record refuses them: that is a broken till, not news from the server).
create function sale_offline_lines(p_sale jsonb) returns jsonb
  language plpgsql volatile
  as $$
declare
  item jsonb;
  lines jsonb := '[]';
  product products;
  variant variants;
  gone boolean;
  available bigint;
  short bigint;
  uncovered bigint;
  room bigint;
  share bigint;
begin
  for item in select value from jsonb_array_elements(p_sale -> 'items') loop
    product := null;
    variant := null;
    if item ->> 'product_id' is not null then
      select * into product from products where id = (item ->> 'product_id')::uuid;
      if item ->> 'variant_id' is not null and product.id is not null then
        select * into variant from variants where id = (item ->> 'variant_id')::uuid and product_id = product.id;
      end if;
    end if;
    gone := product.id is not null and (
      product.deleted_at is not null
      or variant.deleted_at is not null
      or (item ->> 'variant_id' is null and exists (select 1 from variants where product_id = product.id and deleted_at is null)));
    if gone then
      item := jsonb_build_object(
        'product_id', null, 'variant_id', null,
        'name', coalesce(item ->> 'name', item_name(product.name, variant.options)),
        'quantity', item -> 'quantity',
        'unit_price_xaf', coalesce((item ->> 'unit_price_xaf')::bigint, variant.price_xaf, product.price_xaf),
        'discount_xaf', (item ->> 'discount_xaf')::bigint,
        'vat_rate', coalesce((item ->> 'vat_rate')::numeric, product.vat_rate));
    end if;
    lines := lines || jsonb_build_array(item);
  end loop;
  if p_sale ->> 'customer_id' is not null then
    update customers set deleted_at = null where id = (p_sale ->> 'customer_id')::uuid and deleted_at is not null;
    select points into available from customers where id = (p_sale ->> 'customer_id')::uuid;
    short := coalesce((p_sale ->> 'redeem_points')::bigint, 0) - coalesce(available, 0);
    if available is not null and short > 0 then
      select short * loyalty_redeem_rate_xaf into uncovered from shops where id = app_shop_id();
      for i in 0 .. jsonb_array_length(lines) - 1 loop
        exit when uncovered <= 0;
        item := lines -> i;
        -- What the line still costs before promotions: its gross (at the catalogue's price when the
        -- till sent none) less its own discount.
        select greatest(0, round((item ->> 'quantity')::numeric *
                 coalesce((item ->> 'unit_price_xaf')::bigint,
                          (select price_xaf from variants where id = (item ->> 'variant_id')::uuid),
                          (select price_xaf from products where id = (item ->> 'product_id')::uuid), 0))::bigint
               - coalesce((item ->> 'discount_xaf')::bigint, 0))
          into room;
        share := least(room, uncovered);
        if share > 0 then
          lines := jsonb_set(lines, array[i::text], item || jsonb_build_object('discount_xaf', coalesce((item ->> 'discount_xaf')::bigint, 0) + share));
          uncovered := uncovered - share;
        end if;
      end loop;
      p_sale := jsonb_set(p_sale, '{redeem_points}', to_jsonb(greatest(available, 0)));
    end if;
  end if;
  return jsonb_set(p_sale, '{items}', lines);
end $$;

-- A product's record tells whether it has variants: when one is added or deleted, the product is
-- stamped again so that the tills pull it again (once per transaction, however many variants change).
-- The routes that change variants lock the product first, so this takes no new lock order.
create function variants_restamp_product() returns trigger
  language plpgsql
  as $$
begin
  update products set updated_at = now() where id = new.product_id and txid <> pg_current_xact_id();
  return null;
end $$;

create trigger variants_restamp_product after insert or update of deleted_at on variants
  for each row execute function variants_restamp_product();
