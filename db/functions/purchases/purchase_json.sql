-- A purchase in the shape of the API's Purchase record: its lines, payments and returns.
create or replace function purchase_json(p_purchase_id uuid) returns jsonb
  language plpgsql stable
  as $$
begin
  return (select jsonb_build_object(
      'id', p.id, 'supplier_id', p.supplier_id, 'supplier_name', s.name, 'reference', p.reference, 'note', p.note,
      'vat_rate', p.vat_rate, 'subtotal_xaf', p.subtotal_xaf, 'vat_xaf', p.vat_xaf, 'total_xaf', p.total_xaf,
      'paid_xaf', p.paid_xaf, 'returned_xaf', p.returned_xaf, 'balance_xaf', p.total_xaf - p.returned_xaf - p.paid_xaf,
      'status', p.status, 'user_id', p.user_id, 'created_at', iso_time(p.created_at), 'updated_at', iso_time(p.updated_at),
      'items', coalesce((select jsonb_agg(jsonb_build_object(
          'id', i.id, 'line_no', i.line_no, 'product_id', i.product_id, 'variant_id', i.variant_id, 'name', i.name,
          'quantity', i.quantity, 'unit_cost_xaf', i.unit_cost_xaf, 'total_xaf', i.total_xaf, 'batch_number', i.batch_number,
          'expiry_date', i.expiry_date, 'batch_id', i.batch_id, 'returned_quantity', i.returned_quantity) order by i.line_no)
        from purchase_items i where i.purchase_id = p.id), '[]'),
      'payments', coalesce((select jsonb_agg(jsonb_build_object(
          'id', pp.id, 'amount_xaf', pp.amount_xaf, 'method', pp.method, 'reference', pp.reference, 'shift_id', pp.shift_id,
          'user_id', pp.user_id, 'created_at', iso_time(pp.created_at)) order by pp.created_at, pp.id)
        from purchase_payments pp where pp.purchase_id = p.id), '[]'),
      'returns', coalesce((select jsonb_agg(jsonb_build_object(
          'id', r.id, 'subtotal_xaf', r.subtotal_xaf, 'vat_xaf', r.vat_xaf, 'total_xaf', r.total_xaf, 'user_id', r.user_id,
          'created_at', iso_time(r.created_at),
          'items', (select coalesce(jsonb_agg(jsonb_build_object('id', ri.id, 'purchase_item_id', ri.purchase_item_id,
                                                                 'quantity', ri.quantity, 'total_xaf', ri.total_xaf, 'reason', ri.reason)
                                              order by ri.line_no), '[]')
                      from purchase_return_items ri where ri.return_id = r.id)) order by r.created_at, r.id)
        from purchase_returns r where r.purchase_id = p.id), '[]'))
      from purchases p left join suppliers s on s.id = p.supplier_id
     where p.id = p_purchase_id);
end $$;
