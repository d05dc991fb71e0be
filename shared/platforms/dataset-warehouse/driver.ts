/**
 * DatasetWarehouse connector (`@google-cloud/bigquery`). The connection test exchanges a signed
 * service-account assertion for an access token itself (so the token endpoint is fixed by the
 * service, never taken from the uploaded key file, and the exchange honours the connect
 * timeout), then checks the metadata dataset through the BigQuery API.
 */
import { createSign } from 'node:crypto';
import { BigQuery } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import {
  ConnectionFailure,
  classifyNetworkError,
  connectTimeoutMs,
  describeFailure,
  withTimeout,
} from '../driver';
import {
  type PlatformConnector,
  PlatformOperationError,
  type PlatformPayload,
  TransientPlatformError,
} from '../port';
import { failed, passed, skipped, TEST } from '../validation-tests';
import { parseServiceAccount } from './schema';

type Payload = Extract<PlatformPayload, { type: 'DatasetWarehouse' }>;

export interface DatasetEndpoints {
  tokenUrl: string;
  apiEndpoint?: string;
}

const DEFAULT_ENDPOINTS: DatasetEndpoints = { tokenUrl: 'https://oauth2.googleapis.com/token' };
const SCOPE = 'https://www.googleapis.com/auth/bigquery';

function b64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

async function accessToken(credential: string, endpoints: DatasetEndpoints): Promise<string> {
  const key = parseServiceAccount(credential);
  if (!key) throw new ConnectionFailure('authentication', 'key');
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(
    JSON.stringify({
      iss: key.client_email,
      scope: SCOPE,
      aud: endpoints.tokenUrl,
      iat: now,
      exp: now + 600,
    }),
  );
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key, 'base64url');
  } catch {
    throw new ConnectionFailure('authentication', 'key');
  }
  const { host } = new URL(endpoints.tokenUrl);
  let response: Response;
  try {
    response = await fetch(endpoints.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: `${header}.${claims}.${signature}`,
      }),
      signal: AbortSignal.timeout(connectTimeoutMs()),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? 'timeout'
        : (classifyNetworkError(cause) ?? classifyNetworkError(error) ?? 'other');
    throw new ConnectionFailure(reason, host);
  }
  if (response.status === 400 || response.status === 401 || response.status === 403)
    throw new ConnectionFailure('authentication', host);
  if (!response.ok) throw new ConnectionFailure('other', host);
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new ConnectionFailure('authentication', host);
  return body.access_token;
}

function client(payload: Payload, token: string, endpoints: DatasetEndpoints): BigQuery {
  const key = parseServiceAccount(payload.config.credential);
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token });
  return new BigQuery({
    projectId: key?.project_id,
    authClient: auth,
    ...(endpoints.apiEndpoint ? { apiEndpoint: endpoints.apiEndpoint } : {}),
  } as ConstructorParameters<typeof BigQuery>[0]);
}

/** The deployed connector (the folder convention's `connector`). */
export function connector(endpoints: DatasetEndpoints = DEFAULT_ENDPOINTS): PlatformConnector {
  const host = () => new URL(endpoints.tokenUrl).hostname;
  const port = () => Number(new URL(endpoints.tokenUrl).port || 443);
  async function connect(payload: Payload): Promise<BigQuery> {
    return client(payload, await withTimeout(accessToken(payload.config.credential, endpoints)), endpoints);
  }
  return {
    type: 'DatasetWarehouse',
    async validate(request) {
      const payload = request.payload as Payload;
      if (request.operation === 'delete')
        return [skipped(TEST.basicConnection, 'nothing to check for a removal')];
      let bq: BigQuery;
      try {
        bq = await connect(payload);
      } catch (error) {
        const reason = error instanceof ConnectionFailure ? error.reason : 'other';
        return [
          failed(TEST.basicConnection, describeFailure(reason, host(), port())),
          skipped(TEST.datasetAccess, 'skipped: the connection test failed'),
        ];
      }
      try {
        const [exists] = await withTimeout(bq.dataset(payload.config.dataset).exists());
        if (!exists)
          return [passed(TEST.basicConnection), passed(TEST.datasetAccess, 'the dataset will be created')];
        const [metadata] = await withTimeout(bq.dataset(payload.config.dataset).getMetadata());
        const location = String((metadata as { location?: string }).location ?? '');
        return [
          passed(TEST.basicConnection),
          location.toLowerCase() === payload.config.location.toLowerCase()
            ? passed(TEST.datasetAccess)
            : failed(
                TEST.datasetAccess,
                `dataset ${payload.config.dataset} exists in location ${location}; the location cannot change`,
              ),
        ];
      } catch {
        return [
          passed(TEST.basicConnection),
          failed(TEST.datasetAccess, `the role cannot read dataset ${payload.config.dataset}`),
        ];
      }
    },
    async bootstrap(request) {
      const payload = request.payload as Payload;
      const bq = await connect(payload).catch((e) => {
        throw new TransientPlatformError(
          e instanceof ConnectionFailure ? describeFailure(e.reason, host(), port()) : 'connect failed',
        );
      });
      const dataset = bq.dataset(payload.config.dataset);
      const [exists] = await dataset.exists();
      if (!exists) await dataset.create({ location: payload.config.location });
    },
    async applyEdit() {
      // Only the credential or role can change; the dataset and its location are non-editable.
    },
    async teardown(request) {
      const payload = request.payload as Payload;
      const bq = await connect(payload).catch(() => {
        throw new PlatformOperationError('could not connect to remove the metadata dataset');
      });
      const dataset = bq.dataset(payload.config.dataset);
      const [exists] = await dataset.exists();
      if (exists) await dataset.delete({ force: true });
    },
  };
}
