-- The switch to one current definition per database function. Migrations 0001 to 0010 defined their
-- functions, procedures and triggers inline; those definitions moved, unchanged, to db/functions/,
-- where each lives in one file that db/migrate.ts applies after the pending migrations whenever the
-- file changes (db/CONVENTIONS.md, "Functions and triggers"). A database migrated before this point
-- receives the same definitions from those files right after this migration.
--
-- Grants now follow the function: whatever function is created in this database from here on (a new
-- one, or one whose file drops and recreates it) may be executed by the app role and by no one else.
-- Until now only the functions of 0001 were withheld from PUBLIC: the later ones, among them SECURITY
-- DEFINER functions such as device_pairing_claim, could be called by any role able to connect.
alter default privileges revoke execute on functions from public;
alter default privileges in schema public grant execute on functions to pos_app;
revoke execute on all functions in schema public from public;
grant execute on all functions in schema public to pos_app;
