-- What a line, a receipt or an alert calls a product or one of its variants: `Chemise (M, Bleu)`.
-- PL/pgSQL, not SQL: a SQL function with a subquery cannot be inlined, so the sale (which names every
-- line) parsed and planned its body again on each call; PL/pgSQL keeps its plan for the session, and
-- a product without options never reaches the subquery.
create or replace function item_name(p_product_name text, p_options jsonb) returns text
  language plpgsql immutable parallel safe
  as $$
begin
  if p_options is null then
    return p_product_name;
  end if;
  return p_product_name || coalesce(' (' || (select string_agg(value, ', ') from jsonb_each_text(p_options)) || ')', '');
end $$;
