/**
 * A mail server that takes connections, greets, and never answers again (issue 26): e-mails wait,
 * money jobs and cron tasks do not, and SIGTERM still stops the worker within SHUTDOWN_TIMEOUT_MS,
 * handing the mail jobs it was running back to the queue, where another worker sends them.
 */
import t from 'tap';
import { TEST_APP_KEY } from '../support/env.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startStallingSmtpServer } from '../support/mailbox.ts';
import { launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

const SHUTDOWN_TIMEOUT_MS = 5_000;
/** The CONTRACT's bound: a charge's first poll, and every cron task, start within 30 s of being due. */
const ON_TIME_MS = 30_000;
const MONTHLY = '6b1c1a70-0000-4000-8000-000000000030';

const workerEnv = (smtpPort: number) => ({
  DATABASE_URL: api.runtime.ownerUrl,
  APP_KEY: TEST_APP_KEY,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  // Longer than the whole test: the stalled sends are still waiting when SIGTERM comes.
  SMTP_TIMEOUT_MS: '120000',
  WORKER_CONCURRENCY: '4',
  MAIL_CONCURRENCY: '2',
  SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  LOG_LEVEL: 'info',
});

const sleep = (ms: number) => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms));

t.test('a stalled mail server holds only mail: a charge settles and a cron task runs meanwhile; SIGTERM stops the worker in time and hands its mail jobs back', async (t) => {
  t.setTimeout(180_000);
  const shop = await registerShop(api, { locale: 'en' });
  const stall = await startStallingSmtpServer(t);
  const worker = launch(t, 'worker/main.ts', workerEnv(stall.port));
  await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker', 60_000);

  // Six reminders, each for another end date (another message): more than all the worker's slots.
  for (let days = 1; days <= 6; days++) {
    await api.ownerSql`select graphile_worker.add_job('billing__send_reminder', json_build_object('shop_id', ${shop.shop.id}::uuid, 'ends_at', now() + make_interval(days => ${days})))`;
  }
  const held = await waitFor(async () => {
    const rows = await api.ownerSql<{ id: string }[]>`select id::text from graphile_worker.jobs where task_identifier = 'billing__send_reminder' and locked_by is not null`;
    return rows.length >= 2 && stall.connections() >= 2 ? rows : undefined;
  }, 'the mail server holding sends', 30_000);
  t.comment(`${held.length} reminder jobs running, ${stall.connections()} connections held by the mail server`);

  const subscribedAt = performance.now();
  const subscribed = await api.request('POST', '/billing/subscribe', { token: shop.token, body: { plan_id: MONTHLY, method: 'carrier1_momo', phone: '+237670000000' } });
  t.equal(subscribed.status, 202, 'the shop subscribes');
  const { reference } = subscribed.body.data;
  await api.ownerSql`select graphile_worker.add_job('commission__mark_payable', '{}'::json, job_key := 'stalled-smtp-cron')`;
  const queuedAt = performance.now();
  const [charge, cron] = await Promise.all([
    waitFor(async () => {
      const state = (await api.request('GET', '/billing', { token: shop.token })).body.data;
      return state.charges.find((c: { reference: string; status: string }) => c.reference === reference && c.status === 'succeeded') ? performance.now() - subscribedAt : undefined;
    }, 'the charge to succeed', ON_TIME_MS).catch(() => null),
    waitFor(async () => {
      const rows = await api.ownerSql`select 1 from graphile_worker.jobs where key = 'stalled-smtp-cron'`;
      return rows.length === 0 ? performance.now() - queuedAt : undefined;
    }, 'the cron task to run', ON_TIME_MS).catch(() => null),
  ]);
  t.ok(charge !== null, `the charge was polled and succeeded within ${ON_TIME_MS / 1000} s${charge !== null ? ` (${(charge / 1000).toFixed(1)} s)` : ''}`);
  t.ok(cron !== null, `the cron task ran within ${ON_TIME_MS / 1000} s${cron !== null ? ` (${(cron / 1000).toFixed(1)} s)` : ''}`);

  const running = await api.ownerSql<{ id: string }[]>`select id::text from graphile_worker.jobs where task_identifier = 'billing__send_reminder' and locked_by is not null order by id`;
  t.ok(running.length >= 2 && stall.connections() >= 2, 'mail is still stalled when SIGTERM comes');
  const signalled = performance.now();
  worker.child.kill('SIGTERM');
  const code = await Promise.race([worker.exited, sleep(SHUTDOWN_TIMEOUT_MS + 15_000)]);
  const tookMs = performance.now() - signalled;
  t.equal(code, 0, 'the worker exits, with code 0');
  t.ok(tookMs < SHUTDOWN_TIMEOUT_MS + 1_000, `within SHUTDOWN_TIMEOUT_MS (${SHUTDOWN_TIMEOUT_MS} ms) of SIGTERM (${tookMs.toFixed(0)} ms)`);
  const after = await api.ownerSql<{ id: string; locked_by: string | null; due_in_s: number }[]>`
    select id::text, locked_by, extract(epoch from run_at - now())::float8 as due_in_s
      from graphile_worker.jobs where id = any(${running.map((job) => job.id)}::bigint[]) order by id`;
  t.same(after.map((job) => job.id), running.map((job) => job.id), 'the jobs it was running are still queued');
  t.same(after.filter((job) => job.locked_by !== null), [], 'and unlocked');
  t.ok(after.every((job) => job.due_in_s < 60), 'and due again within a minute');
  if (code === 'late') worker.child.kill('SIGKILL');

  const mailbox = await startMailbox(t);
  const second = launch(t, 'worker/main.ts', workerEnv(mailbox.port));
  const reminders = () => mailbox.received.filter((mail) => mail.to.includes(shop.email) && /ends soon/.test(mail.subject)).length;
  await waitFor(() => reminders() >= 6, 'the reminders, from another worker', 60_000).catch(() => undefined);
  t.equal(reminders(), 6, 'another worker sent every reminder, once');
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'and stops gracefully');
  t.comment(`stalled mail server: charge settled after ${charge === null ? 'never' : `${(charge / 1000).toFixed(1)} s`}, cron task after ${cron === null ? 'never' : `${(cron / 1000).toFixed(1)} s`}; SIGTERM to exit ${tookMs.toFixed(0)} ms, ${running.length} running jobs handed back`);
});
