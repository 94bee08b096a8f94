-- Voids a completed sale with no refund: stock back, payments, credit, points and journal reversed by
-- new records; the sale keeps its number and shows as voided. The payments' reversal belongs to the
-- sale's own shift while it is open, else to the voider's (reversal_shift_id); a sale that took cash
-- cannot be voided with neither open (409 no_open_shift). For the shop and the user named
-- (tenant_bind): every statement reads and writes that shop's rows only.
drop function if exists sale_void(uuid, text);
create or replace function sale_void(p_shop_id uuid, p_user_id uuid, p_sale_id uuid, p_reason text)
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
  perform tenant_bind(p_shop_id, p_user_id);
  select * into sale from sales where shop_id = p_shop_id and id = p_sale_id for update;
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
  -- The cash goes back from the drawer the sale was taken in while it is open, else from the voider's.
  open_shift := reversal_shift_id(sale.shift_id, 'void');
  if open_shift is null and exists (select 1 from sale_payments where shop_id = p_shop_id and sale_id = p_sale_id and method = 'cash' and kind in ('payment', 'change')
                                     having sum(amount_xaf) <> 0) then
    perform raise_app_error(409, 'no_open_shift', 'Open a shift first: the cash this sale took goes back from a drawer.');
  end if;

  for item in select * from sale_items where shop_id = p_shop_id and sale_id = p_sale_id order by product_id, variant_id nulls first loop
    if exists (select 1 from products p where p.shop_id = p_shop_id and p.id = item.product_id and p.deleted_at is null and p.tracked)
       and (item.variant_id is null or exists (select 1 from variants v where v.shop_id = p_shop_id and v.id = item.variant_id and v.deleted_at is null)) then
      perform stock_move(item.product_id, item.variant_id, 'void', item.quantity, p_reason, 'sale', p_sale_id);
    end if;
  end loop;

  insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, shift_id)
  select p_shop_id, p_sale_id, 'void', method, -sum(amount_xaf), open_shift
    from sale_payments where shop_id = p_shop_id and sale_id = p_sale_id and kind in ('payment', 'change')
   group by method having sum(amount_xaf) <> 0;

  -- Every entry the sale posted, reversed line by line.
  for entry in select id, memo from journal_entries where shop_id = p_shop_id and source_type = 'sale' and source_id = p_sale_id loop
    select jsonb_agg(jsonb_build_object('account', account, 'debit_xaf', credit_xaf, 'credit_xaf', debit_xaf))
      into reversed from journal_lines where shop_id = p_shop_id and entry_id = entry.id;
    perform journal_post('sale_void', p_sale_id, 'Void: ' || coalesce(entry.memo, ''), reversed);
  end loop;

  perform loyalty_reverse_for_sale(p_sale_id, 1);
  -- Last, the void's fiscal entry (its content read from the rows as the integrity check reads them),
  -- which takes the shop's counter row until commit.
  sale.void_reason := p_reason;
  sale.voided_at := now();
  sale.voided_by := p_user_id;
  update sales set status = 'voided', void_reason = p_reason, voided_at = now(), voided_by = p_user_id,
                   void_chain_no = fiscal_append('void', p_sale_id, now(), -sale.total_xaf, fiscal_void_content(sale))
   where shop_id = p_shop_id and id = p_sale_id;
end $$;
