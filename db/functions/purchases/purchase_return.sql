-- Sends goods back to the supplier: p_items [{purchase_item_id, quantity, reason}]. Never more of a
-- line than received less already returned (422 return_exceeds_received), nor more than is on hand
-- (422 insufficient_stock; for a line received into a batch, more than that batch holds). The goods go
-- out with purchase_return movements, from the line's batch, or else from unbatched stock first (then
-- first expired first out, so that the batches never hold more than the on-hand). Reversed pro rata:
-- each line's returns worth round(returned quantity x unit cost) in all, the VAT so that
-- what all returns took back is the same share of the purchase's VAT as of its subtotal; journal 401
-- against 601 and 4452, and the goods out of stock at cost. The supplier's balance goes down by the
-- total (below zero: the supplier owes the shop). Returns the return's id.
create or replace function purchase_return(p_purchase_id uuid, p_items jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  purchase purchases;
  return_id uuid := gen_random_uuid();
  request record;
  line purchase_items;
  product products;
  on_hand numeric;
  batch batches;
  part bigint;
  subtotal bigint := 0;
  stock_value bigint := 0;
  vat_after bigint;
  vat bigint;
  excess numeric;
  movement stock_movements;
  locked uuid;
begin
  select * into purchase from purchases where id = p_purchase_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  -- Then its supplier, then the products of the lines returned one by one in id order: the order
  -- purchase_record takes them in (supplier, products), so a return and a receipt never deadlock.
  perform 1 from suppliers where id = purchase.supplier_id for update;
  for locked in
    select distinct i.product_id
      from (select (value ->> 'purchase_item_id')::uuid from jsonb_array_elements(p_items) offset 0) as requested (id)
      join purchase_items i on i.id = requested.id and i.purchase_id = p_purchase_id
     where i.product_id is not null
     order by i.product_id
  loop
    perform 1 from products where id = locked for update;
  end loop;
  insert into purchase_returns (id, purchase_id, subtotal_xaf, vat_xaf, total_xaf) values (return_id, p_purchase_id, 0, 0, 0);

  for request in
    select (value ->> 'purchase_item_id')::uuid as purchase_item_id, (value ->> 'quantity')::numeric as quantity,
           value ->> 'reason' as reason, (ordinality - 1)::int as i
      from jsonb_array_elements(p_items) with ordinality order by ordinality
  loop
    select * into line from purchase_items where id = request.purchase_item_id and purchase_id = p_purchase_id for update;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This line is not part of this purchase.', 'items.' || request.i || '.purchase_item_id');
    end if;
    if request.quantity > line.quantity - line.returned_quantity then
      perform raise_app_error(422, 'return_exceeds_received',
        format('Only %s of this line are left to return.', trim_scale(line.quantity - line.returned_quantity)), 'items.' || request.i || '.quantity');
    end if;
    -- What the line's returns are worth in all is round(returned quantity x unit cost), so pieces add
    -- up to the line's total exactly, never more (each piece rounded on its own could).
    part := round((line.returned_quantity + request.quantity) * line.unit_cost_xaf)::bigint - round(line.returned_quantity * line.unit_cost_xaf)::bigint;
    update purchase_items set returned_quantity = returned_quantity + request.quantity where id = line.id;
    insert into purchase_return_items (return_id, line_no, purchase_item_id, quantity, total_xaf, reason)
    values (return_id, request.i + 1, line.id, request.quantity, part, request.reason);
    subtotal := subtotal + part;

    select * into product from products p where p.id = line.product_id and p.deleted_at is null and p.tracked;
    if found and (line.variant_id is null or exists (select 1 from variants v where v.id = line.variant_id and v.deleted_at is null)) then
      on_hand := case when line.variant_id is null then product.on_hand
                      else (select v.on_hand from variants v where v.id = line.variant_id) end;
      if on_hand < request.quantity then
        perform raise_app_error(422, 'insufficient_stock', format('Only %s in stock.', trim_scale(greatest(on_hand, 0))), 'items.' || request.i || '.quantity');
      end if;
      if line.batch_id is not null then
        select * into batch from batches where id = line.batch_id;
        if batch.quantity < request.quantity then
          perform raise_app_error(422, 'insufficient_stock',
            format('Only %s left of batch %s.', trim_scale(batch.quantity), coalesce(batch.batch_number, batch.expiry_date::text)), 'items.' || request.i || '.quantity');
        end if;
      end if;
      movement := stock_move(line.product_id, line.variant_id, 'purchase_return', -request.quantity, request.reason, 'purchase_return', return_id);
      if line.batch_id is not null then
        update batches set quantity = quantity - request.quantity where id = line.batch_id;
        insert into batch_movements (batch_id, type, quantity, source_id) values (line.batch_id, 'purchase_return', -request.quantity, return_id);
      else
        -- Unbatched stock first: the batches give only what the on-hand no longer covers.
        excess := -batch_room(line.product_id, line.variant_id);
        if excess > 0 then
          perform batch_take_fefo(line.product_id, line.variant_id, excess, 'purchase_return', null, return_id);
        end if;
      end if;
      stock_value := stock_value + part;
    end if;
  end loop;

  -- The VAT all returns took back is the same share of the purchase's VAT as their subtotal is of its subtotal.
  vat_after := case when purchase.subtotal_xaf = 0 then 0
                    else round(purchase.vat_xaf::numeric * (purchase.returned_xaf - purchase.returned_vat_xaf + subtotal) / purchase.subtotal_xaf)::bigint end;
  vat := vat_after - purchase.returned_vat_xaf;
  update purchase_returns set subtotal_xaf = subtotal, vat_xaf = vat, total_xaf = subtotal + vat where id = return_id;
  update purchases set returned_xaf = returned_xaf + subtotal + vat, returned_vat_xaf = returned_vat_xaf + vat,
                       status = purchase_status(total_xaf, returned_xaf + subtotal + vat, paid_xaf)
   where id = p_purchase_id;
  if purchase.supplier_id is not null then
    update suppliers set balance_xaf = balance_xaf - subtotal - vat where id = purchase.supplier_id;
  end if;
  perform journal_post('purchase_return', return_id, coalesce('Return of purchase ' || purchase.reference, 'Purchase return'),
    jsonb_build_array(jsonb_build_object('account', '401', 'debit_xaf', subtotal + vat),
                      jsonb_build_object('account', '601', 'credit_xaf', subtotal),
                      jsonb_build_object('account', '4452', 'credit_xaf', vat))
    || journal_stock_change_lines(-stock_value));
  return return_id;
end $$;
