-- The app role's only door into graphile-worker: the job exists if and only if the caller's
-- transaction commits. graphile-worker's own statements are planned its way (plan_cache_mode auto),
-- whatever the caller chose for its own (sale_record forces generic plans).
-- A job queued for a request carries the request's id in its payload (`req_id`, from `app.request_id`,
-- set with the shop and user: api/middleware/tenancy.ts), so that the worker's lines for the job name
-- the request that asked for it. The job key is untouched: a newer request's job replaces the pending
-- one as before, with its own id.
create or replace function enqueue_job(p_task text, p_payload jsonb, p_job_key text default null, p_max_attempts integer default null)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set plan_cache_mode = auto
  as $$
declare
  request_id text := nullif(current_setting('app.request_id', true), '');
  payload jsonb := p_payload;
begin
  if request_id is not null and jsonb_typeof(p_payload) = 'object' then
    payload := p_payload || jsonb_build_object('req_id', request_id);
  end if;
  perform graphile_worker.add_job(p_task, payload::json, job_key := p_job_key, max_attempts := p_max_attempts);
end $$;
