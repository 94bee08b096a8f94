-- Business-rule failures: one shape for every procedure. errcode PB<status>, message = the
-- CONTRACT's code, detail = the sentence, column = the input's dotted key (or empty).
create or replace function raise_app_error(p_status int, p_code text, p_message text, p_field text default '')
  returns void
  language plpgsql
  as $$
begin
  raise exception using errcode = 'PB' || p_status::text, message = p_code, detail = p_message, column = coalesce(p_field, '');
end $$;
