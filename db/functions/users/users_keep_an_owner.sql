-- A shop always keeps an owner. The shop row is locked first, so two owners demoting each other
-- at once queue behind one another (the second is refused) instead of deadlocking.
create or replace function users_keep_an_owner() returns trigger
  language plpgsql
  as $$
begin
  if old.role = 'owner' and old.deleted_at is null
     and (new.role is distinct from 'owner' or new.deleted_at is not null) then
    perform 1 from shops where id = old.shop_id for update;
    if not exists (select 1 from users
                    where shop_id = old.shop_id and role = 'owner' and deleted_at is null and id <> old.id) then
      perform raise_app_error(409, 'last_owner', 'The shop''s last owner cannot be removed or demoted.');
    end if;
  end if;
  return new;
end $$;

create or replace trigger users_keep_an_owner before update on users for each row execute function users_keep_an_owner();
