import type { Task } from 'graphile-worker';

/** How long before the end of its subscription (or trial) a shop is reminded to renew. */
export const REMIND_BEFORE = '3 days';

/**
 * Hourly (crontab): each shop whose subscription, or trial when it has none running beyond, ends
 * within 3 days gets one reminder per end: the claim (subscription_reminders) and the mail's job
 * (billing__send_reminder) in one statement, so a crash leaves neither or both, and however often or
 * on however many workers it runs, one mail per shop and end.
 */
export const billingRemindRenewal: Task = async (_payload, helpers) => {
  const { rows } = await helpers.query<{ n: number }>(
    `with ending as (
       select s.id as shop_id, greatest(s.trial_ends_at, coalesce(s.subscription_ends_at, s.trial_ends_at)) as ends_at from shops s
     ), claimed as (
       insert into subscription_reminders (shop_id, ends_at)
       select shop_id, ends_at from ending where ends_at > now() and ends_at <= now() + interval '${REMIND_BEFORE}'
       on conflict do nothing
       returning shop_id, ends_at
     )
     select count(graphile_worker.add_job('billing__send_reminder', json_build_object('shop_id', shop_id, 'ends_at', ends_at),
                                          job_key := 'billing_reminder:' || shop_id || ':' || extract(epoch from ends_at)))::int as n
       from claimed`,
  );
  if (rows[0]?.n) helpers.logger.info(`renewal reminders queued for ${rows[0].n} shop(s)`);
};
