create or replace function stocktake_cancel(p_stocktake_id uuid)
  returns stocktakes
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ' and cannot be cancelled.');
  end if;
  update stocktakes set status = 'cancelled', cancelled_at = now() where id = p_stocktake_id returning * into stocktake;
  return stocktake;
end $$;
