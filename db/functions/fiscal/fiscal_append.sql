-- Appends an entry to the shop's fiscal chain and answers its chain_no: the position and the previous
-- hash are taken from the shop's receipt counter row, which stays locked until commit (the chain has
-- no gap and no fork: a transaction that rolls back gives its position back). For the records that
-- take no number of their own (a void, a Z, a closing); a sale and a refund take their receipt or
-- credit note number and their chain position in one statement (sale_record, sale_refund).
-- p_recorded_at: only for a history chained after the fact (fiscal_backfill); else the clock at append.
create or replace function fiscal_append(p_kind text, p_ref_id uuid, p_occurred_at timestamptz, p_amount_xaf bigint, p_content text,
                                         p_recorded_at timestamptz default null) returns bigint
  language plpgsql volatile
  as $$
declare
  appended bigint;
begin
  if not exists (select 1 from receipt_counters where shop_id = app_shop_id()) then
    insert into receipt_counters (shop_id, last_no) values (app_shop_id(), 0) on conflict (shop_id) do nothing;
  end if;
  with counter as (
    update receipt_counters
       set chain_no = chain_no + 1, chain_previous_hash = chain_hash, chain_hash = fiscal_hash(chain_hash, p_content)
     where shop_id = app_shop_id()
    returning chain_no, chain_previous_hash, chain_hash
  )
  insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, recorded_at, amount_xaf, previous_hash, hash, content)
  select app_shop_id(), counter.chain_no, p_kind, p_ref_id, p_occurred_at, coalesce(p_recorded_at, clock_timestamp()), p_amount_xaf,
         counter.chain_previous_hash, counter.chain_hash, p_content
    from counter
  returning chain_no into appended;
  return appended;
end $$;
