-- The shift whose drawer a void's or a refund's money leaves (CONTRACT section 12): a void gives the
-- sale's cash back from the shift the sale was taken in while that shift is open, else from the acting
-- user's open shift; a refund pays out from the acting user's open shift, else from the sale's shift
-- while it is open. Null when neither is open. The shift chosen is locked FOR SHARE until the
-- transaction ends, like current_shift_id: a close waits for the reversal and then counts it.
create or replace function reversal_shift_id(p_sale_shift_id uuid, p_kind text)
  returns uuid
  language plpgsql volatile
  as $$
declare
  sale_shift uuid;
  own_shift uuid;
begin
  if p_kind not in ('void', 'refund') then
    raise exception 'reversal_shift_id: unknown kind %', p_kind;
  end if;
  if p_kind = 'refund' then
    own_shift := current_shift_id();
    if own_shift is not null then
      return own_shift;
    end if;
  end if;
  if p_sale_shift_id is not null then
    select id into sale_shift from shifts where id = p_sale_shift_id and status = 'open' for share;
    if sale_shift is not null then
      return sale_shift;
    end if;
  end if;
  if p_kind = 'void' then
    return current_shift_id();
  end if;
  return null;
end $$;
