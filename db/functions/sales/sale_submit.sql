-- The API's fast path for a sale (POST /sales without an Idempotency-Key): the whole sale in ONE
-- autocommit statement that sets the caller's shop and user (and the request's id, which the receipt
-- e-mail's job carries: enqueue_job) for this transaction and records the sale (sale_record), whose
-- last step takes the receipt counter. So the counter row is held for the commit only, never across a
-- round trip to the client. Called inside a wider transaction it works too, but leaves the tenant set
-- for the rest of it. Answers sale_record's {"id", "replayed"}.
drop function if exists sale_submit(uuid, uuid, jsonb);
create or replace function sale_submit(p_shop_id uuid, p_user_id uuid, p_sale jsonb, p_request_id text default null) returns jsonb
  language plpgsql volatile
  as $$
begin
  perform set_config('app.shop_id', p_shop_id::text, true), set_config('app.user_id', coalesce(p_user_id::text, ''), true),
          set_config('app.request_id', coalesce(p_request_id, ''), true);
  return sale_record(p_sale, false);
end $$;

-- The sale as the API answers it, read in one statement (after sale_submit's commit) for the given
-- shop and user.
create or replace function sale_read(p_shop_id uuid, p_user_id uuid, p_sale_id uuid) returns jsonb
  language plpgsql volatile
  as $$
begin
  perform set_config('app.shop_id', p_shop_id::text, true), set_config('app.user_id', coalesce(p_user_id::text, ''), true);
  return sale_json(p_sale_id);
end $$;
