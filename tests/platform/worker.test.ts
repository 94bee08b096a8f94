import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCrontab } from 'graphile-worker';
import t, { type Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import { CRONTAB, startWorker } from '../../worker/worker.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);


async function runWorker(t: Test, dataDir: string) {
  const runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: undefined, DATA_DIR: dataDir } };
  const worker = await startWorker(runtime, createLogger('silent'));
  t.teardown(() => worker.stop());
  return worker;
}

t.test('the crontab parses and pins the id of each item', async (t) => {
  const items = parseCrontab(CRONTAB);
  t.ok(items.length >= 1);
  for (const item of items) t.ok(item.identifier, `${item.task} has a pinned id`);
  t.ok(items.some((item) => item.task === 'auth__prune_expired'));
});

t.test('without SMTP_URL, e-mails are written as .eml files to the outbox', async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pos-outbox-'));
  const shop = await registerShop(api, { locale: 'en' });
  await runWorker(t, dataDir);
  const reply = await api.request('POST', '/auth/forgot-password', { body: { email: shop.email } });
  t.equal(reply.status, 200);
  const outbox = path.join(dataDir, 'outbox');
  const files = await waitFor(async () => {
    const names = await readdir(outbox).catch(() => []);
    return names.length ? names : undefined;
  }, 'the outbox file');
  t.equal(files.length, 1);
  t.match(files[0], /\.eml$/);
  const message = await readFile(path.join(outbox, files[0]!), 'utf8');
  t.match(message, `To: ${shop.email}`);
  t.match(message, 'Subject: Reset your password');
});

t.test('the hourly prune drops long-expired rate limits, reset tokens and sessions, and keeps live ones', async (t) => {
  const shop = await registerShop(api);
  await api.ownerSql`insert into rate_limits (bucket, window_started_at, hits) values ('old', now() - interval '2 days', 3), ('live', now(), 1)`;
  await api.ownerSql`
    insert into password_resets (user_id, token_hash, expires_at)
    values (${shop.user.id}, 'old-hash', now() - interval '2 days'), (${shop.user.id}, 'live-hash', now() + interval '1 hour')`;
  await api.ownerSql`
    insert into sessions (user_id, shop_id, expires_at)
    values (${shop.user.id}, ${shop.shop.id}, now() - interval '8 days')`;
  await api.ownerSql`select graphile_worker.add_job('auth__prune_expired', '{}'::json)`;
  await runWorker(t, await mkdtemp(path.join(tmpdir(), 'pos-prune-')));
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'auth__prune_expired'`;
    return row!.n === 0;
  }, 'the prune job');
  const buckets = await api.ownerSql<{ bucket: string }[]>`select bucket from rate_limits where bucket in ('old', 'live') order by bucket`;
  t.same(buckets.map((row) => row.bucket), ['live']);
  const resets = await api.ownerSql<{ token_hash: string }[]>`select token_hash from password_resets where token_hash in ('old-hash', 'live-hash')`;
  t.same(resets.map((row) => row.token_hash), ['live-hash']);
  const sessions = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sessions where user_id = ${shop.user.id}`;
  t.equal(sessions[0]!.n, 1, 'the live session from register remains');
  t.equal((await api.request('GET', '/auth/me', { token: shop.token })).status, 200);
});

t.test('the daily prune drops shared links a day past their expiry and keeps the others', async (t) => {
  const shop = await registerShop(api);
  const [sale] = await api.ownerSql<{ id: string }[]>`select gen_random_uuid() as id`;
  await api.ownerSql`
    insert into shared_links (token, shop_id, sale_id, expires_at)
    values ('prune0dead01', ${shop.shop.id}, ${sale!.id}, now() - interval '2 days'),
           ('prune0grace1', ${shop.shop.id}, ${sale!.id}, now() - interval '1 hour'),
           ('prune0alive1', ${shop.shop.id}, ${sale!.id}, now() + interval '1 day')`;
  await api.ownerSql`select graphile_worker.add_job('documents__prune_links', '{}'::json)`;
  await runWorker(t, await mkdtemp(path.join(tmpdir(), 'pos-prune-links-')));
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'documents__prune_links'`;
    return row!.n === 0;
  }, 'the prune job');
  const left = await api.ownerSql<{ token: string }[]>`select token from shared_links where token like 'prune0%' order by token`;
  t.same(left.map((row) => row.token), ['prune0alive1', 'prune0grace1']);
});
