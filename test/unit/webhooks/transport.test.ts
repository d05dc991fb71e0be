import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookConnector } from '../../../shared/webhooks/pipeline/ssrf';
import { parseRetryAfter, postWebhook } from '../../../shared/webhooks/pipeline/transport';

const agent = new Agent({ connect: webhookConnector({ allowPrivate: true, connectTimeoutMs: 1000 }) });

describe('one webhook attempt', () => {
  let server: Server;
  let base: string;
  let hugeBytesSent = 0;
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'),
    '/text': (res) => res.writeHead(202).end('thanks'),
    '/hang': () => undefined,
    '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
    '/busy': (res) => res.writeHead(429, { 'retry-after': '7' }).end(),
    '/gone': (res) => res.writeHead(410).end(),
    '/huge': (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (hugeBytesSent < 512 * 1024 * 1024) {
          hugeBytesSent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const post = (path: string, timeoutMs = 2000) =>
    postWebhook(
      `${base}${path}`,
      '{"text":"x"}',
      { 'webhook-id': 'msg_1' },
      { dispatcher: agent, timeoutMs },
    );

  it('keeps every answer as text, marking a JSON content type', async () => {
    expect(await post('/ok')).toMatchObject({
      statusCode: 200,
      delivered: true,
      response: { body: '{"received":true}', json: true },
    });
    const text = await post('/text');
    expect(text).toMatchObject({ statusCode: 202, delivered: true, response: { body: 'thanks' } });
    expect(text.response.json).toBeUndefined();
  });

  it('turns a receiver that does not answer in time into 500 ESOCKETTIMEDOUT', async () => {
    const started = Date.now();
    const outcome = await post('/hang', 300);
    expect(outcome).toMatchObject({
      statusCode: 500,
      delivered: false,
      response: { body: { code: 'ESOCKETTIMEDOUT', connect: false } },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    expect(await post('/redirect')).toMatchObject({ statusCode: 302, delivered: false });
  });

  it('caps the stored body and stops reading the rest', async () => {
    const outcome = await post('/huge', 5000);
    expect(outcome.statusCode).toBe(200);
    expect(outcome.response).toMatchObject({ truncated: true });
    expect(outcome.response.json).toBeUndefined();
    expect(String(outcome.response.body)).toHaveLength(16 * 1024);
    await new Promise((r) => setTimeout(r, 100));
    expect(hugeBytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('reads Retry-After on 429 and reports 410', async () => {
    expect(await post('/busy')).toMatchObject({ statusCode: 429, retryAfterSeconds: 7, delivered: false });
    expect(await post('/gone')).toMatchObject({ statusCode: 410, delivered: false });
  });

  it('gives connection failures their own code', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const outcome = await postWebhook(
      `http://127.0.0.1:${port}/`,
      '{}',
      {},
      { dispatcher: agent, timeoutMs: 2000 },
    );
    expect(outcome).toMatchObject({
      statusCode: 500,
      response: { body: { code: 'ECONNREFUSED', connect: true } },
    });
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
