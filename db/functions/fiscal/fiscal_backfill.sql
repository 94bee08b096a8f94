-- Chains the history of a shop that has no fiscal entry yet, in the order its records were made (a
-- sale when it reached us, a void or a refund after its sale, a Z when sealed): what migration 0036
-- does for the records made before the chain existed. Refunds without a credit note number get theirs
-- in the same order. The chain's position and last hash are carried in variables and written to the
-- shop's counter row once at the end: a row updated once per record in one transaction keeps every
-- old version until commit, and each update walks them all (2 to 6 ms a record at 100,000 records,
-- where this takes 0.1 ms; npm run bench:fiscal prints it).
-- The owner role only (the app role could otherwise start a chain over). A shop with entries is refused:
-- the chain is never rewritten.
create or replace function fiscal_backfill(p_shop uuid) returns bigint
  language plpgsql volatile
  as $$
declare
  record_made record;
  sale sales;
  refund refunds;
  z z_reports;
  content text;
  amount bigint;
  occurred timestamptz;
  position bigint := 0;
  last_hash text := '';
  previous_hash text := '';
  credit_note bigint;
begin
  perform set_config('app.shop_id', p_shop::text, true);
  if exists (select 1 from fiscal_entries where shop_id = p_shop) then
    raise exception 'shop % already has a fiscal chain: it is never rewritten', p_shop;
  end if;
  insert into receipt_counters (shop_id, last_no)
  values (p_shop, coalesce((select max(receipt_no) from sales where shop_id = p_shop), 0))
  on conflict (shop_id) do nothing;
  perform 1 from receipt_counters where shop_id = p_shop for update;
  credit_note := coalesce((select max(r.credit_note_no) from refunds r where r.shop_id = p_shop), 0);
  for record_made in
    select 'sale' as kind, s.id, s.recorded_at as made_at, 1 as kind_order, s.receipt_no as seq from sales s where s.shop_id = p_shop
    union all
    -- A void or a refund after its sale, whatever the clocks said (it names the sale's entry).
    select 'void', s.id, greatest(s.voided_at, s.recorded_at), 2, s.receipt_no from sales s where s.shop_id = p_shop and s.voided_at is not null
    union all
    select 'refund', r.id, greatest(r.created_at, s.recorded_at), 3, 0 from refunds r join sales s on s.id = r.sale_id where r.shop_id = p_shop
    union all
    select 'z', zr.id, zr.sealed_at, 4, zr.z_no from z_reports zr where zr.shop_id = p_shop
    order by made_at, kind_order, seq, id
  loop
    position := position + 1;
    if record_made.kind = 'sale' then
      update sales set chain_no = position where id = record_made.id returning * into sale;
      content := fiscal_sale_content(sale);
      amount := sale.total_xaf;
      occurred := sale.created_at;
    elsif record_made.kind = 'void' then
      update sales set void_chain_no = position where id = record_made.id returning * into sale;
      content := fiscal_void_content(sale);
      amount := -sale.total_xaf;
      occurred := sale.voided_at;
    elsif record_made.kind = 'refund' then
      select * into refund from refunds where id = record_made.id;
      if refund.credit_note_no is null then
        credit_note := credit_note + 1;
        refund.credit_note_no := credit_note;
      end if;
      update refunds set chain_no = position, credit_note_no = refund.credit_note_no where id = refund.id;
      content := fiscal_refund_content(refund);
      amount := -refund.total_xaf;
      occurred := refund.created_at;
    else
      update z_reports set chain_no = position where id = record_made.id returning * into z;
      content := fiscal_z_content(z);
      amount := 0;
      occurred := z.sealed_at;
    end if;
    previous_hash := last_hash;
    last_hash := fiscal_hash(previous_hash, content);
    insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, recorded_at, amount_xaf, previous_hash, hash, content)
    values (p_shop, position, record_made.kind, record_made.id, occurred, record_made.made_at, amount, previous_hash, last_hash, content);
  end loop;
  update receipt_counters
     set chain_no = position, chain_hash = last_hash, chain_previous_hash = previous_hash, credit_note_no = credit_note
   where shop_id = p_shop;
  return position;
end $$;
revoke execute on function fiscal_backfill(uuid) from pos_app;
