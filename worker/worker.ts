import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Runtime } from '../api/runtime.ts';
import type { WorkerContext } from './context.ts';
import { keepWorkersAlive, type Liveness, type LivenessTiming } from './liveness.ts';
import { createMailer, sendOnce, type Mailer } from './mailer.ts';
import { alertsDailyDigest } from './tasks/alerts__daily_digest.ts';
import { alertsSendDigest } from './tasks/alerts__send_digest.ts';
import { authPruneExpired } from './tasks/auth__prune_expired.ts';
import { billingEmailReceipt } from './tasks/billing__email_receipt.ts';
import { billingRemindRenewal } from './tasks/billing__remind_renewal.ts';
import { billingSendReminder } from './tasks/billing__send_reminder.ts';
import { chargePoll } from './tasks/charge__poll.ts';
import { commissionAccrue } from './tasks/commission__accrue.ts';
import { commissionMarkPayable } from './tasks/commission__mark_payable.ts';
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
    alerts__daily_digest: alertsDailyDigest,
    alerts__send_digest: alertsSendDigest(ctx),
    report__seal_z: reportSealZ,
    report__email_z: reportEmailZ(ctx),
    charge__poll: chargePoll(ctx),
    billing__email_receipt: billingEmailReceipt(ctx),
    billing__remind_renewal: billingRemindRenewal,
    billing__send_reminder: billingSendReminder(ctx),
    commission__accrue: commissionAccrue,
    commission__mark_payable: commissionMarkPayable,
  };
}

/** Times are UTC. Each item's id is pinned so that renaming a task never replays its history. */
export const CRONTAB = [
  '15 * * * * auth__prune_expired ?id=auth_prune_expired',
  '40 3 * * * mail__prune_sent ?id=mail_prune_sent',
  // Hourly: each shop gets its digest in the first run after 07:00 of its own time zone.
  '5 * * * * alerts__daily_digest ?id=alerts_daily_digest',
  // Hourly, with a day of backfill: each shop's days are sealed in the first run after its midnight.
  '10 * * * * report__seal_z ?id=report_seal_z&fill=1d',
  // Hourly: a shop whose subscription ends within 3 days is reminded once per end.
  '20 * * * * billing__remind_renewal ?id=billing_remind_renewal',
  // Daily, with a day of backfill: commission lines past their 14-day refund window become payable.
  '30 2 * * * commission__mark_payable ?id=commission_mark_payable&fill=1d',
].join('\n');

function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : 'info';
    // A job's payload may carry personal data or sealed secrets: log which job, never what it carries.
    const { job, ...rest } = (meta ?? {}) as { job?: { id: string; task_identifier: string; attempts: number } };
    const jobRef = job ? { id: job.id, task: job.task_identifier, attempts: job.attempts } : undefined;
    log[method]({ scope, ...rest, job: jobRef }, message);
  });
}

export interface Worker {
  runner: Runner;
  liveness: Liveness;
  stop(): Promise<void>;
}

/**
 * graphile-worker on its own pool of the owner's role (the worker's tables are not the app role's).
 * Its worker pool beats in worker_heartbeats, and each beat frees the jobs of pools that are gone
 * (liveness.ts); mail goes out once per message (sendOnce). Signals are left to the process, which
 * stops the worker as part of its own graceful shutdown.
 */
export async function startWorker(runtime: Runtime, log: Logger, mailer?: Mailer, timing?: LivenessTiming): Promise<Worker> {
  const { config, appKey, ownerUrl } = runtime;
  const pool = new pg.Pool({ connectionString: ownerUrl, max: config.WORKER_CONCURRENCY + 2, application_name: 'pos-worker' });
  // An idle client whose connection drops must not crash the process: log it, the pool replaces it.
  const logDrop = (error: Error & { code?: string }) => log.error({ error: error.message, code: error.code }, 'worker database connection lost');
  pool.on('error', logDrop);
  pool.on('connect', (client) => client.on('error', logDrop));
  const ctx: WorkerContext = {
    config,
    appKey,
    ownerUrl,
    log,
    mailer: sendOnce(mailer ?? createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR }), pool),
  };
  const events: WorkerEvents = new EventEmitter();
  const liveness = keepWorkersAlive(pool, events, log, timing);
  const runner = await run({
    pgPool: pool,
    concurrency: config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(ctx),
    crontab: CRONTAB,
    logger: workerLogger(log),
    events,
  });
  return {
    runner,
    liveness,
    async stop() {
      await runner.stop();
      await liveness.stop();
      await pool.end();
    },
  };
}
