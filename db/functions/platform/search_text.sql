-- Text as searched: lower case, accents removed ("Café" is found by "cafe").
create or replace function search_text(p_text text) returns text
  language sql stable parallel safe
  as $$ select lower(unaccent(coalesce(p_text, ''))) $$;

-- p_text with LIKE's wildcards taken literally.
create or replace function like_escape(p_text text) returns text
  language sql immutable parallel safe
  as $$ select replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_') $$;

-- Keeps a table's search_name the searchable form of its name (products and customers).
create or replace function set_search_name() returns trigger
  language plpgsql
  as $$
begin
  new.search_name := search_text(new.name);
  return new;
end $$;

create or replace trigger products_search_name before insert or update of name on products
  for each row execute function set_search_name();
create or replace trigger customers_search_name before insert or update of name on customers
  for each row execute function set_search_name();
create or replace trigger suppliers_search_name before insert or update of name on suppliers
  for each row execute function set_search_name();
