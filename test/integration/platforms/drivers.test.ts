/**
 * Every real driver reports an unknown host (a name under `.invalid`, which never resolves)
 * and a refused connection (a closed port on 127.0.0.1) as a failed validation test with the
 * right message, within the connect timeout. No packet leaves the loopback interface.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrationPayloadSchema } from '../../../shared/platforms';
import { realConnector } from '../../../shared/platforms/connectors';
import { connector as datasetWarehouseConnector } from '../../../shared/platforms/dataset-warehouse/driver';
import { connector as objectStoreConnector } from '../../../shared/platforms/object-store/driver';
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

function sqlPayload(type: 'CloudWarehouse' | 'AnalyticsWarehouse' | 'Lakehouse', host: string, port: number) {
  switch (type) {
    case 'CloudWarehouse':
      return parse({
        type,
        autoBootstrap: false,
        config: {
          host,
          port,
          warehouse: 'wh',
          database: 'db',
          authenticationType: 'userPassword',
          username: 'u',
          password: 'p',
        },
      });
    case 'AnalyticsWarehouse':
      return parse({
        type,
        autoBootstrap: false,
        config: {
          host,
          port,
          database: 'db',
          schema: 's',
          username: 'u',
          password: 'p',
          connectArgs: 'trustServerCertificate=true',
        },
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
