-- A worker process says its worker pools are alive (p_live: the ids graphile-worker writes in a
-- job's locked_by, one per pool) and frees the jobs of the pools that are gone: those whose last beat is older than
-- p_stale, and those that never beat but whose locks are older than p_stale (a worker of a release
-- without heartbeats, or one that died before its first beat). Answers the ids whose jobs it freed.
-- Any number of processes may run it at once: a stale row is deleted by one of them, and freeing the
-- same worker's jobs twice changes nothing. The worker's alone: the app role may not call it.
create or replace function worker_heartbeat(p_live text[], p_stale interval) returns text[]
  language plpgsql volatile
  as $$
declare
  gone text[];
begin
  insert into worker_heartbeats (worker_id, beat_at)
  select unnest(p_live), now()
  on conflict (worker_id) do update set beat_at = excluded.beat_at;
  with stale as (
    delete from worker_heartbeats where beat_at < now() - p_stale returning worker_id
  )
  select array(
    select worker_id from stale
    union
    select j.locked_by from graphile_worker.jobs j
     where j.locked_by is not null and j.locked_at < now() - p_stale
       and not exists (select 1 from worker_heartbeats h where h.worker_id = j.locked_by)
  ) into gone;
  if cardinality(gone) > 0 then
    perform graphile_worker.force_unlock_workers(gone);
  end if;
  return gone;
end $$;
revoke execute on function worker_heartbeat(text[], interval) from pos_app;
