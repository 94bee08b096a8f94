-- A variant in the shape of the API's Variant record.
create or replace function variant_json(v variants) returns jsonb
  language sql stable parallel safe
  as $$
    select jsonb_build_object('id', v.id, 'product_id', v.product_id, 'options', v.options, 'sku', v.sku,
      'barcode', v.barcode, 'price_xaf', v.price_xaf, 'on_hand', v.on_hand,
      'created_at', iso_time(v.created_at), 'updated_at', iso_time(v.updated_at))
$$;
