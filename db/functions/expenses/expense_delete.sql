-- Deletes an expense without erasing it: marked deleted, and its journal entry reversed line by line.
-- It leaves its shift's expected cash. Already deleted (or another shop's): 404, as for any deleted record.
create or replace function expense_delete(p_expense_id uuid)
  returns expenses
  language plpgsql volatile
  as $$
declare
  deleted expenses;
begin
  update expenses set deleted_at = now(), deleted_by = app_user_id()
   where id = p_expense_id and deleted_at is null
  returning * into deleted;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  perform journal_post('expense_reversal', deleted.id, 'Deleted expense: ' || coalesce(deleted.description, deleted.category),
    (select jsonb_agg(jsonb_build_object('account', l.account, 'debit_xaf', l.credit_xaf, 'credit_xaf', l.debit_xaf) order by l.id)
       from journal_entries e join journal_lines l on l.entry_id = e.id
      where e.source_type = 'expense' and e.source_id = deleted.id));
  return deleted;
end $$;
