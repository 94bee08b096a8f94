-- An offline sale names what the till held when it sold. By the time it is pushed, a product or a
-- variant may have been deleted, a product may have been given variants, a customer deleted, the
-- customer's points spent on another till: the sale happened all the same, so sale_record must not
-- refuse it for that. Such a line becomes a free line (the name, price and VAT the till sold it at,
-- else the catalogue's last ones), which moves no stock, and carries the catalogue's last price and
-- VAT rate (catalogue_price_xaf, catalogue_vat_rate) for the price-override report; a deleted customer
-- is restored, since what they owe or earn must land on them; points redeemed beyond the customer's
-- balance are redeemed up to it, and the value of the rest becomes a discount on the lines (first
-- lines first), so the sale keeps the total the customer paid. Lines naming an id the shop never had
-- are left as they are (sale_record refuses them: that is a broken till, not news from the server).
-- For the shop and the user named (tenant_bind), whose rows only it reads and writes.
drop function if exists sale_offline_lines(jsonb);
create or replace function sale_offline_lines(p_shop_id uuid, p_user_id uuid, p_sale jsonb) returns jsonb
  language plpgsql volatile
  as $$
declare
  item jsonb;
  lines jsonb := '[]';
  product products;
  variant variants;
  gone boolean;
  available bigint;
  short bigint;
  uncovered bigint;
  room bigint;
  share bigint;
begin
  perform tenant_bind(p_shop_id, p_user_id);
  for item in select value from jsonb_array_elements(p_sale -> 'items') loop
    product := null;
    variant := null;
    if item ->> 'product_id' is not null then
      select * into product from products where shop_id = p_shop_id and id = (item ->> 'product_id')::uuid;
      if item ->> 'variant_id' is not null and product.id is not null then
        select * into variant from variants where shop_id = p_shop_id and id = (item ->> 'variant_id')::uuid and product_id = product.id;
      end if;
    end if;
    gone := product.id is not null and (
      product.deleted_at is not null
      or variant.deleted_at is not null
      or (item ->> 'variant_id' is null and exists (select 1 from variants where shop_id = p_shop_id and product_id = product.id and deleted_at is null)));
    if gone then
      item := jsonb_build_object(
        'product_id', null, 'variant_id', null,
        'name', coalesce(item ->> 'name', item_name(product.name, variant.options)),
        'quantity', item -> 'quantity',
        'unit_price_xaf', coalesce((item ->> 'unit_price_xaf')::bigint, variant.price_xaf, product.price_xaf),
        'discount_xaf', (item ->> 'discount_xaf')::bigint,
        'vat_rate', coalesce((item ->> 'vat_rate')::numeric, product.vat_rate),
        'catalogue_price_xaf', coalesce(variant.price_xaf, product.price_xaf),
        'catalogue_vat_rate', product.vat_rate);
    end if;
    lines := lines || jsonb_build_array(item);
  end loop;
  if p_sale ->> 'customer_id' is not null then
    update customers set deleted_at = null where shop_id = p_shop_id and id = (p_sale ->> 'customer_id')::uuid and deleted_at is not null;
    select points into available from customers where shop_id = p_shop_id and id = (p_sale ->> 'customer_id')::uuid;
    short := coalesce((p_sale ->> 'redeem_points')::bigint, 0) - coalesce(available, 0);
    if available is not null and short > 0 then
      select short * loyalty_redeem_rate_xaf into uncovered from shops where id = p_shop_id;
      for i in 0 .. jsonb_array_length(lines) - 1 loop
        exit when uncovered <= 0;
        item := lines -> i;
        -- What the line still costs before promotions: its gross (at the catalogue's price when the
        -- till sent none) less its own discount.
        select greatest(0, round((item ->> 'quantity')::numeric *
                 coalesce((item ->> 'unit_price_xaf')::bigint,
                          (select price_xaf from variants where shop_id = p_shop_id and id = (item ->> 'variant_id')::uuid),
                          (select price_xaf from products where shop_id = p_shop_id and id = (item ->> 'product_id')::uuid), 0))::bigint
               - coalesce((item ->> 'discount_xaf')::bigint, 0))
          into room;
        share := least(room, uncovered);
        if share > 0 then
          lines := jsonb_set(lines, array[i::text], item || jsonb_build_object('discount_xaf', coalesce((item ->> 'discount_xaf')::bigint, 0) + share));
          uncovered := uncovered - share;
        end if;
      end loop;
      p_sale := jsonb_set(p_sale, '{redeem_points}', to_jsonb(greatest(available, 0)));
    end if;
  end if;
  return jsonb_set(p_sale, '{items}', lines);
end $$;
