-- The receipt e-mails queued for each sale and address (issue 18): the one sale_record queues for a
-- customer with an e-mail, and each one asked by POST /sales/{id}/receipt/email. A request for the same
-- address within a minute of the last one queues nothing (the answer says it was already sent); the
-- claim is one statement on this row (insert ... on conflict do update ... where queued_at is older
-- than a minute), so two requests at once queue one e-mail.
create table receipt_emails (
  shop_id uuid not null default app_shop_id() references shops (id),
  -- Deferred: sale_record writes the sale's own row last, with its receipt number.
  sale_id uuid not null references sales (id) deferrable initially deferred,
  -- Lower case: one mailbox whatever the case it was typed in.
  email text not null check (email = lower(email) and char_length(email) <= 254),
  queued_at timestamptz not null default now(),
  primary key (sale_id, email)
);
alter table receipt_emails enable row level security;
create policy receipt_emails_tenant on receipt_emails using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke delete on receipt_emails from pos_app;
