-- Prices a quote's lines by the sale's own rule (sales/sale_price_lines.sql: catalogue prices and VAT
-- rates when omitted, the caller's limits as a cashier, line discounts, today's best promotion) and
-- writes them as the quote's lines, replacing any it had; sets the quote's totals as a sale's.
-- Reserves no stock and locks no product.
create or replace function quote_write_lines(p_quote_id uuid, p_items jsonb)
  returns void
  language plpgsql volatile
  as $$
declare
  shop shops;
  items jsonb[];
  product_ids uuid[];
  variant_ids uuid[];
  lines jsonb;
  restricted boolean;
begin
  select * into shop from shops where id = app_shop_id();
  restricted := coalesce((select role from users where id = app_user_id()), 'cashier') = 'cashier';
  select array_agg(entry.value order by entry.position), array_agg((entry.value ->> 'product_id')::uuid order by entry.position),
         array_agg((entry.value ->> 'variant_id')::uuid order by entry.position)
    into items, product_ids, variant_ids
    from jsonb_array_elements(p_items) with ordinality as entry (value, position);
  lines := sale_price_lines(items, product_ids, variant_ids, shop, restricted, false, now());

  delete from quote_items where quote_id = p_quote_id;
  insert into quote_items (quote_id, line_no, product_id, variant_id, name, quantity, unit_price_xaf, discount_xaf,
                           promotion_id, promotion_discount_xaf, vat_rate, vat_xaf, total_xaf)
  select p_quote_id, l.line_no, (l.v ->> 'product_id')::uuid, (l.v ->> 'variant_id')::uuid, l.v ->> 'name',
         (l.v ->> 'quantity')::numeric, (l.v ->> 'unit_price_xaf')::bigint, (l.v ->> 'discount_xaf')::bigint,
         (l.v ->> 'promotion_id')::uuid, (l.v ->> 'promotion_discount_xaf')::bigint, (l.v ->> 'vat_rate')::numeric,
         vat_included((l.v ->> 'net_xaf')::bigint, (l.v ->> 'vat_rate')::numeric), (l.v ->> 'net_xaf')::bigint
    from jsonb_array_elements(lines) with ordinality as l (v, line_no)
   order by l.line_no;
  update quotes q
     set subtotal_xaf = t.subtotal, discount_xaf = t.discounts, vat_xaf = t.vat, total_xaf = t.total
    from (select sum(round(quantity * unit_price_xaf))::bigint as subtotal, sum(discount_xaf + promotion_discount_xaf)::bigint as discounts,
                 sum(vat_xaf)::bigint as vat, sum(total_xaf)::bigint as total
            from quote_items where quote_id = p_quote_id) t
   where q.id = p_quote_id;
end $$;

-- The customer a quote names: one of the shop's, not deleted (422 on customer_id otherwise).
create or replace function quote_check_customer(p_customer_id uuid)
  returns void
  language plpgsql stable
  as $$
begin
  if p_customer_id is not null and not exists (select 1 from customers where id = p_customer_id and deleted_at is null) then
    perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', 'customer_id');
  end if;
end $$;

-- Records a quote. p_quote: {customer_id, note, valid_until, items: [sale lines]}. valid_until
-- defaults to 30 days from today in the shop's calendar. The quote number is the shop's next (its
-- counter row is locked until commit, so numbers have no gap). Returns the quote's id.
create or replace function quote_record(p_quote jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  the_quote uuid := gen_random_uuid();
  number bigint;
begin
  perform quote_check_customer((p_quote ->> 'customer_id')::uuid);
  insert into quote_counters (shop_id, last_no) values (app_shop_id(), 1)
  on conflict (shop_id) do update set last_no = quote_counters.last_no + 1
  returning last_no into number;
  insert into quotes (id, quote_no, customer_id, note, valid_until, subtotal_xaf, discount_xaf, vat_xaf, total_xaf)
  select the_quote, number, (p_quote ->> 'customer_id')::uuid, p_quote ->> 'note',
         coalesce((p_quote ->> 'valid_until')::date, (now() at time zone s.timezone)::date + 30), 0, 0, 0, 0
    from shops s where s.id = app_shop_id();
  perform quote_write_lines(the_quote, p_quote -> 'items');
  return the_quote;
end $$;

-- The quote, locked, for a change (404 when the shop has none of that id, or it was deleted).
create or replace function quote_lock(p_quote_id uuid)
  returns quotes
  language plpgsql volatile
  as $$
declare
  quote quotes;
begin
  select * into quote from quotes where id = p_quote_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  return quote;
end $$;

-- A quote may change (lines, customer, validity) or be deleted while its stored status is draft or
-- sent (409 quote_closed otherwise). A draft past its date may still be changed: a later
-- valid_until revives it.
create or replace function quote_check_open(p_quote quotes)
  returns void
  language plpgsql stable
  as $$
begin
  if p_quote.status not in ('draft', 'sent') then
    perform raise_app_error(409, 'quote_closed', format('This quote is %s: it can no longer be changed.', p_quote.status));
  end if;
end $$;

-- Changes a quote. p_changes: any of customer_id, note, valid_until, items (a key absent: unchanged;
-- items given: every line replaced and priced again).
create or replace function quote_update(p_quote_id uuid, p_changes jsonb)
  returns void
  language plpgsql volatile
  as $$
declare
  quote quotes := quote_lock(p_quote_id);
begin
  perform quote_check_open(quote);
  if p_changes ? 'customer_id' then
    perform quote_check_customer((p_changes ->> 'customer_id')::uuid);
  end if;
  update quotes
     set customer_id = case when p_changes ? 'customer_id' then (p_changes ->> 'customer_id')::uuid else customer_id end,
         note = case when p_changes ? 'note' then p_changes ->> 'note' else note end,
         valid_until = coalesce((p_changes ->> 'valid_until')::date, valid_until)
   where id = p_quote_id;
  if p_changes ? 'items' then
    perform quote_write_lines(p_quote_id, p_changes -> 'items');
  end if;
end $$;

-- Marks a quote draft, sent, declined or expired without converting it; a converted one is closed.
create or replace function quote_set_status(p_quote_id uuid, p_status text)
  returns void
  language plpgsql volatile
  as $$
declare
  quote quotes := quote_lock(p_quote_id);
begin
  if quote.status = 'converted' then
    perform raise_app_error(409, 'quote_closed', 'This quote was converted into a sale: its status can no longer change.');
  end if;
  update quotes set status = p_status where id = p_quote_id;
end $$;

-- Deletes a draft or sent quote (soft: the tills learn it from their next pull).
create or replace function quote_delete(p_quote_id uuid)
  returns void
  language plpgsql volatile
  as $$
declare
  quote quotes := quote_lock(p_quote_id);
begin
  perform quote_check_open(quote);
  update quotes set deleted_at = now() where id = p_quote_id;
end $$;
