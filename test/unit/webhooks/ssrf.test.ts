import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../../shared/observability/logger';
import {
  isPublicAddress,
  type LookupFunction,
  webhookConnector,
} from '../../../shared/webhooks/pipeline/ssrf';
import { postWebhook } from '../../../shared/webhooks/pipeline/transport';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '[::1]',
    'not-an-ip',
    // IPv4-compatible IPv6 (::/96, deprecated) and the rest of what the IANA special-purpose
    // registries mark not globally routable (issue 13, finding 4).
    '::127.0.0.1',
    '[::127.0.0.1]',
    '::2',
    '::a9fe:a9fe',
    '::a00:1',
    '100::1',
    '64:ff9b:1::7f00:1',
    '2001::1',
    '2001:2::1',
    '2001:db8::1',
    '2001:20::1',
    '3fff::1',
    '5f00::1',
    'fc00::1',
    'ff02::1',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '192.88.99.1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('the guarded connector', () => {
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const guarded = (resolve?: LookupFunction) =>
    new Agent({ connect: webhookConnector({ allowPrivate: false, connectTimeoutMs: 1000, resolve }) });

  it.each([
    ['127.1'],
    ['0x7f.0.0.1'],
    ['[::ffff:127.0.0.1]'],
    ['[::127.0.0.1]'],
    ['[::7f00:1]'],
    ['127.0.0.1'],
    ['localhost'],
  ])('refuses %s at connect time, records a failure and makes no connection', async (host) => {
    const before = connections;
    const outcome = await postWebhook(
      `http://${host}:${port}/hook`,
      '{}',
      {},
      { dispatcher: guarded(), timeoutMs: 2000 },
    );
    expect(outcome.statusCode).toBe(500);
    expect(outcome.delivered).toBe(false);
    expect(outcome.response.body).toMatchObject({ code: 'ETARGETBLOCKED', connect: true });
    expect(connections).toBe(before);
  });

  it('records a generic refusal that never names the address a name resolved to', async () => {
    const internal: LookupFunction = (_host, _options, callback) =>
      callback(null, [{ address: '10.20.30.40', family: 4 }]);
    const warn = vi.spyOn(logger, 'warn');
    const outcome = await postWebhook(
      'http://intranet.corp.example/',
      '{}',
      {},
      { dispatcher: guarded(internal), timeoutMs: 2000 },
    );
    expect(outcome.response.body).toEqual({
      code: 'ETARGETBLOCKED',
      connect: true,
      message: 'the webhook target is not a public address',
    });
    expect(JSON.stringify(outcome.response)).not.toContain('10.20.30.40');
    // The address is for operators: it goes to the log only.
    expect(warn).toHaveBeenCalledWith('webhook target blocked', {
      host: 'intranet.corp.example',
      address: '10.20.30.40',
    });
    warn.mockRestore();
  });

  it.each([['169.254.169.254'], ['100.64.0.1'], ['10.0.0.1']])(
    'refuses %s without trying to connect',
    async (host) => {
      const outcome = await postWebhook(
        `http://${host}/latest/meta-data`,
        '{}',
        {},
        {
          dispatcher: guarded(),
          timeoutMs: 2000,
        },
      );
      expect(outcome.response.body).toMatchObject({ code: 'ETARGETBLOCKED', connect: true });
      expect(outcome.durationMs).toBeLessThan(500);
    },
  );

  it('refuses a name that resolves to loopback at delivery time (DNS rebinding)', async () => {
    let lookups = 0;
    // First answer public (as when the webhook was created), then loopback.
    const rebinding: LookupFunction = (_host, _options, callback) => {
      lookups++;
      callback(null, [{ address: lookups === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
    };
    rebinding('rebind.example', { all: true }, () => undefined);
    const before = connections;
    const outcome = await postWebhook(
      `http://rebind.example:${port}/`,
      '{}',
      {},
      {
        dispatcher: guarded(rebinding),
        timeoutMs: 2000,
      },
    );
    expect(lookups).toBe(2);
    expect(outcome.response.body).toMatchObject({ code: 'ETARGETBLOCKED', connect: true });
    expect(connections).toBe(before);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const mixed: LookupFunction = (_host, _options, callback) =>
      callback(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.8', family: 4 },
      ]);
    const outcome = await postWebhook(
      'http://mixed.example/',
      '{}',
      {},
      { dispatcher: guarded(mixed), timeoutMs: 2000 },
    );
    expect(outcome.response.body).toMatchObject({ code: 'ETARGETBLOCKED' });
  });

  it('connects to loopback when private targets are allowed (local stage)', async () => {
    const agent = new Agent({ connect: webhookConnector({ allowPrivate: true, connectTimeoutMs: 1000 }) });
    const outcome = await postWebhook(
      `http://127.0.0.1:${port}/`,
      '{}',
      {},
      { dispatcher: agent, timeoutMs: 2000 },
    );
    expect(outcome.statusCode).toBe(200);
    expect(outcome.delivered).toBe(true);
  });
});
