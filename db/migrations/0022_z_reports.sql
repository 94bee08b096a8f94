-- Daily Z reports (issue 15, CONTRACT section 9). A shop's business day is a calendar day of its time
-- zone. The nightly task seals each day after it ends: an immutable z_reports row with the day's
-- figures, a per-shop sequential z_no and the cumulative grand total. z_seals holds, per shop, the
-- last day sealed: a sale, expense or cash movement pushed by an offline till for a day already
-- sealed is reported on the day it reaches us (`reported_on`), in the next Z, as a late record; a
-- sealed Z never changes. reported_on is null for every record made in its own day (all online ones):
-- nothing is added to the sale's hot path but for offline sales, which read z_seals once.

create table z_seals (
  shop_id uuid primary key default app_shop_id() references shops (id),
  sealed_through date not null
);
alter table z_seals enable row level security;
create policy z_seals_tenant on z_seals using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
-- The app reads it (FOR SHARE through z_reported_on, so that a push and the sealing of its day queue); the worker writes it.
revoke insert, update, delete on z_seals from pos_app;

create table z_reports (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null references shops (id),
  day date not null,
  z_no bigint not null check (z_no > 0),
  -- The whole report as GET /reports/z answers it (sealed: true).
  report jsonb not null,
  net_total_xaf bigint not null,
  grand_total_xaf bigint not null,
  sealed_at timestamptz not null default now(),
  unique (shop_id, day),
  unique (shop_id, z_no)
);
alter table z_reports enable row level security;
create policy z_reports_tenant on z_reports using (shop_id = app_shop_id());
revoke insert, update, delete on z_reports from pos_app;

alter table sales add column reported_on date;
create index sales_late_idx on sales (shop_id, reported_on) where reported_on is not null;
-- The day's voids and refunds (the Z), read by time: small indexes, written once per void or refund.
create index sales_voided_idx on sales (shop_id, voided_at) where voided_at is not null;
create index refunds_shop_idx on refunds (shop_id, created_at);
create index sale_payments_reversal_idx on sale_payments (shop_id, created_at) where kind in ('refund', 'void');

alter table expenses add column reported_on date;
create index expenses_late_idx on expenses (shop_id, reported_on) where reported_on is not null;
alter table cash_movements add column reported_on date;
create index cash_movements_day_idx on cash_movements (shop_id, created_at);
create index cash_movements_late_idx on cash_movements (shop_id, reported_on) where reported_on is not null;
