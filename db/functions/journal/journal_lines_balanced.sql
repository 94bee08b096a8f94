-- Whatever path writes journal lines, an entry's debits equal its credits: every statement that
-- inserts lines must insert, for each entry it touches, lines that balance (the sum of balanced sets
-- balances, so a whole entry does; journal_post writes an entry's lines in one statement). Checked on
-- the statement's own rows (its transition table), with no read of the table: a row trigger deferred
-- to the commit summed each entry's lines again for every line. An entry is its shop's (its id is
-- unique in its shop only), hence the grouping by both.
create or replace function journal_lines_must_balance() returns trigger
  language plpgsql
  as $$
declare
  unbalanced record;
begin
  select entry_id, sum(debit_xaf) - sum(credit_xaf) as difference into unbalanced
    from added group by shop_id, entry_id having sum(debit_xaf) <> sum(credit_xaf) limit 1;
  if found then
    raise exception 'journal entry % is unbalanced by % XAF', unbalanced.entry_id, unbalanced.difference;
  end if;
  return null;
end $$;

drop trigger if exists journal_lines_balanced on journal_lines;
drop function if exists journal_entry_must_balance();
create trigger journal_lines_balanced after insert on journal_lines
  referencing new table as added for each statement execute function journal_lines_must_balance();
