-- A sale in the shape of the API's Sale record (also what the tills pull). PL/pgSQL so that its plan
-- is kept for the session (as a SQL function it was planned again at every call: 0.52 ms against 0.19).
-- A sale of the transaction's shop (bound by sale_read, or by the request), held in the_shop so that
-- every statement names it: null for another shop's sale, whoever reads.
create or replace function sale_json(p_sale_id uuid) returns jsonb
  language plpgsql stable
  as $$
declare
  the_shop constant uuid := app_shop_id();
begin
  return (select jsonb_build_object(
      'id', s.id, 'receipt_no', s.receipt_no, 'status', s.status, 'customer_id', s.customer_id, 'device_id', s.device_id,
      'cashier_id', s.cashier_id, 'cashier_name', u.name, 'shift_id', s.shift_id, 'note', s.note,
      'subtotal_xaf', s.subtotal_xaf, 'discount_xaf', s.discount_xaf, 'vat_xaf', s.vat_xaf, 'total_xaf', s.total_xaf,
      'paid_xaf', s.paid_xaf, 'change_xaf', s.change_xaf, 'credit_xaf', s.credit_xaf,
      'points_earned', s.points_earned + coalesce((select sum(points) from loyalty_points lp
                                                   where lp.shop_id = the_shop and lp.source_type = 'sale' and lp.source_id = s.id and lp.kind = 'earn'
                                                     and s.customer_id is null), 0),
      'points_redeemed', s.points_redeemed, 'offline', s.offline,
      'items', coalesce((select jsonb_agg(jsonb_build_object(
          'id', i.id, 'line_no', i.line_no, 'product_id', i.product_id, 'variant_id', i.variant_id, 'name', i.name,
          'quantity', i.quantity, 'unit_price_xaf', i.unit_price_xaf, 'discount_xaf', i.discount_xaf,
          'promotion_id', i.promotion_id, 'promotion_discount_xaf', i.promotion_discount_xaf,
          'points_discount_xaf', i.points_discount_xaf, 'vat_rate', i.vat_rate, 'vat_xaf', i.vat_xaf,
          'total_xaf', i.total_xaf, 'refunded_quantity', i.refunded_quantity) order by i.line_no)
        from sale_items i where i.shop_id = the_shop and i.sale_id = s.id), '[]'),
      'payments', coalesce((select jsonb_agg(jsonb_build_object(
          'id', p.id, 'kind', p.kind, 'method', p.method, 'amount_xaf', p.amount_xaf, 'reference', p.reference,
          'created_at', iso_time(p.created_at)) order by p.created_at, p.kind, p.position nulls last, p.id)
        from sale_payments p where p.shop_id = the_shop and p.sale_id = s.id), '[]'),
      'refunds', coalesce((select jsonb_agg(jsonb_build_object(
          'id', r.id, 'credit_note_no', r.credit_note_no, 'method', r.method, 'reason', r.reason, 'total_xaf', r.total_xaf, 'vat_xaf', r.vat_xaf,
          'created_at', iso_time(r.created_at), 'certification', fiscal_certification_json(r.shop_id, r.id, 'refund'),
          'items', (select coalesce(jsonb_agg(jsonb_build_object('sale_item_id', ri.sale_item_id, 'quantity', ri.quantity,
                                                                 'total_xaf', ri.total_xaf, 'vat_xaf', ri.vat_xaf)), '[]')
                      from refund_items ri where ri.shop_id = the_shop and ri.refund_id = r.id)) order by r.created_at, r.id)
        from refunds r where r.shop_id = the_shop and r.sale_id = s.id), '[]'),
      'vat_breakdown', coalesce((select jsonb_agg(jsonb_build_object('rate', v.rate, 'base_xaf', v.total - v.vat,
                                                                      'vat_xaf', v.vat, 'total_xaf', v.total) order by v.rate)
        from (select vat_rate as rate, sum(vat_xaf) as vat, sum(total_xaf) as total from sale_items where shop_id = the_shop and sale_id = s.id group by vat_rate) v), '[]'),
      'certification', fiscal_certification_json(s.shop_id, s.id, 'sale'),
      'void_certification', case when s.status = 'voided' then fiscal_certification_json(s.shop_id, s.id, 'void') end,
      'quote_id', s.quote_id, 'void_reason', s.void_reason, 'voided_at', iso_time(s.voided_at),
      'created_at', iso_time(s.created_at), 'recorded_at', iso_time(s.recorded_at), 'updated_at', iso_time(s.updated_at),
      'till_created_at', iso_time(s.till_created_at))
      from sales s left join users u on u.id = s.cashier_id
     where s.shop_id = the_shop and s.id = p_sale_id);
end $$;
