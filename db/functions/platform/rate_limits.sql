-- Counts one hit in the bucket's current window; true while the count stays within p_max.
create or replace function rate_limit_hit(p_bucket text, p_max integer, p_window interval)
  returns boolean
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    insert into rate_limits as r (bucket, window_started_at, hits) values (p_bucket, now(), 1)
    on conflict (bucket) do update set
      window_started_at = case when r.window_started_at <= now() - p_window then now() else r.window_started_at end,
      hits = case when r.window_started_at <= now() - p_window then 1 else r.hits + 1 end
    returning hits <= p_max
$$;

-- Gives back one hit (an attempt counted up front that turned out not to be a failure).
create or replace function rate_limit_refund(p_bucket text)
  returns void
  language sql volatile security definer
  set search_path = pg_catalog, public
  as $$
    update rate_limits set hits = greatest(hits - 1, 0) where bucket = p_bucket
$$;

-- Whole seconds until the bucket's current window ends and its count starts again (at least 1): a
-- refused caller's Retry-After.
create or replace function rate_limit_retry_after(p_bucket text, p_window interval)
  returns integer
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select greatest(1, ceil(extract(epoch from (window_started_at + p_window - now())))::integer)
      from rate_limits where bucket = p_bucket
$$;
