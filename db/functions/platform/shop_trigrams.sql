-- The trigrams of a searchable text (search_text form) as keys of one shop: each trigram inside a word
-- (three letters or digits in a row, as pg_trgm's show_trgm splits words), prefixed by the first 8
-- characters of the shop's id. A GIN index on these keys gives a name search the candidates of its
-- own shop only: a plain trigram index gives those of every shop, to be thrown away after reading
-- them, so a search would cost more with every shop the service has.
--
-- A text contains another only if it holds every in-word trigram of it, so the keys of a search
-- (@>) never miss a product; two shops whose ids begin alike only share candidates, which the
-- caller's own filter on shop_id and the LIKE recheck remove. No key (no word of 3 characters): the
-- caller must search another way.
--
-- PL/pgSQL, not SQL: a SQL function with a subquery is never inlined, so each statement that computed
-- the index's keys (an update of a customer by a sale) parsed and planned its body again.
create or replace function shop_trigrams(p_shop_id uuid, p_text text) returns text[]
  language plpgsql immutable parallel safe
  as $$
begin
  return array(select left(p_shop_id::text, 8) || t from unnest(public.show_trgm(p_text)) t where position(' ' in t) = 0);
end $$;
