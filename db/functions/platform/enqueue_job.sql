-- The app role's only door into graphile-worker: the job exists if and only if the caller's
-- transaction commits. graphile-worker's own statements are planned its way (plan_cache_mode auto),
-- whatever the caller chose for its own (sale_record forces generic plans).
create or replace function enqueue_job(p_task text, p_payload jsonb, p_job_key text default null, p_max_attempts integer default null)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set plan_cache_mode = auto
  as $$
begin
  perform graphile_worker.add_job(p_task, p_payload::json, job_key := p_job_key, max_attempts := p_max_attempts);
end $$;
