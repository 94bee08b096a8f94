import { AsyncLocalStorage } from 'node:async_hooks';
import type { Task, TaskList } from 'graphile-worker';
import type { Logger } from 'pino';

/**
 * The id of the request that queued a job: `enqueue_job` puts it in the payload as `req_id` when
 * the job was queued inside a request (db/functions/platform/enqueue_job.sql). Jobs of the crontab,
 * or queued by other jobs, have none.
 */
export function requestIdOf(payload: unknown): string | undefined {
  const id = typeof payload === 'object' && payload !== null ? (payload as { req_id?: unknown }).req_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

const running = new AsyncLocalStorage<string>();

/** Each task run with its job's request id in scope, for `jobLogger`. */
export function withRequestIds(tasks: TaskList): TaskList {
  const wrap = (task: Task): Task => (payload, helpers) => {
    const id = requestIdOf(payload);
    return id === undefined ? task(payload, helpers) : running.run(id, () => task(payload, helpers));
  };
  return Object.fromEntries(Object.entries(tasks).flatMap(([name, task]) => (task ? [[name, wrap(task)]] : [])));
}

/**
 * `log` for the tasks: a line written while a job runs (under `withRequestIds`) carries the `req_id`
 * of the request that queued it, as the API's lines for that request do, so one search finds both.
 */
export function jobLogger(log: Logger): Logger {
  return log.child(
    {},
    {
      formatters: {
        log: (fields) => {
          const id = running.getStore();
          return id === undefined ? fields : { ...fields, req_id: id };
        },
      },
    },
  );
}
