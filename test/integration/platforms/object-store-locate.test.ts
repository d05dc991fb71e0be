/**
 * The deployed ObjectStore driver's `locate` (ADR 0016) against a real S3 API: the local cloud's
 * emulator (`fauxqs`, which serves S3 beside SQS and SNS on one endpoint). The test puts a bucket
 * and objects there with `@aws-sdk/client-s3`, then asks the driver — its own S3 client, its
 * HeadBucket / ListObjectsV2 (MaxKeys 1) / HeadObject calls and its error classification — what
 * exists, under the integration address guard as the connector function runs it (loopback is
 * allowed only where the stage allows private hosts, ADR 0009).
 *
 * Not covered here: S3 refusing a wrong key. The emulator accepts any credentials and never checks
 * a signature, so a server-side 403 cannot be produced honestly on this machine; the credential
 * case below is the SDK finding no credentials at all.
 */
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { guardEgress } from '../../../shared/platforms/egress';
import { connector as objectStoreConnector } from '../../../shared/platforms/object-store/driver';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { LocatedPath, PlatformPayload } from '../../../shared/platforms/port';

const BLOCKED = /is not an address integrations may connect to/;

const endpoint = inject('endpoints').sqs;
const { hostname, port } = new URL(endpoint);
// Bucket names are global in the emulator: one of this run's own, and one that is never created.
const bucket = `causeway-locate-${randomUUID().slice(0, 8)}`;
const absentBucket = `${bucket}-absent`;
const KEYS = ['data/sales/2024.csv', 'data/sales/2025.csv', 'data/empty-marker.txt'];

const s3 = new S3Client({
  endpoint,
  forcePathStyle: true,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/** The integration's own keys (any: the emulator checks none), or the runtime's (`auto`). */
const CREDENTIALS = {
  accessKey: {
    authenticationType: 'accessKey',
    cloudAccessKeyId: 'AKIALOCATE',
    cloudSecretAccessKey: 'locate',
  },
  auto: { authenticationType: 'auto' },
} as const;
type Credentials = keyof typeof CREDENTIALS;

const payload = (credentials: Credentials) =>
  IntegrationPayloadSchema.parse({
    type: 'ObjectStore',
    autoBootstrap: false,
    config: {
      ...CREDENTIALS[credentials],
      name: 'locate',
      cloudLocationPath: `s3://${bucket}/`,
      cloudLocationRole: 'arn:aws:iam::123456789012:role/location',
      cloudAccountId: '123456789012',
      cloudRegion: 'us-east-1',
    },
  }) as PlatformPayload;

/** The driver's `locate`, run under the address guard as `connectorFor` runs every operation. */
async function locate(
  paths: string[],
  options: { s3Endpoint?: string; credentials?: Credentials } = {},
): Promise<LocatedPath[]> {
  const driver = objectStoreConnector({ s3Endpoint: options.s3Endpoint ?? endpoint });
  if (!driver.locate) throw new Error('the ObjectStore driver has no locate');
  const run = driver.locate.bind(driver);
  return guardEgress(() => run({ payload: payload(options.credentials ?? 'accessKey'), paths }));
}

const found = (located: LocatedPath[]) =>
  Object.fromEntries(located.map((l) => [l.path, 'found' in l ? l.found : `error: ${l.error}`]));

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS = 'true';
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const key of KEYS) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
});

afterAll(async () => {
  delete process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS;
  for (const key of KEYS) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
  s3.destroy();
});

describe('ObjectStore deployed driver: locate against an S3 API', () => {
  it('a prefix with objects under it is found; an empty or absent prefix is missing', async () => {
    expect(
      found(
        await locate([
          `s3://${bucket}/data/sales/`,
          `s3://${bucket}/data/`,
          `s3://${bucket}/data/empty/`,
          `s3://${bucket}/nothing/here/`,
          `s3://${absentBucket}/data/`,
        ]),
      ),
    ).toEqual({
      [`s3://${bucket}/data/sales/`]: true,
      [`s3://${bucket}/data/`]: true,
      [`s3://${bucket}/data/empty/`]: false,
      [`s3://${bucket}/nothing/here/`]: false,
      // ListObjectsV2 on a bucket that does not exist: NoSuchBucket, which is "missing".
      [`s3://${absentBucket}/data/`]: false,
    });
  });

  it('an existing object key is found; a missing key is missing', async () => {
    expect(
      found(
        await locate([
          `s3://${bucket}/data/sales/2024.csv`,
          `s3://${bucket}/data/empty-marker.txt`,
          `s3://${bucket}/data/sales/2026.csv`,
          `s3://${absentBucket}/data/sales/2024.csv`,
        ]),
      ),
    ).toEqual({
      [`s3://${bucket}/data/sales/2024.csv`]: true,
      [`s3://${bucket}/data/empty-marker.txt`]: true,
      [`s3://${bucket}/data/sales/2026.csv`]: false,
      [`s3://${absentBucket}/data/sales/2024.csv`]: false,
    });
  });

  it('a bare bucket is found when it exists (HeadBucket), missing when it does not', async () => {
    expect(
      found(
        await locate([`s3://${bucket}`, `s3://${bucket}/`, `s3://${absentBucket}`, `s3://${absentBucket}/`]),
      ),
    ).toEqual({
      [`s3://${bucket}`]: true,
      [`s3://${bucket}/`]: true,
      [`s3://${absentBucket}`]: false,
      [`s3://${absentBucket}/`]: false,
    });
  });

  it('a folder given without its trailing slash is found; a key that only starts a folder name is not', async () => {
    expect(
      found(
        await locate([
          `s3://${bucket}/data/sales`,
          `s3://${bucket}/data`,
          // `data/sal` is a string prefix of `data/sales/…` but no object and no folder.
          `s3://${bucket}/data/sal`,
        ]),
      ),
    ).toEqual({
      [`s3://${bucket}/data/sales`]: true,
      [`s3://${bucket}/data`]: true,
      [`s3://${bucket}/data/sal`]: false,
    });
  });

  it('answers every path in the order asked, a repeated path once per mention', async () => {
    const paths = [`s3://${bucket}/data/sales/`, `s3://${bucket}/nope`, `s3://${bucket}/data/sales/`];
    expect(await locate(paths)).toEqual([
      { path: paths[0], found: true },
      { path: paths[1], found: false },
      { path: paths[2], found: true },
    ]);
  });

  it('an object appears and disappears as S3 changes', async () => {
    const path = `s3://${bucket}/late/arrival.json`;
    expect(found(await locate([path, `s3://${bucket}/late/`]))).toEqual({
      [path]: false,
      [`s3://${bucket}/late/`]: false,
    });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'late/arrival.json', Body: '{}' }));
    expect(found(await locate([path, `s3://${bucket}/late/`]))).toEqual({
      [path]: true,
      [`s3://${bucket}/late/`]: true,
    });
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'late/arrival.json' }));
    expect(found(await locate([path, `s3://${bucket}/late`]))).toEqual({
      [path]: false,
      [`s3://${bucket}/late`]: false,
    });
  });
});

describe('ObjectStore deployed driver: a path that cannot be checked is an error, never "missing"', () => {
  const paths = [`s3://${bucket}`, `s3://${bucket}/data/sales/`, `s3://${bucket}/data/sales/2024.csv`];

  it('credentials the SDK cannot find: an authentication failure for every path', async () => {
    // `auto` takes the runtime's credentials; here there are none: no environment keys, no
    // profile files, no metadata service (which the address guard would refuse anyway).
    const names = [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_SHARED_CREDENTIALS_FILE',
      'AWS_CONFIG_FILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      'AWS_EC2_METADATA_DISABLED',
    ];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    for (const n of names) delete process.env[n];
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/causeway/credentials';
    process.env.AWS_CONFIG_FILE = '/nonexistent/causeway/config';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    try {
      const located = await locate(paths, { credentials: 'auto' });
      expect(located).toEqual(
        paths.map((path) => ({
          path,
          error: `could not check ${path}: authentication to ${hostname}:${port} failed: check the username and credentials`,
        })),
      );
    } finally {
      for (const n of names) {
        const value = saved[n];
        if (value === undefined) delete process.env[n];
        else process.env[n] = value;
      }
    }
  });

  it('a loopback endpoint where the stage does not allow private hosts: refused without a connection', async () => {
    delete process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS;
    try {
      const located = await locate(paths);
      expect(located.map((l) => l.path)).toEqual(paths);
      for (const l of located) {
        expect(l).not.toHaveProperty('found');
        expect(l).toMatchObject({ error: expect.stringMatching(BLOCKED) });
      }
    } finally {
      process.env.ALLOW_PRIVATE_INTEGRATION_HOSTS = 'true';
    }
  });

  it('an endpoint that refuses the connection: every path names the refusal', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const located = await locate(paths, { s3Endpoint: `http://127.0.0.1:${closed}` });
    expect(located).toEqual(
      paths.map((path) => ({
        path,
        error: `could not check ${path}: 127.0.0.1:${closed} refused the connection (nothing is listening on that port)`,
      })),
    );
  });
});
