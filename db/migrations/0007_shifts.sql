-- Shifts, drawer cash and expenses: the procedures over the tables of 0006. All run as the caller
-- (SECURITY INVOKER), so row-level security keeps each shop to its own rows.
--
-- Journal accounts (SYSCOHADA revised), beside those of 0002:
--   Cash put into or taken out of the drawer outside a sale (a float brought from the safe, takings
--   taken to the bank) is an internal transfer: 571 cash against 588 "autres virements internes",
--   which waits for the other side (the bank deposit, the safe) to be recorded. Not 585: in this
--   chart 585 holds mobile money (treasury_account), which a drawer transfer would falsely swell.
--   Expenses debit a charge account by category (expense_account) and credit the treasury account of
--   the payment method (treasury_account: 571 cash, 521 card or bank, 585 mobile money).

-- The caller's open shift, locked FOR SHARE until the transaction ends: a close (FOR UPDATE) waits
-- for whatever is being attached to it (a sale, a cash movement, an expense) and then counts it, and
-- nothing is attached to a shift that a concurrent close has just closed. Null when none is open.
create function current_shift_id() returns uuid
  language sql volatile
  as $$
    select id from shifts where user_id = app_user_id() and status = 'open' for share
$$;

-- Opens a shift for the caller. One open shift per user: the unique index shifts_one_open decides,
-- so two opens at the same moment give one shift and one 409.
create function shift_open(p_opening_float_xaf bigint)
  returns shifts
  language plpgsql volatile
  as $$
declare
  opened shifts;
  violated text;
begin
  insert into shifts (opening_float_xaf) values (p_opening_float_xaf) returning * into opened;
  return opened;
exception when unique_violation then
  get stacked diagnostics violated = constraint_name;
  if violated = 'shifts_one_open' then
    perform raise_app_error(409, 'shift_already_open', 'You already have an open shift: close it before opening another.');
  end if;
  raise;
end $$;

-- What the drawer of a shift should hold, per method. Cash: the opening float, plus cash taken for
-- sales less change given, less cash paid back for refunds and voids, plus cash brought in, less cash
-- taken out, less cash expenses still standing. Other methods: the net of their sale payments.
-- Credit is not money in a drawer and is left out. Null for a shift the caller's shop does not hold.
create function shift_totals(p_shift_id uuid)
  returns jsonb
  language plpgsql stable
  as $$
declare
  float_xaf bigint;
  sales_xaf bigint;
  refunds_xaf bigint;
  in_xaf bigint;
  out_xaf bigint;
  expenses_xaf bigint;
  expected_xaf bigint;
  per_method jsonb;
begin
  select opening_float_xaf into float_xaf from shifts where id = p_shift_id;
  if not found then
    return null;
  end if;
  select coalesce(sum(amount_xaf) filter (where kind in ('payment', 'change')), 0)::bigint,
         coalesce(-sum(amount_xaf) filter (where kind in ('refund', 'void')), 0)::bigint
    into sales_xaf, refunds_xaf
    from sale_payments where shift_id = p_shift_id and method = 'cash';
  select coalesce(sum(amount_xaf) filter (where direction = 'in'), 0)::bigint,
         coalesce(sum(amount_xaf) filter (where direction = 'out'), 0)::bigint
    into in_xaf, out_xaf
    from cash_movements where shift_id = p_shift_id;
  select coalesce(sum(amount_xaf), 0)::bigint into expenses_xaf
    from expenses where shift_id = p_shift_id and payment_method = 'cash' and deleted_at is null;
  expected_xaf := float_xaf + sales_xaf - refunds_xaf + in_xaf - out_xaf - expenses_xaf;
  select jsonb_object_agg(m.method, case when m.method = 'cash' then expected_xaf else coalesce(p.net_xaf, 0) end)
    into per_method
    from unnest(array['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank']) m (method)
    left join (select method, sum(amount_xaf)::bigint as net_xaf from sale_payments where shift_id = p_shift_id group by method) p
      on p.method = m.method;
  return jsonb_build_object(
    'opening_float_xaf', float_xaf,
    'cash_sales_xaf', sales_xaf,
    'cash_refunds_xaf', refunds_xaf,
    'cash_in_xaf', in_xaf,
    'cash_out_xaf', out_xaf,
    'cash_expenses_xaf', expenses_xaf,
    'expected_cash_xaf', expected_xaf,
    'by_method', per_method);
end $$;

-- Closes the caller's open shift with what was counted: p_counted_by_method is an object keyed by
-- method ({"card": 12000}); cash is always p_counted_cash_xaf; a method left out is not counted (its
-- counted and difference stay null). Stores, per method, expected, counted and counted - expected.
create function shift_close(p_counted_cash_xaf bigint, p_note text, p_counted_by_method jsonb)
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

-- Cash into or out of the drawer that is not a sale. Drawer cash belongs to a shift: with no open
-- shift it is refused (409 no_open_shift). Journal: in debits 571 and credits 588, out the reverse.
create function cash_movement_record(p_direction text, p_amount_xaf bigint, p_reason text)
  returns cash_movements
  language plpgsql volatile
  as $$
declare
  open_shift uuid := current_shift_id();
  movement cash_movements;
begin
  if open_shift is null then
    perform raise_app_error(409, 'no_open_shift', 'Open a shift first: drawer cash belongs to a shift.');
  end if;
  insert into cash_movements (shift_id, direction, amount_xaf, reason) values (open_shift, p_direction, p_amount_xaf, p_reason)
    returning * into movement;
  perform journal_post('cash_movement', movement.id, p_reason,
    case p_direction
      when 'in' then jsonb_build_array(jsonb_build_object('account', '571', 'debit_xaf', p_amount_xaf),
                                       jsonb_build_object('account', '588', 'credit_xaf', p_amount_xaf))
      else jsonb_build_array(jsonb_build_object('account', '588', 'debit_xaf', p_amount_xaf),
                             jsonb_build_object('account', '571', 'credit_xaf', p_amount_xaf))
    end);
  return movement;
end $$;

-- The charge account of an expense category: rent 6222 (locations de bâtiments), utilities 6052
-- (fournitures non stockables : électricité, eau), salaries 6611 (appointements, salaires et
-- commissions), transport 6181 (voyages et déplacements), supplies 6047 (fournitures de bureau),
-- other 6588 (autres charges diverses).
create function expense_account(p_category text) returns text
  language sql immutable parallel safe
  as $$
    select case p_category when 'rent' then '6222' when 'utilities' then '6052' when 'salaries' then '6611'
                           when 'transport' then '6181' when 'supplies' then '6047' when 'other' then '6588' end
$$;

-- Records an expense spent on p_spent_on, a day of the shop's calendar. None or today: spent now,
-- and, paid in cash, taken from the caller's open drawer (attached to the open shift, if any). An
-- earlier day: spent at the start of that day, from a drawer long counted, so attached to no shift.
-- A later day: 422 on spent_at. Journal: debit expense_account, credit the method's treasury account.
create function expense_record(p_category text, p_amount_xaf bigint, p_payment_method text, p_description text, p_spent_on date)
  returns expenses
  language plpgsql volatile
  as $$
declare
  shop_today date;
  shop_zone text;
  spent_now boolean;
  recorded expenses;
begin
  select (now() at time zone timezone)::date, timezone into shop_today, shop_zone from shops where id = app_shop_id();
  if p_spent_on > shop_today then
    perform raise_app_error(422, 'validation_failed', 'Cannot be after today.', 'spent_at');
  end if;
  spent_now := p_spent_on is null or p_spent_on = shop_today;
  insert into expenses (shift_id, category, amount_xaf, payment_method, description, spent_at)
  values (case when spent_now and p_payment_method = 'cash' then current_shift_id() end,
          p_category, p_amount_xaf, p_payment_method, p_description,
          case when spent_now then now() else p_spent_on::timestamp at time zone shop_zone end)
  returning * into recorded;
  perform journal_post('expense', recorded.id, coalesce(p_description, 'Expense: ' || p_category),
    jsonb_build_array(jsonb_build_object('account', expense_account(p_category), 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', treasury_account(p_payment_method), 'credit_xaf', p_amount_xaf)));
  return recorded;
end $$;

-- Deletes an expense without erasing it: marked deleted, and its journal entry reversed line by line.
-- It leaves its shift's expected cash. Already deleted (or another shop's): 404, as for any deleted record.
create function expense_delete(p_expense_id uuid)
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
