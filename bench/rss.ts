/**
 * `npm run bench:rss`: the resident memory of an idle web and an idle worker, whole process trees, as
 * production runs them (the Procfile's commands: node itself on the JavaScript `npm run build` wrote)
 * and as the laptop commands run them (`npm run start:web` / `start:worker`: npm -> sh -> tsx -> node,
 * and tsx's esbuild service). Each is measured a few seconds after it is ready, and for web again after
 * 200 requests. Target (issue 28): the whole tree of an idle web process under 150 MB.
 *
 * Builds dist/ first when it is missing. Linux only (reads /proc).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { BENCH_APP_KEY, BenchRun, PASSWORD, say } from './support.ts';

/** Each process of this machine and its parent, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended meanwhile.
    }
  }
  return map;
}

/** The process and its descendants, each with its command and resident memory in MB. */
function tree(root: number): { pid: number; command: string; rssMb: number }[] {
  const byParent = parents();
  const pids = [root];
  for (let i = 0; i < pids.length; i++) for (const [pid, parent] of byParent) if (parent === pids[i]) pids.push(pid);
  return pids.flatMap((pid) => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 70);
      return [{ pid, command, rssMb: kb / 1024 }];
    } catch {
      return [];
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function report(label: string, root: number): number {
  const processes = tree(root);
  const total = processes.reduce((sum, p) => sum + p.rssMb, 0);
  say(`  ${label.padEnd(34)} ${total.toFixed(0).padStart(4)} MB  (${processes.map((p) => `${p.command.split(' ').slice(0, 3).join(' ')}: ${p.rssMb.toFixed(0)}`).join('; ')})`);
  return total;
}

async function measure(run: BenchRun, label: string, command: string[], role: 'web' | 'worker', port: number): Promise<void> {
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, DATABASE_URL: run.ownerUrl, APP_KEY: BENCH_APP_KEY, PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'production', SHUTDOWN_READY_DELAY_MS: '0' },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null) throw new Error(`${label} ended before it was ready: ${output}`);
      const ready = role === 'web' ? (await fetch(`${base}/readyz`).catch(() => null))?.status === 200 : output.includes('"msg":"worker running"');
      if (ready) break;
      if (tries > 600) throw new Error(`${label} not ready within 60 s: ${output}`);
      await sleep(100);
    }
    await sleep(3_000);
    report(`${label}, idle`, child.pid!);
    if (role === 'web') {
      const email = `rss.${Date.now()}@example.cm`;
      const registered = await fetch(`${base}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ shop_name: 'RSS', owner_name: 'RSS', owner_email: email, password: PASSWORD }),
      });
      const token = ((await registered.json()) as { data: { token: string } }).data.token;
      for (let i = 0; i < 199; i++) await (await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
      await sleep(3_000);
      report(`${label}, idle after 200 requests`, child.pid!);
    }
  } finally {
    // The whole group: the npm variant leaves node serving when only npm gets the signal.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Gone already.
    }
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    await sleep(500);
  }
}

const run = new BenchRun('rss');
try {
  if (!existsSync('dist/api/web.js')) {
    say('building dist/ (npm run build)');
    if (spawnSync('npm', ['run', 'build'], { stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  }
  await run.createAndMigrate();
  const port = 3900 + Math.floor(Math.random() * 90);
  const procfile = Object.fromEntries(
    readFileSync('Procfile', 'utf8')
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim().split(/\s+/)]),
  );
  say(`resident memory (RSS) of whole process trees, Node ${process.version}`);
  await measure(run, `web: ${procfile.web!.join(' ')}`, procfile.web!, 'web', port);
  await measure(run, 'web: npm run start:web', ['npm', 'run', 'start:web'], 'web', port);
  await measure(run, `worker: ${procfile.worker!.join(' ')}`, procfile.worker!, 'worker', port);
  await measure(run, 'worker: npm run start:worker', ['npm', 'run', 'start:worker'], 'worker', port);
} finally {
  await run.cleanup();
}
