-- Records counts (p_counts: [{"item_id", "counted_quantity"}]; null clears a count) while open.
create or replace function stocktake_record_counts(p_stocktake_id uuid, p_counts jsonb)
  returns void
  language plpgsql volatile
  as $$
declare
  stocktake stocktakes;
  count_row record;
begin
  select * into stocktake from stocktakes where id = p_stocktake_id for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if stocktake.status <> 'open' then
    perform raise_app_error(409, 'stocktake_not_open', 'This stocktake is ' || stocktake.status || ': counts can no longer change.');
  end if;
  for count_row in
    select ordinality - 1 as position, (value ->> 'item_id')::uuid as item_id, (value ->> 'counted_quantity')::numeric as counted
      from jsonb_array_elements(p_counts) with ordinality
  loop
    update stocktake_items
       set counted_quantity = count_row.counted,
           counted_at = case when count_row.counted is null then null else now() end
     where id = count_row.item_id and stocktake_id = p_stocktake_id;
    if not found then
      perform raise_app_error(422, 'validation_failed', 'This item is not part of this stocktake.',
                              'counts.' || count_row.position || '.item_id');
    end if;
  end loop;
end $$;
