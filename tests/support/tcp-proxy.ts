import { createServer, connect, type Socket } from 'node:net';
import type { Test } from 'tap';

export interface TcpProxy {
  port: number;
  /** Stops forwarding in both directions and leaves new connections unanswered: a server that hangs. */
  freeze(): void;
  /** Forwards again what was held and what comes. */
  thaw(): void;
}

/**
 * A TCP proxy to `target` on 127.0.0.1 (a PostgreSQL server), closed when the test ends. Frozen, it
 * keeps every connection open and forwards nothing: what a client sees of a server that hangs, or of
 * a peer gone without a reset, with no error to react to.
 */
export async function startTcpProxy(t: Test, target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    if (frozen) {
      client.pause();
      upstream.pause();
    } else {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => {
      frozen = true;
      for (const [client, upstream] of pairs) {
        // Unpiped, so that a socket that drains does not resume its source.
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        upstream.resume();
      }
    },
  };
}
