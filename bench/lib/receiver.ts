/**
 * A loopback webhook receiver: answers 200 at once, except for paths listed in `hang`, which
 * are never answered (the connection stays open until the sender gives up), and in `fail`, which
 * answer 500.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Requests received so far, per path. */
  received: Map<string, number>;
  /** Arrival times (epoch ms) of the requests, per path. */
  times: Map<string, number[]>;
  /** Paths that never answer. */
  hang: Set<string>;
  /** Paths that answer 500. */
  fail: Set<string>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, number>();
  const times = new Map<string, number[]>();
  const hang = new Set<string>();
  const fail = new Set<string>();
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    req.resume();
    req.on('end', () => {
      received.set(path, (received.get(path) ?? 0) + 1);
      times.set(path, [...(times.get(path) ?? []), Date.now()]);
      if (hang.has(path)) {
        held.push(res);
        return;
      }
      if (fail.has(path)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"ok":false}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    times,
    hang,
    fail,
    async close() {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
