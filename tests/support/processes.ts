import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Test } from 'tap';

export interface Launched {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  /** The exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
}

/** What a process launched by a test prints, and its end. */
function collected(child: ChildProcessWithoutNullStreams): Launched {
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Runs a TypeScript entry point (`api/web.ts`) as its own process and collects what it prints; killed when the test ends. */
export function launch(t: Test, entry: string, env: Record<string, string | undefined>, args: string[] = []): Launched {
  const launched = collected(spawn(process.execPath, ['--import=tsx', entry, ...args], { env: { ...process.env, ...env } }));
  t.teardown(() => {
    if (launched.child.exitCode === null && launched.child.signalCode === null) launched.child.kill('SIGKILL');
  });
  return launched;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Newest modification time of the sources `npm run build` compiles or copies (api/, worker/, db/, the build's settings). */
function newestSource(): number {
  const files = ['api', 'worker', 'db'].flatMap((dir) => readdirSync(dir, { recursive: true }).map((file) => path.join(dir, String(file))));
  return Math.max(...[...files, 'tsconfig.json', 'tsconfig.build.json', 'package.json'].filter((file) => statSync(file).isFile()).map((file) => statSync(file).mtimeMs));
}

/** `npm run build` when dist/ is missing or older than a source, so the Procfile's commands run this code. */
export function ensureBuilt(): void {
  const built = 'dist/api/web.js';
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource()) return;
  const build = spawnSync('npm', ['run', 'build'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
}

/** The Procfile's roles: each role's command as the words of its line (`web: node dist/api/web.js`). */
export function procfile(): Record<string, string[]> {
  return Object.fromEntries(
    readFileSync('Procfile', 'utf8')
      .split('\n')
      .filter((line) => /^\w+:/.test(line))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim().split(/\s+/)]),
  );
}

/**
 * Runs a command as given (no shell in between) in a process group of its own, and collects what it
 * prints; the group is killed when the test ends. `groupAlive()` tells whether any process of it lives.
 */
export function launchCommand(t: Test, command: string[], env: Record<string, string | undefined>): Launched & { groupAlive(): boolean } {
  const launched = collected(spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, detached: true }) as ChildProcessWithoutNullStreams);
  const pid = launched.child.pid!;
  const groupAlive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  t.teardown(() => {
    if (groupAlive()) process.kill(-pid, 'SIGKILL');
  });
  return { ...launched, groupAlive };
}

/** The processes whose parent is `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
