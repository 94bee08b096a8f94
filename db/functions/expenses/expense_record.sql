-- Records an expense spent on p_spent_on, a day of the shop's calendar. None or today: spent now,
-- and, paid in cash, taken from the caller's open drawer (attached to the open shift, if any). An
-- earlier day: spent at the start of that day, from a drawer long counted, so attached to no shift;
-- a day whose Z is sealed: reported in the next Z (reported_on, z_reported_on).
-- A later day: 422 on spent_at. Journal: debit expense_account, credit the method's treasury account.
create or replace function expense_record(p_category text, p_amount_xaf bigint, p_payment_method text, p_description text, p_spent_on date,
                               p_id uuid default null)
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
  insert into expenses (id, shift_id, category, amount_xaf, payment_method, description, spent_at, reported_on)
  values (coalesce(p_id, gen_random_uuid()), case when spent_now and p_payment_method = 'cash' then current_shift_id() end,
          p_category, p_amount_xaf, p_payment_method, p_description,
          case when spent_now then now() else p_spent_on::timestamp at time zone shop_zone end,
          case when not spent_now then z_reported_on(p_spent_on) end)
  returning * into recorded;
  perform journal_post('expense', recorded.id, coalesce(p_description, 'Expense: ' || p_category),
    jsonb_build_array(jsonb_build_object('account', expense_account(p_category), 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', treasury_account(p_payment_method), 'credit_xaf', p_amount_xaf)));
  return recorded;
end $$;
