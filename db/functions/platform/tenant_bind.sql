-- Binds a procedure's transaction to the shop and the user it was called for. The sale procedures take
-- their shop as an argument so that Citus can run them whole on the node holding that shop
-- (create_distributed_function on p_shop_id), where no setting of the caller's transaction exists:
-- there they set it themselves, so that row-level security, column defaults and the functions they
-- call see the same shop. A transaction already bound to another shop or user calling them is a bug
-- of the caller (its rows would be read under one shop and written under another): refused.
create or replace function tenant_bind(p_shop_id uuid, p_user_id uuid) returns void
  language plpgsql volatile
  as $$
declare
  bound_shop uuid := app_shop_id();
  bound_user uuid := app_user_id();
begin
  if p_shop_id is null then
    raise exception 'a shop''s procedure was called without its shop';
  end if;
  if bound_shop is distinct from p_shop_id and bound_shop is not null then
    raise exception 'called for shop % in a transaction bound to shop %', p_shop_id, bound_shop;
  end if;
  if bound_user is distinct from p_user_id and bound_user is not null then
    raise exception 'called for user % in a transaction bound to user %', coalesce(p_user_id::text, 'none'), bound_user;
  end if;
  if bound_shop is null then
    perform set_config('app.shop_id', p_shop_id::text, true);
  end if;
  if bound_user is null and p_user_id is not null then
    perform set_config('app.user_id', p_user_id::text, true);
  end if;
end $$;
