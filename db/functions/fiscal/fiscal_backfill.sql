-- Chains the history of a shop that has no fiscal entry yet, in the order its records were made (a
-- sale when it reached us, a void, a refund, a Z when sealed): what migration 0036 does for the records
-- made before the chain existed. Refunds without a credit note number get theirs in the same order.
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
  position bigint;
  appended bigint := 0;
begin
  perform set_config('app.shop_id', p_shop::text, true);
  if exists (select 1 from fiscal_entries where shop_id = p_shop) then
    raise exception 'shop % already has a fiscal chain: it is never rewritten', p_shop;
  end if;
  insert into receipt_counters (shop_id, last_no)
  values (p_shop, coalesce((select max(receipt_no) from sales where shop_id = p_shop), 0))
  on conflict (shop_id) do nothing;
  perform 1 from receipt_counters where shop_id = p_shop for update;
  update receipt_counters
     set chain_no = 0, chain_hash = '', chain_previous_hash = '',
         credit_note_no = coalesce((select max(credit_note_no) from refunds where shop_id = p_shop), 0)
   where shop_id = p_shop;
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
    if record_made.kind = 'sale' then
      select * into sale from sales where id = record_made.id;
      position := fiscal_append('sale', sale.id, sale.created_at, sale.total_xaf, fiscal_sale_content(sale), record_made.made_at);
      update sales set chain_no = position where id = sale.id;
    elsif record_made.kind = 'void' then
      select * into sale from sales where id = record_made.id;
      position := fiscal_append('void', sale.id, sale.voided_at, -sale.total_xaf, fiscal_void_content(sale), record_made.made_at);
      update sales set void_chain_no = position where id = sale.id;
    elsif record_made.kind = 'refund' then
      select * into refund from refunds where id = record_made.id;
      if refund.credit_note_no is null then
        update receipt_counters set credit_note_no = credit_note_no + 1 where shop_id = p_shop returning credit_note_no into refund.credit_note_no;
        update refunds set credit_note_no = refund.credit_note_no where id = refund.id;
      end if;
      position := fiscal_append('refund', refund.id, refund.created_at, -refund.total_xaf, fiscal_refund_content(refund), record_made.made_at);
      update refunds set chain_no = position where id = refund.id;
    else
      select * into z from z_reports where id = record_made.id;
      position := fiscal_append('z', z.id, z.sealed_at, 0, fiscal_z_content(z), record_made.made_at);
      update z_reports set chain_no = position where id = z.id;
    end if;
    appended := appended + 1;
  end loop;
  return appended;
end $$;
revoke execute on function fiscal_backfill(uuid) from pos_app;
