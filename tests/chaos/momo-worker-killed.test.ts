/**
 * A worker killed while MTN MoMo holds its request to pay (the charge committed, the request sent, its
 * answer never written down): another worker sends the request again with the same reference, MTN
 * answers that it has it (409), and the charge is settled once. The payer's money is never taken
 * without the subscription it paid for.
 */
import t from 'tap';
import { TEST_APP_KEY } from '../support/env.ts';
import { startFakeMomo } from '../support/fake-momo.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const DAY = 86_400_000;

t.test('a worker killed between the charge\'s commit and MTN\'s answer: the next worker sends it again and the charge is paid once', async (t) => {
  const fake = await startFakeMomo(t);
  const momo = { MOBILE_MONEY_PROVIDER: 'mtn_momo', ...fake.env };
  const api = await startService(t, momo);
  const owner = await registerShop(api);
  const workerEnv = { DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, LOG_LEVEL: 'info', ...momo, MOMO_TIMEOUT_MS: '60000' };

  const first = launch(t, 'worker/main.ts', workerEnv);
  await waitFor(() => first.output.stdout.includes('worker running'), 'the first worker', 60_000);
  fake.failNext('request', 'keep-and-hang');
  const reply = await api.request('POST', '/billing/subscribe', {
    token: owner.token,
    body: { plan_id: '6b1c1a70-0000-4000-8000-000000000030', method: 'carrier1_momo', phone: '670000000' },
  });
  t.equal(reply.status, 202);
  const { reference } = reply.body.data;
  await waitFor(() => fake.requests.has(reference), 'MTN to hold the request', 30_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = performance.now();
  const [left] = await api.ownerSql<{ status: string; requested_at: Date | null }[]>`select status, requested_at from subscription_charges where reference = ${reference}`;
  t.match(left, { status: 'pending', requested_at: null }, 'killed before it could write MTN\'s answer down');

  const before = Date.now();
  const second = launch(t, 'worker/main.ts', { ...workerEnv, MOMO_TIMEOUT_MS: '2000' });
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ status: string }[]>`select status from subscription_charges where reference = ${reference}`;
    return row!.status === 'succeeded';
  }, 'the charge to be settled by the next worker', 90_000);
  const settledMs = performance.now() - killedAt;
  t.equal(fake.calls('request'), 2, 'sent again with the same reference');
  t.equal(fake.requests.size, 1, 'one request at MTN: one debit');
  const [shop] = await api.ownerSql<{ ends: Date }[]>`select subscription_ends_at as ends from shops where id = ${owner.shop.id}`;
  t.ok(Math.abs(shop!.ends.getTime() - (before + 30 * DAY)) < 180_000, 'the subscription extended by one period');

  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'the second worker stops gracefully');
  t.comment(`worker killed while MTN held its request: charge ${reference} settled ${(settledMs / 1000).toFixed(1)} s after the kill`);
});
