-- Per-shop daily roll-ups of the reports (issue 15), written when a day is sealed (z_seal_next) from
-- the same function that computes them live (report_day_facts): the period reports read these rows
-- for the sealed days and compute the few unsealed ones, so a year is ~365 x (products sold a day)
-- rows read by one index range, whatever the number of sales. No hot row: a sale writes nothing here.
-- kind: product (key: product id, '' for lines without one), category (category id, '' for none),
-- cashier (user id), method (payment method), hour (local hour of the sale, 0..23).
create table report_facts (
  shop_id uuid not null references shops (id),
  day date not null,
  kind text not null check (kind in ('product', 'category', 'cashier', 'method', 'hour')),
  key text not null,
  count bigint not null default 0,
  quantity numeric(16, 3) not null default 0,
  total_xaf bigint not null default 0,
  vat_xaf bigint not null default 0,
  cost_xaf bigint not null default 0,
  primary key (shop_id, kind, day, key)
);
alter table report_facts enable row level security;
create policy report_facts_tenant on report_facts using (shop_id = app_shop_id());
revoke insert, update, delete on report_facts from pos_app;
