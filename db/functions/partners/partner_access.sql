-- Whether the transaction's user (app.user_id, set by the API from a verified session) is a platform
-- administrator: the row-level security of partners, their lines and their logins, and the
-- referred_shops view, let an administrator see across partners. Definer, because the app role
-- sees only its own users row; it reads one row by primary key, and none in a shop's request (an
-- administrator has no shop), so the users policy costs shop requests nothing. Policies call it
-- directly (migration 0040): Citus refuses a subquery in a policy of a distributed table.
create or replace function app_is_admin() returns boolean
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select case when app_shop_id() is not null then false
                else exists (select from users where id = app_user_id() and kind = 'admin' and deleted_at is null) end
  $$;
