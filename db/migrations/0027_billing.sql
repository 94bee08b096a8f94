-- Subscription billing (issue 16, CONTRACT section 10): the plans a shop may pay for, and each
-- mobile-money charge asked of the payer. A charge is settled once (charge_settle): succeeded (the
-- shop's subscription extended), failed or expired; what the provider answers is polled by the API
-- (POST /billing/confirm) and by the charge__poll task.
create table plans (
  id uuid primary key default gen_random_uuid(),
  code text not null unique,
  name text not null,
  price_xaf bigint not null check (price_xaf > 0),
  period_days int not null check (period_days > 0),
  active boolean not null default true,
  position int not null default 0
);
insert into plans (id, code, name, price_xaf, period_days, position) values
  ('6b1c1a70-0000-4000-8000-000000000030', 'monthly', 'Mensuel', 5000, 30, 1),
  ('6b1c1a70-0000-4000-8000-000000000365', 'yearly', 'Annuel', 50000, 365, 2);
-- Plans are the company's, the same for every shop: every shop reads them, the app never writes them.
alter table plans enable row level security;
create policy plans_read on plans for select using (true);
revoke insert, update, delete on plans from pos_app;

create table subscription_charges (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  reference text not null unique check (char_length(reference) between 8 and 64),
  plan_id uuid not null references plans (id),
  amount_xaf bigint not null check (amount_xaf > 0),
  method text not null check (method in ('carrier1_momo', 'carrier2_money')),
  phone text not null check (char_length(phone) between 1 and 40),
  provider text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'expired')),
  failure_reason text,
  requested_by uuid references users (id) default nullif(current_setting('app.user_id', true), '')::uuid,
  created_at timestamptz not null default now(),
  settled_at timestamptz,
  -- The subscription's end this charge brought (succeeded only).
  subscription_ends_at timestamptz,
  check ((status = 'pending') = (settled_at is null))
);
create index subscription_charges_shop_idx on subscription_charges (shop_id, created_at desc, id desc);
create index subscription_charges_pending_idx on subscription_charges (created_at) where status = 'pending';
alter table subscription_charges enable row level security;
create policy subscription_charges_tenant on subscription_charges using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
-- Settled only by charge_settle (the definer): never by the app's own statements.
revoke update, delete on subscription_charges from pos_app;

-- The reminders sent before a shop's subscription (or trial) ends: one per shop and end
-- (billing__remind_renewal claims the row and queues the mail in one statement). The worker's only.
create table subscription_reminders (
  shop_id uuid not null references shops (id),
  ends_at timestamptz not null,
  claimed_at timestamptz not null default now(),
  primary key (shop_id, ends_at)
);
alter table subscription_reminders enable row level security;
create policy subscription_reminders_tenant on subscription_reminders using (shop_id = app_shop_id());
revoke all on subscription_reminders from pos_app;
