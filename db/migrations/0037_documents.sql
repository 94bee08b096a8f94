-- Documents customers and owners hold (issue 31, CONTRACT section 15): what an accountant in Douala
-- expects on an invoice, the shop's logo, and short shared links.

-- The shop's legal mentions, printed under its name on invoices, quotes and credit notes: its legal
-- form and capital ("SARL au capital de 1 000 000 FCFA"), its tax regime and tax centre, where a
-- customer pays it (bank details, mobile money merchant number), and the days a credit sale gives
-- before it is due (the invoice of a credit sale prints the due date).
alter table shops
  add column legal_form text,
  add column share_capital_xaf bigint check (share_capital_xaf >= 0),
  add column tax_regime text,
  add column tax_centre text,
  add column bank_details text,
  add column momo_merchant_no text,
  add column payment_terms_days integer check (payment_terms_days between 0 and 365);

-- A business customer's trade register number (RCCM), printed beside its NIU.
alter table customers add column trade_register_no text;

-- The shop's logo (PUT /shop/logo): the bytes as uploaded, PNG or JPEG of at most 256 KiB, checked by
-- their content; its pixel size, read from the image's header, lets every document size it without
-- decoding it. One per shop.
create table shop_logos (
  shop_id uuid not null primary key references shops (id) on delete cascade,
  media_type text not null check (media_type in ('image/png', 'image/jpeg')),
  content bytea not null check (octet_length(content) <= 262144),
  width integer not null check (width > 0),
  height integer not null check (height > 0),
  sha256 text not null,
  updated_at timestamptz not null default now()
);
alter table shop_logos enable row level security;
create policy shop_logos_tenant on shop_logos using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Shared links (POST /sales/{id}/share, POST /quotes/{id}/share, the receipt's QR code): a random
-- token short enough for an SMS, stored with what it opens and its expiry. A public request knows
-- only the token: shared_link_find (SECURITY DEFINER) answers its shop and record, nothing else.
create table shared_links (
  token text not null primary key,
  shop_id uuid not null references shops (id) on delete cascade,
  sale_id uuid,
  quote_id uuid,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  check (num_nonnulls(sale_id, quote_id) = 1)
);
create index shared_links_expiry on shared_links (expires_at);
alter table shared_links enable row level security;
create policy shared_links_tenant on shared_links using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
