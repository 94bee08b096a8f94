-- The migrations this database has recorded, for the web's readiness probe (api/health/routes.ts):
-- the app role may not read the bookkeeping table itself. Migration names only, nothing of a shop.
create or replace function schema_migrations_applied() returns text[]
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$ select coalesce(array_agg(version order by version), '{}') from schema_migrations $$;
