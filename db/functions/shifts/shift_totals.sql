-- What the drawer of a shift should hold, per method. Cash: the opening float, plus cash taken for
-- sales less change given, less cash paid back for refunds and voids, plus cash customers paid on
-- their accounts, plus cash brought in, less cash taken out, less cash expenses still standing, less
-- cash paid to suppliers. Other methods: the net of their sale payments plus their settlements.
-- Credit is not money in a drawer and is left out. Null for a shift the caller's shop does not hold.
create or replace function shift_totals(p_shift_id uuid)
  returns jsonb
  language plpgsql stable
  as $$
declare
  float_xaf bigint;
  sales_xaf bigint;
  refunds_xaf bigint;
  settlements_xaf bigint;
  in_xaf bigint;
  out_xaf bigint;
  expenses_xaf bigint;
  suppliers_xaf bigint;
  expected_xaf bigint;
  per_method jsonb;
begin
  select opening_float_xaf into float_xaf from shifts where id = p_shift_id;
  if not found then
    return null;
  end if;
  select coalesce(sum(amount_xaf) filter (where kind in ('payment', 'change')), 0)::bigint,
         coalesce(-sum(amount_xaf) filter (where kind in ('refund', 'void')), 0)::bigint
    into sales_xaf, refunds_xaf
    from sale_payments where shift_id = p_shift_id and method = 'cash';
  select coalesce(sum(amount_xaf), 0)::bigint into settlements_xaf
    from customer_payments where shift_id = p_shift_id and method = 'cash';
  select coalesce(sum(amount_xaf) filter (where direction = 'in'), 0)::bigint,
         coalesce(sum(amount_xaf) filter (where direction = 'out'), 0)::bigint
    into in_xaf, out_xaf
    from cash_movements where shift_id = p_shift_id;
  select coalesce(sum(amount_xaf), 0)::bigint into expenses_xaf
    from expenses where shift_id = p_shift_id and payment_method = 'cash' and deleted_at is null;
  select coalesce(sum(amount_xaf), 0)::bigint into suppliers_xaf
    from purchase_payments where shift_id = p_shift_id and method = 'cash';
  expected_xaf := float_xaf + sales_xaf - refunds_xaf + settlements_xaf + in_xaf - out_xaf - expenses_xaf - suppliers_xaf;
  select jsonb_object_agg(m.method, case when m.method = 'cash' then expected_xaf else coalesce(p.net_xaf, 0) end)
    into per_method
    from unnest(array['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank']) m (method)
    left join (select method, sum(amount_xaf)::bigint as net_xaf
                 from (select method, amount_xaf from sale_payments where shift_id = p_shift_id
                       union all
                       select method, amount_xaf from customer_payments where shift_id = p_shift_id) taken
                group by method) p
      on p.method = m.method;
  return jsonb_build_object(
    'opening_float_xaf', float_xaf,
    'cash_sales_xaf', sales_xaf,
    'cash_refunds_xaf', refunds_xaf,
    'cash_settlements_xaf', settlements_xaf,
    'cash_in_xaf', in_xaf,
    'cash_out_xaf', out_xaf,
    'cash_expenses_xaf', expenses_xaf,
    'cash_supplier_payments_xaf', suppliers_xaf,
    'expected_cash_xaf', expected_xaf,
    'by_method', per_method);
end $$;
