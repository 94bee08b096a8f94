-- Checked at commit, whatever path wrote the lines: an entry's debits equal its credits.
create or replace function journal_entry_must_balance() returns trigger
  language plpgsql
  as $$
declare
  difference bigint;
begin
  select coalesce(sum(debit_xaf), 0) - coalesce(sum(credit_xaf), 0) into difference
    from journal_lines where entry_id = new.entry_id;
  if difference <> 0 then
    raise exception 'journal entry % is unbalanced by % XAF', new.entry_id, difference;
  end if;
  return null;
end $$;

drop trigger if exists journal_lines_balanced on journal_lines;
create constraint trigger journal_lines_balanced after insert on journal_lines
  deferrable initially deferred for each row execute function journal_entry_must_balance();
