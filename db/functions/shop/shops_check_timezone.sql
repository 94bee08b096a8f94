-- A shop's time zone is one PostgreSQL knows: promotion days and hours and expense days are read in it.
-- And one JavaScript's Intl knows too, since receipts, invoices and mails print times in it: of
-- PostgreSQL's names, Intl refuses Factory, localtime, posixrules and the posix/ copies (a shop set to
-- one answered 500 on every invoice; found by the OpenAPI conformance fuzz). Called by what sets the
-- time zone (PUT /shop) before it writes: no trigger on shops, a reference table on Citus.
drop function if exists shops_check_timezone();
create or replace function shops_check_timezone(p_timezone text) returns void
  language plpgsql stable
  as $$
begin
  if not exists (select 1 from pg_timezone_names where name = p_timezone)
     or p_timezone like 'posix/%' or p_timezone in ('Factory', 'localtime', 'posixrules') then
    perform raise_app_error(422, 'validation_failed', 'Must be an IANA time zone, such as Africa/Douala.', 'timezone');
  end if;
end $$;
