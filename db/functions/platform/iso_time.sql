-- Timestamps as the JSON answers write them (JavaScript's toISOString: UTC, milliseconds).
create or replace function iso_time(p_time timestamptz) returns text
  language sql stable parallel safe
  as $$ select to_char(p_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
