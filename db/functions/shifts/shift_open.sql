-- Opens a shift for the caller. One open shift per user: the unique index shifts_one_open decides,
-- so two opens at the same moment give one shift and one 409.
create or replace function shift_open(p_opening_float_xaf bigint)
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
