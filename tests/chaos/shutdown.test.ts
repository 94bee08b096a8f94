/**
 * SIGTERM under load, as a platform sends it at every deploy: every request the server has taken is
 * answered, kept-alive connections are closed cleanly (Connection: close, never a reset), and the
 * process exits before the platform's grace period runs out.
 */
import t from 'tap';
import { TEST_APP_KEY } from '../support/env.ts';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { freePort, launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

t.test('SIGTERM under 32 kept-alive clients: no request the server took fails, and the process exits before the deadline', async (t) => {
  const deadlineMs = 25_000;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const web = launch(t, 'api/web.ts', { DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, PORT: String(port), LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: String(deadlineMs) });
  await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 'the web process', 60_000);
  const owner = await registerShop(api);

  let answered = 0;
  let refused = 0;
  let closing = 0;
  let reset = 0;
  const failures: string[] = [];
  let running = true;
  const clients = Array.from({ length: 32 }, async () => {
    while (running) {
      try {
        const response = await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${owner.token}` } });
        await response.arrayBuffer();
        if (response.status === 200) answered++;
        else failures.push(`status ${response.status}`);
        if (response.headers.get('connection') === 'close') closing++;
      } catch (error) {
        // A new connection refused: the server had stopped accepting, and never took this request.
        const code = (error as { cause?: { code?: string } }).cause?.code;
        if (code === 'ECONNREFUSED') {
          refused++;
          return;
        }
        // A kept-alive connection the server closed as idle while this request was on its way (the
        // race every HTTP/1.1 client must retry, RFC 9112 section 9.3.1): the server never read it,
        // which the count of the requests it answered checks below.
        if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') {
          reset++;
          continue;
        }
        failures.push(code ?? String(error));
      }
    }
  });
  await waitFor(() => answered >= 200, 'load on kept-alive connections');
  const signalled = performance.now();
  web.child.kill('SIGTERM');
  const code = await web.exited;
  const tookMs = performance.now() - signalled;
  running = false;
  await Promise.all(clients);

  t.equal(code, 0, 'exit code 0');
  t.match(web.output.stdout, '"msg":"stopped"', 'the graceful shutdown ran to its end');
  t.same(failures.slice(0, 10), [], 'no request failed: each was answered, or refused or reset before the server took it');
  // Every request the server answered (its request log) reached its client: none it took was lost.
  const taken = web.output.stdout.split('\n').filter((line) => line.includes('"msg":"request"') && line.includes('/api/v1/auth/me')).length;
  t.equal(taken, answered, `the server answered ${taken} requests, the clients received ${answered}`);
  t.ok(closing > 0, 'answers given while draining said Connection: close');
  t.ok(tookMs < deadlineMs, `exited before the ${deadlineMs} ms deadline (${tookMs.toFixed(0)} ms)`);
  t.comment(`shutdown: 32 clients, ${answered} answered, ${closing} with Connection: close, ${refused} refused at connect, ${reset} reset unread, ${failures.length} failed; exit after ${tookMs.toFixed(0)} ms`);
});
