-- Whether any shop has a sale with this id. Row-level security hides other shops' sales, but ids are
-- unique across shops: a till that reuses one must get a 409, not collide halfway through. It tells
-- only whether a random UUID is taken.
create or replace function sale_id_taken(p_id uuid) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog, public
  as $$ begin return exists (select 1 from sales where id = p_id); end $$;
