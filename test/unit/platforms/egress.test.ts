/**
 * The integration address guard (issue 24, finding 7): which addresses an integration may reach,
 * and the connect-time check inside a platform operation's scope — literal addresses in every
 * form, names on the addresses they resolve to, over plain TCP, TLS, node:http and fetch — with
 * no connection made when refused. Outside a scope sockets are untouched.
 */
import { get } from 'node:http';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addressClass, hostAddress } from '../../../shared/net/addresses';
import { connectorFor } from '../../../shared/platforms/connectors';
import { describeFailure } from '../../../shared/platforms/driver';
import { guardEgress, literalHostAllowed } from '../../../shared/platforms/egress';
import { outsideEgressGuard, refusedInScope } from '../../../shared/platforms/egress-scope';
import { tempDir } from '../../support/temp';
import { cluster } from './fixtures';

let server: Server;
let port: number;
let accepted = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  delete process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS;
});

const allowPrivate = () => {
  process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS = 'true';
};

/** Opens a TCP connection to host:port; resolves with the error code, or 'connected'. */
function tcp(host: string, at = port): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: at });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** What a guarded operation's connection attempts came to, and how many reached the server. */
async function guarded(attempt: () => Promise<string>) {
  const before = accepted;
  const outcome = await guardEgress(attempt);
  // A refused connection never reaches the server; give an accepted one time to be counted.
  await new Promise((resolve) => setImmediate(resolve));
  return { outcome, reached: accepted - before };
}

describe('integration address classes', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['::1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['169.254.170.2', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['not an address', 'forbidden'],
  ])('%s is %s', (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it('reads literal addresses in every form the resolver accepts', () => {
    expect(
      ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '127.0.0.1', '[::1]'].map(hostAddress),
    ).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', '::1']);
    expect(hostAddress('db.example.com')).toBeUndefined();
  });

  it('the sandbox checks literal hosts and localhost under the stage setting', () => {
    for (const host of [
      '169.254.169.254',
      '127.0.0.1',
      '2130706433',
      'localhost',
      'db.localhost',
      '10.0.0.5',
    ])
      expect(literalHostAllowed(host), host).toBe(false);
    expect(literalHostAllowed('db.example.com')).toBe(true);
    expect(literalHostAllowed('93.184.216.34')).toBe(true);
    allowPrivate();
    for (const host of ['127.0.0.1', '2130706433', 'localhost', '10.0.0.5'])
      expect(literalHostAllowed(host), host).toBe(true);
    expect(literalHostAllowed('169.254.169.254')).toBe(false);
  });
});

describe('the connect-time guard', () => {
  it('refuses loopback in every form, by address and by name, without connecting', async () => {
    for (const host of ['127.0.0.1', '2130706433', '127.1', 'localhost']) {
      const { outcome, reached } = await guarded(() => tcp(host));
      expect({ host, outcome, reached }).toEqual({ host, outcome: 'ETARGETBLOCKED', reached: 0 });
    }
  });

  it('the operation’s failure message names the configured host, never the address', async () => {
    const message = await guardEgress(async () => {
      expect(refusedInScope()).toBe(false);
      // Drivers that resolve names themselves connect to the address.
      await tcp('127.0.0.1');
      expect(refusedInScope()).toBe(true);
      return describeFailure('refused', 'warehouse.localhost', port);
    });
    expect(message).toMatch(/^warehouse\.localhost is not an address integrations may connect to/);
    expect(message).not.toContain('127.0.0.1');
    // Another operation starts clean.
    expect(await guardEgress(async () => refusedInScope())).toBe(false);
  });

  it('guards TLS, node:http and fetch connections too', async () => {
    const viaTls = () =>
      new Promise<string>((resolve) => {
        const socket = tlsConnect({ host: 'localhost', port, rejectUnauthorized: false });
        socket.once('secureConnect', () => resolve('connected'));
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    const viaHttp = () =>
      new Promise<string>((resolve) => {
        get({ host: '127.0.0.1', port, path: '/' }, () => resolve('answered')).once(
          'error',
          (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message),
        );
      });
    const viaFetch = () =>
      fetch(`http://localhost:${port}/`).then(
        () => 'answered',
        (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
      );
    for (const [name, attempt] of Object.entries({ viaTls, viaHttp, viaFetch }))
      expect(await guarded(attempt), name).toEqual({ outcome: 'ETARGETBLOCKED', reached: 0 });
  });

  it('lets loopback through where the stage allows private hosts; metadata never', async () => {
    allowPrivate();
    for (const host of ['127.0.0.1', '2130706433', 'localhost'])
      expect(await guarded(() => tcp(host)), host).toEqual({ outcome: 'connected', reached: 1 });
    expect((await guarded(() => tcp('169.254.169.254', 80))).outcome).toBe('ETARGETBLOCKED');
  });

  it('leaves connections outside a platform operation alone', async () => {
    expect(await tcp('localhost')).toBe('connected');
    expect(await guardEgress(() => outsideEgressGuard(() => tcp('localhost')))).toBe('connected');
  });

  it('runs a connector operation guarded, and its step recorder (the service’s own write) outside', async () => {
    process.env.SANDBOX_DIR = tempDir('causeway-egress-');
    const connector = await connectorFor('ClusterWarehouse');
    const payload = cluster(true, { host: `h-${Date.now()}.example.com` });
    const fromRecorder: string[] = [];
    await connector.bootstrap({
      integrationId: 1,
      payload,
      progress: {
        done: [],
        async record() {
          fromRecorder.push(await tcp('127.0.0.1'));
        },
      },
    });
    expect(fromRecorder.length).toBeGreaterThan(0);
    expect(new Set(fromRecorder)).toEqual(new Set(['connected']));
  });
});
