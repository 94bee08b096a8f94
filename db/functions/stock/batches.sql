-- Batches follow the stock (CONTRACT section 7): every change of an item's on-hand keeps the sum of
-- its batches at most its on-hand (never below zero), the rest being unbatched stock. Each function
-- here runs with the item's product row locked by its caller (stock_move, sale_record, the purchase
-- procedures), so that two changes of one item never interleave.

-- How many more units the item's batches may hold: its on-hand (zero when negative) less what they hold.
create or replace function batch_room(p_product_id uuid, p_variant_id uuid)
  returns numeric
  language plpgsql stable
  as $$
declare
  on_hand numeric;
  held numeric;
begin
  if p_variant_id is null then
    select p.on_hand into on_hand from products p where p.id = p_product_id;
  else
    select v.on_hand into on_hand from variants v where v.id = p_variant_id;
  end if;
  select coalesce(sum(b.quantity), 0) into held from batches b
   where b.product_id = p_product_id and b.variant_id is not distinct from p_variant_id and b.quantity > 0;
  return greatest(coalesce(on_hand, 0), 0) - held;
end $$;

-- Takes up to p_quantity of the item from its batches, first expired first out (undated batches
-- last, then the oldest received); returns what it took. What is left comes from unbatched stock.
create or replace function batch_take_fefo(p_product_id uuid, p_variant_id uuid, p_quantity numeric, p_type text,
                                           p_sale_id uuid, p_source_id uuid)
  returns numeric
  language plpgsql volatile
  as $$
declare
  taken numeric;
begin
  with candidates as (
    select b.id, b.quantity,
           sum(b.quantity) over (order by b.expiry_date nulls last, b.created_at, b.id) - b.quantity as before
      from batches b
     where b.product_id = p_product_id and b.variant_id is not distinct from p_variant_id and b.quantity > 0
  ), takes as (
    select id, least(quantity, p_quantity - before) as take from candidates where before < p_quantity
  ), updated as (
    update batches b set quantity = b.quantity - t.take from takes t where b.id = t.id returning b.id, t.take
  ), recorded as (
    insert into batch_movements (batch_id, type, quantity, sale_id, source_id)
    select id, p_type, -take, p_sale_id, p_source_id from updated
  )
  select coalesce(sum(take), 0) into taken from updated;
  return taken;
end $$;

-- Gives back up to p_quantity of the item to the batches sale p_sale_id took it from (a void or a
-- refund), the last taken first, never more than the sale took from each less what it got back
-- already, nor more than the batches have room for; returns what it gave back. The rest is unbatched.
create or replace function batch_give_back(p_product_id uuid, p_variant_id uuid, p_quantity numeric, p_type text, p_sale_id uuid)
  returns numeric
  language plpgsql volatile
  as $$
declare
  wanted numeric := least(p_quantity, batch_room(p_product_id, p_variant_id));
  given numeric;
begin
  if wanted <= 0 then
    return 0;
  end if;
  with owed as (
    select m.batch_id, -sum(m.quantity) as owed, max(m.created_at) filter (where m.quantity < 0) as taken_at
      from batch_movements m join batches b on b.id = m.batch_id
     where m.sale_id = p_sale_id and b.product_id = p_product_id and b.variant_id is not distinct from p_variant_id
     group by m.batch_id
    having -sum(m.quantity) > 0
  ), ordered as (
    select batch_id, owed, sum(owed) over (order by taken_at desc, batch_id) - owed as before from owed
  ), gives as (
    select batch_id, least(owed, wanted - before) as give from ordered where before < wanted
  ), updated as (
    update batches b set quantity = b.quantity + g.give from gives g where b.id = g.batch_id returning b.id, g.give
  ), recorded as (
    insert into batch_movements (batch_id, type, quantity, sale_id, source_id)
    select id, p_type, give, p_sale_id, p_sale_id from updated
  )
  select coalesce(sum(give), 0) into given from updated;
  return given;
end $$;

-- Receives p_quantity of the item into the batch of that number and expiry date (made on first
-- receipt), at p_cost_xaf a unit: as much as the batches have room for (units sold below zero before
-- the goods came were these goods). Returns the batch's id.
create or replace function batch_receive(p_product_id uuid, p_variant_id uuid, p_batch_number text, p_expiry_date date,
                                         p_quantity numeric, p_cost_xaf bigint, p_purchase_id uuid)
  returns uuid
  language plpgsql volatile
  as $$
declare
  batch_id uuid;
  added numeric := least(p_quantity, batch_room(p_product_id, p_variant_id));
begin
  insert into batches (product_id, variant_id, batch_number, expiry_date, cost_xaf)
  values (p_product_id, p_variant_id, p_batch_number, p_expiry_date, p_cost_xaf)
  on conflict (shop_id, product_id, variant_id, batch_number, expiry_date) do update set cost_xaf = excluded.cost_xaf
  returning id into batch_id;
  if added > 0 then
    update batches set quantity = quantity + added where id = batch_id;
    insert into batch_movements (batch_id, type, quantity, source_id) values (batch_id, 'purchase', added, p_purchase_id);
  end if;
  return batch_id;
end $$;
