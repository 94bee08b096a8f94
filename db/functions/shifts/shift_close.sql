-- Closes the caller's open shift with what was counted: p_counted_by_method is an object keyed by
-- method ({"card": 12000}); cash is always p_counted_cash_xaf; a method left out is not counted (its
-- counted and difference stay null). Stores, per method, expected, counted and counted - expected.
create or replace function shift_close(p_counted_cash_xaf bigint, p_note text, p_counted_by_method jsonb)
  returns shifts
  language plpgsql volatile
  as $$
declare
  closing shifts;
  totals jsonb;
  expected bigint;
  method_counts jsonb;
begin
  select * into closing from shifts where user_id = app_user_id() and status = 'open' for update;
  if not found then
    perform raise_app_error(409, 'no_open_shift', 'You have no open shift to close.');
  end if;
  totals := shift_totals(closing.id);
  expected := (totals ->> 'expected_cash_xaf')::bigint;
  select jsonb_object_agg(m.method, jsonb_build_object('expected_xaf', m.expected_xaf, 'counted_xaf', m.counted_xaf,
                                                       'difference_xaf', m.counted_xaf - m.expected_xaf))
    into method_counts
    from (select e.key as method, e.value::bigint as expected_xaf,
                 case when e.key = 'cash' then p_counted_cash_xaf else (p_counted_by_method ->> e.key)::bigint end as counted_xaf
            from jsonb_each_text(totals -> 'by_method') e) m;
  update shifts
     set status = 'closed', expected_cash_xaf = expected, counted_cash_xaf = p_counted_cash_xaf,
         difference_xaf = p_counted_cash_xaf - expected, by_method = method_counts, note = p_note, closed_at = now()
   where id = closing.id
  returning * into closing;
  return closing;
end $$;
