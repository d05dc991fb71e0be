/**
 * Every real driver reports an unknown host (a name under `.invalid`, which never resolves)
 * and a refused connection (a closed port on 127.0.0.1) as a failed validation test with the
 * right message, within the connect timeout. No packet leaves the loopback interface.
 *
 * Through `connectorFor` (the connector the service uses), the integration address guard stands
 * in front of every driver: a loopback host, by address or by name, and the metadata address are
 * refused without a connection; loopback goes through where the stage allows private hosts.
 */
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorFor, realConnector } from '../../../shared/platforms/connectors';
import { connector as datasetWarehouseConnector } from '../../../shared/platforms/dataset-warehouse/driver';
import { connector as objectStoreConnector } from '../../../shared/platforms/object-store/driver';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { PlatformConnector, PlatformPayload } from '../../../shared/platforms/port';

const TIMEOUT_MS = 1500;
let closedPort: number;

beforeAll(async () => {
  process.env.CONNECT_TIMEOUT_MS = String(TIMEOUT_MS);
  // A port that was free a moment ago and has nothing listening: connections are refused.
  closedPort = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
});
afterAll(() => {
  delete process.env.CONNECT_TIMEOUT_MS;
});

const parse = (p: unknown) => IntegrationPayloadSchema.parse(p) as PlatformPayload;

const SERVICE_ACCOUNT = JSON.stringify({
  type: 'service_account',
  project_id: 'proj',
  client_email: 'svc@proj.iam.example.com',
  private_key: (await import('node:crypto'))
    .generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
});

type SqlType = 'CloudWarehouse' | 'AnalyticsWarehouse' | 'Lakehouse' | 'ClusterWarehouse';

function sqlPayload(type: SqlType, host: string, port: number) {
  const login = { host, port, database: 'db', username: 'u', password: 'p' };
  switch (type) {
    case 'ClusterWarehouse':
      return parse({ type, autoBootstrap: false, config: { ...login, authenticationType: 'userPassword' } });
    case 'CloudWarehouse':
      return parse({
        type,
        autoBootstrap: false,
        config: { ...login, warehouse: 'wh', authenticationType: 'userPassword' },
      });
    case 'AnalyticsWarehouse':
      return parse({
        type,
        autoBootstrap: false,
        config: { ...login, schema: 's', connectArgs: 'trustServerCertificate=true' },
      });
    case 'Lakehouse':
      return parse({
        type,
        autoBootstrap: true,
        config: {
          workspaceUrl: `https://${host}`,
          port,
          httpPath: '/sql/1.0/warehouses/x',
          authenticationType: 'token',
          token: 't',
        },
      });
  }
}

async function timed(fn: () => Promise<{ status: string; message?: string }[]>) {
  const started = Date.now();
  const tests = await fn();
  return { tests, ms: Date.now() - started };
}

describe.each(['CloudWarehouse', 'AnalyticsWarehouse', 'Lakehouse'] as const)('%s real driver', (type) => {
  let connector: PlatformConnector;
  beforeAll(async () => {
    connector = await realConnector(type);
  });

  it('an unknown host is a failed connection test, not an error', async () => {
    const { tests, ms } = await timed(() =>
      connector.validate({ operation: 'create', payload: sqlPayload(type, 'no-such-host.invalid', 443) }),
    );
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/could not reach no-such-host\.invalid|timed out/),
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 3000);
  });

  it('a refused port on loopback is a failed connection test naming the refusal', async () => {
    const { tests, ms } = await timed(() =>
      connector.validate({ operation: 'create', payload: sqlPayload(type, '127.0.0.1', closedPort) }),
    );
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/refused the connection|timed out/),
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 3000);
  });
});

describe('DatasetWarehouse real driver', () => {
  const p = () =>
    parse({
      type: 'DatasetWarehouse',
      autoBootstrap: false,
      config: { role: 'r', datasetSuffix: '_views', location: 'US', credential: SERVICE_ACCOUNT },
    });

  it('an unknown token host is a failed connection test', async () => {
    const c = datasetWarehouseConnector({ tokenUrl: 'https://oauth.no-such-host.invalid/token' });
    const { tests, ms } = await timed(() => c.validate({ operation: 'create', payload: p() }));
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/could not reach oauth\.no-such-host\.invalid/),
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 3000);
  });

  it('a refused port on loopback is a failed connection test', async () => {
    const c = datasetWarehouseConnector({ tokenUrl: `http://127.0.0.1:${closedPort}/token` });
    const { tests } = await timed(() => c.validate({ operation: 'create', payload: p() }));
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/refused the connection/),
    });
  });
});

describe('ObjectStore real driver', () => {
  const p = () =>
    parse({
      type: 'ObjectStore',
      autoBootstrap: false,
      config: {
        name: 'n',
        cloudAccountId: '123456789012',
        cloudRegion: 'us-east-1',
        cloudLocationRole: 'arn:role',
        cloudLocationPath: 's3://bucket/prefix',
        authenticationType: 'accessKey',
        cloudAccessKeyId: 'AKIAEXAMPLE',
        cloudSecretAccessKey: 'secret',
      },
    });

  it('an unknown endpoint host is a failed connection test', async () => {
    const c = objectStoreConnector({ endpoint: 'https://s3-control.no-such-host.invalid' });
    const { tests, ms } = await timed(() => c.validate({ operation: 'create', payload: p() }));
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/could not reach s3-control\.no-such-host\.invalid/),
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 3000);
  });

  it('a refused port on loopback is a failed connection test', async () => {
    const c = objectStoreConnector({ endpoint: `http://127.0.0.1:${closedPort}` });
    const { tests } = await timed(() => c.validate({ operation: 'create', payload: p() }));
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/refused the connection/),
    });
  });
});

describe('the integration address guard in front of the real drivers', () => {
  let listener: Server;
  let listening: number;
  let accepted = 0;
  beforeAll(async () => {
    process.env.PLATFORM_MODE = 'real';
    listener = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listening = (listener.address() as AddressInfo).port;
  });
  afterAll(async () => {
    delete process.env.PLATFORM_MODE;
    delete process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS;
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  const validate = async (type: SqlType, host: string, port = listening) => {
    const before = accepted;
    const { tests, ms } = await timed(async () =>
      (await connectorFor(type)).validate({ operation: 'create', payload: sqlPayload(type, host, port) }),
    );
    return { test: tests[0], reached: accepted - before, ms };
  };

  it.each(['ClusterWarehouse', 'CloudWarehouse', 'AnalyticsWarehouse', 'Lakehouse'] as const)(
    '%s: loopback and metadata refused without connecting; loopback allowed by the stage',
    async (type) => {
      delete process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS;
      for (const host of ['localhost', '127.0.0.1', '2130706433']) {
        const { test, reached } = await validate(type, host);
        // The message names the host as configured (a workspace URL's host as the URL parser reads it).
        const named = type === 'Lakehouse' ? new URL(`https://${host}`).hostname : host;
        expect({ host, reached, test }).toMatchObject({
          host,
          reached: 0,
          test: {
            status: 'failed',
            message: `${named} is not an address integrations may connect to (never link-local or metadata addresses; loopback and private addresses only where the stage allows them)`,
          },
        });
      }
      process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS = 'true';
      const metadata = await validate(type, '169.254.169.254', 80);
      expect(metadata.test).toMatchObject({
        status: 'failed',
        message: expect.stringMatching(/^169\.254\.169\.254 is not an address integrations may connect to/),
      });
      // Refused at once, not after a connect timeout.
      expect(metadata.ms).toBeLessThan(TIMEOUT_MS);
      const allowed = await validate(type, 'localhost');
      expect(allowed.reached).toBeGreaterThan(0);
      expect(allowed.test).toMatchObject({ status: 'failed' });
      expect(allowed.test?.message).not.toMatch(/not an address integrations may connect to/);
    },
  );
});
