-- A shop's time zone is one PostgreSQL knows: promotion days and hours and expense days are read in it.
create or replace function shops_check_timezone() returns trigger
  language plpgsql
  as $$
begin
  if not exists (select 1 from pg_timezone_names where name = new.timezone) then
    perform raise_app_error(422, 'validation_failed', 'Must be an IANA time zone, such as Africa/Douala.', 'timezone');
  end if;
  return new;
end $$;

create or replace trigger shops_check_timezone before insert or update of timezone on shops
  for each row execute function shops_check_timezone();
