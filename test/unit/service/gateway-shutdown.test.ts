/**
 * Graceful shutdown of the local gateway: a request already being received when the cloud is
 * stopped still gets its answer; new connections are refused. (The gateway answers a guarded
 * route without an Authorization header itself, so no handler or emulator is needed here.)
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { LocalGateway } from '../../../infra/local/gateway';

function startRequest(base: string) {
  const url = new URL('/webhooks', base);
  const req = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '14' },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { req, answered };
}

describe('local gateway shutdown', () => {
  it('answers a request in flight before closing, and refuses new connections', async () => {
    const gateway = new LocalGateway({ prefix: 'test', authorizerCacheSeconds: 0 });
    const base = await gateway.listen(0);
    const { req, answered } = startRequest(base);
    req.write('{"webhooks"');
    req.flushHeaders();
    await new Promise((r) => setTimeout(r, 100));
    const closed = gateway.close();
    await new Promise((r) => setTimeout(r, 50));
    req.end(':1}');
    const res = await answered;
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    await closed;
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });

  it('does not wait for ever on a client that never finishes its request', async () => {
    const gateway = new LocalGateway({ prefix: 'test', authorizerCacheSeconds: 0, drainMs: 200 });
    const base = await gateway.listen(0);
    const { req, answered } = startRequest(base);
    answered.catch(() => undefined);
    req.write('{');
    req.flushHeaders();
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(2000);
    req.destroy();
  });
});
