-- The caller's open shift, locked FOR SHARE until the transaction ends: a close (FOR UPDATE) waits
-- for whatever is being attached to it (a sale, a cash movement, an expense) and then counts it, and
-- nothing is attached to a shift that a concurrent close has just closed. Null when none is open.
create or replace function current_shift_id() returns uuid
  language plpgsql volatile
  as $$
declare
  shift uuid;
begin
  select id into shift from shifts where user_id = app_user_id() and status = 'open' for share;
  return shift;
end $$;
