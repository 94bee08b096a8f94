import { spawn } from 'node:child_process';
import t from 'tap';
import { PASSWORD, waitFor } from '../support/fixtures.ts';
import { TEST_APP_KEY } from '../support/env.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const env = { ...process.env, DATABASE_URL: api.runtime.ownerUrl, APP_KEY: TEST_APP_KEY, LOG_LEVEL: 'info', BCRYPT_ROUNDS: '4' };

/** Runs a TypeScript entry point as its own process and collects what it prints. */
function launch(entry: string, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import=tsx', entry, ...args], { env: { ...env, ...extraEnv } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}


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
  const port = 20000 + Math.floor(Math.random() * 20000);
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
