-- Prices belong to managers (CONTRACT section 3). What a cashier may change on a sale is the owner's
-- setting: whether a cashier may charge another price or VAT rate than the catalogue's, and how big a
-- line discount a cashier may give, in percent of the line's gross. The rule itself is in
-- db/functions/sales/sale_record.sql.
alter table shops
  add column cashier_price_override boolean not null default false,
  add column cashier_max_discount_percent numeric(5, 2) not null default 10
    check (cashier_max_discount_percent between 0 and 100);

-- What the catalogue said when the line was recorded, beside what was charged, so that every
-- override can be reported (GET /reports/price-overrides). Null on a free line (no product: there is
-- no catalogue to compare with) and on the lines recorded before this migration (the catalogue of
-- their day is not known).
alter table sale_items
  add column catalogue_price_xaf bigint check (catalogue_price_xaf >= 0),
  add column catalogue_vat_rate numeric(5, 2) check (catalogue_vat_rate between 0 and 100);
