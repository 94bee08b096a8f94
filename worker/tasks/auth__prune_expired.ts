import type { Task } from 'graphile-worker';

/** Hourly: drops rate-limit windows, reset tokens and sessions long past use. Idempotent. */
export const authPruneExpired: Task = async (_payload, helpers) => {
  await helpers.query(`delete from rate_limits where window_started_at < now() - interval '1 day'`);
  await helpers.query(`delete from password_resets where expires_at < now() - interval '1 day'`);
  await helpers.query(
    `delete from sessions where (expires_at < now() - interval '7 days' or revoked_at < now() - interval '7 days')`,
  );
};
