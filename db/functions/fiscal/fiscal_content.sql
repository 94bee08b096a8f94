-- The content of each kind of fiscal entry (CONTRACT section 13), in canonical JSON (RFC 8785: keys
-- sorted, no spaces, integers for money), built from the business rows as they are: the procedure that
-- makes a record calls the same function to write its entry as the integrity check calls to recompute
-- it (fiscal_integrity.sql), so a changed price, line or payment is a different text.
-- The text is written key by key in sorted order, not serialised from jsonb (jsonb orders keys by length,
-- and a generic serialiser in PL/pgSQL costs a sale a third of a millisecond). Strings go through
-- to_json, whose escapes are RFC 8785's (\" \\ \b \f \n \r \t, \u00xx for other control characters,
-- everything else as is); decimals (quantities, VAT rates) are strings without trailing zeros, times
-- UTC ISO-8601 with milliseconds (iso_time). tests/fiscal/chain.test.ts parses every content and checks
-- that a JavaScript RFC 8785 serialiser gives the same bytes back.

-- Stable, as to_json and the text casts are: SQL functions no less immutable than their bodies, so that
-- PostgreSQL inlines them (tests/sales/plans.test.ts).
create or replace function fiscal_json(p_text text) returns text
  language sql stable parallel safe
  as $$ select coalesce(to_json(p_text)::text, 'null') $$;

-- A member of an object after its first, `,"key":value`, or nothing when the value is null: a null
-- reference (no customer, no till, a free line's item) is left out rather than written `null`. Every
-- byte of a content is stored once per record and written to the WAL with the sale (a sale's 1.8 kB
-- cost it about 0.3 ms of PostgreSQL CPU on the bench machine): keys that would say null or 0 go.
create or replace function fiscal_member(p_key text, p_json text) returns text
  language sql immutable parallel safe
  as $$ select coalesce(',"' || p_key || '":' || p_json, '') $$;

-- hash = lowercase hex SHA-256 of previous_hash followed by content, as UTF-8.
create or replace function fiscal_hash(p_previous_hash text, p_content text) returns text
  language sql stable parallel safe
  as $$ select encode(sha256(convert_to(p_previous_hash || p_content, 'UTF8')), 'hex') $$;

-- A content built before its number was taken says "<key>":null; the statement that takes the number
-- (under the counter's lock) puts it in. Only the top level can match: inside a string every quote is
-- escaped, so `"receipt_no":null` cannot occur there.
create or replace function fiscal_numbered(p_content text, p_key text, p_number bigint) returns text
  language sql stable parallel safe
  as $$ select replace(p_content, '"' || p_key || '":null', '"' || p_key || '":' || p_number) $$;

-- VAT per rate of a set of lines: [{"base_xaf","rate","vat_xaf"}] in rate order. A loop over the
-- arrays, without a query: half the time of an unnest and group by (a shop has a few rates).
create or replace function fiscal_vat_text(p_rates numeric[], p_totals bigint[], p_vats bigint[]) returns text
  language plpgsql stable
  as $$
declare
  rates numeric[] := '{}';
  totals bigint[] := '{}';
  vats bigint[] := '{}';
  at integer;
  lowest integer;
  parts text[] := '{}';
begin
  for i in 1 .. coalesce(array_length(p_rates, 1), 0) loop
    at := array_position(rates, p_rates[i]);
    if at is null then
      rates := rates || p_rates[i];
      totals := totals || p_totals[i];
      vats := vats || p_vats[i];
    else
      totals[at] := totals[at] + p_totals[i];
      vats[at] := vats[at] + p_vats[i];
    end if;
  end loop;
  while cardinality(rates) > cardinality(parts) loop
    lowest := null;
    for i in 1 .. cardinality(rates) loop
      if totals[i] is not null and (lowest is null or rates[i] < rates[lowest]) then
        lowest := i;
      end if;
    end loop;
    parts := parts || ('{"base_xaf":' || (totals[lowest] - vats[lowest]) || ',"rate":"' || trim_scale(rates[lowest]) || '","vat_xaf":' || vats[lowest] || '}');
    totals[lowest] := null;
  end loop;
  return '[' || array_to_string(parts, ',') || ']';
end $$;

-- A sale: its receipt number, time, cashier, till, customer, each line in order, its totals, VAT per
-- rate and each payment and the change given (method, amount, reference), as taken. Left out when
-- empty: the customer, the till, a free line's item, a line's variant, its promotion and points
-- discounts at 0, a payment's reference.
create or replace function fiscal_sale_content(p_sale sales) returns text
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  as $$
declare
  lines text;
  vat text;
  payments text;
begin
  select '[' || coalesce(string_agg(
           '{"discount_xaf":' || i.discount_xaf || fiscal_member('item_id', '"' || i.product_id || '"')
           || ',"name":' || to_json(i.name)::text || fiscal_member('points_discount_xaf', nullif(i.points_discount_xaf, 0)::text)
           || fiscal_member('promotion_discount_xaf', nullif(i.promotion_discount_xaf, 0)::text) || ',"quantity":"' || trim_scale(i.quantity)
           || '","total_xaf":' || i.total_xaf || ',"unit_price_xaf":' || i.unit_price_xaf
           || fiscal_member('variant_id', '"' || i.variant_id || '"') || ',"vat_rate":"' || trim_scale(i.vat_rate)
           || '","vat_xaf":' || i.vat_xaf || '}', ',' order by i.line_no), '') || ']',
         fiscal_vat_text(array_agg(i.vat_rate), array_agg(i.total_xaf), array_agg(i.vat_xaf))
    into lines, vat
    from sale_items i where i.shop_id = p_sale.shop_id and i.sale_id = p_sale.id;
  select '[' || coalesce(string_agg(
           '{"amount_xaf":' || p.amount_xaf || ',"kind":"' || p.kind || '","method":"' || p.method || '"'
           || fiscal_member('reference', to_json(p.reference)::text) || '}',
           ',' order by p.position nulls last, p.kind collate "C", p.method collate "C", p.amount_xaf), '') || ']'
    into payments
    from sale_payments p where p.shop_id = p_sale.shop_id and p.sale_id = p_sale.id and p.kind in ('payment', 'change');
  return '{' || substr(fiscal_member('cashier_id', '"' || p_sale.cashier_id || '"') || ',"created_at":"' || iso_time(p_sale.created_at) || '"'
    || fiscal_member('customer_id', '"' || p_sale.customer_id || '"') || fiscal_member('device_id', '"' || p_sale.device_id || '"')
    || ',"lines":' || lines || ',"payments":' || payments || ',"receipt_no":' || coalesce(p_sale.receipt_no::text, 'null')
    || ',"sale_id":"' || p_sale.id || '","totals":{"change_xaf":' || p_sale.change_xaf || ',"credit_xaf":' || p_sale.credit_xaf
    || ',"discount_xaf":' || p_sale.discount_xaf || ',"paid_xaf":' || p_sale.paid_xaf || ',"subtotal_xaf":' || p_sale.subtotal_xaf
    || ',"total_xaf":' || p_sale.total_xaf || ',"vat_xaf":' || p_sale.vat_xaf || '},"vat":' || vat, 2) || '}';
end $$;

-- A void: the sale's entry and receipt, what was voided and the money given back per method.
create or replace function fiscal_void_content(p_sale sales) returns text
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  as $$
declare
  payments text;
begin
  select '[' || coalesce(string_agg('{"amount_xaf":' || p.amount_xaf || ',"method":"' || p.method || '"}', ',' order by p.method collate "C", p.amount_xaf), '') || ']'
    into payments
    from sale_payments p where p.shop_id = p_sale.shop_id and p.sale_id = p_sale.id and p.kind = 'void';
  return '{"payments":' || payments || fiscal_member('reason', to_json(p_sale.void_reason)::text) || ',"receipt_no":' || p_sale.receipt_no
    || ',"sale_chain_no":' || coalesce(p_sale.chain_no::text, 'null') || ',"sale_id":"' || p_sale.id
    || '","total_xaf":' || p_sale.total_xaf || ',"voided_at":' || fiscal_json(iso_time(p_sale.voided_at))
    || fiscal_member('voided_by', '"' || p_sale.voided_by || '"') || '}';
end $$;

-- A refund, which is also a credit note: its number, the sale's entry and receipt, each line given back
-- (the sale's line, item, name, quantity, amount, VAT), VAT per rate, the total and how it was paid back.
create or replace function fiscal_refund_content(p_refund refunds) returns text
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  as $$
declare
  sale sales;
  lines text;
  vat text;
begin
  select * into sale from sales where shop_id = p_refund.shop_id and id = p_refund.sale_id;
  select '[' || coalesce(string_agg(
           '{' || substr(fiscal_member('item_id', '"' || i.product_id || '"') || ',"line_no":' || i.line_no || ',"name":' || to_json(i.name)::text
           || ',"quantity":"' || trim_scale(r.quantity) || '","sale_item_id":"' || r.sale_item_id || '","total_xaf":' || r.total_xaf
           || ',"vat_rate":"' || trim_scale(i.vat_rate) || '","vat_xaf":' || r.vat_xaf, 2) || '}', ',' order by i.line_no, r.id), '') || ']',
         fiscal_vat_text(array_agg(i.vat_rate), array_agg(r.total_xaf), array_agg(r.vat_xaf))
    into lines, vat
    from refund_items r join sale_items i on i.shop_id = r.shop_id and i.id = r.sale_item_id
   where r.shop_id = p_refund.shop_id and r.refund_id = p_refund.id;
  return '{"created_at":"' || iso_time(p_refund.created_at) || '","credit_note_no":' || coalesce(p_refund.credit_note_no::text, 'null')
    || ',"lines":' || lines || ',"method":"' || p_refund.method || '"' || fiscal_member('reason', to_json(p_refund.reason)::text)
    || ',"receipt_no":' || coalesce(sale.receipt_no::text, 'null') || ',"refund_id":"' || p_refund.id
    || '","sale_chain_no":' || coalesce(sale.chain_no::text, 'null') || ',"sale_id":"' || p_refund.sale_id
    || '","total_xaf":' || p_refund.total_xaf || fiscal_member('user_id', '"' || p_refund.user_id || '"') || ',"vat":' || vat
    || ',"vat_xaf":' || p_refund.vat_xaf || '}';
end $$;

-- A sealed Z: its number, day, net and grand totals, and the SHA-256 of the whole stored report (jsonb's
-- text form is normalised, so the same report always gives the same digest).
-- (PL/pgSQL: applied before migration 0036, when iso_time may not be there yet on a new database.)
create or replace function fiscal_z_content(p_z z_reports) returns text
  language plpgsql stable
  as $$
begin
  return '{"day":"' || to_char(p_z.day, 'YYYY-MM-DD') || '","grand_total_xaf":' || p_z.grand_total_xaf || ',"net_total_xaf":' || p_z.net_total_xaf
    || ',"report_sha256":"' || encode(sha256(convert_to(p_z.report::text, 'UTF8')), 'hex') || '","sealed_at":"' || iso_time(p_z.sealed_at)
    || '","z_no":' || p_z.z_no || ',"z_report_id":"' || p_z.id || '"}';
end $$;
