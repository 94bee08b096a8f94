-- A shop always keeps an owner: called before any statement that demotes or removes a user (api/users),
-- in its transaction; no trigger on users, a reference table on Citus. The shop row is locked first,
-- so two owners demoting each other at once queue behind one another (the second is refused) instead
-- of deadlocking, and whether the user is a live owner is read after the lock.
drop function if exists users_keep_an_owner();
create or replace function users_keep_an_owner(p_user_id uuid) returns void
  language plpgsql volatile
  as $$
declare
  shop uuid;
begin
  select u.shop_id into shop from users u where u.id = p_user_id and u.role = 'owner' and u.deleted_at is null;
  if shop is null then
    return;
  end if;
  perform 1 from shops where id = shop for update;
  if exists (select 1 from users where shop_id = shop and id = p_user_id and role = 'owner' and deleted_at is null)
     and not exists (select 1 from users where shop_id = shop and role = 'owner' and deleted_at is null and id <> p_user_id) then
    perform raise_app_error(409, 'last_owner', 'The shop''s last owner cannot be removed or demoted.');
  end if;
end $$;
