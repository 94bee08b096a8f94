-- What a line, a receipt or an alert calls a product or one of its variants: `Chemise (M, Bleu)`.
create or replace function item_name(p_product_name text, p_options jsonb) returns text
  language sql immutable parallel safe
  as $$ select p_product_name || coalesce(' (' || (select string_agg(value, ', ') from jsonb_each_text(p_options)) || ')', '') $$;
