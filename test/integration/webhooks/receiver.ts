/**
 * A real HTTP receiver on loopback for webhook tests: records every request (path, headers,
 * body, time) and answers with whatever the test's responder says.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  status: number;
}

export type Responder = (req: IncomingMessage, body: string, res: ServerResponse) => number | undefined;

export interface Receiver {
  url(path: string): string;
  received: Received[];
  on(path: string, responder: Responder): void;
  byPath(path: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const responder = responders.get(path);
      const status = responder ? responder(req, body, res) : 200;
      received.push({ path, headers, body, at: Date.now(), status: status ?? 0 });
      if (!responder) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path, responder) => responders.set(path, responder),
    byPath: (path) => received.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Answers with a status (and optional headers/body) and returns it for the record. */
export function reply(status: number, body = '', headers: Record<string, string> = {}): Responder {
  return (_req, _body, res) => {
    res.writeHead(status, headers).end(body);
    return status;
  };
}
