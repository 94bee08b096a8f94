import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import type { Test } from 'tap';

export interface Launched {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  /** The exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
}

/** Runs a TypeScript entry point (`api/web.ts`) as its own process and collects what it prints; killed when the test ends. */
export function launch(t: Test, entry: string, env: Record<string, string | undefined>, args: string[] = []): Launched {
  const child = spawn(process.execPath, ['--import=tsx', entry, ...args], { env: { ...process.env, ...env } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, output, exited };
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
