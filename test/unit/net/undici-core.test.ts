import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, buildConnector, request } from '../../../shared/net/undici-core';

// shared/net/undici-core.ts loads three undici modules by path (not its public API). These tests
// fail when an undici upgrade moves or changes them.
describe('undici loaded by module', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; url?: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body });
        res
          .writeHead(201, { 'content-type': 'text/plain', 'x-echo': req.headers['x-echo'] ?? '' })
          .end('made');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('are the very classes and functions the package exports', () => {
    expect(Agent).toBe(undici.Agent);
    expect(buildConnector).toBe(undici.buildConnector);
  });

  it('send a request with its path, query, method, headers and body through a given dispatcher', async () => {
    const agent = new Agent({ connect: buildConnector({ timeout: 1000 }) });
    try {
      const res = await request(`${base}/hooks/a?b=c`, {
        method: 'POST',
        body: '{"n":1}',
        headers: { 'x-echo': 'yes' },
        dispatcher: agent,
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers['x-echo']).toBe('yes');
      expect(await res.body.text()).toBe('made');
      expect(seen.at(-1)).toEqual({ method: 'POST', url: '/hooks/a?b=c', body: '{"n":1}' });
    } finally {
      await agent.close();
    }
  });

  it('reject with the abort reason when the signal aborts', async () => {
    const agent = new Agent();
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    try {
      await expect(
        request(`${base}/x`, { method: 'POST', body: '', signal: controller.signal, dispatcher: agent }),
      ).rejects.toBe(reason);
    } finally {
      await agent.close();
    }
  });
});
