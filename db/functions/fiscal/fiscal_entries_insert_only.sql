-- The fiscal chain and its closings are written once: no role may update, delete or truncate them, the
-- schema's owner included (row-level security and grants bind only the app role). Lifting this takes
-- a migration that drops the trigger and says why.
create or replace function fiscal_refuse_rewrite() returns trigger
  language plpgsql volatile
  as $$
begin
  raise exception 'fiscal records are insert-only: % on % refused', tg_op, tg_table_name
    using errcode = 'insufficient_privilege';
end $$;

create or replace trigger fiscal_entries_insert_only before update or delete on fiscal_entries
  for each row execute function fiscal_refuse_rewrite();
create or replace trigger fiscal_entries_no_truncate before truncate on fiscal_entries
  for each statement execute function fiscal_refuse_rewrite();
create or replace trigger fiscal_closings_insert_only before update or delete on fiscal_closings
  for each row execute function fiscal_refuse_rewrite();
create or replace trigger fiscal_closings_no_truncate before truncate on fiscal_closings
  for each statement execute function fiscal_refuse_rewrite();
