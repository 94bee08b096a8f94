import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './env.ts';
import type { OpenAPIHono } from '@hono/zod-openapi';

export const nodeClientAddress = (c: Context<AppEnv>) => getConnInfo(c).remote.address;

export interface HttpServer {
  port: number;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

export function serveNode(app: OpenAPIHono<AppEnv>, port: number, hostname?: string): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const onError = (error: Error) => reject(error);
    server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      server.off('error', onError);
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }),
      });
    });
    server.once('error', onError);
  });
}

/**
 * Graceful shutdown on SIGTERM and SIGINT: each step in order (stop accepting and drain, stop the
 * worker, close the pools, stop the embedded database), once, then exit.
 */
export function onShutdown(log: Logger, steps: [string, () => Promise<void>][]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (error) {
        log.error({ err: error, step: name }, 'shutdown step failed');
      }
    }
    log.info('stopped');
    process.exit(0);
  };
  // `on`, not `once`: platforms signal the whole process group, so the signal can arrive twice
  // (directly and relayed by npm or tsx); a second one must not fall through to the default and kill.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** A start-up failure is one line on stderr and exit code 1. */
export function exitOnStartupError(error: unknown): never {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
