/**
 * ObjectStore connector (S3 Control access grants, `@aws-sdk/client-s3-control`; S3 for the
 * existence of data-source paths, `@aws-sdk/client-s3`, ADR 0016). The operator sets up the
 * access-grants instance and registers the location (autoBootstrap is false); the connector checks
 * that the credentials work and that `cloudLocationPath` is a registered location, and locates
 * data-source paths. Every call uses the integration's credentials and, when `cloudRoleToAssume`
 * is set, the role assumed with them. Nothing remote is created or removed.
 */
import {
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { ListAccessGrantsLocationsCommand, S3ControlClient } from '@aws-sdk/client-s3-control';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { withoutSdkLogging } from '../../config/sdk-clients';
import { ConnectionFailure, classifyNetworkError, connectTimeoutMs, describeFailure } from '../driver';
import { locateEach } from '../locate';
import {
  type LocatedPath,
  type PlatformConnector,
  PlatformOperationError,
  type PlatformPayload,
} from '../port';
import { failed, passed, skipped, TEST } from '../validation-tests';
import { splitS3Path } from './paths';

type Payload = Extract<PlatformPayload, { type: 'ObjectStore' }>;
type Credentials = NonNullable<S3ClientConfig['credentials']>;

export interface ObjectStoreOptions {
  /** Endpoint override of S3 Control (tests, VPC endpoints). */
  endpoint?: string;
  /** Endpoint override of S3 (tests, VPC endpoints); path-style addressing. */
  s3Endpoint?: string;
}

const timeouts = () => ({ connectionTimeout: connectTimeoutMs(), requestTimeout: connectTimeoutMs() });

/** The integration's credentials, and the role it names assumed with them. */
async function credentialsFor(payload: Payload): Promise<Credentials | undefined> {
  const c = payload.config;
  const own =
    c.authenticationType === 'accessKey'
      ? { accessKeyId: c.cloudAccessKeyId, secretAccessKey: c.cloudSecretAccessKey }
      : undefined;
  if (!c.cloudRoleToAssume) return own;
  const sts = withoutSdkLogging(
    new STSClient({
      region: c.cloudRegion,
      maxAttempts: 1,
      ...(own ? { credentials: own } : {}),
      requestHandler: timeouts(),
    }),
  );
  try {
    const out = await sts.send(
      new AssumeRoleCommand({
        RoleArn: c.cloudRoleToAssume,
        RoleSessionName: 'causeway',
        DurationSeconds: 900,
      }),
    );
    const k = out.Credentials;
    if (!k?.AccessKeyId || !k.SecretAccessKey) throw new ConnectionFailure('authentication', 'auth');
    return { accessKeyId: k.AccessKeyId, secretAccessKey: k.SecretAccessKey, sessionToken: k.SessionToken };
  } finally {
    sts.destroy();
  }
}

async function controlClientFor(payload: Payload, options: ObjectStoreOptions): Promise<S3ControlClient> {
  const credentials = await credentialsFor(payload);
  return withoutSdkLogging(
    new S3ControlClient({
      region: payload.config.cloudRegion,
      maxAttempts: 1,
      // An override replaces the endpoint rules entirely (they would prefix the account id to the host).
      ...(options.endpoint
        ? { endpointProvider: () => ({ url: new URL(options.endpoint as string) }), disableHostPrefix: true }
        : {}),
      ...(credentials ? { credentials } : {}),
      requestHandler: timeouts(),
    }),
  );
}

async function s3ClientFor(payload: Payload, options: ObjectStoreOptions): Promise<S3Client> {
  const credentials = await credentialsFor(payload);
  return withoutSdkLogging(
    new S3Client({
      region: payload.config.cloudRegion,
      maxAttempts: 1,
      ...(options.s3Endpoint ? { endpoint: options.s3Endpoint, forcePathStyle: true } : {}),
      ...(credentials ? { credentials } : {}),
      requestHandler: timeouts(),
    }),
  );
}

const AUTH_ERRORS = [
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'UnrecognizedClientException',
  'CredentialsProviderError',
  'ExpiredToken',
];

function classify(error: unknown): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  const e = error as { name?: string };
  if (AUTH_ERRORS.includes(e?.name ?? '')) return new ConnectionFailure('authentication', 'auth');
  if (e?.name === 'TimeoutError') return new ConnectionFailure('timeout', 'timeout');
  return new ConnectionFailure(classifyNetworkError(error) ?? 'other', 'network');
}

const isNotFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    ['NotFound', 'NoSuchKey', 'NoSuchBucket'].includes(e?.name ?? '') || e?.$metadata?.httpStatusCode === 404
  );
};

/** Whether one path exists: HeadBucket, ListObjectsV2 with MaxKeys 1, or HeadObject (then the key as a folder). */
async function exists(client: S3Client, path: string): Promise<boolean> {
  const { bucket, key } = splitS3Path(path);
  const anyUnder = async (prefix: string) =>
    ((await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }))).KeyCount ??
      0) > 0;
  try {
    if (key === '') {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
      return true;
    }
    if (key.endsWith('/')) return await anyUnder(key);
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return await anyUnder(`${key}/`);
    }
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** The deployed connector (the folder convention's `connector`). */
export function connector(options: ObjectStoreOptions = {}): PlatformConnector {
  async function locations(payload: Payload): Promise<string[]> {
    const client = await controlClientFor(payload, options);
    try {
      const out = await client.send(
        new ListAccessGrantsLocationsCommand({ AccountId: payload.config.cloudAccountId }),
      );
      return (out.AccessGrantsLocationsList ?? []).map((l) => l.LocationScope ?? '');
    } finally {
      client.destroy();
    }
  }
  const where = (p: Payload) => {
    const url = options.endpoint ? new URL(options.endpoint) : undefined;
    return {
      host: url?.hostname ?? `s3-control.${p.config.cloudRegion}.amazonaws.com`,
      port: url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : p.config.port,
    };
  };
  const s3Where = (p: Payload) => {
    const url = options.s3Endpoint ? new URL(options.s3Endpoint) : undefined;
    return {
      host: url?.hostname ?? `s3.${p.config.cloudRegion}.amazonaws.com`,
      port: url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : p.config.port,
    };
  };
  return {
    type: 'ObjectStore',
    async validate(request) {
      const payload = request.payload as Payload;
      if (request.operation === 'delete')
        return [skipped(TEST.basicConnection, 'nothing to check for a removal')];
      let scopes: string[];
      try {
        scopes = await locations(payload);
      } catch (error) {
        const { host, port } = where(payload);
        return [
          failed(TEST.basicConnection, describeFailure(classify(error).reason, host, port)),
          skipped(TEST.accessGrantsLocation, 'skipped: the connection test failed'),
        ];
      }
      const path = payload.config.cloudLocationPath;
      return [
        passed(TEST.basicConnection),
        scopes.some((s) => path.startsWith(s.replace(/\*$/, '')))
          ? passed(TEST.accessGrantsLocation)
          : failed(TEST.accessGrantsLocation, `no access-grants location covers ${path}; register it first`),
      ];
    },
    async bootstrap(request) {
      const payload = request.payload as Payload;
      const scopes = await locations(payload).catch(() => {
        throw new PlatformOperationError('could not list the access-grants locations');
      });
      if (!scopes.some((s) => payload.config.cloudLocationPath.startsWith(s.replace(/\*$/, ''))))
        throw new PlatformOperationError('the access-grants location is not registered');
    },
    async applyEdit() {},
    async teardown() {},
    async locate(request) {
      const payload = request.payload as Payload;
      const couldNot = (path: string, error: unknown): LocatedPath => {
        const { host, port } = s3Where(payload);
        return {
          path,
          error: `could not check ${path}: ${describeFailure(classify(error).reason, host, port)}`,
        };
      };
      let client: S3Client;
      try {
        client = await s3ClientFor(payload, options);
      } catch (error) {
        return request.paths.map((path) => couldNot(path, error));
      }
      try {
        return await locateEach(request.paths, async (path) => {
          try {
            return { path, found: await exists(client, path) };
          } catch (error) {
            return couldNot(path, error);
          }
        });
      } finally {
        client.destroy();
      }
    },
  };
}
