/**
 * The Procfile's production commands (CONTRACT section 16): each role is the node process itself on
 * the compiled JavaScript, so a SIGTERM sent to it (a container's PID 1, a platform's stop) reaches the
 * process that serves: web answers /readyz 503 for SHUTDOWN_READY_DELAY_MS while it still serves, then
 * drains and exits, leaving nothing behind. Builds dist/ first when it is stale (ensureBuilt).
 */
import t from 'tap';
import { registerShop, waitFor } from '../support/fixtures.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { childrenOf, ensureBuilt, freePort, launchCommand, procfile } from '../support/processes.ts';
import { startService } from '../support/service.ts';

t.setTimeout(300_000);
ensureBuilt();
const api = await startService(t);
const roles = procfile();
const env = { DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, LOG_LEVEL: 'info', BCRYPT_ROUNDS: '4' };

t.test('each Procfile role is node on a compiled file: no npm, shell or TypeScript loader in between', async (t) => {
  t.same(Object.keys(roles).sort(), ['release', 'web', 'worker']);
  for (const [role, command] of Object.entries(roles)) {
    t.equal(command[0], 'node', `${role} starts node`);
    t.match(command[1], /^dist\/.+\.js$/, `${role} runs a compiled file`);
    t.notOk(command.some((word) => /npm|npx|tsx|^sh$|&&|;|\|/.test(word)), `${role}: ${command.join(' ')}`);
  }
});

t.test('release applies the migrations from the compiled files and exits 0', async (t) => {
  const release = launchCommand(t, roles.release!, env);
  t.equal(await release.exited, 0, release.output.stderr);
  t.match(release.output.stdout + release.output.stderr, /up to date|applied/i);
});

t.test('web on SIGTERM: /readyz 503 while every other request is still served, then it drains, exits 0 and leaves no process', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const web = launchCommand(t, roles.web!, { ...env, PORT: String(port), SHUTDOWN_READY_DELAY_MS: '1500' });
  await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 'the web process', 60_000);
  t.same(childrenOf(web.child.pid!), [], 'node has no child process (no esbuild service, no wrapper)');
  const owner = await registerShop(api);

  web.child.kill('SIGTERM');
  const readyz = await waitFor(async () => {
    const answer = await fetch(`${base}/readyz`);
    return answer.status === 503 ? answer : undefined;
  }, '/readyz 503 after SIGTERM', 1_400);
  t.same(await readyz.json(), { message: 'Shutting down.', code: 'not_ready' });
  const me = await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${owner.token}` } });
  t.equal(me.status, 200, 'a request during the delay is served');
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'still alive');

  t.equal(await web.exited, 0);
  t.match(web.output.stdout, '"msg":"stopped"');
  await waitFor(() => !web.groupAlive(), 'every process of the group gone', 5_000);
  t.equal(await fetch(`${base}/healthz`).then(() => 'answered', () => 'refused'), 'refused', 'nothing serves any more');
});

t.test('worker on SIGTERM: stops gracefully, exits 0 and leaves no process', async (t) => {
  const worker = launchCommand(t, roles.worker!, env);
  await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker process', 60_000);
  t.same(childrenOf(worker.child.pid!), [], 'node has no child process');
  worker.child.kill('SIGTERM');
  t.equal(await worker.exited, 0);
  t.match(worker.output.stdout, '"msg":"stopped"');
  await waitFor(() => !worker.groupAlive(), 'every process of the group gone', 5_000);
});
