-- Issue 27: what customers pay on their accounts (customer_payments, "settlements") is money taken
-- in: it joins the drawer of the shift it was taken at (shift_id: the receiver's open shift, any
-- method; shift_totals counts it), and each day's Z shows it per method (`settlements`).
alter table customer_payments add column shift_id uuid references shifts (id);
create index customer_payments_shift_idx on customer_payments (shift_id, method) where shift_id is not null;
-- The day's settlements (the Z), read by time.
create index customer_payments_day_idx on customer_payments (shop_id, created_at);

alter table report_facts drop constraint report_facts_kind_check;
alter table report_facts add constraint report_facts_kind_check
  check (kind in ('product', 'category', 'cashier', 'method', 'hour', 'account', 'deductible', 'settlement'));

-- Days already sealed. A sealed Z never changes its figures: each stored Z gains the one key it
-- lacked, `settlements`, computed from the settlements made in its day (they are immutable records,
-- always made online, so their day is their creation's local day), and nothing else of it is touched;
-- the day's stored report facts gain the matching `settlement` rows. Settlements made before this
-- release were not in any drawer (no shift_id): shifts already closed keep their counted figures.
-- A sealed day whose only activity was settlements has no Z (none was sealed for it), as before.
update z_reports z
   set report = z.report || jsonb_build_object('settlements', coalesce((
         select jsonb_agg(jsonb_build_object('method', m.method, 'amount_xaf', m.amount) order by m.method)
           from (select p.method, sum(p.amount_xaf)::bigint as amount
                   from customer_payments p join shops s on s.id = p.shop_id
                  where p.shop_id = z.shop_id and (p.created_at at time zone s.timezone)::date = z.day
                  group by p.method) m), '[]'::jsonb))
 where not (z.report ? 'settlements');

insert into report_facts (shop_id, day, kind, key, count, quantity, total_xaf, vat_xaf, cost_xaf)
select p.shop_id, (p.created_at at time zone s.timezone)::date, 'settlement', p.method, count(*), 0, sum(p.amount_xaf), 0, 0
  from customer_payments p join shops s on s.id = p.shop_id join z_seals zs on zs.shop_id = p.shop_id
 where (p.created_at at time zone s.timezone)::date <= zs.sealed_through
 group by p.shop_id, (p.created_at at time zone s.timezone)::date, p.method
on conflict do nothing;
