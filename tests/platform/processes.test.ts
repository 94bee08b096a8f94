import t from 'tap';
import { PASSWORD, waitFor } from '../support/fixtures.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { freePort, launch as launchProcess } from '../support/processes.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const env = { DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, LOG_LEVEL: 'info', BCRYPT_ROUNDS: '4' };

const launch = (entry: string, args: string[] = [], extraEnv: Record<string, string> = {}) => launchProcess(t, entry, { ...env, ...extraEnv }, args);

t.test('admin:create makes a platform administrator who can log in', async (t) => {
  const email = `admin.${Date.now()}@example.cm`;
  const run = launch('api/cli/admin-create.ts', ['--email', email, '--password', PASSWORD, '--name', 'Platform Admin']);
  t.equal(await run.exited, 0, run.output.stderr);
  t.match(run.output.stdout, `Administrator ${email} created.`);
  const login = await api.request('POST', '/auth/login', { body: { email, password: PASSWORD } });
  t.equal(login.status, 200);
  t.equal(login.body.data.user.kind, 'admin');
  t.equal(login.body.data.user.name, 'Platform Admin');
  t.equal(login.body.data.shop, null);
});

t.test('admin:create refuses a taken e-mail and a short password with one line', async (t) => {
  const email = `admin.twice.${Date.now()}@example.cm`;
  t.equal(await launch('api/cli/admin-create.ts', ['--email', email, '--password', PASSWORD]).exited, 0);
  const again = launch('api/cli/admin-create.ts', ['--email', email, '--password', PASSWORD]);
  t.equal(await again.exited, 1);
  t.match(again.output.stderr.trim(), /^Start-up failed: an account with the e-mail \S+ already exists$/);
  const short = launch('api/cli/admin-create.ts', ['--email', `x.${email}`, '--password', 'short']);
  t.equal(await short.exited, 1);
  t.match(short.output.stderr, '--password must be at least 8 characters');
});

t.test('the web role serves the API and stops gracefully on SIGTERM', async (t) => {
  const port = await freePort();
  const web = launch('api/web.ts', [], { PORT: String(port) });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200, 'the web role');
  web.child.kill('SIGTERM');
  t.equal(await web.exited, 0);
  t.match(web.output.stdout, '"msg":"stopped"');
});

t.test('the worker role runs jobs and stops gracefully on SIGTERM', async (t) => {
  const worker = launch('worker/main.ts');
  await waitFor(() => worker.output.stdout.includes('worker running'), 'the worker role');
  worker.child.kill('SIGTERM');
  t.equal(await worker.exited, 0);
  t.match(worker.output.stdout, '"msg":"stopped"');
});
