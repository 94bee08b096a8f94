-- The price-override report (GET /reports/price-overrides): each sale line of the caller's shop whose
-- unit price or VAT rate differs from the catalogue's figures recorded with it, or that carries a line
-- discount, online or offline and whoever sold it, for the sales made between two days of the shop's
-- calendar (both included). Newest sale first, its lines in order; a page starts after the key
-- (p_after_at, p_after_sale, p_after_line) of the previous page's last row. Lines without catalogue
-- figures (free lines, and lines recorded before migration 0013) are never listed.
-- Security invoker: row-level security and the explicit shop filter both hold.
create or replace function price_overrides(p_from date, p_to date, p_limit integer,
                                           p_after_at timestamptz default null, p_after_sale uuid default null,
                                           p_after_line integer default null)
  returns table (sale_id uuid, receipt_no bigint, sale_status text, sale_item_id uuid, line_no integer,
                 product_id uuid, variant_id uuid, name text, quantity numeric,
                 catalogue_price_xaf bigint, catalogue_vat_rate numeric, unit_price_xaf bigint, vat_rate numeric,
                 discount_xaf bigint, catalogue_gross_xaf bigint, charged_xaf bigint, overrides text[],
                 cashier_id uuid, cashier_name text, device_id uuid, device_name text, offline boolean,
                 sold_at timestamptz, recorded_at timestamptz)
  language sql stable
  as $$
    with bounds as (
      -- The shop's days as instants, so that the sales are read by a range of their index.
      select (p_from::timestamp at time zone timezone) as starts, ((p_to + 1)::timestamp at time zone timezone) as ends
        from shops where id = app_shop_id()
    )
    select s.id, s.receipt_no, s.status, i.id, i.line_no, i.product_id, i.variant_id, i.name, i.quantity,
           i.catalogue_price_xaf, i.catalogue_vat_rate, i.unit_price_xaf, i.vat_rate, i.discount_xaf,
           round(i.quantity * i.catalogue_price_xaf)::bigint,
           round(i.quantity * i.unit_price_xaf)::bigint - i.discount_xaf,
           array_remove(array[case when i.unit_price_xaf <> i.catalogue_price_xaf then 'price' end,
                              case when i.vat_rate <> i.catalogue_vat_rate then 'vat' end,
                              case when i.discount_xaf > 0 then 'discount' end], null),
           s.cashier_id, u.name, s.device_id, d.name, s.offline, s.created_at, s.recorded_at
      from bounds b
      join sales s on s.shop_id = app_shop_id() and s.created_at >= b.starts and s.created_at < b.ends
      join sale_items i on i.sale_id = s.id
      left join users u on u.id = s.cashier_id
      left join devices d on d.id = s.device_id
     where i.catalogue_price_xaf is not null
       and (i.unit_price_xaf <> i.catalogue_price_xaf or i.vat_rate <> i.catalogue_vat_rate or i.discount_xaf > 0)
       and (p_after_at is null
            or (s.created_at, s.id) < (p_after_at, p_after_sale)
            or ((s.created_at, s.id) = (p_after_at, p_after_sale) and i.line_no > p_after_line))
     order by s.created_at desc, s.id desc, i.line_no
     limit p_limit
$$;
