-- Issue 29, item 1 (CONTRACT section 4): a record pushed by a till is never refused for its clock. A
-- sale, cash movement or customer made offline keeps its created_at, unless the till's clock is
-- plainly wrong (before 2000, or more than a day ahead of the server: a dead clock battery). Then
-- the record is made at the time the server received it, and the till's time is kept on the record,
-- till_created_at (null otherwise), and listed for the owner in clock_corrections
-- (GET /sync/clock-corrections). api/sync/push.ts decides and lists; sale_record, cash_movement_record
-- and the customers' insert keep the till's time on the record.
alter table sales add column till_created_at timestamptz;
alter table cash_movements add column till_created_at timestamptz;
alter table customers add column till_created_at timestamptz;

-- One row per record recorded at the server's time instead of its till's: what the owner reviews.
-- The record's own row has the figures; this says which till and user, when the till said and when
-- it was recorded. Never changed: the records it names are never re-dated.
create table clock_corrections (
  shop_id uuid not null default app_shop_id() references shops (id),
  entity text not null check (entity in ('sales', 'cash_movements', 'customers')),
  record_id uuid not null,
  -- The till that pushed it, when a till did (a push with a user's token names none).
  device_id uuid,
  -- Who made the record on the till.
  user_id uuid,
  till_created_at timestamptz not null,
  -- The record's created_at: when the server received it.
  created_at timestamptz not null default now(),
  primary key (shop_id, entity, record_id)
);
create index clock_corrections_list_idx on clock_corrections (shop_id, created_at, entity, record_id);
alter table clock_corrections enable row level security;
create policy clock_corrections_tenant on clock_corrections using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete, truncate on clock_corrections from pos_app;
