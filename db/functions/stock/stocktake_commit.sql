-- Commits once: each counted item's variance (counted - expected) moves the stock as it is now, so
-- sales made during the count are kept; uncounted items are left alone, and so are items that no
-- longer keep stock of their own (deleted, untracked, or given variants); the variance's value at last
-- cost is posted to the journal. A second or concurrent commit finds the stocktake no longer open.
create or replace function stocktake_commit(p_stocktake_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
  item record;
  movement stock_movements;
  value_xaf bigint := 0;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ' and cannot be committed.');
  end if;
  for item in
    select i.product_id, i.variant_id, i.counted_quantity - i.expected_quantity as variance, p.cost_xaf
      from stocktake_items i
      join products p on p.id = i.product_id and p.deleted_at is null and p.tracked
      left join variants v on v.id = i.variant_id
     where i.stocktake_id = p_stocktake_id
       and i.counted_quantity is not null
       and i.counted_quantity <> i.expected_quantity
       and (i.variant_id is null or v.deleted_at is null)
       -- A product counted on its own that has since been given variants keeps its stock on them.
       and (i.variant_id is not null
            or not exists (select 1 from variants vv where vv.product_id = i.product_id and vv.deleted_at is null))
     order by i.product_id, i.variant_id nulls first
  loop
    movement := stock_move(item.product_id, item.variant_id, 'stocktake', item.variance, 'Stocktake', 'stocktake', p_stocktake_id);
    value_xaf := value_xaf + round(item.variance * item.cost_xaf)::bigint;
  end loop;
  perform journal_post_stock_change('stocktake', p_stocktake_id, coalesce(stocktake.note, 'Stocktake'), value_xaf);
  update stocktakes set status = 'committed', committed_at = now(), committed_by = app_user_id()
   where id = p_stocktake_id returning * into stocktake;
  return stocktake;
end $$;
