-- Commission payouts (issue 27, item 4; CONTRACT section 12): a paid line is final, and each payout
-- is recorded. One commission_payouts row per partner paid by a request (POST
-- /admin/partner-commissions/pay, db/functions/partners/commission_set_status.sql): its reference, the
-- administrator who recorded it, how many lines and how much. Each paid line points at its payout;
-- the trigger of db/functions/partners/commission_paid_is_final.sql keeps a paid line as it is.
--
-- A platform table, like partner_commissions: keyed by partner, not by shop (db/CONVENTIONS.md). A
-- partner reads its own payouts, an administrator every one; the app role records them (through
-- commission_set_status, as an administrator) and never changes or deletes one.

create table commission_payouts (
  id uuid primary key default gen_random_uuid(),
  partner_id uuid not null references partners (id),
  payout_reference text check (char_length(payout_reference) <= 120),
  -- The administrator who recorded it; null only for the payouts rebuilt below from lines paid before this migration.
  paid_by uuid references users (id),
  line_count int not null check (line_count > 0),
  amount_xaf bigint not null check (amount_xaf > 0),
  -- When it was recorded: the paid_at of each of its lines.
  created_at timestamptz not null default now(),
  -- The target of the lines' (payout_id, partner_id): a line is paid in a payout of its own partner.
  unique (id, partner_id)
);
create index commission_payouts_partner_idx on commission_payouts (partner_id, created_at desc, id desc);
create index commission_payouts_created_idx on commission_payouts (created_at desc, id desc);
alter table commission_payouts enable row level security;
create policy commission_payouts_read on commission_payouts for select using (partner_id = app_user_id() or (select app_is_admin()));
create policy commission_payouts_record on commission_payouts for insert
  with check ((select app_is_admin()) and paid_by = app_user_id());
revoke update, delete, truncate on commission_payouts from pos_app;

alter table partner_commissions add column payout_id uuid;

-- Lines paid before: one payout per partner, reference and time of payment (one request paid its
-- lines with one reference at one now()), its administrator unknown.
insert into commission_payouts (partner_id, payout_reference, line_count, amount_xaf, created_at)
select partner_id, payout_reference, count(*), sum(amount_xaf), paid_at
  from partner_commissions
 where status = 'paid'
 group by partner_id, payout_reference, paid_at;
update partner_commissions c
   set payout_id = p.id
  from commission_payouts p
 where c.status = 'paid'
   and p.partner_id = c.partner_id
   and p.created_at = c.paid_at
   and p.payout_reference is not distinct from c.payout_reference;
-- A payout reference is a payout's: lines the old code moved back from paid, or held with a
-- reference, lose the one they kept.
update partner_commissions set payout_reference = null where status <> 'paid' and payout_reference is not null;

alter table partner_commissions
  add constraint partner_commissions_payout_fkey foreign key (payout_id, partner_id) references commission_payouts (id, partner_id),
  add constraint partner_commissions_paid_in_a_payout check ((status = 'paid') = (payout_id is not null)),
  add constraint partner_commissions_reference_of_a_payout check (status = 'paid' or payout_reference is null);
create index partner_commissions_payout_idx on partner_commissions (payout_id) where payout_id is not null;
