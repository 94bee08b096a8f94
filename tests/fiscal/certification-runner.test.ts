import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createLogger } from '../../api/logger.ts';
import { startWorker } from '../../worker/worker.ts';
import { createProduct, waitFor } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { enableCertification, sellByCard, shopSellingAt } from './certification-fixtures.ts';

/**
 * An authority that takes connections and never answers (its server overloaded, a proxy holding the
 * line) holds each delivery for FISCAL_TIMEOUT_MS: with every shop of a country waiting on it, it must
 * fill only the authority runner's slots (FISCAL_CONCURRENCY), never the main runner's money jobs and
 * cron tasks (worker/worker.ts, AUTHORITY_TASKS); and a worker stopped meanwhile stops in time.
 */
t.test('an authority that never answers holds only the authority runner: a main job runs meanwhile', async (t) => {
  const held = new Set<Socket>();
  const silent = createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of held) socket.destroy();
    silent.close();
  });
  const api = await startService(t, {
    FISCAL_PROVIDER: 'fne',
    FNE_BASE_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/ws`,
    FISCAL_TIMEOUT_MS: '60000',
    FISCAL_CONCURRENCY: '2',
    WORKER_CONCURRENCY: '2',
  });
  const worker = await startWorker(api.runtime, createLogger('silent'));
  t.teardown(() => worker.stop(3_000));

  // Four shops: twice as many deliveries waiting on the authority as the authority runner has slots.
  for (let i = 0; i < 4; i++) {
    const owner = await shopSellingAt(api, 18);
    const product = await createProduct(api, owner.token, { price_xaf: 1180, vat_rate: 18 }, 100);
    await enableCertification(api, owner.token, { taxpayer_no: `960612${i}E`, api_token: `fne-key-${i}`, point_of_sale: '1' });
    t.equal((await sellByCard(api, owner.token, [{ product_id: product.id, quantity: 1 }])).status, 201, `shop ${i + 1} sells at once`);
  }
  await waitFor(() => held.size >= 2, 'the authority holding two deliveries', 20_000);

  const [job] = await api.ownerSql<{ id: string }[]>`select (graphile_worker.add_job('auth__prune_expired', '{}'::json)).id::text as id`;
  const started = performance.now();
  await waitFor(async () => (await api.ownerSql`select 1 from graphile_worker.jobs where id = ${job!.id}`).length === 0, 'the main job done', 20_000);
  const tookMs = performance.now() - started;
  t.ok(tookMs < 10_000, `a main job ran while the authority held its runner (${(tookMs / 1000).toFixed(1)} s)`);
  t.equal(held.size, 2, 'the authority holds no more deliveries than the authority runner\'s slots');

  // SIGTERM meanwhile: the calls still waiting are cut at the deadline, their jobs end before the pools do.
  const stopping = performance.now();
  await worker.stop(3_000);
  const stopMs = performance.now() - stopping;
  t.ok(stopMs < 4_000, `the worker stopped within its deadline though the authority never answered (${Math.round(stopMs)} ms)`);
  const [open] = await api.ownerSql<{ pending: number; other: number }[]>`
    select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status <> 'pending')::int as other from fiscal_certifications`;
  t.same(open, { pending: 4, other: 0 }, 'every record is still pending: a shutdown rejects nothing');
});
