-- Issue 26: a charge's request to pay is sent by the charge__poll task after the charge has committed,
-- never inside a transaction, and what the provider did with it is kept: `requested_at` (a request
-- was last sent, whatever came back) and `acknowledged_at` (the provider said it has the request:
-- MTN's 202 or 409, pawaPay's ACCEPTED or DUPLICATE_IGNORED). A charge sent and not acknowledged is
-- asked about before it is sent again; one acknowledged and then unknown to the provider for longer
-- than the approval window has failed. Written only by charge_note_request (definer).
alter table subscription_charges
  add column requested_at timestamptz,
  add column acknowledged_at timestamptz;
