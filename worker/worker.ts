import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, type Runner, type TaskList, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { enableSimulatorEverywhere } from '../api/fiscal/certification.ts';
import type { Runtime } from '../api/runtime.ts';
import type { WorkerContext } from './context.ts';
import { keepWorkersAlive, type Liveness, type LivenessTiming } from './liveness.ts';
import { runnerPools } from './listener.ts';
import { createMailer, sendOnce, type Mailer } from './mailer.ts';
import { jobLogger, requestIdOf, withRequestIds } from './request-ids.ts';
import { alertsDailyDigest } from './tasks/alerts__daily_digest.ts';
import { alertsSendDigest } from './tasks/alerts__send_digest.ts';
import { authPruneExpired } from './tasks/auth__prune_expired.ts';
import { billingEmailReceipt } from './tasks/billing__email_receipt.ts';
import { billingRemindRenewal } from './tasks/billing__remind_renewal.ts';
import { billingSendReminder } from './tasks/billing__send_reminder.ts';
import { chargePoll } from './tasks/charge__poll.ts';
import { commissionAccrue } from './tasks/commission__accrue.ts';
import { commissionMarkPayable } from './tasks/commission__mark_payable.ts';
import { fiscalAlert } from './tasks/fiscal__alert.ts';
import { fiscalCertify } from './tasks/fiscal__certify.ts';
import { fiscalClosePeriods } from './tasks/fiscal__close_periods.ts';
import { documentsPruneLinks } from './tasks/documents__prune_links.ts';
import { mailPruneSent } from './tasks/mail__prune_sent.ts';
import { reportEmailZ } from './tasks/report__email_z.ts';
import { reportSealZ } from './tasks/report__seal_z.ts';
import { saleEmailReceipt } from './tasks/sale__email_receipt.ts';
import { stockNegativeAlert } from './tasks/stock__negative_alert.ts';
import { userForgotPassword } from './tasks/user__forgot_password.ts';

/** Every task by name; names are `<subject>__<action>` (worker/tasks/). */
export function taskList(ctx: WorkerContext): TaskList {
  return {
    user__forgot_password: userForgotPassword(ctx),
    auth__prune_expired: authPruneExpired,
    sale__email_receipt: saleEmailReceipt(ctx),
    stock__negative_alert: stockNegativeAlert(ctx),
    mail__prune_sent: mailPruneSent,
    documents__prune_links: documentsPruneLinks,
    alerts__daily_digest: alertsDailyDigest,
    alerts__send_digest: alertsSendDigest(ctx),
    report__seal_z: reportSealZ,
    report__email_z: reportEmailZ(ctx),
    fiscal__close_periods: fiscalClosePeriods,
    fiscal__certify: fiscalCertify(ctx),
    fiscal__alert: fiscalAlert(ctx),
    charge__poll: chargePoll(ctx),
    billing__email_receipt: billingEmailReceipt(ctx),
    billing__remind_renewal: billingRemindRenewal,
    billing__send_reminder: billingSendReminder(ctx),
    commission__accrue: commissionAccrue,
    commission__mark_payable: commissionMarkPayable,
  };
}

/**
 * The tasks that send e-mail. They run on a runner of their own (startWorker), so that a mail server
 * that answers slowly or never holds their slots only, never those of the money jobs (charge__poll,
 * commission__accrue, commission__mark_payable), of report__seal_z or of any other cron task.
 */
export const MAIL_TASKS: ReadonlySet<string> = new Set([
  'user__forgot_password',
  'sale__email_receipt',
  'stock__negative_alert',
  'alerts__send_digest',
  'report__email_z',
  'billing__email_receipt',
  'billing__send_reminder',
  'fiscal__alert',
]);

/**
 * The tasks that call a tax authority (CONTRACT section 14). They too run on a runner of their own: an
 * authority that accepts connections and never answers holds each call for FISCAL_TIMEOUT_MS, and a
 * whole country's shops may be waiting on it at once; it fills only their slots.
 */
export const AUTHORITY_TASKS: ReadonlySet<string> = new Set(['fiscal__certify']);

/**
 * Each runner's tasks: `mail` those of MAIL_TASKS, `authority` those of AUTHORITY_TASKS, `main` every
 * other one; what a task logs carries the `req_id` of the request that queued its job (request-ids.ts).
 */
export function runnerTasks(ctx: WorkerContext): { main: TaskList; mail: TaskList; authority: TaskList } {
  const tasks = Object.entries(withRequestIds(taskList({ ...ctx, log: jobLogger(ctx.log) })));
  return {
    main: Object.fromEntries(tasks.filter(([name]) => !MAIL_TASKS.has(name) && !AUTHORITY_TASKS.has(name))),
    mail: Object.fromEntries(tasks.filter(([name]) => MAIL_TASKS.has(name))),
    authority: Object.fromEntries(tasks.filter(([name]) => AUTHORITY_TASKS.has(name))),
  };
}

/** Times are UTC. Each item's id is pinned so that renaming a task never replays its history. */
export const CRONTAB = [
  '15 * * * * auth__prune_expired ?id=auth_prune_expired',
  '40 3 * * * mail__prune_sent ?id=mail_prune_sent',
  '50 3 * * * documents__prune_links ?id=documents_prune_links',
  // Hourly: each shop gets its digest in the first run after 07:00 of its own time zone.
  '5 * * * * alerts__daily_digest ?id=alerts_daily_digest',
  // Hourly, with a day of backfill: each shop's days are sealed in the first run after its midnight.
  '10 * * * * report__seal_z ?id=report_seal_z&fill=1d',
  // Hourly, with a day of backfill: each shop's month (and year) is closed in the first run after it ends.
  '25 * * * * fiscal__close_periods ?id=fiscal_close_periods&fill=1d',
  // Hourly: a shop whose subscription ends within 3 days is reminded once per end.
  '20 * * * * billing__remind_renewal ?id=billing_remind_renewal',
  // Daily, with a day of backfill: commission lines past their 14-day refund window become payable.
  '30 2 * * * commission__mark_payable ?id=commission_mark_payable&fill=1d',
].join('\n');

function workerLogger(log: Logger): WorkerLogger {
  // Inside a task (helpers.logger), the lines carry its request's id as the task's own do.
  const lines = jobLogger(log);
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : 'info';
    // A job's payload may carry personal data or sealed secrets: log which job, never what it carries
    // (but the id of the request that queued it).
    const { job, ...rest } = (meta ?? {}) as { job?: { id: string; task_identifier: string; attempts: number; payload: unknown } };
    const jobRef = job ? { id: job.id, task: job.task_identifier, attempts: job.attempts } : undefined;
    lines[method]({ scope, ...rest, job: jobRef, req_id: requestIdOf(job?.payload) }, message);
  });
}

export interface Worker {
  /** `main`: every other task, and the crontab; `mail`: the tasks that send e-mail (MAIL_TASKS); `authority`: those that call a tax authority (AUTHORITY_TASKS). */
  runners: { main: Runner; mail: Runner; authority: Runner };
  liveness: Liveness;
  /** Both runners' events (graphile-worker's WorkerEvents): the worker's metrics count jobs from them (metrics.ts). */
  events: WorkerEvents;
  /**
   * Stops within `timeoutMs` (SHUTDOWN_TIMEOUT_MS): takes no new job, lets the running ones finish
   * until a little before the end, then hands back those still running (their mail cut, their locks
   * freed, due again seconds later: every task is safe to run twice) and ends the pools.
   */
  stop(timeoutMs?: number): Promise<void>;
}

/** Of a shutdown's time, what is kept, at most, to hand back the jobs still running and end the pools. */
const RELEASE_MS = 3_000;

/** Whether `promise` settles (either way) before the time `at` (Date.now()). */
async function settlesBy(promise: Promise<unknown>, at: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, at - Date.now()))));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends `pool` once it lends no connection: a job handed back at the deadline may still be using one,
 * and the task's next query, or graphile-worker's own completion of it, would otherwise throw where
 * nothing catches it. The job's lock is already freed; what it still does, it may do twice.
 */
async function endWhenIdle(pool: pg.Pool): Promise<void> {
  while (pool.totalCount > pool.idleCount) await new Promise((resolve) => setTimeout(resolve, 100));
  await pool.end();
}

/**
 * Three graphile-worker runners in this process, each on its own pool of the owner's role (the worker's
 * tables are not the app role's): `mail` runs the tasks that send e-mail (MAIL_CONCURRENCY at once),
 * `authority` those that call a tax authority (FISCAL_CONCURRENCY), `main` every other task and the
 * crontab (WORKER_CONCURRENCY). A runner fetches only the jobs of its
 * own tasks, and a mail job holds a connection of its runner's pool for its whole SMTP exchange
 * (sendOnce): a mail server that stalls fills the mail runner's slots and pool, never the main's. Both
 * runners' worker pools beat in worker_heartbeats, and each beat frees the jobs of pools that are gone
 * (liveness.ts). Signals are left to the process, which stops the worker as part of its own graceful
 * shutdown.
 */
export async function startWorker(runtime: Runtime, log: Logger, mailer?: Mailer, timing?: LivenessTiming): Promise<Worker> {
  const { config, appKey, ownerUrl } = runtime;
  // An idle client whose connection drops must not crash the process: log it, the pool replaces it.
  const logDrop = (error: Error & { code?: string }) => log.error({ error: error.message, code: error.code }, 'worker database connection lost');
  // One emitter for both runners: liveness beats for every pool, stop() reaches the pools still running,
  // and each runner's LISTEN goes straight to PostgreSQL, past any pooler (listener.ts).
  const events: WorkerEvents = new EventEmitter();
  const pools = runnerPools(events, config.WORKER_LISTEN_DATABASE_URL ?? ownerUrl, log, (pool) => {
    pool.on('error', logDrop);
    pool.on('connect', (client) => client.on('error', logDrop));
  });
  // One connection per running job and one to fetch and complete jobs meanwhile; LISTEN has its own.
  const openPool = (slots: number, name: string) => pools.open({ connectionString: ownerUrl, max: slots + 1, application_name: name });
  const mainPool = openPool(config.WORKER_CONCURRENCY, 'pos-worker');
  const mailPool = openPool(config.MAIL_CONCURRENCY, 'pos-worker-mail');
  const authorityPool = openPool(config.FISCAL_CONCURRENCY, 'pos-worker-authority');
  // Aborted at the shutdown's deadline: SMTP exchanges still waiting are cut, their jobs fail and go back.
  const cutMail = new AbortController();
  const smtp = mailer ?? createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, timeoutMs: config.SMTP_TIMEOUT_MS, signal: cutMail.signal });
  // Aborted at the same moment: deliveries to a tax authority still waiting end (their records wait for the next run).
  const cutCalls = new AbortController();
  const tasks = runnerTasks({ config, appKey, ownerUrl, log, mailer: sendOnce(smtp, mailPool), cut: cutCalls.signal });
  const liveness = keepWorkersAlive(mainPool, events, log, timing);
  const workerPools = new Set<WorkerPool>();
  events.on('pool:create', ({ workerPool }) => workerPools.add(workerPool));
  events.on('pool:release', ({ workerPool }) => workerPools.delete(workerPool));
  // No named statements behind a pooler in transaction mode (DB_PREPARED_STATEMENTS=false).
  const common = { noHandleSignals: true, pollInterval: 1000, logger: workerLogger(log), events, noPreparedStatements: !config.DB_PREPARED_STATEMENTS };
  if (config.FISCAL_PROVIDER === 'simulator') await enableSimulatorEverywhere((text) => mainPool.query(text));
  const main = await run({ ...common, pgPool: mainPool, concurrency: config.WORKER_CONCURRENCY, taskList: tasks.main, crontab: CRONTAB });
  // No crontab here; an empty list, or graphile-worker would look for a `crontab` file.
  const mail = await run({ ...common, pgPool: mailPool, concurrency: config.MAIL_CONCURRENCY, taskList: tasks.mail, parsedCronItems: [] });
  const authority = await run({ ...common, pgPool: authorityPool, concurrency: config.FISCAL_CONCURRENCY, taskList: tasks.authority, parsedCronItems: [] });

  const stopWithin = async (timeoutMs: number) => {
    const start = Date.now();
    const releaseMs = Math.min(RELEASE_MS, timeoutMs / 5);
    const handBackAt = start + timeoutMs - releaseMs;
    const giveUpAt = start + timeoutMs - releaseMs / 4;
    const stopped = Promise.allSettled([main.stop(), mail.stop(), authority.stop()]);
    if (!(await settlesBy(stopped, handBackAt))) {
      log.warn('jobs still running at the shutdown deadline: their mail is cut, they go back to the queue');
      // A stalled SMTP exchange is cut first: its job then fails and goes back the ordinary way.
      cutMail.abort(new Error('the worker is shutting down'));
      cutCalls.abort(new Error('the worker is shutting down'));
      if (!(await settlesBy(stopped, handBackAt + releaseMs / 4))) {
        // Whatever still runs is failed by graphile-worker itself: unlocked, due again in seconds.
        const released = Promise.allSettled(
          [...workerPools].map(async (workerPool) => (await workerPool.forcefulShutdown('the worker stopped before this job ended: it runs again')).forceFailedJobs),
        ).then((results) => {
          const jobs = results.flatMap((result) => (result.status === 'fulfilled' ? result.value.map((job) => ({ id: job.id, task: job.task_identifier })) : []));
          log.warn({ jobs }, 'jobs handed back to the queue');
        });
        await settlesBy(released, giveUpAt);
      }
    }
    await settlesBy(liveness.stop(), giveUpAt);
    if (!(await settlesBy(Promise.all([mainPool, mailPool, authorityPool, ...pools.listeners()].map(endWhenIdle)), giveUpAt))) {
      log.warn('worker pools still in use at the shutdown deadline: closed when their last jobs end');
    }
  };
  let stopping: Promise<void> | undefined;
  return {
    runners: { main, mail, authority },
    liveness,
    events,
    stop: (timeoutMs = config.SHUTDOWN_TIMEOUT_MS) => (stopping ??= stopWithin(timeoutMs)),
  };
}
