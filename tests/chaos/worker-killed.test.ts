/**
 * A worker process killed in the middle of a job (an out-of-memory kill, a lost machine): another
 * worker runs the job again within a minute, instead of the 4 hours graphile-worker 0.17 waits.
 */
import t from 'tap';
import { TEST_APP_KEY } from '../support/env.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startStallingSmtpServer } from '../support/mailbox.ts';
import { launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

const workerEnv = (smtpPort: number) => ({
  DATABASE_URL: api.runtime.ownerUrl,
  APP_KEY: TEST_APP_KEY,
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  LOG_LEVEL: 'info',
});

t.test('a worker killed mid-job: a second worker runs the job again within a minute, and the dead one\'s heartbeat goes', async (t) => {
  const shop = await registerShop(api, { locale: 'en' });
  const stall = await startStallingSmtpServer(t);
  const first = launch(t, 'worker/main.ts', workerEnv(stall.port));
  await waitFor(() => first.output.stdout.includes('worker running'), 'the first worker', 60_000);

  t.equal((await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } })).status, 200);
  const job = await waitFor(async () => {
    const [row] = await api.ownerSql<{ id: string; locked_by: string | null }[]>`
      select id::text, locked_by from graphile_worker.jobs where task_identifier = 'user__forgot_password'`;
    return row?.locked_by && stall.connections() > 0 ? row : undefined;
  }, 'the job, locked and talking to the mail server', 30_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = performance.now();

  const mailbox = await startMailbox(t);
  const second = launch(t, 'worker/main.ts', workerEnv(mailbox.port));
  const mail = await mailbox.next(shop.email, 60_000);
  const recoveredMs = performance.now() - killedAt;
  t.match(mail.subject, /password/i, 'the reset e-mail arrived');
  t.ok(recoveredMs < 60_000, `within a minute of the kill (${(recoveredMs / 1000).toFixed(1)} s)`);
  const [left] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from worker_heartbeats where worker_id = ${job.locked_by}`;
  t.equal(left!.n, 0, 'the killed worker\'s heartbeat is gone');
  await waitFor(async () => (await api.ownerSql`select 1 from graphile_worker.jobs where id = ${job.id}`).length === 0, 'the job completed');

  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'the second worker stops gracefully');
  const [rows] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from worker_heartbeats`;
  t.equal(rows!.n, 0, 'and leaves no heartbeat');
  t.comment(`worker killed mid-job: job ${job.id} ran again and its mail arrived ${(recoveredMs / 1000).toFixed(1)} s after the kill`);
});
