-- The status a quote shows on a given day of its shop's calendar: a draft or sent quote past its
-- valid_until is expired (CONTRACT section 8); the stored status otherwise.
create or replace function quote_shown_status(p_status text, p_valid_until date, p_today date) returns text
  language sql immutable parallel safe
  as $$ select case when p_status in ('draft', 'sent') and p_valid_until < p_today then 'expired' else p_status end $$;

-- A quote in the shape of the API's Quote record (also what the tills pull), its status as shown today.
create or replace function quote_json(p_quote_id uuid) returns jsonb
  language plpgsql stable
  as $$
begin
  return (select jsonb_build_object(
      'id', q.id, 'quote_no', q.quote_no,
      'status', quote_shown_status(q.status, q.valid_until, (now() at time zone sh.timezone)::date),
      'customer_id', q.customer_id, 'customer_name', (select c.name from customers c where c.id = q.customer_id), 'note', q.note,
      'valid_until', to_char(q.valid_until, 'YYYY-MM-DD'),
      'subtotal_xaf', q.subtotal_xaf, 'discount_xaf', q.discount_xaf, 'vat_xaf', q.vat_xaf, 'total_xaf', q.total_xaf,
      'items', coalesce((select jsonb_agg(jsonb_build_object(
          'id', i.id, 'line_no', i.line_no, 'product_id', i.product_id, 'variant_id', i.variant_id, 'name', i.name,
          'quantity', i.quantity, 'unit_price_xaf', i.unit_price_xaf, 'discount_xaf', i.discount_xaf,
          'promotion_id', i.promotion_id, 'promotion_discount_xaf', i.promotion_discount_xaf,
          'vat_rate', i.vat_rate, 'vat_xaf', i.vat_xaf, 'total_xaf', i.total_xaf) order by i.line_no)
        from quote_items i where i.quote_id = q.id), '[]'),
      'vat_breakdown', coalesce((select jsonb_agg(jsonb_build_object('rate', v.rate, 'base_xaf', v.total - v.vat,
                                                                      'vat_xaf', v.vat, 'total_xaf', v.total) order by v.rate)
        from (select vat_rate as rate, sum(vat_xaf) as vat, sum(total_xaf) as total from quote_items where quote_id = q.id group by vat_rate) v), '[]'),
      'sale_id', q.sale_id, 'created_by', q.created_by, 'created_by_name', (select u.name from users u where u.id = q.created_by),
      'converted_at', iso_time(q.converted_at), 'created_at', iso_time(q.created_at), 'updated_at', iso_time(q.updated_at))
      -- The customer's and the author's names by primary key (joined, a generic plan read the shop's customers).
      from quotes q join shops sh on sh.id = q.shop_id
     where q.id = p_quote_id);
end $$;
