-- Issue 33: every key of a shop's table leads with shop_id, so the schema can be distributed by shop
-- (Citus: a unique constraint or a foreign key between distributed tables must contain the
-- distribution column) and a shop's rows are found, checked and joined within the shop on one server
-- as well. The platform's own tables keep their keys: they are reference or coordinator-local tables
-- by design (db/CONVENTIONS.md, "Distribution by shop"), listed here as `platform`.
--
-- A shop's table is any other table of the schema with a shop_id column. For each:
--   - its primary key and unique constraints without shop_id gain it in front: (id) -> (shop_id, id);
--   - a foreign key to another shop's table becomes (shop_id, col) -> (shop_id, id), which also proves
--     that every row it names is of the same shop (the migration fails rather than carry a row that
--     names another shop's);
--   - foreign keys to the platform's tables (shops, users, plans) stay as they are.
-- Unique indexes that are not constraints are rebuilt below by name. Rows are not touched: the keys
-- are rebuilt around them (an ACCESS EXCLUSIVE lock on each table while its index builds).
do $$
declare
  platform constant text[] := array[
    -- reference tables: read by every shop, written rarely
    'shops', 'plans', 'users', 'partners',
    -- coordinator-local: found before the shop is known (a session, a device's token, a pairing code,
    -- a shared link's token, a provider's charge reference) or the platform's own bookkeeping
    'sessions', 'password_resets', 'devices', 'device_pairings', 'shared_links',
    'subscription_charges', 'subscription_reminders', 'partner_commissions', 'commission_payouts',
    'rate_limits', 'sent_messages', 'worker_heartbeats', 'database_identity', 'app_login_roles',
    'schema_migrations', 'schema_functions'];
  shop_tables oid[];
  fk record;
  key record;
  saved_fks text[] := '{}';
  statement text;
begin
  select array_agg(c.oid) into shop_tables
    from pg_class c
   where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relname <> all (platform)
     and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped);

  if exists (select 1 from pg_constraint
              where contype = 'f' and connamespace = 'public'::regnamespace
                and confrelid = any (shop_tables) and conrelid <> all (shop_tables)) then
    raise exception 'a platform table has a foreign key to a shop''s table: classify it first';
  end if;

  -- Foreign keys between shop tables: dropped now, made again on the new keys at the end.
  for fk in
    select con.conname, con.conrelid::regclass as child, con.confrelid::regclass as parent,
           con.confdeltype, con.confupdtype, con.confmatchtype, con.condeferrable, con.condeferred,
           (select string_agg(quote_ident(a.attname), ', ' order by k.n)
              from unnest(con.conkey) with ordinality k (attnum, n)
              join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum) as columns,
           (select string_agg(quote_ident(a.attname), ', ' order by k.n)
              from unnest(con.confkey) with ordinality k (attnum, n)
              join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum) as parent_columns
      from pg_constraint con
     where con.contype = 'f' and con.conrelid = any (shop_tables) and con.confrelid = any (shop_tables)
  loop
    -- None of them has an action or a MATCH FULL today; one that had would need its own rewrite
    -- (ON DELETE SET NULL would null shop_id too without a column list). Deferral carries over (a sale's
    -- lines are written before the sale's own row).
    if fk.confdeltype <> 'a' or fk.confupdtype <> 'a' or fk.confmatchtype <> 's' then
      raise exception 'foreign key % of % has an action or a match type to carry over', fk.conname, fk.child;
    end if;
    execute format('alter table %s drop constraint %I', fk.child, fk.conname);
    saved_fks := saved_fks || format('alter table %s add constraint %I foreign key (shop_id, %s) references %s (shop_id, %s)%s',
                                     fk.child, fk.conname, fk.columns, fk.parent, fk.parent_columns,
                                     case when fk.condeferred then ' deferrable initially deferred'
                                          when fk.condeferrable then ' deferrable' else '' end);
  end loop;

  -- Primary keys and unique constraints without shop_id: the same name, shop_id in front.
  for key in
    select con.conname, con.conrelid::regclass as tab, con.contype,
           (select string_agg(quote_ident(a.attname), ', ' order by k.n)
              from unnest(con.conkey) with ordinality k (attnum, n)
              join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum) as columns
      from pg_constraint con
     where con.contype in ('p', 'u') and con.conrelid = any (shop_tables)
       and not exists (select 1 from pg_attribute a
                        where a.attrelid = con.conrelid and a.attnum = any (con.conkey) and a.attname = 'shop_id')
  loop
    execute format('alter table %s drop constraint %I', key.tab, key.conname);
    execute format('alter table %s add constraint %I %s (shop_id, %s)',
                   key.tab, key.conname, case key.contype when 'p' then 'primary key' else 'unique' end, key.columns);
  end loop;

  foreach statement in array saved_fks loop
    execute statement;
  end loop;
end
$$;

-- Unique indexes that are not constraints (partial ones), the same rule by hand.
drop index variants_combination_key;
create unique index variants_combination_key on variants (shop_id, product_id, options) where deleted_at is null;
drop index shifts_one_open;
create unique index shifts_one_open on shifts (shop_id, user_id) where status = 'open';
drop index sales_quote_idx;
create unique index sales_quote_idx on sales (shop_id, quote_id) where quote_id is not null;

-- An id is unique in its shop now, so no look-up across shops asks whether another shop holds it
-- (each was a scan of every shop's rows once the key led with shop_id): another shop's record with the
-- same id is another record.
drop function if exists sale_id_taken(uuid);
drop function if exists sync_id_taken(text, uuid);
delete from schema_functions where file in ('sales/sale_id_taken.sql', 'sync/sync_id_taken.sql');
