-- What the documents print (issue 18): the shop's trade register number (RCCM) beside its taxpayer
-- number, the names it gives its payment methods ("MTN MoMo" for carrier1_momo), and a business
-- customer's taxpayer number and address on its invoices.
alter table shops add column trade_register_no text check (char_length(trade_register_no) <= 60);
-- Only the methods the shop named; the others print the default label of the shop's language.
alter table shops add column payment_method_labels jsonb not null default '{}'
  check (jsonb_typeof(payment_method_labels) = 'object');

alter table customers add column tax_id text check (char_length(tax_id) <= 60);
alter table customers add column address text check (char_length(address) <= 255);

-- A sale's payments in the order they were taken (they share the sale's time): documents print them so.
alter table sale_payments add column position smallint;
