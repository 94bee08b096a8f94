import type { Server as HttpNodeServer, IncomingMessage, ServerResponse } from 'node:http';
import { Server, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './env.ts';
import type { OpenAPIHono } from '@hono/zod-openapi';

export const nodeClientAddress = (c: Context<AppEnv>) => getConnInfo(c).remote.address;

/**
 * Node's HTTP timeouts. Kept-alive connections outlive the usual load-balancer and client idle
 * timeouts (60 s; Node's fetch keeps one 4 s, or what the server's Keep-Alive header says less one),
 * so the server never closes a connection its peer still counts on, and headersTimeout stays above
 * keepAliveTimeout (a request that reuses a connection at the last moment is not cut). A whole request
 * must arrive within HTTP_REQUEST_TIMEOUT_MS (Node answers 408 and closes otherwise).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HEADERS_TIMEOUT_MS = 66_000;

export interface ServeOptions {
  hostname?: string;
  /** Longest time for a whole request (headers and body) to arrive. */
  requestTimeoutMs?: number;
  /** How long a graceful close waits for connections to finish before cutting them. */
  shutdownTimeoutMs?: number;
}

/** During a drain, a kept-alive connection left idle this long is closed (its client has moved on). */
const DRAIN_IDLE_GRACE_MS = 1_000;

export interface HttpServer {
  port: number;
  /**
   * Stops accepting and drains: every answer from now on says `Connection: close` (those in flight
   * and those to requests that arrive on kept-alive connections), so each connection closes after
   * its answer, cleanly on both sides; a connection idle for DRAIN_IDLE_GRACE_MS is closed, and any
   * left when `graceMs` has passed is cut. Resolves when none remain.
   */
  close(graceMs?: number): Promise<void>;
}

export function serveNode(app: OpenAPIHono<AppEnv>, port: number, options: ServeOptions = {}): Promise<HttpServer> {
  const { hostname, requestTimeoutMs = 120_000, shutdownTimeoutMs = 25_000 } = options;
  return new Promise((resolve, reject) => {
    // Each connection: the requests it is answering, and since when it has been idle.
    const connections = new Map<Socket, { answering: Set<ServerResponse>; idleSince: number }>();
    let draining = false;
    const onError = (error: Error) => reject(error);
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      server.off('error', onError);
      resolve({
        port: info.port,
        close: (graceMs = shutdownTimeoutMs) =>
          new Promise<void>((done) => {
            draining = true;
            for (const { answering } of connections.values()) {
              for (const response of answering) if (!response.headersSent) response.shouldKeepAlive = false;
            }
            // Idle connections are not closed at once (http.Server#close would): a request a client
            // is writing on one at that moment would be reset. Given a moment, such a request is
            // answered, with Connection: close.
            const sweep = setInterval(() => {
              for (const [socket, state] of connections) {
                if (state.answering.size === 0 && Date.now() - state.idleSince >= DRAIN_IDLE_GRACE_MS) socket.destroy();
              }
            }, 100);
            const cut = setTimeout(() => server.closeAllConnections(), graceMs);
            Server.prototype.close.call(server, () => {
              clearInterval(sweep);
              clearTimeout(cut);
              done();
            });
          }),
      });
    }) as HttpNodeServer;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = requestTimeoutMs;
    server.on('connection', (socket: Socket) => {
      connections.set(socket, { answering: new Set(), idleSince: Date.now() });
      socket.on('close', () => connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (draining) response.shouldKeepAlive = false;
      const state = connections.get(request.socket);
      if (!state) return;
      state.answering.add(response);
      response.on('close', () => {
        state.answering.delete(response);
        state.idleSince = Date.now();
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

/**
 * The last line of defence: an exception no caller could catch (thrown from a timer or a socket
 * callback, such as a database driver's write after its connection died) or a promise nobody awaited
 * is logged with its stack, and the process keeps serving. Every request is its own transaction, so
 * what such a fault interrupted is rolled back by PostgreSQL; stopping the process instead would
 * drop every request in flight (and, under `npm start`, the worker and the database with it).
 */
export function guardProcess(log: Logger): void {
  process.on('uncaughtException', (error, origin) => log.error({ err: error, origin }, 'uncaught exception: still serving'));
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection: still serving'));
}

/** A start-up failure is one line on stderr and exit code 1. */
export function exitOnStartupError(error: unknown): never {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
