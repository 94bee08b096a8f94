-- Issue 32 (CONTRACT section 14): certified invoicing. Each sale, void and refund of a shop whose
-- certification is on is delivered to the tax authority (FISCAL_PROVIDER: the simulator, Benin's
-- e-MECeF or Cote d'Ivoire's FNE) by the worker, in chain order, after the sale has committed: a sale
-- never waits for the authority. The outbox row is written by the trigger on fiscal_entries
-- (fiscal/fiscal_certification_queue.sql), in the transaction that appends the record to the chain.

-- A shop's certification: which authority, its credentials there (the API token sealed under APP_KEY,
-- never answered in clear), and the first chain position it covers (the records made before it was
-- enabled are not sent). One row per shop; `enabled` false keeps the credentials while it is off.
create table fiscal_certification_settings (
  shop_id uuid not null primary key references shops (id) on delete cascade,
  provider text not null check (provider in ('simulator', 'emecef', 'fne')),
  enabled boolean not null default true,
  taxpayer_no text,
  api_token_sealed text,
  point_of_sale text,
  establishment text,
  from_chain_no bigint not null default 1,
  enabled_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table fiscal_certification_settings enable row level security;
create policy fiscal_certification_settings_tenant on fiscal_certification_settings
  using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- The outbox and its outcome, one row per record to certify, keyed by its chain position: the worker
-- delivers a shop's rows in chain_no order, one at a time. `state` is the connector's journal of a
-- delivery under way (e-MECeF's pending uid...), so that a worker killed mid-delivery leaves what the
-- next one needs to finish it without certifying twice. `held` marks a record whose answer was lost
-- where the authority offers no look-up: nothing after it is sent until the owner settles it
-- (POST /fiscal/certifications/{chain_no}/settle). A rejected record stays a sale in the books.
create table fiscal_certifications (
  shop_id uuid not null default app_shop_id() references shops (id) on delete cascade,
  chain_no bigint not null,
  kind text not null check (kind in ('sale', 'void', 'refund')),
  ref_id uuid not null,
  provider text not null check (provider in ('simulator', 'emecef', 'fne')),
  status text not null default 'pending' check (status in ('pending', 'certified', 'rejected')),
  held boolean not null default false,
  state jsonb not null default '{}',
  authority_no text,
  signature text,
  qr text,
  certified_at timestamptz,
  provider_ref text,
  line_refs jsonb,
  error text,
  error_detail text,
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  -- When the owner was told of its rejection or its lost answer (worker/tasks/fiscal__alert.ts).
  alerted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (shop_id, chain_no)
);
create index fiscal_certifications_record on fiscal_certifications (shop_id, ref_id);
create index fiscal_certifications_open on fiscal_certifications (shop_id, chain_no) where status = 'pending';
create index fiscal_certifications_status on fiscal_certifications (shop_id, status, chain_no);
alter table fiscal_certifications enable row level security;
create policy fiscal_certifications_tenant on fiscal_certifications
  using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
-- The app role reads and writes it through its routes (settle, retry); the outbox rows themselves are
-- written by the trigger (as the app role, in the sale's transaction) and by the worker.
revoke delete, truncate on fiscal_certifications from pos_app;
