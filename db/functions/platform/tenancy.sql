-- Tenancy: the shop and the user of the current transaction, set with set_config(..., true) by the
-- API. nullif because a setting once used on a connection reads '' rather than NULL afterwards.
create or replace function app_shop_id() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.shop_id', true), '')::uuid $$;

create or replace function app_user_id() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.user_id', true), '')::uuid $$;
