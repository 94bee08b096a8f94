-- Jobs run at least once; these two tables make "again" safe and quick. Both are the worker's (the
-- schema owner's): the app role may not touch them.
--
-- graphile-worker 0.17 frees the jobs of a worker that died (a killed process, a lost machine) only
-- after 4 hours. Each worker process beats here for its workers; the beat of any process frees the
-- jobs of workers that stopped beating (db/functions/worker/worker_heartbeat.sql), so a job held by a
-- killed worker runs again within a minute.
create table worker_heartbeats (
  worker_id text primary key,
  beat_at timestamptz not null default now()
);
alter table worker_heartbeats enable row level security;
revoke all on worker_heartbeats from pos_app;

-- Every e-mail the SMTP server accepted, by its Message-ID (a job's, the same on each run of it): a
-- job run again after its mail went out does not send it twice (worker/mailer.ts).
create table sent_messages (
  message_id text primary key,
  sent_at timestamptz not null default now()
);
alter table sent_messages enable row level security;
revoke all on sent_messages from pos_app;
