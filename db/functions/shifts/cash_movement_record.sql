-- Cash into or out of the drawer that is not a sale. Drawer cash belongs to a shift: with no open
-- shift it is refused (409 no_open_shift). Journal: in debits 571 and credits 588, out the reverse.
-- p_created_at: when it happened (a till's offline record), else now; a day whose Z is sealed:
-- reported in the next Z (reported_on, z_reported_on). p_till_created_at: the till's time of an
-- offline record made now instead, its till's clock being plainly wrong (api/sync/push.ts decides).
-- Why 588: cash put into or taken out of the drawer outside a sale (a float brought from the safe,
-- takings taken to the bank) is an internal transfer, 588 "autres virements internes", which waits for
-- the other side (the bank deposit, the safe) to be recorded. Not 585: in this chart 585 holds mobile
-- money (treasury_account), which a drawer transfer would falsely swell.
drop function if exists cash_movement_record(text, bigint, text, uuid, timestamptz);
create or replace function cash_movement_record(p_direction text, p_amount_xaf bigint, p_reason text,
                                     p_id uuid default null, p_created_at timestamptz default null,
                                     p_till_created_at timestamptz default null)
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
  insert into cash_movements (id, shift_id, direction, amount_xaf, reason, created_at, till_created_at, reported_on)
  values (coalesce(p_id, gen_random_uuid()), open_shift, p_direction, p_amount_xaf, p_reason, coalesce(p_created_at, now()), p_till_created_at,
          case when p_created_at is not null
               then z_reported_on((p_created_at at time zone (select timezone from shops where id = app_shop_id()))::date) end)
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
