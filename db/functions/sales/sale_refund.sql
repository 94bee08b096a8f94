-- Refunds selected quantities of a completed (or partly refunded) sale: never more than sold less
-- already refunded; each line's share pro rata (its last unit takes the exact remainder), stock back
-- for tracked goods, VAT and journal reversed pro rata, points reversed pro rata, the money paid back
-- by p_method (credit: off the customer's account) from the refunder's open shift, else the sale's
-- while it is open (reversal_shift_id); a cash refund with neither is refused (409 no_open_shift).
-- A refund is a credit note (credit_note_no, per shop with no gap) and an entry of the fiscal chain.
-- For the shop and the user named (tenant_bind): every statement reads and writes that shop's rows only.
drop function if exists sale_refund(uuid, text, text, jsonb);
create or replace function sale_refund(p_shop_id uuid, p_user_id uuid, p_sale_id uuid, p_method text, p_reason text, p_items jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  sale sales;
  refund_id uuid := gen_random_uuid();
  request record;
  item sale_items;
  refunded_total bigint := 0;
  refunded_vat bigint := 0;
  part_total bigint;
  part_vat bigint;
  already_total bigint;
  already_vat bigint;
  already_cost bigint;
  part_cost bigint;
  cost_value bigint := 0;
  restocked boolean;
  -- Apart from the entry's jsonb_build_object, inside which PostgreSQL would not inline it.
  refund_account constant text := settlement_account(p_method);
  open_shift uuid;
  refund refunds;
  content text;
begin
  perform tenant_bind(p_shop_id, p_user_id);
  select * into sale from sales where shop_id = p_shop_id and id = p_sale_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if sale.status = 'voided' then
    perform raise_app_error(409, 'sale_voided', 'This sale is voided: nothing is left to refund.');
  end if;
  if sale.status = 'refunded' then
    perform raise_app_error(409, 'sale_refunded', 'This sale is already fully refunded.');
  end if;
  -- Paid out of the refunder's drawer, else of the sale's while it is open; cash needs one of them.
  open_shift := reversal_shift_id(sale.shift_id, 'refund');
  if open_shift is null and p_method = 'cash' then
    perform raise_app_error(409, 'no_open_shift', 'Open a shift first: a cash refund is paid out of a drawer.');
  end if;

  for request in
    select (value ->> 'sale_item_id')::uuid as sale_item_id, (value ->> 'quantity')::numeric as quantity, (ordinality - 1)::int as i
      from jsonb_array_elements(p_items) with ordinality
  loop
    select * into item from sale_items where shop_id = p_shop_id and id = request.sale_item_id and sale_id = p_sale_id for update;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This item is not part of this sale.', 'items.' || request.i || '.sale_item_id');
    end if;
    if request.quantity > item.quantity - item.refunded_quantity then
      perform raise_app_error(422, 'refund_exceeds_sold',
        format('Only %s of this item are left to refund.', trim_scale(item.quantity - item.refunded_quantity)), 'items.' || request.i || '.quantity');
    end if;
    if request.quantity = item.quantity - item.refunded_quantity then
      select coalesce(sum(ri.total_xaf), 0), coalesce(sum(ri.vat_xaf), 0), coalesce(sum(ri.cost_xaf), 0)
        into already_total, already_vat, already_cost
        from refund_items ri where ri.shop_id = p_shop_id and ri.sale_item_id = item.id;
      part_total := item.total_xaf - already_total;
      part_vat := item.vat_xaf - already_vat;
      part_cost := round(item.quantity * item.cost_xaf)::bigint - already_cost;
    else
      part_total := round(item.total_xaf * request.quantity / item.quantity)::bigint;
      part_vat := round(item.vat_xaf * request.quantity / item.quantity)::bigint;
      part_cost := round(request.quantity * item.cost_xaf)::bigint;
    end if;
    -- Back to stock (and its cost out of 6031) when the item still keeps stock.
    restocked := exists (select 1 from products p where p.shop_id = p_shop_id and p.id = item.product_id and p.deleted_at is null and p.tracked)
       and (item.variant_id is null or exists (select 1 from variants v where v.shop_id = p_shop_id and v.id = item.variant_id and v.deleted_at is null));
    insert into refund_items (shop_id, refund_id, sale_item_id, quantity, total_xaf, vat_xaf, cost_xaf, stock_cost_xaf)
    values (p_shop_id, refund_id, item.id, request.quantity, part_total, part_vat, part_cost, case when restocked then part_cost else 0 end);
    update sale_items set refunded_quantity = refunded_quantity + request.quantity where shop_id = p_shop_id and id = item.id;
    refunded_total := refunded_total + part_total;
    refunded_vat := refunded_vat + part_vat;
    if restocked then
      perform stock_move(item.product_id, item.variant_id, 'refund', request.quantity, p_reason, 'sale', p_sale_id);
      cost_value := cost_value + part_cost;
    end if;
  end loop;

  if p_method = 'credit' then
    if sale.customer_id is null or customer_uncharge(p_sale_id, refunded_total) < refunded_total then
      perform raise_app_error(422, 'validation_failed', 'Only what this sale still owes on the customer''s account can be refunded to it.', 'method');
    end if;
  end if;
  insert into sale_payments (shop_id, sale_id, kind, method, amount_xaf, shift_id, refund_id)
  values (p_shop_id, p_sale_id, 'refund', p_method, -refunded_total, open_shift, refund_id);

  perform journal_post('sale_refund', refund_id, 'Refund of sale ' || sale.receipt_no, jsonb_build_array(
    jsonb_build_object('account', '701', 'debit_xaf', refunded_total - refunded_vat),
    jsonb_build_object('account', '4431', 'debit_xaf', refunded_vat),
    jsonb_build_object('account', refund_account, 'credit_xaf', refunded_total)));
  perform journal_post_stock_change('sale_refund', refund_id, 'Refund of sale ' || sale.receipt_no || ' at cost', cost_value);

  if sale.total_xaf > 0 then
    perform loyalty_reverse_for_sale(p_sale_id,
      (coalesce((select sum(total_xaf) from refunds where shop_id = p_shop_id and sale_id = p_sale_id), 0) + refunded_total)::numeric / sale.total_xaf);
  end if;
  update sales set status = case when exists (select 1 from sale_items where shop_id = p_shop_id and sale_id = p_sale_id and refunded_quantity < quantity)
                                 then 'partially_refunded' else 'refunded' end
   where shop_id = p_shop_id and id = p_sale_id;

  -- Last, the refund's own row with its credit note number and its fiscal entry, in one statement that
  -- takes the shop's counter row until commit (both numbers gap-free); the content is read from the
  -- refund's lines as the integrity check reads them, its number put in under the lock.
  refund.shop_id := p_shop_id;
  refund.id := refund_id;
  refund.sale_id := p_sale_id;
  refund.method := p_method;
  refund.reason := p_reason;
  refund.total_xaf := refunded_total;
  refund.vat_xaf := refunded_vat;
  refund.user_id := p_user_id;
  refund.created_at := now();
  -- The counter row exists: the sale made it (sale_record), or the upgrade did (fiscal_backfill).
  content := fiscal_refund_content(refund);
  with counter as (
    update receipt_counters
       set credit_note_no = credit_note_no + 1, chain_no = chain_no + 1, chain_previous_hash = chain_hash,
           chain_hash = fiscal_hash(chain_hash, fiscal_numbered(content, 'credit_note_no', credit_note_no + 1))
     where shop_id = p_shop_id
    returning credit_note_no, chain_no, chain_previous_hash, chain_hash
  ), refund_row as (
    insert into refunds (shop_id, id, sale_id, method, reason, total_xaf, vat_xaf, shift_id, credit_note_no, chain_no, user_id)
    select p_shop_id, refund_id, p_sale_id, p_method, p_reason, refunded_total, refunded_vat, open_shift, counter.credit_note_no, counter.chain_no, p_user_id
      from counter
  )
  insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, amount_xaf, previous_hash, hash, content)
  select p_shop_id, counter.chain_no, 'refund', refund_id, now(), -refunded_total, counter.chain_previous_hash, counter.chain_hash,
         fiscal_numbered(content, 'credit_note_no', counter.credit_note_no)
    from counter;
  return refund_id;
end $$;
