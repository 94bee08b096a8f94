import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { type AddressInfo, Server, type Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './env.ts';
import { type AppError, errorBody, errors } from './errors.ts';
import type { OpenAPIHono } from '@hono/zod-openapi';

export const nodeClientAddress = (c: Context<AppEnv>) => getConnInfo(c).remote.address;

/**
 * Node's HTTP timeouts. Kept-alive connections outlive the usual load-balancer and client idle
 * timeouts (60 s; Node's fetch keeps one 4 s, or what the server's Keep-Alive header says less one),
 * so the server never closes a connection its peer still counts on, and headersTimeout stays above
 * keepAliveTimeout (a request that reuses a connection at the last moment is not cut). A whole request
 * must arrive within HTTP_REQUEST_TIMEOUT_MS (else 408 `request_timeout`, and the connection closes).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HEADERS_TIMEOUT_MS = 66_000;

/**
 * The most a request line and its headers may take before Node stops reading them (its own default is
 * 16 KiB). Up to HEADER_SECTION_LIMIT (16 KiB) the app serves the request; from there to this size it
 * answers 431 itself (api/middleware/header-size.ts), with every header its answers carry; past this
 * size Node cannot hand the request over, and `answerClientError` answers the same 431.
 */
export const MAX_HEADER_SIZE = 64 * 1024;

/** After answering a request Node could not read, the connection is closed once the peer has read the answer, or after this long. */
const CLIENT_ERROR_LINGER_MS = 5_000;

/**
 * An answer the server gives by itself, to a request the app never saw: in the CONTRACT's shape, with
 * the headers every answer carries (`X-Request-Id`, CORS), in English (no header was read that could
 * ask for French).
 */
function serverAnswer(error: AppError): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: error.status,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Content-Language': 'en',
      'Content-Type': 'application/json',
      'X-Request-Id': randomUUID(),
    },
    body: JSON.stringify(errorBody(error, 'en')),
  };
}

/**
 * What Node answers by itself with an empty body (llhttp's error codes, HPE_*, and its request timeout),
 * as the CONTRACT's errors: a header section past MAX_HEADER_SIZE is a 431, chunk extensions past
 * Node's limit a 413, a request not whole within HTTP_REQUEST_TIMEOUT_MS a 408, anything else it cannot
 * read as HTTP (a request line, a header, chunked framing) a 400 `bad_request`.
 */
function clientErrorAnswer(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.payloadTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      return errors.badRequest();
  }
}

/**
 * Node's 'clientError': the answer is written to the socket as a whole HTTP/1.1 message, then the
 * connection closes (what follows on it cannot be read). Nothing is written when there is no one to
 * read it (ECONNRESET, a socket no longer writable) or when an answer to the request has started: the
 * socket is destroyed, as Node itself does. The socket is ended rather than destroyed, so that the
 * client reads the answer before the close, and cut after CLIENT_ERROR_LINGER_MS if it keeps it open.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket, answerStarted: boolean, answered: WeakSet<Socket>): void {
  // A second parse error on a connection already answered: it is closing.
  if (answered.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable || answerStarted) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const { status, headers, body } = serverAnswer(clientErrorAnswer(error.code));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Date: ${new Date().toUTCString()}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

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
    const listener = getRequestListener(app.fetch, {
      hostname,
      // A request Node read but @hono/node-server cannot turn into a URL (a backslash in its path, a bad
      // Host, a target that is not a path): a 400 in the CONTRACT's shape, not the adapter's empty one.
      errorHandler: (error) => {
        const { status, headers, body } = serverAnswer(error instanceof RequestError ? errors.badRequest() : errors.serverError());
        return new Response(body, { status, headers });
      },
    });
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_SIZE,
        // How often Node looks for requests past their timeout: a quarter of it (its default, 30 s, for the usual 120 s).
        connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
      },
      listener,
    );
    server.listen(port, hostname, () => {
      server.off('error', onError);
      resolve({
        port: (server.address() as AddressInfo).port,
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
    });
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Node takes the smaller of the two as the headers' timeout and the larger as the whole request's.
    server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs);
    server.requestTimeout = requestTimeoutMs;
    server.on('connection', (socket: Socket) => {
      connections.set(socket, { answering: new Set(), idleSince: Date.now() });
      socket.on('close', () => connections.delete(socket));
    });
    const answered = new WeakSet<Socket>();
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      const answering = connections.get(socket)?.answering ?? new Set<ServerResponse>();
      answerClientError(error, socket, [...answering].some((response) => response.headersSent), answered);
    });
    // An `Expect` other than 100-continue: Node would answer 417 with an empty body; the request is served as if it had none.
    server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response));
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
