/**
 * ObjectStore connector (S3 Control access grants, `@aws-sdk/client-s3-control`). The operator
 * sets up the access-grants instance and registers the location (autoBootstrap is false); the
 * connector checks that the credentials work and that `cloudLocationPath` is a registered
 * location. Nothing remote is created or removed.
 */
import { ListAccessGrantsLocationsCommand, S3ControlClient } from '@aws-sdk/client-s3-control';
import { ConnectionFailure, classifyNetworkError, connectTimeoutMs, describeFailure } from '../driver';
import { type PlatformConnector, PlatformOperationError, type PlatformPayload } from '../port';
import { failed, passed, skipped, TEST } from '../validation-tests';

type Payload = Extract<PlatformPayload, { type: 'ObjectStore' }>;

export interface ObjectStoreOptions {
  /** Endpoint override (tests, VPC endpoints). */
  endpoint?: string;
}

function clientFor(payload: Payload, options: ObjectStoreOptions): S3ControlClient {
  const c = payload.config;
  return new S3ControlClient({
    region: c.cloudRegion,
    maxAttempts: 1,
    // An override replaces the endpoint rules entirely (they would prefix the account id to the host).
    ...(options.endpoint
      ? { endpointProvider: () => ({ url: new URL(options.endpoint as string) }), disableHostPrefix: true }
      : {}),
    ...(c.authenticationType === 'accessKey'
      ? { credentials: { accessKeyId: c.cloudAccessKeyId, secretAccessKey: c.cloudSecretAccessKey } }
      : {}),
    requestHandler: { connectionTimeout: connectTimeoutMs(), requestTimeout: connectTimeoutMs() },
  });
}

function classify(error: unknown): ConnectionFailure {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (
    [
      'InvalidAccessKeyId',
      'SignatureDoesNotMatch',
      'AccessDenied',
      'UnrecognizedClientException',
      'CredentialsProviderError',
      'ExpiredToken',
    ].includes(e?.name ?? '')
  )
    return new ConnectionFailure('authentication', 'auth');
  if (e?.name === 'TimeoutError') return new ConnectionFailure('timeout', 'timeout');
  return new ConnectionFailure(classifyNetworkError(error) ?? 'other', 'network');
}

/** The deployed connector (the folder convention's `connector`). */
export function connector(options: ObjectStoreOptions = {}): PlatformConnector {
  async function locations(payload: Payload): Promise<string[]> {
    const client = clientFor(payload, options);
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
  };
}
