-- Posts one entry, dated p_posted_at. p_lines: [{"account": "31", "debit_xaf": 1200}, {"account": "6031", "credit_xaf": 1200}].
-- Lines of zero are dropped; an entry left with nothing to post is not written (returns null).
-- Entries are dated now (journal_post), except an offline sale's, dated when it happened while its
-- business day is not sealed (sale_record): the journal's day is then always the Z's.
create or replace function journal_post_at(p_posted_at timestamptz, p_source_type text, p_source_id uuid, p_memo text, p_lines jsonb)
  returns uuid
  language plpgsql volatile
  as $$
declare
  entry_id uuid;
begin
  if not exists (select 1 from jsonb_array_elements(p_lines) line
                  where coalesce((line ->> 'debit_xaf')::bigint, 0) > 0 or coalesce((line ->> 'credit_xaf')::bigint, 0) > 0) then
    return null;
  end if;
  insert into journal_entries (source_type, source_id, memo, posted_at) values (p_source_type, p_source_id, left(p_memo, 255), p_posted_at)
    returning id into entry_id;
  insert into journal_lines (entry_id, account, debit_xaf, credit_xaf)
  select entry_id, line ->> 'account', coalesce((line ->> 'debit_xaf')::bigint, 0), coalesce((line ->> 'credit_xaf')::bigint, 0)
    from jsonb_array_elements(p_lines) line
   where coalesce((line ->> 'debit_xaf')::bigint, 0) > 0 or coalesce((line ->> 'credit_xaf')::bigint, 0) > 0;
  return entry_id;
end $$;

-- Posts one entry dated now (journal_post_at).
create or replace function journal_post(p_source_type text, p_source_id uuid, p_memo text, p_lines jsonb)
  returns uuid
  language plpgsql volatile
  as $$
begin
  return journal_post_at(now(), p_source_type, p_source_id, p_memo, p_lines);
end $$;

-- The lines of a change of stock value: a loss (p_value_xaf < 0) debits 6031 and credits 31; a gain
-- the reverse. A sale adds them to its own entry; journal_post_stock_change posts them alone.
-- Stable, as jsonb_build_object is: declared immutable, it could not be inlined, and every call parsed
-- and planned its body again.
create or replace function journal_stock_change_lines(p_value_xaf bigint) returns jsonb
  language sql stable parallel safe
  as $$
    select case when p_value_xaf < 0
      then jsonb_build_array(jsonb_build_object('account', '6031', 'debit_xaf', -p_value_xaf),
                             jsonb_build_object('account', '31', 'credit_xaf', -p_value_xaf))
      else jsonb_build_array(jsonb_build_object('account', '31', 'debit_xaf', p_value_xaf),
                             jsonb_build_object('account', '6031', 'credit_xaf', p_value_xaf))
    end
$$;

-- Posts a change of stock value as an entry of its own (journal_stock_change_lines).
create or replace function journal_post_stock_change(p_source_type text, p_source_id uuid, p_memo text, p_value_xaf bigint)
  returns uuid
  language plpgsql volatile
  as $$
begin
  return journal_post(p_source_type, p_source_id, p_memo, journal_stock_change_lines(p_value_xaf));
end $$;
