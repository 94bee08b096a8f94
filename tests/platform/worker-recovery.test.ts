/**
 * Jobs run at least once: a job held by a worker that died runs again soon (heartbeats), and running
 * again never sends a mail twice (sendOnce).
 */
import pg from 'pg';
import t from 'tap';
import { createLogger } from '../../api/logger.ts';
import { createMailer, sendOnce, type Mail } from '../../worker/mailer.ts';
import { startWorker } from '../../worker/worker.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startStallingSmtpServer } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const pool = new pg.Pool({ connectionString: api.runtime.ownerUrl, max: 10 });
t.teardown(() => pool.end());

/** A job as if `worker` had locked it `ageSeconds` ago. */
async function lockedJob(worker: string, ageSeconds: number): Promise<string> {
  const [job] = await api.ownerSql<{ id: string }[]>`select id::text from graphile_worker.add_job('auth__prune_expired', '{}'::json, run_at := now() + interval '1 hour')`;
  await api.ownerSql`update graphile_worker._private_jobs set locked_by = ${worker}, locked_at = now() - ${`${ageSeconds} seconds`}::interval where id = ${job!.id}`;
  return job!.id;
}

async function beatAgo(worker: string, ageSeconds: number): Promise<void> {
  await api.ownerSql`insert into worker_heartbeats (worker_id, beat_at) values (${worker}, now() - ${`${ageSeconds} seconds`}::interval)`;
}

const lockOf = async (id: string) => (await api.ownerSql<{ locked_by: string | null }[]>`select locked_by from graphile_worker.jobs where id = ${id}`)[0]!.locked_by;

t.test('a beat frees the jobs of workers that stopped beating and of old lockers that never beat, never those of live or new workers', async (t) => {
  await beatAgo('w-dead', 45);
  await beatAgo('w-alive', 5);
  const jobs = {
    dead: await lockedJob('w-dead', 50),
    alive: await lockedJob('w-alive', 600),
    ancient: await lockedJob('w-before-heartbeats', 120),
    fresh: await lockedJob('w-just-started', 2),
    mine: await lockedJob('w-me', 600),
  };
  const [{ gone }] = (await pool.query<{ gone: string[] }>(`select worker_heartbeat(array['w-me'], '30 seconds') as gone`)).rows as [{ gone: string[] }];
  t.same([...gone].sort(), ['w-before-heartbeats', 'w-dead']);
  t.same(
    { dead: await lockOf(jobs.dead), alive: await lockOf(jobs.alive), ancient: await lockOf(jobs.ancient), fresh: await lockOf(jobs.fresh), mine: await lockOf(jobs.mine) },
    { dead: null, alive: 'w-alive', ancient: null, fresh: 'w-just-started', mine: 'w-me' },
  );
  const beats = await api.ownerSql<{ worker_id: string }[]>`select worker_id from worker_heartbeats order by worker_id`;
  t.same(beats.map((row) => row.worker_id), ['w-alive', 'w-me'], 'the dead worker\'s row is gone, the caller\'s is there');
});

t.test('beats from many processes at once all succeed and free each gone worker\'s jobs', async (t) => {
  await beatAgo('w-gone-together', 90);
  const job = await lockedJob('w-gone-together', 90);
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => pool.query(`select worker_heartbeat(array['w-process-${i}'], '30 seconds') as gone`)));
  t.equal(results.length, 8);
  t.equal(await lockOf(job), null);
});

t.test('the app role may not call worker_heartbeat', async (t) => {
  await t.rejects(api.appSql`select worker_heartbeat(array['x'], '30 seconds')`, { code: '42501' });
});

t.test('a running worker beats once per pool (its main, mail and authority runners\'), whatever their concurrency, and one stopped leaves no row', async (t) => {
  const runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: undefined, WORKER_CONCURRENCY: 3, MAIL_CONCURRENCY: 3, FISCAL_CONCURRENCY: 3 } };
  const worker = await startWorker(runtime, createLogger('silent'));
  const beats = async () => (await api.ownerSql<{ worker_id: string }[]>`select worker_id from worker_heartbeats where worker_id like 'pool-%'`).map((row) => row.worker_id);
  await waitFor(async () => (await beats()).length === 3, 'three heartbeat rows: one per pool, whatever its concurrency');
  await worker.stop();
  t.same(await beats(), []);
});

t.test('a job running longer than the stale time keeps its lock while its worker lives, and runs once', async (t) => {
  const shop = await registerShop(api, { locale: 'en' });
  const stall = await startStallingSmtpServer(t);
  const runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: `smtp://127.0.0.1:${stall.port}`, WORKER_CONCURRENCY: 2 } };
  const worker = await startWorker(runtime, createLogger('silent'), undefined, { heartbeatMs: 200, staleAfterMs: 1000 });
  t.equal((await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } })).status, 200);
  const job = await waitFor(async () => {
    const [row] = await api.ownerSql<{ id: string; locked_by: string | null }[]>`
      select id::text, locked_by from graphile_worker.jobs where task_identifier = 'user__forgot_password'`;
    return row?.locked_by && stall.connections() > 0 ? row : undefined;
  }, 'the job, locked and talking to the mail server');
  const beats = await api.ownerSql<{ worker_id: string }[]>`select worker_id from worker_heartbeats where worker_id like 'pool-%'`;
  t.ok(beats.some((beat) => beat.worker_id === job.locked_by), 'the mail runner\'s pool beats under the id graphile-worker locks its jobs with');
  // Four stale periods, each beat by the live pool and by a second process that frees what is gone.
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await pool.query(`select worker_heartbeat(array[]::text[], '1 second')`);
  }
  t.equal(await lockOf(job.id), job.locked_by, 'still locked by the live pool');
  t.equal(stall.connections(), 1, 'the job was not started a second time');
  stall.release();
  await worker.stop();
});

t.test('a mail the server accepted is not sent again when its job runs again; another key is another mail', async (t) => {
  const mailbox = await startMailbox(t);
  const mailer = sendOnce(createMailer({ smtpUrl: `smtp://127.0.0.1:${mailbox.port}`, from: 'Boutique <no-reply@pos.test>', dataDir: '.data' }), pool);
  const mail: Mail = { to: 'awa@example.cm', subject: 'Reçu 12', text: 'Merci', html: '<p>Merci</p>', key: 'sale-receipt.test.1' };
  await mailer.send(mail);
  await mailer.send(mail);
  await Promise.all([mailer.send(mail), mailer.send(mail)]);
  const first = await mailbox.next('awa@example.cm');
  t.match(first.raw, /^Message-ID: <sale-receipt\.test\.1@pos\.test>$/im, 'the key is the Message-ID');
  await mailer.send({ ...mail, key: 'sale-receipt.test.2' });
  await mailbox.next('awa@example.cm');
  t.equal(mailbox.received.length, 2, 'one mail per key');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sent_messages where message_id like 'sale-receipt.test.%'`;
  t.equal(row!.n, 2);
});

t.test('a mail the server did not accept is not recorded, and goes out when its job runs again', async (t) => {
  let attempts = 0;
  const delivered: Mail[] = [];
  const flaky = sendOnce({ async send(mail) {
    if (++attempts === 1) throw new Error('421 try again later');
    delivered.push(mail);
  } }, pool);
  const mail: Mail = { to: 'awa@example.cm', subject: 'Alerte', text: 'x', html: '<p>x</p>', key: 'stock-alert.test.1' };
  await t.rejects(flaky.send(mail), /421/);
  await flaky.send(mail);
  await flaky.send(mail);
  t.equal(delivered.length, 1);
});

t.test('a mail the server accepted is recorded, and not sent again, when the connection holding its lock is lost meanwhile', async (t) => {
  // As the worker's pools do: a connection that dies while lent must not throw where nothing listens.
  const guarded = new pg.Pool({ connectionString: api.runtime.ownerUrl, max: 2 });
  guarded.on('connect', (client) => client.on('error', () => {}));
  t.teardown(() => guarded.end());
  const delivered: Mail[] = [];
  const cutting = sendOnce({ async send(mail) {
    // The once-per-message lock's connection dies while the mail server answers (an idle-in-transaction timeout, a pooler's).
    await api.ownerSql`
      select pg_terminate_backend(pid) from pg_locks
       where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`;
    delivered.push(mail);
  } }, guarded);
  const mail: Mail = { to: 'awa@example.cm', subject: 'Reçu 13', text: 'x', html: '<p>x</p>', key: 'sale-receipt.test.lost-lock' };
  await cutting.send(mail);
  await cutting.send(mail);
  t.equal(delivered.length, 1, 'sent once');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sent_messages where message_id = ${mail.key}`;
  t.equal(row!.n, 1, 'recorded');
});
