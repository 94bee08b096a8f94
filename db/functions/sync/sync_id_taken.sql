-- Whether any shop holds a record of this kind with this id. Row-level security hides other shops'
-- rows, but ids are global: a till that reuses one gets a rejected record rather than a collision
-- halfway through. It tells only whether a random UUID is taken.
create or replace function sync_id_taken(p_table text, p_id uuid) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$
declare
  taken boolean;
begin
  if p_table not in ('customers', 'expenses', 'cash_movements') then
    raise exception 'sync_id_taken: unknown table %', p_table;
  end if;
  execute format('select exists (select 1 from %I where id = $1)', p_table) into taken using p_id;
  return taken;
end $$;
