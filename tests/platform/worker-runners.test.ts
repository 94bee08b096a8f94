/**
 * Money jobs never wait behind mail (issue 26): the tasks that send e-mail run on a runner of their
 * own, a mail server that stops answering fails a send instead of holding it for ever, and a worker
 * stops within its deadline, handing back the jobs it could not finish.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCrontab } from 'graphile-worker';
import t from 'tap';
import { createLogger } from '../../api/logger.ts';
import { createMailer } from '../../worker/mailer.ts';
import { AUTHORITY_TASKS, CRONTAB, MAIL_TASKS, runnerTasks, startWorker, taskList } from '../../worker/worker.ts';
import { waitFor } from '../support/fixtures.ts';
import { startStallingSmtpServer } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const ctx = { config: api.config, appKey: api.runtime.appKey, ownerUrl: api.runtime.ownerUrl, log: createLogger('silent'), mailer: { async send() {} } };

/** What `promise` gives, or 'late' past `ms`: a test of a bound fails instead of hanging. */
const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms).unref())]);

t.test('every task runs on exactly one runner, and every cron task on the main one', async (t) => {
  const { main, mail, authority } = runnerTasks(ctx);
  t.same([...Object.keys(main), ...Object.keys(mail), ...Object.keys(authority)].sort(), Object.keys(taskList(ctx)).sort(), 'each task once');
  t.same(Object.keys(mail).sort(), [...MAIL_TASKS].sort());
  t.same(Object.keys(authority).sort(), [...AUTHORITY_TASKS].sort());
  for (const item of parseCrontab(CRONTAB)) t.ok(main[item.task], `${item.task} (crontab) runs on the main runner`);
  for (const money of ['charge__poll', 'commission__accrue', 'commission__mark_payable', 'report__seal_z']) t.ok(main[money], `${money} runs on the main runner`);
});

t.test('the tasks that send e-mail, and only those, run on the mail runner', async (t) => {
  const dir = path.resolve('worker/tasks');
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.ts'))) {
    const task = file.replace(/\.ts$/, '');
    const mails = /ctx\.mailer|mailShopStaff\(/.test(await readFile(path.join(dir, file), 'utf8'));
    t.equal(MAIL_TASKS.has(task), mails, `${task} ${mails ? 'sends' : 'sends no'} e-mail`);
  }
});

t.test('the tasks that call a tax authority, and only those, run on the authority runner', async (t) => {
  const dir = path.resolve('worker/tasks');
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.ts'))) {
    const task = file.replace(/\.ts$/, '');
    const calls = /deliverPending\(/.test(await readFile(path.join(dir, file), 'utf8'));
    t.equal(AUTHORITY_TASKS.has(task), calls, `${task} ${calls ? 'calls' : 'calls no'} tax authority`);
  }
});

t.test('a send to a mail server that greets and never answers again fails within SMTP_TIMEOUT_MS', async (t) => {
  const stall = await startStallingSmtpServer(t);
  const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${stall.port}`, from: 'Boutique <no-reply@pos.test>', dataDir: '.data', timeoutMs: 500 });
  const started = performance.now();
  const outcome = await within(mailer.send({ to: 'awa@example.cm', subject: 'Reçu', text: 'x', html: '<p>x</p>', key: 'stalled.1' }).then(() => 'sent', (error: Error) => error), 5_000);
  t.ok(outcome instanceof Error, `the send fails (${outcome instanceof Error ? outcome.message : outcome})`);
  t.ok(performance.now() - started < 2_000, `soon after 500 ms (${(performance.now() - started).toFixed(0)} ms)`);
  t.equal(stall.connections(), 1, 'it had reached the server');
});

t.test('stop() hands back a main job still running at its deadline, and returns within its timeout', async (t) => {
  const runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: undefined } };
  const worker = await startWorker(runtime, createLogger('silent'));
  await api.ownerSql`insert into rate_limits (bucket, window_started_at, hits) values ('held', now() - interval '2 days', 1)`;
  const { lockedBy, stopped, tookMs, job } = await api.ownerSql.begin(async (tx) => {
    // The prune's delete waits on this row until the transaction ends: the job runs past the deadline.
    await tx`select 1 from rate_limits where bucket = 'held' for update`;
    const id = (await api.ownerSql<{ id: string }[]>`select id::text from graphile_worker.add_job('auth__prune_expired', '{}'::json)`)[0]!.id;
    const lockedBy = await waitFor(async () => {
      const [row] = await api.ownerSql<{ locked_by: string | null }[]>`select locked_by from graphile_worker.jobs where id = ${id}`;
      return row?.locked_by ?? undefined;
    }, 'the job, running');
    const started = performance.now();
    const stopped = await within(worker.stop(4_000), 15_000);
    const tookMs = performance.now() - started;
    const [job] = await api.ownerSql<{ locked_by: string | null; last_error: string | null; due_in_s: number }[]>`
      select locked_by, last_error, extract(epoch from run_at - now())::float8 as due_in_s from graphile_worker.jobs where id = ${id}`;
    return { lockedBy, stopped, tookMs, job };
  });
  t.not(stopped, 'late', 'stop() returned');
  t.ok(tookMs < 4_000, `within its 4000 ms (${tookMs.toFixed(0)} ms)`);
  t.ok(lockedBy, 'the job had been locked by the worker');
  t.equal(job?.locked_by, null, 'it is unlocked');
  t.ok(job && job.due_in_s < 60, 'and due again within a minute');
  t.match(job?.last_error, /stopped before this job ended/, 'with why');
});
