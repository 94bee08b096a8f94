-- Converts a quote into a real sale at the quote's prices (CONTRACT section 8): the sale procedure
-- itself (sale_record with the quote's id), so stock, payments, change, credit within the ceiling,
-- points, receipt number, journal and shift are exactly a sale's. The quote row is locked first:
-- of two conversions at once the second waits, then finds the quote converted (409 quote_closed).
-- A quote past its valid_until, or marked expired, is a 409 quote_expired; a declined one a 409
-- quote_closed. p_payments: the sale's payments. Returns the sale's id.
create or replace function quote_convert(p_quote_id uuid, p_sale_id uuid, p_payments jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  quote quotes := quote_lock(p_quote_id);
  today date := (select (now() at time zone timezone)::date from shops where id = app_shop_id());
  shown text := quote_shown_status(quote.status, quote.valid_until, today);
begin
  if quote.status = 'converted' then
    perform raise_app_error(409, 'quote_closed', 'This quote was already converted into a sale.');
  elsif quote.status = 'declined' then
    perform raise_app_error(409, 'quote_closed', 'This quote was declined.');
  elsif shown = 'expired' then
    perform raise_app_error(409, 'quote_expired', format('This quote was valid until %s.', to_char(quote.valid_until, 'YYYY-MM-DD')));
  end if;
  perform sale_record(jsonb_build_object(
      'id', p_sale_id, 'customer_id', quote.customer_id, 'note', quote.note,
      'items', (select jsonb_agg(jsonb_build_object(
                  'product_id', i.product_id, 'variant_id', i.variant_id, 'name', i.name, 'quantity', i.quantity,
                  'unit_price_xaf', i.unit_price_xaf, 'discount_xaf', i.discount_xaf, 'vat_rate', i.vat_rate,
                  'promotion_id', i.promotion_id, 'promotion_discount_xaf', i.promotion_discount_xaf) order by i.line_no)
                  from quote_items i where i.quote_id = quote.id),
      'payments', coalesce(p_payments, '[]'),
      'request_hash', 'quote:' || quote.id),
    false, quote.id);
  update quotes set status = 'converted', sale_id = p_sale_id, converted_at = now() where id = quote.id;
  return p_sale_id;
end $$;
