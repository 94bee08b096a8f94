-- A shop's time zone is one PostgreSQL knows: promotion days and hours and expense days are read in it.
-- And one JavaScript's Intl knows too, since receipts, invoices and mails print times in it: of
-- PostgreSQL's names, Intl refuses Factory, localtime, posixrules and the posix/ copies (a shop set to
-- one answered 500 on every invoice; found by the OpenAPI conformance fuzz).
create or replace function shops_check_timezone() returns trigger
  language plpgsql
  as $$
begin
  if not exists (select 1 from pg_timezone_names where name = new.timezone)
     or new.timezone like 'posix/%' or new.timezone in ('Factory', 'localtime', 'posixrules') then
    perform raise_app_error(422, 'validation_failed', 'Must be an IANA time zone, such as Africa/Douala.', 'timezone');
  end if;
  return new;
end $$;

create or replace trigger shops_check_timezone before insert or update of timezone on shops
  for each row execute function shops_check_timezone();
