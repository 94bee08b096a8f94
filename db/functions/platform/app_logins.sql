-- The login roles web processes use: one per database and APP_KEY (db/app-login.ts names them and
-- derives their passwords), each a member of pos_app, which holds every grant and which every policy
-- names. Membership brings pos_app's privileges and policies; SUPERUSER and BYPASSRLS are attributes
-- of a role, never inherited, so row-level security binds the login as it binds pos_app.
-- `npm run migrate` calls app_login_ensure for its key, then app_logins_configure, as the owner, at
-- the end of every upgrade.

-- Creates `p_role` when it does not exist, with a password given as its SCRAM verifier (the password
-- itself never reaches the server), and records it as this database's. A role that exists keeps its
-- password: every process logged in with it goes on. Refuses a role row-level security would not bind.
create or replace function app_login_ensure(p_role text, p_password_verifier text)
  returns void
  language plpgsql volatile
  set search_path = pg_catalog, public
  as $$
begin
  if not exists (select from pg_roles where rolname = p_role) then
    begin
      execute format('create role %I login inherit nosuperuser nobypassrls nocreatedb nocreaterole noreplication password %L in role pos_app',
                     p_role, p_password_verifier);
      execute format('comment on role %I is %L', p_role,
                     format('Login of the point-of-sale web processes of database %s for one APP_KEY (npm run migrate)', current_database()));
    exception when duplicate_object or unique_violation then
      -- Made meanwhile by the migrate of a copy of this database (CREATE DATABASE ... TEMPLATE) with the same key.
      null;
    end;
  end if;
  if exists (select from pg_roles where rolname = p_role and (rolsuper or rolbypassrls)) then
    raise exception 'role % exists with SUPERUSER or BYPASSRLS: row-level security would not bind it', p_role;
  end if;
  if not exists (select from pg_auth_members where roleid = 'pos_app'::regrole and member = p_role::regrole) then
    execute format('grant pos_app to %I', p_role);
  end if;
  insert into app_login_roles (role_name) values (p_role) on conflict do nothing;
end $$;
revoke execute on function app_login_ensure(text, text) from pos_app;

-- The bounds of an app session (migration 0014 gave them to pos_app): a statement runs at most 30
-- seconds, a transaction left idle 15 seconds is ended. On Citus, the scope a request sets with
-- `SET LOCAL app.shop_id` (api/middleware/tenancy.ts) must reach the worker nodes with the
-- transaction, where row-level security is checked: `citus.propagate_set_commands = local`. Role
-- settings are not inherited from a group role, so every login role of this database carries them; a
-- change here reaches all of them, the logins of keys still being retired included, at the next
-- migrate. A setting already in place is not written again.
create or replace function app_logins_configure()
  returns void
  language plpgsql volatile
  set search_path = pg_catalog, public
  as $$
declare
  login record;
  setting text;
  settings text[] := array['statement_timeout=30s', 'idle_in_transaction_session_timeout=15s'];
begin
  if exists (select from pg_extension where extname = 'citus') then
    settings := settings || 'citus.propagate_set_commands=local'::text;
  end if;
  for login in
    select r.rolname, coalesce(r.rolconfig, '{}') as config
      from app_login_roles l join pg_roles r on r.rolname = l.role_name
     order by r.rolname
  loop
    foreach setting in array settings loop
      if not setting = any(login.config) then
        execute format('alter role %I set %s = %L', login.rolname, split_part(setting, '=', 1), split_part(setting, '=', 2));
      end if;
    end loop;
  end loop;
end $$;
revoke execute on function app_logins_configure() from pos_app;

-- Whether this session logged in as the application (a login role of pos_app, or pos_app itself), not
-- as the owner (migrations, the worker). A superuser is a member of every role: it is the owner's
-- kind, never the app's.
create or replace function session_is_app()
  returns boolean
  language sql stable
  set search_path = pg_catalog
  as $$
  select coalesce((select not r.rolsuper and pg_has_role(r.oid, 'pos_app', 'usage') from pg_roles r where r.rolname = session_user), false)
$$;
