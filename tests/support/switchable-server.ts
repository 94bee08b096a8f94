import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/** A fake authority's HTTP server, which an outage test can take down and bring back. */
export interface SwitchableServer {
  url: string;
  /** Down: the port refuses connections (the answers held are dropped); up again on the same port. */
  setDown(down: boolean): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Listens on a free port of 127.0.0.1 and gives each request, its body read whole, to `handle`.
 * `hung`: the answers the fake holds unanswered (its hang faults), destroyed when it goes down or stops.
 * Stopped when the test ends.
 */
export async function startSwitchableServer(
  t: Test,
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  hung: ServerResponse[],
): Promise<SwitchableServer> {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let listening = true;

  const stop = async () => {
    hung.splice(0).forEach((res) => res.destroy());
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  t.teardown(stop);

  return {
    url: `http://127.0.0.1:${port}`,
    stop,
    async setDown(down) {
      if (down) {
        await stop();
        // The clients' kept-alive sockets were closed: a moment for them to see it, so that their next call is refused, not cut.
        return new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      listening = true;
    },
  };
}
