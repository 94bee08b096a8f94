-- Appends an entry to the shop's fiscal chain and answers its chain_no: the position and the previous
-- hash are taken from the shop's receipt counter row, which stays locked until commit (the chain has
-- no gap and no fork: a transaction that rolls back gives its position back). For the records that
-- take no number of their own (a void, a Z, a closing); a sale and a refund take their receipt or
-- credit note number and their chain position in one statement (sale_record, sale_refund).
-- p_recorded_at: only for a history chained after the fact (fiscal_backfill); else the clock at append.
-- The shop is the transaction's, bound by every caller (sale_void by tenant_bind, z_seal and the
-- closings by their p_shop), held in the_shop so that every statement names it.
create or replace function fiscal_append(p_kind text, p_ref_id uuid, p_occurred_at timestamptz, p_amount_xaf bigint, p_content text,
                                         p_recorded_at timestamptz default null) returns bigint
  language plpgsql volatile
  as $$
declare
  the_shop constant uuid := app_shop_id();
  appended bigint;
begin
  if the_shop is null then
    raise exception 'fiscal_append needs the transaction''s shop';
  end if;
  if not exists (select 1 from receipt_counters where shop_id = the_shop) then
    insert into receipt_counters (shop_id, last_no) values (the_shop, 0) on conflict (shop_id) do nothing;
  end if;
  with counter as (
    update receipt_counters
       set chain_no = chain_no + 1, chain_previous_hash = chain_hash, chain_hash = fiscal_hash(chain_hash, p_content)
     where shop_id = the_shop
    returning chain_no, chain_previous_hash, chain_hash
  )
  insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, recorded_at, amount_xaf, previous_hash, hash, content)
  select the_shop, counter.chain_no, p_kind, p_ref_id, p_occurred_at, coalesce(p_recorded_at, clock_timestamp()), p_amount_xaf,
         counter.chain_previous_hash, counter.chain_hash, p_content
    from counter
  returning chain_no into appended;
  return appended;
end $$;
