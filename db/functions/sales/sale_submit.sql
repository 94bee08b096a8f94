-- The one entry point of a sale, for the shop and the user named (tenant_bind): POST /sales (online),
-- a till's push (p_offline) and, with an Idempotency-Key, inside the request's transaction. POST /sales
-- without a key sends it as ONE autocommit statement that records the sale (sale_record), whose last
-- step takes the receipt counter: so the counter row is held for the commit only, never across a
-- round trip to the client; alone, it is also the statement Citus delegates whole to the shop's node.
-- p_request_id: the request the receipt e-mail's job carries (enqueue_job), when the transaction has
-- none yet. Answers sale_record's {"id", "replayed"}.
drop function if exists sale_submit(uuid, uuid, jsonb);
drop function if exists sale_submit(uuid, uuid, jsonb, text);
create or replace function sale_submit(p_shop_id uuid, p_user_id uuid, p_sale jsonb, p_request_id text default null,
                                       p_offline boolean default false) returns jsonb
  language plpgsql volatile
  as $$
begin
  perform tenant_bind(p_shop_id, p_user_id);
  if p_request_id is not null then
    perform set_config('app.request_id', p_request_id, true);
  end if;
  return sale_record(p_sale, p_offline);
end $$;

-- The sale as the API answers it, read in one statement (after sale_submit's commit) for the given
-- shop and user.
create or replace function sale_read(p_shop_id uuid, p_user_id uuid, p_sale_id uuid) returns jsonb
  language plpgsql volatile
  as $$
begin
  perform tenant_bind(p_shop_id, p_user_id);
  return sale_json(p_sale_id);
end $$;
