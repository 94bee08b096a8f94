import type { Task } from 'graphile-worker';

/**
 * Daily: forgets the record of e-mails sent more than 30 days ago. sendOnce needs a message's record
 * only while its job may still run again, and no job is retried that long after its mail went out.
 */
export const mailPruneSent: Task = async (_payload, helpers) => {
  await helpers.query(`delete from sent_messages where sent_at < now() - interval '30 days'`);
};
