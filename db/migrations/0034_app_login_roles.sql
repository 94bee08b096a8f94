-- Web processes log in as a login role of their own database and APP_KEY, no longer as pos_app.
-- pos_app is the server's, not a database's: every `npm run migrate` set its one password from its
-- own key, so a second deployment on the same PostgreSQL server, or a new APP_KEY, changed the
-- password under every running process and their new connections were refused (503). Each login
-- role is named and keyed after the key and this database's id (db/app-login.ts), is created by
-- `npm run migrate` when missing and never changed after, and is a member of pos_app, which keeps
-- every grant and which every policy and revoke names (db/functions/platform/app_logins.sql).
--
-- pos_app's own LOGIN and password are left as they are: another deployment on this server may run
-- a release that still logs in as pos_app, and so do this deployment's processes of the previous
-- release until the deploy replaces them. Nothing of this release uses them; README ("Database
-- logins") says how to retire them once nothing does (`npm run db:logins -- --retire-shared-login`).

-- This database's id, made at its first migrate. A copy made with CREATE DATABASE ... TEMPLATE (the
-- tests' databases) keeps it, and with it the login roles of the original.
create table database_identity (
  id uuid primary key default gen_random_uuid(),
  one_row boolean not null default true unique check (one_row)
);
insert into database_identity default values;
alter table database_identity enable row level security;
revoke all on database_identity from pos_app;

-- The login roles `npm run migrate` made for this database, one per APP_KEY it ran with: the roles
-- whose settings every migrate keeps (app_logins_configure) and that `npm run db:logins` lists and
-- drops once their key is retired.
create table app_login_roles (
  role_name text primary key,
  created_at timestamptz not null default now()
);
alter table app_login_roles enable row level security;
revoke all on app_login_roles from pos_app;
